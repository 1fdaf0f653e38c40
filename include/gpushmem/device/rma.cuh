/*
 * RMA: p/g, put/get (blocking and nbi: over load/store both complete before returning; through the CPU
 * proxy see transport/proxy.cuh), and the strided iput/iget. Each is written once, on the element type and the scope;
 * <shmem.h> and <shmemx.h> stamp the typed names from the type table. `call` is the public name, for error reports.
 *
 * Cooperative forms synchronise their group on entry (so lanes may have just written the source) and on
 * exit (so every lane may reuse the source, or read the destination, once the call returns).
 */
#ifndef GPUSHMEM_DEVICE_RMA_CUH
#define GPUSHMEM_DEVICE_RMA_CUH

#include <stddef.h>

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/copy.cuh"
#include "gpushmem/device/scope.cuh"

namespace gpushmem {
namespace device {
namespace {

/* One element: a volatile access, so a p or g in a loop is really issued each time. */
template <class T>
__device__ __forceinline__ void p(const char *call, T *dest, T value, int pe) {
  if (T *r = reach(call, "dest", dest, sizeof(T), pe))
    *static_cast<volatile T *>(r) = value;
  else
    remote_putmem(call, dest, &value, sizeof(T), pe, false);
}

template <class T>
__device__ __forceinline__ T g(const char *call, const T *source, int pe) {
  if (const T *r = reach(call, "source", source, sizeof(T), pe)) return *static_cast<const volatile T *>(r);
  T v;
  remote_getmem(call, &v, source, sizeof(T), pe, false);
  return v;
}

/* Over P2P the nbi forms are the blocking ones (stores complete at issue); through the proxy a put_nbi does not
   wait for a staged source, nor a get_nbi into global memory for its data (quiet does). Over the proxy the
   group's rank 0 issues the whole transfer. */
/* The cores return rank 0's event of a proxied nbi transfer (event.cuh; 0: complete); the API forms drop it. */
template <class Scope, bool Nbi>
__device__ __forceinline__ uint64_t putmem_event(const char *call, void *dest, const void *source, size_t bytes,
                                                 int pe) {
  Scope::sync();
  uint64_t ev = 0;
  if (char *r = reach(call, "dest", static_cast<char *>(dest), bytes, pe))
    copy_data<Scope>(r, source, bytes);
  else if (Scope::rank() == 0)
    ev = remote_putmem(call, dest, source, bytes, pe, Nbi);
  Scope::sync();
  return ev;
}

template <class Scope, bool Nbi>
__device__ __forceinline__ uint64_t getmem_event(const char *call, void *dest, const void *source, size_t bytes,
                                                 int pe) {
  Scope::sync();
  uint64_t ev = 0;
  if (const char *r = reach(call, "source", static_cast<const char *>(source), bytes, pe))
    copy_data<Scope>(dest, r, bytes);
  else if (Scope::rank() == 0)
    ev = remote_getmem(call, dest, source, bytes, pe, Nbi);
  Scope::sync();
  return ev;
}
template <class Scope, bool Nbi = false>
__device__ __forceinline__ void putmem(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  (void)putmem_event<Scope, Nbi>(call, dest, source, bytes, pe);
}
template <class Scope, bool Nbi = false>
__device__ __forceinline__ void getmem(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  (void)getmem_event<Scope, Nbi>(call, dest, source, bytes, pe);
}
template <class Scope>
__device__ __forceinline__ void putmem_nbi(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  putmem<Scope, true>(call, dest, source, bytes, pe);
}
template <class Scope>
__device__ __forceinline__ void getmem_nbi(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  getmem<Scope, true>(call, dest, source, bytes, pe);
}

template <class Scope, class T>
__device__ __forceinline__ void put(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  putmem<Scope>(call, dest, source, nelems * sizeof(T), pe);
}

template <class Scope, class T>
__device__ __forceinline__ void get(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  getmem<Scope>(call, dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ __forceinline__ void put_nbi(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  putmem<Scope, true>(call, dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ __forceinline__ void get_nbi(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  getmem<Scope, true>(call, dest, source, nelems * sizeof(T), pe);
}

/* Bytes spanned by nelems elements `stride` apart (the range an iput writes or an iget reads). */
template <class E>
__device__ __forceinline__ size_t strided_extent(ptrdiff_t stride, size_t nelems) {
  return nelems == 0 ? 0 : ((nelems - 1) * static_cast<size_t>(stride) + 1) * sizeof(E);
}

template <class Scope, class E>
__device__ __forceinline__ void iput(const char *call, E *dest, const E *source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  if (error_checks()) {
    check_stride(call, "dst", dst);
    check_stride(call, "sst", sst);
  }
  Scope::sync();
  if (E *r = reach(call, "dest", dest, strided_extent<E>(dst, nelems), pe)) {
    copy_strided<Scope>(r, dst, source, sst, nelems);
  } else {
    // Through the proxy: one request per element, the group's lanes sharing them.
    for (size_t i = Scope::rank(); i < nelems; i += Scope::size())
      remote_putmem(call, dest + i * dst, source + i * sst, sizeof(E), pe, false);
  }
  Scope::sync();
}

template <class Scope, class E>
__device__ __forceinline__ void iget(const char *call, E *dest, const E *source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  if (error_checks()) {
    check_stride(call, "dst", dst);
    check_stride(call, "sst", sst);
  }
  Scope::sync();
  if (const E *r = reach(call, "source", source, strided_extent<E>(sst, nelems), pe)) {
    copy_strided<Scope>(dest, dst, r, sst, nelems);
  } else {
    for (size_t i = Scope::rank(); i < nelems; i += Scope::size())
      remote_getmem(call, dest + i * dst, source + i * sst, sizeof(E), pe, false);
  }
  Scope::sync();
}

/* iputSIZE / igetSIZE: untyped elements of Bits bits. */
template <class Scope, int Bits>
__device__ __forceinline__ void iput_sized(const char *call, void *dest, const void *source, ptrdiff_t dst,
                                           ptrdiff_t sst, size_t nelems, int pe) {
  using E = typename sized_element<Bits>::type;
  iput<Scope>(call, static_cast<E *>(dest), static_cast<const E *>(source), dst, sst, nelems, pe);
}

template <class Scope, int Bits>
__device__ __forceinline__ void iget_sized(const char *call, void *dest, const void *source, ptrdiff_t dst,
                                           ptrdiff_t sst, size_t nelems, int pe) {
  using E = typename sized_element<Bits>::type;
  iget<Scope>(call, static_cast<E *>(dest), static_cast<const E *>(source), dst, sst, nelems, pe);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_RMA_CUH */
