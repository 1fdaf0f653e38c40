// The stream-ordered operations' entry points (include/gpushmem/stream.h): the host API's argument checks
// and address translation, then work enqueued on the caller's stream. Copies go to the copy engines with
// cudaMemcpyAsync through the peer's heap mapping; signals, waits and barriers are one-thread kernels
// (stream_ops.cu). To a PE on another node (no mapping; reached through the CPU proxy) a put, get, put-with-signal
// or signal is a one-thread kernel running the device API's operation and its quiet, which also captures into
// a graph; its local buffer must then be one the GPU can read or write (device or pinned host memory). Nothing here
// waits, allocates or synchronises, so every call may be captured into a graph.
//
// The caller's stream comes from the application's CUDA runtime and is used by libgpushmem's own (static)
// runtime: a cudaStream_t is the driver's stream handle, valid in every runtime of the process that uses
// the same context, and both use the device's primary context.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "api/api_common.hpp"
#include "gpu/cuda_loader.hpp"
#include "gpu/session.hpp"
#include "gpu/stream_checks.hpp"
#include "gpu/stream_ops.hpp"
#include "gpushmem/stream.h"
#include "heap/internal_area.hpp"
#include "proxy/proxy_runtime.hpp"
#include "shmem.h"

namespace gpushmem::gpu {

namespace {
constexpr const char *kEnqueueAdvice =
    "pass a stream of this PE's GPU; during stream capture the local buffer must be device or pinned host "
    "memory (CUDA cannot capture copies from pageable memory); after a failed kernel every CUDA call of the "
    "process fails";
}  // namespace

const Session &gpu_mode(const char *call) {
  api::require_running(call);
  const Session *s = session();
  if (s == nullptr) [[unlikely]]
    api::fail(call,
              "this job runs in host mode: the symmetric heap is in host memory (GPUSHMEM_SYMMETRIC_HEAP=host, "
              "GPUSHMEM_DISABLE_CUDA=1, no CUDA file of the program includes <shmem.h>, or some PE has no usable "
              "GPU; GPUSHMEM_DEBUG=INFO says which), and stream-ordered operations need the GPU symmetric heap");
  return *s;
}

char *peer_address(const char *call, const char *arg, const void *sym, size_t bytes, int pe, bool nullptr_if_proxied) {
  Runtime &r = rt();
  if (pe < 0 || pe >= r.n_pes) [[unlikely]]
    api::fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
  const uintptr_t base = reinterpret_cast<uintptr_t>(r.gpu.base);
  const uintptr_t lo = base + heap::kInternalAreaBytes;
  const uintptr_t hi = base + r.gpu.mapped.load(std::memory_order_acquire);
  const uintptr_t p = reinterpret_cast<uintptr_t>(sym);
  if (p < lo || p > hi || bytes > hi - p) [[unlikely]]
    api::fail(call,
              "%s=%p (%zu bytes) is not a symmetric address: it is not inside the allocated part [%p, %p) of PE "
              "%d's GPU symmetric heap; pass memory from shmem_malloc",
              arg, sym, bytes, reinterpret_cast<void *>(lo), reinterpret_cast<void *>(hi), r.my_pe);
  char *peer = r.gpu.peer_base[pe];
  if (peer == nullptr) [[unlikely]] {
    if (nullptr_if_proxied && proxy_rt::reaches(pe)) return nullptr;
    api::fail_gpu_unreachable(call, pe);
  }
  return peer + (p - base);
}

void check_launch(const char *call, const Session &s, cudaError_t e, const char *kernel, cudaStream_t stream) {
  if (e == cudaSuccess) [[likely]]
    return;
  (void)rt_failed(e, call, kEnqueueAdvice, "launching gpushmem's %s kernel on stream %p of GPU %d", kernel,
                  static_cast<void *>(stream), s.device.ordinal);
  api::fail(call, "could not enqueue the operation on the stream (the CUDA error is above)");
}

namespace {

// A local buffer a proxied operation's kernel reads or writes: device memory, managed, or host memory CUDA
// mapped (cudaHostAlloc, cudaHostRegister); pageable host memory cannot be reached from a kernel.
void require_gpu_accessible(const char *call, const char *arg, const void *local, size_t bytes) {
  if (bytes == 0) return;
  cudaPointerAttributes a{};
  const bool ok = cudaPointerGetAttributes(&a, local) == cudaSuccess && a.type != cudaMemoryTypeUnregistered;
  if (!ok) {
    (void)cudaGetLastError();
    api::fail(call,
              "%s=%p is pageable host memory, which a stream-ordered transfer to a PE on another node (through "
              "the CPU proxy) cannot read or write from the GPU: pass device memory or pinned host memory "
              "(cudaMallocHost, cudaHostRegister)",
              arg, local);
  }
}

void require_buffer(const char *call, const char *arg, const void *local, size_t bytes) {
  if (local == nullptr && bytes != 0) [[unlikely]]
    api::fail(call, "%s=NULL with %zu bytes to copy: pass a device or host buffer of this process", arg, bytes);
}

uint64_t *signal_word(const char *call, uint64_t *sig_addr, int sig_op, int pe, bool nullptr_if_proxied = false) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) [[unlikely]]
    api::fail(call, "sig_op=%d is invalid: use SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD", sig_op);
  // A misaligned word would make the kernel's atomic fault the whole context.
  if (reinterpret_cast<uintptr_t>(sig_addr) % alignof(uint64_t) != 0) [[unlikely]]
    api::fail(call, "sig_addr=%p is not 8-byte aligned: a signal word is a naturally aligned uint64_t",
              static_cast<void *>(sig_addr));
  return reinterpret_cast<uint64_t *>(
      peer_address(call, "sig_addr", sig_addr, sizeof(uint64_t), pe, nullptr_if_proxied));
}

