/*
 * Part of gpushmem/device/shmem_api.cuh: RMA names.
 *   Both sides: shmem_putmem / getmem (+ _nbi), shmem_TYPE_put / get / put_nbi / get_nbi / p / g for every
 *   T-RMA type but longdouble, shmem_putSIZE / getSIZE (+ _nbi), shmem_TYPE_iput / iget and shmem_iputSIZE /
 *   igetSIZE (strides in elements, >= 1).
 * On the device a put returns when its stores are issued (quiet completes them) and a get when the data
 * is in `dest`; the calling thread moves every byte.
 */
#ifndef GPUSHMEM_DEVICE_API_RMA_CUH
#define GPUSHMEM_DEVICE_API_RMA_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* ---- bytes ---------------------------------------------------------------------------------------- */
#define GPUSHMEMI_HD_MEM(OP, IMPL)                                                                           \
  extern "C" void gpushmemi_host_shmem_##OP(void *, const void *, size_t, int) __asm__("shmem_" #OP);        \
  static inline __host__ __device__ void shmem_##OP(void *dest, const void *source, size_t nelems, int pe) { \
    GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::IMPL<GPUSHMEMI_THREAD>("shmem_" #OP, dest, source, nelems, pe),         \
                      gpushmemi_host_shmem_##OP(dest, source, nelems, pe));                                  \
  }
GPUSHMEMI_HD_MEM(putmem, putmem)
GPUSHMEMI_HD_MEM(getmem, getmem)
GPUSHMEMI_HD_MEM(putmem_nbi, putmem_nbi)
GPUSHMEMI_HD_MEM(getmem_nbi, getmem_nbi)
#undef GPUSHMEMI_HD_MEM

/* ---- typed ---------------------------------------------------------------------------------------- */
#define GPUSHMEMI_STRIDED_PARAMS(T) (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)
#define GPUSHMEMI_STRIDED_ARGS (dest, source, dst, sst, nelems, pe)
#define GPUSHMEMI_HD_TYPED_BULK(T, N, OP, DIR)                                                               \
  extern "C" void gpushmemi_host_shmem_##N##_##OP(T *, const T *, size_t, int) __asm__("shmem_" #N "_" #OP); \
  static inline __host__ __device__ void shmem_##N##_##OP(T *dest, const T *source, size_t nelems, int pe) { \
    GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::DIR<GPUSHMEMI_THREAD>("shmem_" #N "_" #OP, dest, source, nelems, pe),   \
                      gpushmemi_host_shmem_##N##_##OP(dest, source, nelems, pe));                            \
  }

#define GPUSHMEMI_HD_TYPED_RMA(T, N)                                                                              \
  GPUSHMEMI_HD_TYPED_BULK(T, N, put, put)                                                                         \
  GPUSHMEMI_HD_TYPED_BULK(T, N, get, get)                                                                         \
  GPUSHMEMI_HD_TYPED_BULK(T, N, put_nbi, put_nbi)                                                                 \
  GPUSHMEMI_HD_TYPED_BULK(T, N, get_nbi, get_nbi)                                                                 \
  extern "C" void gpushmemi_host_shmem_##N##_p(T *, T, int) __asm__("shmem_" #N "_p");                            \
  extern "C" T gpushmemi_host_shmem_##N##_g(const T *, int) __asm__("shmem_" #N "_g");                            \
  static inline __host__ __device__ void shmem_##N##_p(T *dest, T value, int pe) {                                \
    GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::p("shmem_" #N "_p", dest, value, pe),                                        \
                      gpushmemi_host_shmem_##N##_p(dest, value, pe));                                             \
  }                                                                                                               \
  static inline __host__ __device__ T shmem_##N##_g(const T *source, int pe) {                                    \
    return GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::g("shmem_" #N "_g", source, pe),                                      \
                             gpushmemi_host_shmem_##N##_g(source, pe));                                           \
  }                                                                                                               \
  GPUSHMEMI_HD_FN(void, shmem_##N##_iput, GPUSHMEMI_STRIDED_PARAMS(T), GPUSHMEMI_STRIDED_ARGS,                    \
                  GPUSHMEMI_DEV::iput<GPUSHMEMI_THREAD>("shmem_" #N "_iput", dest, source, dst, sst, nelems, pe)) \
  GPUSHMEMI_HD_FN(void, shmem_##N##_iget, GPUSHMEMI_STRIDED_PARAMS(T), GPUSHMEMI_STRIDED_ARGS,                    \
                  GPUSHMEMI_DEV::iget<GPUSHMEMI_THREAD>("shmem_" #N "_iget", dest, source, dst, sst, nelems, pe))
GPUSHMEM_DEVICE_RMA_TYPES(GPUSHMEMI_HD_TYPED_RMA)
#undef GPUSHMEMI_HD_TYPED_RMA
#undef GPUSHMEMI_HD_TYPED_BULK

/* ---- sized ---------------------------------------------------------------------------------------- */
#define GPUSHMEMI_HD_SIZED_BULK(S, OP, IMPL)                                                                     \
  extern "C" void gpushmemi_host_shmem_##OP(void *, const void *, size_t, int) __asm__("shmem_" #OP);            \
  static inline __host__ __device__ void shmem_##OP(void *dest, const void *source, size_t nelems, int pe) {     \
    GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::IMPL<GPUSHMEMI_THREAD>("shmem_" #OP, dest, source, nelems * ((S) / 8), pe), \
                      gpushmemi_host_shmem_##OP(dest, source, nelems, pe));                                      \
  }

#define GPUSHMEMI_HD_SIZED_RMA(S)                                                                            \
  GPUSHMEMI_HD_SIZED_BULK(S, put##S, putmem)                                                                 \
  GPUSHMEMI_HD_SIZED_BULK(S, get##S, getmem)                                                                 \
  GPUSHMEMI_HD_SIZED_BULK(S, put##S##_nbi, putmem_nbi)                                                       \
  GPUSHMEMI_HD_SIZED_BULK(S, get##S##_nbi, getmem_nbi)                                                       \
  GPUSHMEMI_HD_FN(                                                                                           \
      void, shmem_iput##S, GPUSHMEMI_STRIDED_PARAMS(void), GPUSHMEMI_STRIDED_ARGS,                           \
      (GPUSHMEMI_DEV::iput_sized<GPUSHMEMI_THREAD, S>("shmem_iput" #S, dest, source, dst, sst, nelems, pe))) \
  GPUSHMEMI_HD_FN(                                                                                           \
      void, shmem_iget##S, GPUSHMEMI_STRIDED_PARAMS(void), GPUSHMEMI_STRIDED_ARGS,                           \
      (GPUSHMEMI_DEV::iget_sized<GPUSHMEMI_THREAD, S>("shmem_iget" #S, dest, source, dst, sst, nelems, pe)))
GPUSHMEM_RMA_SIZES(GPUSHMEMI_HD_SIZED_RMA)
#undef GPUSHMEMI_HD_SIZED_RMA
#undef GPUSHMEMI_HD_SIZED_BULK
#undef GPUSHMEMI_STRIDED_PARAMS
#undef GPUSHMEMI_STRIDED_ARGS

#endif /* GPUSHMEM_DEVICE_API_RMA_CUH */
