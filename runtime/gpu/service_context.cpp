// The CUDA context the threads that serve the network work in (gpu.hpp, ServiceScope).
//
// Why a context of their own: CUDA feeds a context's streams to the GPU through a few hardware work queues
// (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default), shared round-robin, so a stream of the runtime can sit in the same
// queue as the application's. When the application has queued work behind a kernel that waits for a remote PE (a
// cudaMemcpy, a second kernel, an event on the legacy stream), a copy of the memory agent or of the sender's staging
// in that queue waits behind it, the kernel waits for the copy, and both PEs hang
// (docs/results/2026-12-06-gpu-proxy-2, "Where the five stall"). A second context has work queues of its own. It
// reaches the same memory: the GPU heap (cuMemMap'd, its access granted to the device), pinned host memory
// (allocated portable) and, through unified addressing, the application's device buffers that staging copies.
//
// GPUSHMEM_SERVICE_CONTEXT=shared keeps everything in this PE's context; a driver that refuses a second context (a
// limit of an MPS server, for one) makes it shared too, with a warning.
#include <cstring>

#include "core/log.hpp"
#include "env/env.hpp"
#include "gpu/session.hpp"

namespace gpushmem::gpu {

Status open_service_context(const char *call, Session &s) {
  const std::string &mode = env::get().GPUSHMEM_SERVICE_CONTEXT;
  if (mode != "own" && mode != "shared") {
    GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: GPUSHMEM_SERVICE_CONTEXT is '%s'; it must be own or shared", call,
                       mode.c_str());
    return Status::invalid_argument;
  }
  s.service_ctx = nullptr;
  s.service_stream = s.stream;
  if (mode == "shared") return Status::ok;
  const Driver *d = s.d;
  if (d->cuCtxCreate == nullptr) {
    GPUSHMEM_LOG_WARN(log::Subsys::init,
                      "%s: this CUDA driver offers no cuCtxCreate: the network's service threads use this PE's "
                      "context (as with GPUSHMEM_SERVICE_CONTEXT=shared)",
                      call);
    return Status::ok;
  }
  CUcontext previous = nullptr;
  (void)d->cuCtxGetCurrent(&previous);
  CUcontext ctx = nullptr;
  CUresult rc = d->cuCtxCreate(&ctx, 0, s.device.cu);  // current (pushed) on this thread
  if (rc != CUDA_SUCCESS) {
    const char *name = nullptr;
    (void)d->cuGetErrorName(rc, &name);
    GPUSHMEM_LOG_WARN(log::Subsys::init,
                      "%s: cuCtxCreate on GPU %d failed (%s): the network's service threads use this PE's context "
                      "(as with GPUSHMEM_SERVICE_CONTEXT=shared), where their copies can wait behind work the "
                      "application queued behind a kernel",
                      call, s.device.ordinal, name != nullptr ? name : "?");
    (void)d->cuCtxSetCurrent(previous);
    return Status::ok;
  }
  cudaStream_t stream = nullptr;
  const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  CUcontext popped = nullptr;
  (void)d->cuCtxPopCurrent(&popped);
  (void)d->cuCtxSetCurrent(previous);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    (void)d->cuCtxDestroy(ctx);
    GPUSHMEM_LOG_WARN(log::Subsys::init,
                      "%s: cudaStreamCreateWithFlags in the service context on GPU %d failed (%s): the network's "
                      "service threads use this PE's context",
                      call, s.device.ordinal, cudaGetErrorName(e));
    return Status::ok;
  }
  s.service_ctx = ctx;
  s.service_stream = stream;
  GPUSHMEM_LOG_INFO(log::Subsys::init,
                    "%s: the network's service threads work in a CUDA context of their own on GPU %d", call,
                    s.device.ordinal);
  return Status::ok;
}

void close_service_context(Session &s) {
  if (s.service_ctx == nullptr) {
    s.service_stream = nullptr;  // the runtime's stream, destroyed with the session
    return;
  }
  const Driver *d = s.d;
  CUcontext previous = nullptr;
  (void)d->cuCtxGetCurrent(&previous);
  if (d->cuCtxSetCurrent(s.service_ctx) == CUDA_SUCCESS) {
    (void)cudaStreamSynchronize(s.service_stream);
    (void)cudaStreamDestroy(s.service_stream);
    (void)cudaGetLastError();
  }
  (void)d->cuCtxSetCurrent(previous == s.service_ctx ? s.device.ctx : previous);
  (void)d->cuCtxDestroy(s.service_ctx);
  s.service_ctx = nullptr;
  s.service_stream = nullptr;
}

}  // namespace gpushmem::gpu