void enqueue_copy(const char *call, const Session &s, void *dst, const void *src, size_t bytes, cudaStream_t stream) {
  cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
  if (e == cudaSuccess) [[likely]]
    return;
  (void)rt_failed(e, call, kEnqueueAdvice,
                  "cudaMemcpyAsync(dst=%p, src=%p, %zu bytes, cudaMemcpyDefault, stream=%p) on GPU %d", dst, src, bytes,
                  static_cast<void *>(stream), s.device.ordinal);
  api::fail(call, "could not enqueue the copy on the stream (the CUDA error is above)");
}

void put_bytes(const char *call, void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  if (bytes == 0) return;
  char *target = peer_address(call, "dest", dest, bytes, pe, true);
  require_buffer(call, "source", source, bytes);
  ContextScope in_pe_context;
  if (target == nullptr) {
    require_gpu_accessible(call, "source", source, bytes);
    check_launch(call, s, stream::launch_proxied_put(dest, source, bytes, pe, stream), "proxied put", stream);
    return;
  }
  enqueue_copy(call, s, target, source, bytes, stream);
}

void get_bytes(const char *call, void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  if (bytes == 0) return;
  const char *origin = peer_address(call, "source", source, bytes, pe, true);
  require_buffer(call, "dest", dest, bytes);
  ContextScope in_pe_context;
  if (origin == nullptr) {
    require_gpu_accessible(call, "dest", dest, bytes);
    check_launch(call, s, stream::launch_proxied_get(dest, source, bytes, pe, stream), "proxied get", stream);
    return;
  }
  enqueue_copy(call, s, dest, origin, bytes, stream);
}

template <class T>
void put_elems(const char *call, T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {
  put_bytes(call, dest, source, api::element_bytes(call, nelems, sizeof(T)), pe, stream);
}

template <class T>
void get_elems(const char *call, T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {
  get_bytes(call, dest, source, api::element_bytes(call, nelems, sizeof(T)), pe, stream);
}

}  // namespace
}  // namespace gpushmem::gpu

using gpushmem::gpu::ContextScope;
using gpushmem::gpu::Session;
namespace g = gpushmem::gpu;

GPUSHMEM_EXPORT void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                             cudaStream_t stream) {
  g::put_bytes("shmemx_putmem_on_stream", dest, source, nelems, pe, stream);
}

GPUSHMEM_EXPORT void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                             cudaStream_t stream) {
  g::get_bytes("shmemx_getmem_on_stream", dest, source, nelems, pe, stream);
}

