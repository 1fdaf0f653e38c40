#include "agent/cpu_atomic.hpp"

#include <atomic>

#include "agent/amo_apply.hpp"

namespace gpushmem::transport {

uint64_t cpu_atomic(void *word, AmoOp op, size_t width, uint64_t operand, uint64_t compare) {
  if (width == 4)
    return apply_amo<uint32_t>(std::atomic_ref<uint32_t>(*static_cast<uint32_t *>(word)), op,
                               static_cast<uint32_t>(operand), static_cast<uint32_t>(compare));
  return apply_amo<uint64_t>(std::atomic_ref<uint64_t>(*static_cast<uint64_t *>(word)), op, operand, compare);
}

}  // namespace gpushmem::transport
