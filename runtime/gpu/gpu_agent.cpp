// The memory agent of this PE's GPU heap (transport.hpp, MemoryAgent): what the network transport calls to
// execute a peer's operation on this GPU heap where the network cannot reach device memory (no GPUDirect).
// Copies go through the runtime's stream (copy engines, synchronously); sets are stream memory writes (no SM
// needed), the other atomics one-thread kernels with system-scope atomics, so they stay atomic with the device
// API's atomics on the same word.
#include <cstring>
#include <mutex>

#include "core/cuda_call_watch.hpp"
#include "gpu/agent_ops.hpp"
#include "gpu/gpu.hpp"
#include "gpu/module_loading.hpp"
#include "gpu/session.hpp"
#include "state.hpp"
#include "transport.hpp"

namespace gpushmem::gpu {
namespace {

class GpuHeapAgent final : public transport::MemoryAgent {
 public:
  uint64_t usable_bytes() const override { return rt().gpu.mapped.load(std::memory_order_acquire); }

  // Small word-aligned puts are stream memory writes, the others copies from a pinned bounce buffer (the network
  // delivers into pageable memory). On a GPU time-sliced between processes, a copy from host memory waits for this
  // context's slice (2.4 ms beside a spinning kernel of another process, 6 us under MPS), a stream write does not
  // (docs/results/2026-12-06-gpu-proxy). Posted puts share the buffer (packed one after the other) and one stream
  // sync: the transport completes them together (serve_agent_locked).
  Status write(uint64_t offset, const void *src, size_t bytes) override {
    cuda_watch::InCudaCall watched;  // the proxy's watchdog: CUDA calls that may wait for the context lock
    std::lock_guard<std::mutex> lock(mu_);
    GPUSHMEM_CHECK(post_locked(offset, src, bytes));
    return finish_locked();
  }
  Status post_write(uint64_t offset, const void *src, size_t bytes) override {
    cuda_watch::InCudaCall watched;
    std::lock_guard<std::mutex> lock(mu_);
    return post_locked(offset, src, bytes);
  }
  Status complete_writes() override {
    cuda_watch::InCudaCall watched;
    std::lock_guard<std::mutex> lock(mu_);
    return finish_locked();
  }

  Status read(uint64_t offset, void *dst, size_t bytes) override {
    char *base = rt().gpu.base;
    if (base == nullptr) return Status::not_supported;
    cuda_watch::InCudaCall watched;
    return copy("the network's get from this PE's GPU heap", dst, base + offset, bytes);
  }

  Status atomic(uint64_t offset, transport::AmoOp op, size_t width, uint64_t operand, uint64_t compare,
                uint64_t *old) override {
    Session *s = session();
    if (s == nullptr) return Status::not_supported;
    cuda_watch::InCudaCall watched;
    std::lock_guard<std::mutex> lock(mu_);
    ContextScope in_pe_context;
    const char *call = "the network's atomic on this PE's GPU heap";
    GPUSHMEM_CHECK(ensure_old(call, *s));
    char *word = rt().gpu.base + offset;
    if (op == transport::AmoOp::store && stream_writes(*s)) return store(call, *s, word, width, operand, old);
    cudaError_t e = agent_ops::launch_atomic(word, static_cast<int>(op), static_cast<int>(width), operand, compare,
                                             old_, s->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess)
      return rt_failed(e, call, "check that no earlier kernel failed",
                       "the agent's atomic kernel (%s, %zu bytes at %p) on GPU %d", transport::amo_op_name(op), width,
                       static_cast<void *>(word), s->device.ordinal);
    *old = *static_cast<volatile uint64_t *>(old_);
    return Status::ok;
  }

  std::string name() const override { return "this PE's GPU heap"; }

  // Allocates the pinned memory the agent uses and loads its atomic kernel (prepare_network_buffers).
  Status prepare(const char *call) {
    Session *s = session();
    if (s == nullptr) return Status::ok;
    std::lock_guard<std::mutex> lock(mu_);
    ContextScope in_pe_context;
    GPUSHMEM_CHECK(ensure_bounce(call, *s));
    agent_ops::preload();  // before any peer's atomic can arrive (lazy loading would wait for an idle GPU)
    return ensure_old(call, *s);
  }

  Status ensure_bounce(const char *call, Session &s) {
    if (bounce_ != nullptr) return Status::ok;
    void *p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, kBounceBytes, cudaHostAllocPortable);
    if (e != cudaSuccess)
      return rt_failed(e, call, "pinned host memory is exhausted or locked memory is limited (ulimit -l)",
                       "cudaHostAlloc(%zu bytes) for the GPU heap agent's bounce buffer", kBounceBytes);
    bounce_ = static_cast<char *>(p);
    bounce_session_ = &s;
    return Status::ok;
  }

