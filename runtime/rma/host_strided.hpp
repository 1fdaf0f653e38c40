// Host-initiated strided RMA (iput / iget): one template over the element size, shared by the typed and
// SIZE forms and their ctx forms. Host-heap targets are strided loads and stores; GPU-heap targets are one
// 2-D copy on the runtime's stream (pitches = strides in bytes, one element per row), synchronous.
#pragma once

#include <cstddef>
#include <cstring>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"
#include "net/net.hpp"

namespace gpushmem::rma {

// Ends the job: a stride below 1, or a strided range that does not fit in the address space.
[[noreturn]] void fail_stride(const char *call, const char *arg, ptrdiff_t stride);
[[noreturn]] void fail_strided_extent(const char *call, const char *arg, ptrdiff_t stride, size_t nelems,
                                      size_t elem_bytes);

// Bytes from the first byte of element 0 to the last byte of element nelems-1, `stride` elements apart
// (nelems > 0, stride >= 1). Overflow ends the job when error checks are on.
inline size_t strided_extent(const char *call, const char *arg, ptrdiff_t stride, size_t nelems, size_t elem) {
  size_t span = 0, bytes = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(stride), &span) ||
      __builtin_add_overflow(span, size_t{1}, &span) || __builtin_mul_overflow(span, elem, &bytes)) [[unlikely]]
    fail_strided_extent(call, arg, stride, nelems, elem);
  return bytes;
}

inline void check_strides(const char *call, ptrdiff_t dst, ptrdiff_t sst) {
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (rt().error_checks) [[likely]] {
      if (dst < 1) [[unlikely]]
        fail_stride(call, "dst", dst);
      if (sst < 1) [[unlikely]]
        fail_stride(call, "sst", sst);
    }
  }
}

// Copies nelems elements of Bytes bytes from src (stride sst elements) to dst (stride dst_stride elements).
template <size_t Bytes>
void copy_strided(char *dst, ptrdiff_t dst_stride, const char *src, ptrdiff_t src_stride, size_t nelems) {
  const ptrdiff_t dstep = dst_stride * static_cast<ptrdiff_t>(Bytes);
  const ptrdiff_t sstep = src_stride * static_cast<ptrdiff_t>(Bytes);
  for (size_t i = 0; i < nelems; ++i, dst += dstep, src += sstep) std::memcpy(dst, src, Bytes);  // one move each
}

// A failed copy was logged with the CUDA error where it happened; the call cannot complete, so the job ends.
inline void gpu_copy_strided(const char *call, char *dst, ptrdiff_t dst_stride, const char *src, ptrdiff_t src_stride,
                             size_t elem, size_t nelems) {
  if (gpu::copy_2d(call, dst, static_cast<size_t>(dst_stride) * elem, src, static_cast<size_t>(src_stride) * elem, elem,
                   nelems) != Status::ok) [[unlikely]]
    api::fail(call, "the strided copy through the GPU failed (the CUDA error is above)");
}

// Over the network: one put or get per element (a strided target is not one transfer).
template <size_t Bytes>
void net_iput(const char *call, uint32_t chan, int pe, char *dest, ptrdiff_t dst, const char *src, ptrdiff_t sst,
              size_t nelems) {
  for (size_t i = 0; i < nelems; ++i)
    net::put(call, chan, pe, dest + static_cast<ptrdiff_t>(i) * dst * static_cast<ptrdiff_t>(Bytes),
             src + static_cast<ptrdiff_t>(i) * sst * static_cast<ptrdiff_t>(Bytes), Bytes, false);
}
template <size_t Bytes>
void net_iget(const char *call, uint32_t chan, int pe, char *dest, ptrdiff_t dst, const char *src, ptrdiff_t sst,
              size_t nelems) {
  for (size_t i = 0; i < nelems; ++i)
    net::get(call, chan, pe, dest + static_cast<ptrdiff_t>(i) * dst * static_cast<ptrdiff_t>(Bytes),
             src + static_cast<ptrdiff_t>(i) * sst * static_cast<ptrdiff_t>(Bytes), Bytes);
}

template <size_t Bytes>
void iput(const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
          uint32_t chan = 0) {
  api::require_running(call);
  check_strides(call, dst, sst);
  if (nelems == 0) return;
  api::check_local_buffer(call, "source", source, nelems);
  api::Remote remote = api::remote_addr(call, "dest", dest, strided_extent(call, "dst", dst, nelems, Bytes), pe);
  if (remote.net) [[unlikely]]
    return net_iput<Bytes>(call, chan, pe, static_cast<char *>(dest), dst, static_cast<const char *>(source), sst,
                           nelems);
  if (remote.gpu) [[unlikely]]
    return gpu_copy_strided(call, remote.addr, dst, static_cast<const char *>(source), sst, Bytes, nelems);
  copy_strided<Bytes>(remote.addr, dst, static_cast<const char *>(source), sst, nelems);
}

template <size_t Bytes>
void iget(const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
          uint32_t chan = 0) {
  api::require_running(call);
  check_strides(call, dst, sst);
  if (nelems == 0) return;
  api::check_local_buffer(call, "dest", dest, nelems);
  api::Remote remote = api::remote_addr(call, "source", source, strided_extent(call, "sst", sst, nelems, Bytes), pe);
  if (remote.net) [[unlikely]]
    return net_iget<Bytes>(call, chan, pe, static_cast<char *>(dest), dst, static_cast<const char *>(source), sst,
                           nelems);
  if (remote.gpu) [[unlikely]]
    return gpu_copy_strided(call, static_cast<char *>(dest), dst, remote.addr, sst, Bytes, nelems);
  copy_strided<Bytes>(static_cast<char *>(dest), dst, remote.addr, sst, nelems);
}

}  // namespace gpushmem::rma
