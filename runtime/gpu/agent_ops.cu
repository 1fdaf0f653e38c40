#include <cuda/atomic>

#include "gpu/agent_ops.hpp"
#include "transport.hpp"

namespace gpushmem::gpu::agent_ops {
namespace {

using transport::AmoOp;

template <typename T>
__device__ T apply(T *word, AmoOp op, T operand, T compare) {
  cuda::atomic_ref<T, cuda::thread_scope_system> w(*word);
  switch (op) {
    case AmoOp::load:
      return w.load(cuda::memory_order_seq_cst);
    case AmoOp::store:
    case AmoOp::swap:
      return w.exchange(operand, cuda::memory_order_seq_cst);
    case AmoOp::cswap: {
      T expected = compare;
      w.compare_exchange_strong(expected, operand, cuda::memory_order_seq_cst);
      return expected;
    }
    case AmoOp::add:
      return w.fetch_add(operand, cuda::memory_order_seq_cst);
    case AmoOp::and_:
      return w.fetch_and(operand, cuda::memory_order_seq_cst);
    case AmoOp::or_:
      return w.fetch_or(operand, cuda::memory_order_seq_cst);
    case AmoOp::xor_:
      return w.fetch_xor(operand, cuda::memory_order_seq_cst);
  }
  return 0;
}

__global__ void __launch_bounds__(1)
    atomic_kernel(void *word, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old) {
  const auto o = static_cast<AmoOp>(op);
  uint64_t before;
  if (width == 4)
    before = apply<uint32_t>(static_cast<uint32_t *>(word), o, static_cast<uint32_t>(operand),
                             static_cast<uint32_t>(compare));
  else
    before = apply<unsigned long long>(static_cast<unsigned long long *>(word), o, operand, compare);
  *old = before;
  __threadfence_system();
}

}  // namespace

cudaError_t launch_atomic(void *word, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old,
                          cudaStream_t stream) {
  atomic_kernel<<<1, 1, 0, stream>>>(word, op, width, operand, compare, old);
  return cudaGetLastError();
}

}  // namespace gpushmem::gpu::agent_ops