  Status ensure_old(const char *call, Session &s) {
    if (old_ != nullptr) return Status::ok;
    void *p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, sizeof(uint64_t), cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess)
      return rt_failed(e, call, "pinned host memory is exhausted or locked memory is limited (ulimit -l)",
                       "cudaHostAlloc(8 bytes, mapped) on GPU %d", s.device.ordinal);
    old_ = static_cast<uint64_t *>(p);
    session_ = &s;
    return Status::ok;
  }

  Status post_locked(uint64_t offset, const void *src, size_t bytes) {
    char *base = rt().gpu.base;
    Session *s = session();
    if (base == nullptr || s == nullptr) return Status::not_supported;
    const char *call = "the network's put to this PE's GPU heap";
    // Small word-aligned puts (a device shmem_p, a flag) as stream memory writes: beside another process's
    // running kernel on a time-sliced GPU, a 4-byte copy from host memory waited 2379 us for the GPU's time
    // slice, a stream write 5.9 us (slice_probe.cu, H100, docs/results/2026-12-06-gpu-proxy).
    if (bytes <= kStreamWriteBytes && bytes % 4 == 0 && offset % 4 == 0 && stream_writes(*s)) {
      ContextScope in_pe_context;
      return write_words_locked(call, *s, base + offset, static_cast<const char *>(src), bytes);
    }
    // The buffer is full (or the put is larger than any agent message): drain it first.
    if (bytes > kBounceBytes - bounce_used_) GPUSHMEM_CHECK(complete_locked());
    if (bytes > kBounceBytes) return copy(call, base + offset, src, bytes);  // not through the buffer
    ContextScope in_pe_context;
    GPUSHMEM_CHECK(ensure_bounce(call, *s));
    char *at = bounce_ + bounce_used_;
    std::memcpy(at, src, bytes);
    cudaError_t e = copy_beside_kernels(base + offset, at, bytes, s->stream);
    if (e != cudaSuccess)
      return rt_failed(e, call, "check that no earlier kernel failed",
                       "cudaMemcpyAsync(dst=%p, %zu bytes from the pinned bounce buffer) on GPU %d",
                       static_cast<void *>(base + offset), bytes, s->device.ordinal);
    bounce_used_ += (bytes + 15) & ~size_t{15};
    if (bounce_used_ > kBounceBytes) bounce_used_ = kBounceBytes;
    return Status::ok;
  }

  // Posts `bytes` (a multiple of 4, at a 4-byte aligned `dst`) as 8- and 4-byte stream memory writes, in stream
  // order after the copies posted before them; complete_locked waits for them like for the copies.
  Status write_words_locked(const char *call, Session &s, char *dst, const char *src, size_t bytes) {
    CUstream stream = reinterpret_cast<CUstream>(s.stream);
    for (size_t done = 0; done < bytes;) {
      const CUdeviceptr addr = reinterpret_cast<CUdeviceptr>(dst + done);
      CUresult rc;
      size_t n;
      if (addr % 8 == 0 && bytes - done >= 8) {
        uint64_t v;
        std::memcpy(&v, src + done, 8);
        rc = s.d->cuStreamWriteValue64(stream, addr, v, 0);
        n = 8;
      } else {
        uint32_t v;
        std::memcpy(&v, src + done, 4);
        rc = s.d->cuStreamWriteValue32(stream, addr, v, 0);
        n = 4;
      }
      if (rc != CUDA_SUCCESS)
        return cu_failed(rc, call, "check that no earlier kernel failed", "cuStreamWriteValue%zu(%p) on GPU %d", n * 8,
                         static_cast<void *>(dst + done), s.device.ordinal);
      done += n;
    }
    writes_posted_ = true;
    return Status::ok;
  }

  // Waits for the posted copies and writes; the bounce buffer is free again. A failure is remembered (failed_)
  // until finish_locked reports it: a completion inside post_locked fails the puts posted before it too.
  Status complete_locked() {
    if (bounce_used_ == 0 && !writes_posted_) return Status::ok;
    writes_posted_ = false;
    Session *s = session();
    if (s == nullptr) return Status::not_supported;
    ContextScope in_pe_context;
    const cudaError_t e = cudaStreamSynchronize(s->stream);
    bounce_used_ = 0;  // after a failed sync the context is unusable: nothing is reused either way
    if (e != cudaSuccess) {
      failed_ = true;
      return rt_failed(e, "the network's puts to this PE's GPU heap", "check that no earlier kernel failed",
                       "cudaStreamSynchronize after the agent's copies on GPU %d", s->device.ordinal);
    }
    return Status::ok;
  }

