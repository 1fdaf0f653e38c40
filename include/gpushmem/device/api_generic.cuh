/*
 * Part of gpushmem/device/shmem_api.cuh: the C++ generic names in CUDA files (the specification's C11
 * generics, as overloads). Each forwards to the typed routine and lives on the same side(s):
 *   host and device: shmem_put / get / put_nbi / get_nbi / p / g / iput / iget, shmem_put_signal (+ _nbi)
 *   (long double: host only), shmem_atomic_<op> (+ _nbi), shmem_wait_until / test and their _all / _any /
 *   _some (+ _vector) forms.
 * The ctx forms (shmem_put(ctx, ...), ...) are host only: gpushmem/api/ctx.h.
 */
#ifndef GPUSHMEM_DEVICE_API_GENERIC_CUH
#define GPUSHMEM_DEVICE_API_GENERIC_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* ---- RMA ------------------------------------------------------------------------------------------ */
#define GPUSHMEMI_GENERIC_RMA(T, N, SIDES)                                                  \
  static inline SIDES void shmem_put(T *dest, const T *source, size_t nelems, int pe) {     \
    shmem_##N##_put(dest, source, nelems, pe);                                              \
  }                                                                                         \
  static inline SIDES void shmem_get(T *dest, const T *source, size_t nelems, int pe) {     \
    shmem_##N##_get(dest, source, nelems, pe);                                              \
  }                                                                                         \
  static inline SIDES void shmem_put_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    shmem_##N##_put_nbi(dest, source, nelems, pe);                                          \
  }                                                                                         \
  static inline SIDES void shmem_get_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    shmem_##N##_get_nbi(dest, source, nelems, pe);                                          \
  }                                                                                         \
  static inline SIDES void shmem_p(T *dest, T value, int pe) {                              \
    shmem_##N##_p(dest, value, pe);                                                         \
  }                                                                                         \
  static inline SIDES T shmem_g(const T *source, int pe) {                                  \
    return shmem_##N##_g(source, pe);                                                       \
  }
#define GPUSHMEMI_GENERIC_RMA_BOTH(T, N) GPUSHMEMI_GENERIC_RMA(T, N, __host__ __device__)
#define GPUSHMEMI_GENERIC_RMA_HOST(T, N) GPUSHMEMI_GENERIC_RMA(T, N, )
GPUSHMEM_DEVICE_RMA_GENERIC_TYPES(GPUSHMEMI_GENERIC_RMA_BOTH)
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEMI_GENERIC_RMA_HOST)
#undef GPUSHMEMI_GENERIC_RMA_BOTH
#undef GPUSHMEMI_GENERIC_RMA_HOST
#undef GPUSHMEMI_GENERIC_RMA

#define GPUSHMEMI_GENERIC_STRIDED(T, N, SIDES)                                                                         \
  static inline SIDES void shmem_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    shmem_##N##_iput(dest, source, dst, sst, nelems, pe);                                                              \
  }                                                                                                                    \
  static inline SIDES void shmem_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    shmem_##N##_iget(dest, source, dst, sst, nelems, pe);                                                              \
  }
#define GPUSHMEMI_GENERIC_STRIDED_BOTH(T, N) GPUSHMEMI_GENERIC_STRIDED(T, N, __host__ __device__)
#define GPUSHMEMI_GENERIC_STRIDED_HOST(T, N) GPUSHMEMI_GENERIC_STRIDED(T, N, )
GPUSHMEM_DEVICE_RMA_GENERIC_TYPES(GPUSHMEMI_GENERIC_STRIDED_BOTH)
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEMI_GENERIC_STRIDED_HOST)
#undef GPUSHMEMI_GENERIC_STRIDED_BOTH
#undef GPUSHMEMI_GENERIC_STRIDED_HOST
#undef GPUSHMEMI_GENERIC_STRIDED

#define GPUSHMEMI_GENERIC_SIGNAL(T, N, SIDES)                                                                \
  static inline SIDES void shmem_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,     \
                                            uint64_t signal, int sig_op, int pe) {                           \
    shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                              \
  }                                                                                                          \
  static inline SIDES void shmem_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                                uint64_t signal, int sig_op, int pe) {                       \
    shmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                          \
  }
