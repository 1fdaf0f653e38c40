// The staging resources of transfers between GPU buffers and the network (gpu.hpp, Stage): two pinned host
// buffers and a stream of their own per transfer, kept in a pool across transfers (pinned allocations cost
// milliseconds) and freed at gpu::finalize, in the session's context.
#include <mutex>
#include <vector>

#include "core/cuda_call_watch.hpp"
#include "gpu/gpu.hpp"
#include "gpu/session.hpp"

namespace gpushmem::gpu {
namespace {

struct Pool {
  std::mutex mu;
  std::vector<Stage> free;
};
Pool g_pool;

void destroy(const Stage &st) {
  for (uint8_t *b : st.buf)
    if (b != nullptr) (void)cudaFreeHost(b);
  if (st.stream != nullptr) (void)cudaStreamDestroy(static_cast<cudaStream_t>(st.stream));
}

}  // namespace

Status borrow_stage(const char *call, Stage *out) {
  constexpr size_t bytes = kStageChunkBytes;
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  {
    std::lock_guard<std::mutex> lock(g_pool.mu);
    if (!g_pool.free.empty()) {
      *out = g_pool.free.back();
      g_pool.free.pop_back();
      return Status::ok;
    }
  }
  ContextScope in_pe_context;
  Stage st;
  cudaError_t e = cudaSuccess;
  for (uint8_t *&b : st.buf)
    if (e == cudaSuccess) e = cudaHostAlloc(reinterpret_cast<void **>(&b), bytes, cudaHostAllocPortable);
  cudaStream_t stream = nullptr;
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  st.stream = stream;
  if (e != cudaSuccess) {
    destroy(st);
    return rt_failed(e, call, "pinned host memory is exhausted or locked memory is limited (ulimit -l)",
                     "cudaHostAlloc of 2 x %zu bytes and a stream for staging GPU buffers through host memory", bytes);
  }
  *out = st;
  return Status::ok;
}

void return_stage(const Stage &st) {
  std::lock_guard<std::mutex> lock(g_pool.mu);
  g_pool.free.push_back(st);
}

Status stage_copy_start(const char *call, const Stage &st, void *dst, const void *src, size_t bytes) {
  cuda_watch::InCudaCall watched;  // the proxy's watchdog: a call that may wait for CUDA's context lock
  ContextScope in_pe_context;
  cudaError_t e = copy_beside_kernels(dst, src, bytes, static_cast<cudaStream_t>(st.stream));
  if (e != cudaSuccess)
    return rt_failed(e, call, "check that the GPU buffer is valid device memory of this process",
                     "cudaMemcpyAsync(dst=%p, src=%p, %zu bytes) for staging through host memory", dst, src, bytes);
  return Status::ok;
}

Status stage_copy_wait(const char *call, const Stage &st) {
  cuda_watch::InCudaCall watched;
  ContextScope in_pe_context;
  cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(st.stream));
  if (e != cudaSuccess)
    return rt_failed(e, call, "check that no earlier kernel failed", "cudaStreamSynchronize of a staging copy");
  return Status::ok;
}

void release_stages() {
  std::lock_guard<std::mutex> lock(g_pool.mu);
  for (const Stage &st : g_pool.free) destroy(st);
  g_pool.free.clear();
}

}  // namespace gpushmem::gpu
