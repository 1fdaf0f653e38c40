#include <cuda/atomic>

#include "agent/amo_apply.hpp"
#include "gpu/agent_ops.hpp"

namespace gpushmem::gpu::agent_ops {
namespace {

using transport::AmoOp;

template <typename T>
__device__ T apply(void *word, AmoOp op, uint64_t operand, uint64_t compare) {
  return transport::apply_amo<T>(cuda::atomic_ref<T, cuda::thread_scope_system>(*static_cast<T *>(word)), op,
                                 static_cast<T>(operand), static_cast<T>(compare));
}

__global__ void __launch_bounds__(1)
    atomic_kernel(void *word, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old) {
  const auto o = static_cast<AmoOp>(op);
  uint64_t before;
  if (width == 4)
    before = apply<uint32_t>(word, o, operand, compare);
  else
    before = apply<unsigned long long>(word, o, operand, compare);
  *old = before;
  __threadfence_system();
}

}  // namespace

cudaError_t launch_atomic(void *word, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old,
                          cudaStream_t stream) {
  atomic_kernel<<<1, 1, 0, stream>>>(word, op, width, operand, compare, old);
  return cudaGetLastError();
}

void preload() {
  cudaFuncAttributes attributes;
  if (cudaFuncGetAttributes(&attributes, atomic_kernel) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace gpushmem::gpu::agent_ops
