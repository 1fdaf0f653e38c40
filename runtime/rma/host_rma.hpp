// Host-initiated RMA. Host-heap targets (same-node shared heaps) are plain loads and stores; GPU-heap
// targets (GPU mode) are synchronous copies through the runtime's CUDA stream, because the peer's heap is
// mapped in this process as device memory only. PEs reached through the network (their host or GPU heap)
// get the transport's operations (net::, which stages device buffers through host memory). Each operation is written
// once as a template over the element type; the API files only stamp names. No system call, lock or allocation on the
// host-heap path.
#pragma once

#include <cstring>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"
#include "net/net.hpp"

namespace gpushmem::rma {

// A failed copy was logged with the CUDA error where it happened; the call cannot complete, so the job ends.
inline void gpu_copy(const char *call, void *dst, const void *src, size_t bytes) {
  if (gpu::copy(call, dst, src, bytes) != Status::ok) [[unlikely]]
    api::fail(call, "the copy through the GPU failed (the CUDA error is above)");
}

// Puts and gets are complete locally when they return. Host-heap stores are visible remotely after the next
// quiet's fence; GPU-heap copies are already complete (synchronous), quiet only waits for the stream. A PE
// reached through the network gets the transport's put (complete locally on return; `nbi`: the source stays
// in use until the next quiet of `chan`) and get (complete on return).
// nelems elements of elem bytes each (1 for the mem forms).
inline void put_bytes(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int pe,
                      uint32_t chan = 0, bool nbi = false) {
  api::require_running(call);
  const size_t bytes = api::element_bytes(call, nelems, elem);
  if (bytes == 0) return api::check_pe_range(call, pe);
  api::check_local_buffer(call, "source", source, nelems);
  api::Remote remote = api::remote_addr(call, "dest", dest, bytes, pe);
  if (remote.net) [[unlikely]]
    return net::put(call, chan, pe, dest, source, bytes, nbi);
  if (remote.gpu) [[unlikely]]
    return gpu_copy(call, remote.addr, source, bytes);
  std::memcpy(remote.addr, source, bytes);
}

inline void put_bytes_nbi(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int pe,
                          uint32_t chan = 0) {
  put_bytes(call, dest, source, nelems, elem, pe, chan, true);
}

inline void get_bytes(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int pe,
                      uint32_t chan = 0) {
  api::require_running(call);
  const size_t bytes = api::element_bytes(call, nelems, elem);
  if (bytes == 0) return api::check_pe_range(call, pe);
  api::check_local_buffer(call, "dest", dest, nelems);
  api::Remote remote = api::remote_addr(call, "source", source, bytes, pe);
  if (remote.net) [[unlikely]]
    return net::get(call, chan, pe, dest, source, bytes);
  if (remote.gpu) [[unlikely]]
    return gpu_copy(call, dest, remote.addr, bytes);
  std::memcpy(dest, remote.addr, bytes);
}

template <class T>
void put(const char *call, T *dest, const T *source, size_t nelems, int pe, uint32_t chan = 0) {
  put_bytes(call, dest, source, nelems, sizeof(T), pe, chan);
}

template <class T>
void put_nbi(const char *call, T *dest, const T *source, size_t nelems, int pe, uint32_t chan = 0) {
  put_bytes(call, dest, source, nelems, sizeof(T), pe, chan, true);
}

template <class T>
void get(const char *call, T *dest, const T *source, size_t nelems, int pe, uint32_t chan = 0) {
  get_bytes(call, dest, source, nelems, sizeof(T), pe, chan);
}

template <class T>
void p(const char *call, T *dest, T value, int pe, uint32_t chan = 0) {
  api::require_running(call);
  api::Remote remote = api::remote_addr(call, "dest", dest, sizeof(T), pe);
  if (remote.net) [[unlikely]]
    return net::put(call, chan, pe, dest, &value, sizeof(T), false);
  if (remote.gpu) [[unlikely]]
    return gpu_copy(call, remote.addr, &value, sizeof(T));
  *reinterpret_cast<T *>(remote.addr) = value;
}

template <class T>
T g(const char *call, const T *source, int pe, uint32_t chan = 0) {
  api::require_running(call);
  api::Remote remote = api::remote_addr(call, "source", source, sizeof(T), pe);
  if (remote.gpu || remote.net) [[unlikely]] {
    T value;
    if (remote.net)
      net::get(call, chan, pe, &value, source, sizeof(T));
    else
      gpu_copy(call, &value, remote.addr, sizeof(T));
    return value;
  }
  return *reinterpret_cast<const T *>(remote.addr);
}

}  // namespace gpushmem::rma