GPUSHMEM_EXPORT void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                                    uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  const char *call = "shmemx_putmem_signal_on_stream";
  const Session &s = g::gpu_mode(call);
  uint64_t *sig = g::signal_word(call, sig_addr, sig_op, pe, true);
  char *target = nelems != 0 ? g::peer_address(call, "dest", dest, nelems, pe, true) : nullptr;
  g::require_buffer(call, "source", source, nelems);
  ContextScope in_pe_context;
  if (sig == nullptr) {  // PE pe is reached through the CPU proxy
    g::require_gpu_accessible(call, "source", source, nelems);
    g::check_launch(call, s,
                    g::stream::launch_proxied_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, stream),
                    "proxied put-with-signal", stream);
    return;
  }
  // Payload first: the signal kernel starts only once the copy has finished (stream order).
  if (nelems != 0) g::enqueue_copy(call, s, target, source, nelems, stream);
  g::check_launch(call, s, g::stream::launch_signal_update(sig, signal, sig_op, stream), "signal", stream);
}

GPUSHMEM_EXPORT void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                                cudaStream_t stream) {
  const char *call = "shmemx_signal_op_on_stream";
  const Session &s = g::gpu_mode(call);
  uint64_t *sig = g::signal_word(call, sig_addr, sig_op, pe, true);
  ContextScope in_pe_context;
  if (sig == nullptr) {  // PE pe is reached through the CPU proxy
    g::check_launch(call, s,
                    g::stream::launch_proxied_put_signal(nullptr, nullptr, 0, sig_addr, signal, sig_op, pe, stream),
                    "proxied signal", stream);
    return;
  }
  g::check_launch(call, s, g::stream::launch_signal_update(sig, signal, sig_op, stream), "signal", stream);
}

GPUSHMEM_EXPORT void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                        cudaStream_t stream) {
  const char *call = "shmemx_signal_wait_until_on_stream";
  const Session &s = g::gpu_mode(call);
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_GE) [[unlikely]]
    gpushmem::api::fail(call, "cmp=%d is invalid: use one of SHMEM_CMP_EQ, NE, GT, LE, LT, GE", cmp);
  if (reinterpret_cast<uintptr_t>(sig_addr) % alignof(uint64_t) != 0) [[unlikely]]
    gpushmem::api::fail(call, "sig_addr=%p is not 8-byte aligned: a signal word is a naturally aligned uint64_t",
                        static_cast<void *>(sig_addr));
  // This PE's own word: checked as symmetric, then polled at its own address.
  (void)g::peer_address(call, "sig_addr", sig_addr, sizeof(uint64_t), gpushmem::rt().my_pe);
  ContextScope in_pe_context;
  g::check_launch(call, s, g::stream::launch_signal_wait_until(sig_addr, cmp, cmp_value, stream), "signal wait",
                  stream);
}

// Over P2P every earlier operation on the stream is complete once the stream has moved past it: a copy
// engine's copy ends after its writes are acknowledged, this library's signal kernels end with system-scope
// atomics, and the device API's puts complete before they return, with the kernel's end making its stores
// visible to the work after it. So stream order is the quiet and nothing is enqueued. Through the CPU proxy
// the same holds: each proxied operation's kernel quiets before it ends.
GPUSHMEM_EXPORT void shmemx_quiet_on_stream(cudaStream_t stream) {
  (void)g::gpu_mode("shmemx_quiet_on_stream");
  (void)stream;
}

GPUSHMEM_EXPORT void shmemx_barrier_all_on_stream(cudaStream_t stream) {
  const char *call = "shmemx_barrier_all_on_stream";
  const Session &s = g::gpu_mode(call);
  ContextScope in_pe_context;
  g::check_launch(call, s, g::stream::launch_barrier_all(stream), "barrier_all", stream);
}

GPUSHMEM_EXPORT void shmemx_sync_all_on_stream(cudaStream_t stream) {
  const char *call = "shmemx_sync_all_on_stream";
  const Session &s = g::gpu_mode(call);
  ContextScope in_pe_context;
  g::check_launch(call, s, g::stream::launch_sync_all(stream), "sync_all", stream);
}

#define GPUSHMEMI_DEFINE_STREAM_RMA(T, N)                                                          \
  GPUSHMEM_EXPORT void shmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                                  cudaStream_t stream) {                           \
    g::put_elems("shmemx_" #N "_put_on_stream", dest, source, nelems, pe, stream);                 \
  }                                                                                                \
  GPUSHMEM_EXPORT void shmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                                  cudaStream_t stream) {                           \
    g::get_elems("shmemx_" #N "_get_on_stream", dest, source, nelems, pe, stream);                 \
  }
GPUSHMEM_RMA_TYPES(GPUSHMEMI_DEFINE_STREAM_RMA)
#undef GPUSHMEMI_DEFINE_STREAM_RMA