  // Completes the posted copies and reports whether every one since the last call landed.
  Status finish_locked() {
    const Status st = complete_locked();
    const bool failed = failed_;
    failed_ = false;
    return st != Status::ok ? st : failed ? Status::system_error : Status::ok;
  }

  // Whether this GPU performs 64-bit stream memory writes (asked once per session).
  bool stream_writes(const Session &s) {
    if (memops_session_ != &s) {
      memops_session_ = &s;
      int yes = 0;
      const Driver *d = s.d;
      memops_ = d != nullptr && d->cuStreamWriteValue32 != nullptr && d->cuStreamWriteValue64 != nullptr &&
                d->cuDeviceGetAttribute(&yes, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, s.device.cu) ==
                    CUDA_SUCCESS &&
                yes != 0;
    }
    return memops_;
  }

  // A set (a put-with-signal's SIGNAL_SET, shmem_atomic_set, shmem_signal_set) as a stream memory write: the GPU's
  // front end performs it, so it needs no free SM, where the atomic kernel waits for one behind a grid that fills
  // the GPU and spins for this very word. One aligned 4- or 8-byte store, atomic against device atomics; the
  // write's default memory barrier orders the stream's earlier copies (a put-with-signal's payload) before it.
  Status store(const char *call, Session &s, char *word, size_t width, uint64_t value, uint64_t *old) {
    const CUdeviceptr addr = reinterpret_cast<CUdeviceptr>(word);
    CUstream stream = reinterpret_cast<CUstream>(s.stream);
    const CUresult rc = width == 4 ? s.d->cuStreamWriteValue32(stream, addr, static_cast<cuuint32_t>(value), 0)
                                   : s.d->cuStreamWriteValue64(stream, addr, value, 0);
    if (rc != CUDA_SUCCESS)
      return cu_failed(rc, call, "check that no earlier kernel failed", "cuStreamWriteValue%d(%p) on GPU %d",
                       width == 4 ? 32 : 64, static_cast<void *>(word), s.device.ordinal);
    const cudaError_t e = cudaStreamSynchronize(s.stream);
    if (e != cudaSuccess)
      return rt_failed(e, call, "check that no earlier kernel failed",
                       "cudaStreamSynchronize after a stream write on GPU %d", s.device.ordinal);
    *old = 0;
    return Status::ok;
  }

  // gpu::finalize, in the session's context.
  void release(Session *s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (old_ != nullptr && session_ == s) (void)cudaFreeHost(old_);
    old_ = nullptr;
    session_ = nullptr;
    if (bounce_ != nullptr && bounce_session_ == s) (void)cudaFreeHost(bounce_);
    bounce_ = nullptr;
    bounce_session_ = nullptr;
    bounce_used_ = 0;
  }

 private:
  std::mutex mu_;
  uint64_t *old_ = nullptr;                        // mapped pinned host word the atomic kernel writes the old value to
  Session *session_ = nullptr;                     // the session old_ was allocated in
  static constexpr size_t kBounceBytes = 1 << 20;  // the network's largest agent message (ucx kAgentChunkBytes)
  char *bounce_ = nullptr;                         // pinned: what posted puts copy to the GPU from
  size_t bounce_used_ = 0;                         // bytes of it the posted, not yet completed copies use
  bool writes_posted_ = false;                     // stream memory writes posted since the last completion
  static constexpr size_t kStreamWriteBytes = 64;  // puts up to this size go as stream memory writes
  bool failed_ = false;                            // a completion failed since the last complete_writes
  Session *bounce_session_ = nullptr;
  const Session *memops_session_ = nullptr;  // the session memops_ was asked for
  bool memops_ = false;
};

GpuHeapAgent g_agent;

}  // namespace

transport::MemoryAgent *heap_agent() {
  return session() != nullptr ? &g_agent : nullptr;
}

Status prepare_network_buffers(const char *call) {
  Session *s = session();
  if (s == nullptr) return Status::ok;
  warn_if_lazy_loading(call, *s->d);
  GPUSHMEM_CHECK(g_agent.prepare(call));
  Stage stage;  // one stage in the pool
  GPUSHMEM_CHECK(borrow_stage(call, &stage));
  return_stage(stage);
  return Status::ok;
}

void release_heap_agent() {
  if (Session *s = session()) g_agent.release(s);
}

bool device_memory(const void *p) {
  if (session() == nullptr || p == nullptr) return false;
  ContextScope in_pe_context;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // plain host memory on old drivers
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

}  // namespace gpushmem::gpu