#define GPUSHMEMI_GENERIC_SIGNAL_BOTH(T, N) GPUSHMEMI_GENERIC_SIGNAL(T, N, __host__ __device__)
#define GPUSHMEMI_GENERIC_SIGNAL_HOST(T, N) GPUSHMEMI_GENERIC_SIGNAL(T, N, )
GPUSHMEM_DEVICE_RMA_GENERIC_TYPES(GPUSHMEMI_GENERIC_SIGNAL_BOTH)
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEMI_GENERIC_SIGNAL_HOST)
#undef GPUSHMEMI_GENERIC_SIGNAL_BOTH
#undef GPUSHMEMI_GENERIC_SIGNAL_HOST
#undef GPUSHMEMI_GENERIC_SIGNAL

/* ---- AMO ------------------------------------------------------------------------------------------ */
#define GPUSHMEMI_GENERIC_FETCH_OP(T, N, NAME)                                                    \
  static inline __host__ __device__ T shmem_##NAME(T *dest, T value, int pe) {                    \
    return shmem_##N##_##NAME(dest, value, pe);                                                   \
  }                                                                                               \
  static inline __host__ __device__ void shmem_##NAME##_nbi(T *fetch, T *dest, T value, int pe) { \
    shmem_##N##_##NAME##_nbi(fetch, dest, value, pe);                                             \
  }
#define GPUSHMEMI_GENERIC_OP(T, N, NAME)                                          \
  static inline __host__ __device__ void shmem_##NAME(T *dest, T value, int pe) { \
    shmem_##N##_##NAME(dest, value, pe);                                          \
  }

#define GPUSHMEMI_GENERIC_AMOX(T, N)                                                                 \
  static inline __host__ __device__ T shmem_atomic_fetch(const T *source, int pe) {                  \
    return shmem_##N##_atomic_fetch(source, pe);                                                     \
  }                                                                                                  \
  static inline __host__ __device__ void shmem_atomic_fetch_nbi(T *fetch, const T *source, int pe) { \
    shmem_##N##_atomic_fetch_nbi(fetch, source, pe);                                                 \
  }                                                                                                  \
  GPUSHMEMI_GENERIC_OP(T, N, atomic_set)                                                             \
  GPUSHMEMI_GENERIC_FETCH_OP(T, N, atomic_swap)
GPUSHMEM_AMOX_GENERIC_TYPES(GPUSHMEMI_GENERIC_AMOX)
#undef GPUSHMEMI_GENERIC_AMOX

#define GPUSHMEMI_GENERIC_AMO(T, N)                                                                                  \
  static inline __host__ __device__ T shmem_atomic_compare_swap(T *dest, T cond, T value, int pe) {                  \
    return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                                                   \
  }                                                                                                                  \
  static inline __host__ __device__ void shmem_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) { \
    shmem_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe);                                               \
  }                                                                                                                  \
  static inline __host__ __device__ T shmem_atomic_fetch_inc(T *dest, int pe) {                                      \
    return shmem_##N##_atomic_fetch_inc(dest, pe);                                                                   \
  }                                                                                                                  \
  static inline __host__ __device__ void shmem_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                     \
    shmem_##N##_atomic_fetch_inc_nbi(fetch, dest, pe);                                                               \
  }                                                                                                                  \
  static inline __host__ __device__ void shmem_atomic_inc(T *dest, int pe) {                                         \
    shmem_##N##_atomic_inc(dest, pe);                                                                                \
  }                                                                                                                  \
  GPUSHMEMI_GENERIC_FETCH_OP(T, N, atomic_fetch_add)                                                                 \
  GPUSHMEMI_GENERIC_OP(T, N, atomic_add)
GPUSHMEM_AMO_GENERIC_TYPES(GPUSHMEMI_GENERIC_AMO)
#undef GPUSHMEMI_GENERIC_AMO

