/*
 * Part of <shmem.h> (include <shmem.h>, never this file): strided RMA on the default context.
 *
 *   shmem_TYPE_iput(dest, source, dst, sst, nelems, pe) for every standard RMA type, shmem_iputSIZE for SIZE
 *   8, 16, 32, 64, 128 (bits): element i of the local `source` (at source[i * sst]) goes to dest[i * dst] on
 *   PE pe, for i in 0..nelems-1. Returns when `source` may be reused (local completion); remote completion
 *   needs shmem_quiet, like shmem_TYPE_put.
 *   shmem_TYPE_iget / shmem_igetSIZE: element i of symmetric `source` on PE pe (at source[i * sst]) goes to
 *   the local dest[i * dst]; returns when the data is in `dest`.
 *
 * Strides count elements, not bytes, and must be at least 1 (the specification's rule): with error checks
 * on, a stride below 1 ends the job with a message naming the call and the argument. nelems 0 moves
 * nothing. The whole strided range on PE pe must lie in the symmetric heap. Typed forms need naturally
 * aligned addresses and SIZE forms SIZE-bit aligned ones. Thread safe (any thread the thread level allows).
 * Host-heap targets are strided loads and stores; GPU-heap targets (GPU mode) are one 2-D copy on the
 * runtime's stream, complete when the call returns.
 *
 * The shmem_ctx_ forms are in gpushmem/api/ctx.h, the C11 generic names shmem_iput / shmem_iget in
 * gpushmem/api/generic_c11.h; the C++ overloads of shmem_iput / shmem_iget are below.
 */
#ifndef GPUSHMEM_API_RMA_STRIDED_H
#define GPUSHMEM_API_RMA_STRIDED_H

#ifndef GPUSHMEM_SHMEM_H
#error "gpushmem/api/rma_strided.h is part of <shmem.h>: include <shmem.h> instead"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GPUSHMEM_DECLARE_STRIDED(T, N)                                                                  \
  void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
#define GPUSHMEM_DECLARE_SIZED_STRIDED(S)                                                                  \
  void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_RMA_TYPES(GPUSHMEM_DECLARE_STRIDED)
GPUSHMEM_RMA_SIZES(GPUSHMEM_DECLARE_SIZED_STRIDED)
#else
/* CUDA: long double is host only; the other types and the SIZE forms are host/device functions
   (gpushmem/device/api_rma.cuh). */
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_STRIDED)
#endif
#undef GPUSHMEM_DECLARE_STRIDED
#undef GPUSHMEM_DECLARE_SIZED_STRIDED

#ifdef __cplusplus
} /* extern "C" */
#endif

/* C++ overloads shmem_iput / shmem_iget (CUDA files get host/device ones from gpushmem/device/api_generic.cuh). */
#if defined(__cplusplus) && !defined(GPUSHMEMI_DEVICE_API)
#define GPUSHMEM_OVERLOAD_STRIDED(T, N)                                                                          \
  static inline void shmem_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    shmem_##N##_iput(dest, source, dst, sst, nelems, pe);                                                        \
  }                                                                                                              \
  static inline void shmem_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    shmem_##N##_iget(dest, source, dst, sst, nelems, pe);                                                        \
  }
GPUSHMEM_RMA_GENERIC_TYPES(GPUSHMEM_OVERLOAD_STRIDED)
#undef GPUSHMEM_OVERLOAD_STRIDED
#endif

#endif /* GPUSHMEM_API_RMA_STRIDED_H */
