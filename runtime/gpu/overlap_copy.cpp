// Copies the network's service threads issue while this process's kernels may be running (gpu.hpp,
// copy_beside_kernels). A plain cudaMemcpyAsync of a few KiB from host memory may be executed by the compute
// engine rather than a copy engine, and then waits until this process's running kernels finish: the target's
// memory agent never finished a 1040-byte put into its GPU heap while its kernel spun waiting for that very put
// (docs/results/2026-12-06-gpu-proxy-2). The copy is therefore issued as a batch of one with CUDA's hint to
// overlap it with compute work (CUDA 12.8 and later); where the driver refuses the batch call, the plain copy.
#include <atomic>

#include "gpu/session.hpp"

namespace gpushmem::gpu {
namespace {

// 0: not tried yet; 1: the batch call works; 2: refused (an older driver): plain copies.
std::atomic<int> g_batch_mode{0};

}  // namespace

cudaError_t copy_beside_kernels(void *dst, const void *src, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  if (g_batch_mode.load(std::memory_order_relaxed) != 2 && stream != nullptr) {
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    size_t first = 0;
    void *dsts[1] = {dst};
    const void *srcs[1] = {src};
    size_t sizes[1] = {bytes};
    const cudaError_t e = cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, &first, 1, stream);
    if (e == cudaSuccess) {
      g_batch_mode.store(1, std::memory_order_relaxed);
      return e;
    }
    if (e != cudaErrorNotSupported && e != cudaErrorCallRequiresNewerDriver)
      return e;  // a bad pointer or a failed context: the caller reports it
    (void)cudaGetLastError();
    g_batch_mode.store(2, std::memory_order_relaxed);
  }
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
}

}  // namespace gpushmem::gpu
