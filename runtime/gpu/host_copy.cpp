// Host-initiated transfers on GPU-heap addresses: every local peer's heap is mapped in this process, so one
// cudaMemcpy on the runtime's stream reaches it, whichever GPU it lives on. Synchronous, as the host API's
// completion rules want (a put's source may be reused at once; a get's data is there when it returns).
#include "gpu/session.hpp"

namespace gpushmem::gpu {

Status copy(const char *call, void *dst, const void *src, size_t bytes) {
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  ContextScope in_pe_context;
  cudaError_t e = copy_beside_kernels(dst, src, bytes, s->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return rt_failed(e, call,
                     "check that the local buffer is valid host or device memory of this process and that no "
                     "earlier kernel failed",
                     "cudaMemcpyAsync(dst=%p, src=%p, %zu bytes, cudaMemcpyDefault) on GPU %d", dst, src, bytes,
                     s->device.ordinal);
  return Status::ok;
}

Status copy_2d(const char *call, void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
               size_t rows) {
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  ContextScope in_pe_context;
  cudaError_t e = cudaSuccess;
  // cudaMemcpy2D refuses pitches above the device's maximum (cudaDevAttrMaxPitch, about 2 GiB): such strides
  // become one copy per element, still queued on the stream before the one synchronisation.
  int max_pitch = 0;
  if (cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, s->device.ordinal) == cudaSuccess &&
      dst_pitch <= static_cast<size_t>(max_pitch) && src_pitch <= static_cast<size_t>(max_pitch)) {
    e = cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyDefault, s->stream);
  } else {
    for (size_t i = 0; i < rows && e == cudaSuccess; ++i)
      e = cudaMemcpyAsync(static_cast<char *>(dst) + i * dst_pitch, static_cast<const char *>(src) + i * src_pitch,
                          width, cudaMemcpyDefault, s->stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return rt_failed(e, call,
                     "check that the local buffer is valid host or device memory of this process and that no "
                     "earlier kernel failed",
                     "cudaMemcpy2DAsync(dst=%p, dpitch=%zu, src=%p, spitch=%zu, width=%zu, height=%zu, "
                     "cudaMemcpyDefault) on GPU %d",
                     dst, dst_pitch, src, src_pitch, width, rows, s->device.ordinal);
  return Status::ok;
}

Status zero(const char *call, void *dst, size_t bytes) {
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  ContextScope in_pe_context;
  cudaError_t e = cudaMemsetAsync(dst, 0, bytes, s->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return rt_failed(e, call, "check that no earlier kernel failed", "cudaMemsetAsync(ptr=%p, 0, %zu) on GPU %d", dst,
                     bytes, s->device.ordinal);
  return Status::ok;
}

Status quiet(const char *call) {
  Session *s = session();
  if (s == nullptr) return Status::ok;
  ContextScope in_pe_context;
  cudaError_t e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return rt_failed(e, call, "check that no earlier kernel failed", "cudaStreamSynchronize(runtime stream) on GPU %d",
                     s->device.ordinal);
  return Status::ok;
}

}  // namespace gpushmem::gpu