#define GPUSHMEMI_GENERIC_AMOB(T, N)                 \
  GPUSHMEMI_GENERIC_FETCH_OP(T, N, atomic_fetch_and) \
  GPUSHMEMI_GENERIC_OP(T, N, atomic_and)             \
  GPUSHMEMI_GENERIC_FETCH_OP(T, N, atomic_fetch_or)  \
  GPUSHMEMI_GENERIC_OP(T, N, atomic_or)              \
  GPUSHMEMI_GENERIC_FETCH_OP(T, N, atomic_fetch_xor) \
  GPUSHMEMI_GENERIC_OP(T, N, atomic_xor)
GPUSHMEM_AMOB_GENERIC_TYPES(GPUSHMEMI_GENERIC_AMOB)
#undef GPUSHMEMI_GENERIC_AMOB
#undef GPUSHMEMI_GENERIC_FETCH_OP
#undef GPUSHMEMI_GENERIC_OP

/* ---- wait_until and test -------------------------------------------------------------------------- */
#define GPUSHMEMI_GENERIC_WAIT_SET(T, N, SUFFIX, ARG, VALUE)                                                           \
  static inline __host__ __device__ void shmem_wait_until_all##SUFFIX(T *ivars, size_t nelems, const int *status,      \
                                                                      int cmp, ARG) {                                  \
    shmem_##N##_wait_until_all##SUFFIX(ivars, nelems, status, cmp, VALUE);                                             \
  }                                                                                                                    \
  static inline __host__ __device__ size_t shmem_wait_until_any##SUFFIX(T *ivars, size_t nelems, const int *status,    \
                                                                        int cmp, ARG) {                                \
    return shmem_##N##_wait_until_any##SUFFIX(ivars, nelems, status, cmp, VALUE);                                      \
  }                                                                                                                    \
  static inline __host__ __device__ size_t shmem_wait_until_some##SUFFIX(T *ivars, size_t nelems, size_t *indices,     \
                                                                         const int *status, int cmp, ARG) {            \
    return shmem_##N##_wait_until_some##SUFFIX(ivars, nelems, indices, status, cmp, VALUE);                            \
  }                                                                                                                    \
  static inline __host__ __device__ int shmem_test_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,    \
                                                               ARG) {                                                  \
    return shmem_##N##_test_all##SUFFIX(ivars, nelems, status, cmp, VALUE);                                            \
  }                                                                                                                    \
  static inline __host__ __device__ size_t shmem_test_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, \
                                                                  ARG) {                                               \
    return shmem_##N##_test_any##SUFFIX(ivars, nelems, status, cmp, VALUE);                                            \
  }                                                                                                                    \
  static inline __host__ __device__ size_t shmem_test_some##SUFFIX(T *ivars, size_t nelems, size_t *indices,           \
                                                                   const int *status, int cmp, ARG) {                  \
    return shmem_##N##_test_some##SUFFIX(ivars, nelems, indices, status, cmp, VALUE);                                  \
  }
#define GPUSHMEMI_GENERIC_WAIT(T, N)                                                       \
  static inline __host__ __device__ void shmem_wait_until(T *ivar, int cmp, T cmp_value) { \
    shmem_##N##_wait_until(ivar, cmp, cmp_value);                                          \
  }                                                                                        \
  static inline __host__ __device__ int shmem_test(T *ivar, int cmp, T cmp_value) {        \
    return shmem_##N##_test(ivar, cmp, cmp_value);                                         \
  }                                                                                        \
  GPUSHMEMI_GENERIC_WAIT_SET(T, N, , T cmp_value, cmp_value)                               \
  GPUSHMEMI_GENERIC_WAIT_SET(T, N, _vector, const T *cmp_values, cmp_values)
GPUSHMEM_AMO_GENERIC_TYPES(GPUSHMEMI_GENERIC_WAIT)
#undef GPUSHMEMI_GENERIC_WAIT
#undef GPUSHMEMI_GENERIC_WAIT_SET

#endif /* GPUSHMEM_DEVICE_API_GENERIC_CUH */
