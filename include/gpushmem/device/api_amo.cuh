/*
 * Part of gpushmem/device/shmem_api.cuh: the AMOs, device only for now (the host forms come later).
 *   T-AMOX: shmem_TYPE_atomic_fetch / set / swap;
 *   T-AMO:  compare_swap, fetch_inc / inc, fetch_add / add;
 *   T-AMOB: fetch_and / and, fetch_or / or, fetch_xor / xor;
 *   and the non-blocking fetching forms shmem_TYPE_atomic_<op>_nbi(TYPE *fetch, ...), which store the old
 *   value in the local *fetch (over P2P before they return).
 * Each is one system-scope atomic on the target PE's word, relaxed: fence and quiet order AMOs.
 */
#ifndef GPUSHMEM_DEVICE_API_AMO_CUH
#define GPUSHMEM_DEVICE_API_AMO_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* A fetching AMO with one operand and its _nbi form. */
/* NAME is the whole suffix (atomic_fetch_and): C++ reserves and, or and xor as operator names, which
   cannot be pasted into identifiers. */
#define GPUSHMEMI_AMO_FETCH_OP(T, N, NAME, IMPL)                                               \
  static inline __device__ T shmem_##N##_##NAME(T *dest, T value, int pe) {                    \
    return GPUSHMEMI_DEV::IMPL("shmem_" #N "_" #NAME, dest, value, pe);                        \
  }                                                                                            \
  static inline __device__ void shmem_##N##_##NAME##_nbi(T *fetch, T *dest, T value, int pe) { \
    *fetch = GPUSHMEMI_DEV::IMPL("shmem_" #N "_" #NAME "_nbi", dest, value, pe);               \
  }
/* A non-fetching AMO with one operand. */
#define GPUSHMEMI_AMO_OP(T, N, NAME, IMPL)                                     \
  static inline __device__ void shmem_##N##_##NAME(T *dest, T value, int pe) { \
    (void)GPUSHMEMI_DEV::IMPL("shmem_" #N "_" #NAME, dest, value, pe);         \
  }

#define GPUSHMEMI_AMOX(T, N)                                                                      \
  static inline __device__ T shmem_##N##_atomic_fetch(const T *source, int pe) {                  \
    return GPUSHMEMI_DEV::atomic_fetch("shmem_" #N "_atomic_fetch", source, pe);                  \
  }                                                                                               \
  static inline __device__ void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) { \
    *fetch = GPUSHMEMI_DEV::atomic_fetch("shmem_" #N "_atomic_fetch_nbi", source, pe);            \
  }                                                                                               \
  static inline __device__ void shmem_##N##_atomic_set(T *dest, T value, int pe) {                \
    GPUSHMEMI_DEV::atomic_set("shmem_" #N "_atomic_set", dest, value, pe);                        \
  }                                                                                               \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_swap, atomic_swap)
GPUSHMEM_AMOX_TYPES(GPUSHMEMI_AMOX)
#undef GPUSHMEMI_AMOX

#define GPUSHMEMI_AMO(T, N)                                                                                       \
  static inline __device__ T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                  \
    return GPUSHMEMI_DEV::atomic_compare_swap("shmem_" #N "_atomic_compare_swap", dest, cond, value, pe);         \
  }                                                                                                               \
  static inline __device__ void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) { \
    *fetch = GPUSHMEMI_DEV::atomic_compare_swap("shmem_" #N "_atomic_compare_swap_nbi", dest, cond, value, pe);   \
  }                                                                                                               \
  static inline __device__ T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                      \
    return GPUSHMEMI_DEV::atomic_fetch_add("shmem_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), pe);         \
  }                                                                                                               \
  static inline __device__ void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                     \
    *fetch = GPUSHMEMI_DEV::atomic_fetch_add("shmem_" #N "_atomic_fetch_inc_nbi", dest, static_cast<T>(1), pe);   \
  }                                                                                                               \
  static inline __device__ void shmem_##N##_atomic_inc(T *dest, int pe) {                                         \
    (void)GPUSHMEMI_DEV::atomic_fetch_add("shmem_" #N "_atomic_inc", dest, static_cast<T>(1), pe);                \
  }                                                                                                               \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_add, atomic_fetch_add)                                                \
  GPUSHMEMI_AMO_OP(T, N, atomic_add, atomic_fetch_add)
GPUSHMEM_AMO_TYPES(GPUSHMEMI_AMO)
#undef GPUSHMEMI_AMO

#define GPUSHMEMI_AMOB(T, N)                                       \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_and, atomic_fetch_and) \
  GPUSHMEMI_AMO_OP(T, N, atomic_and, atomic_fetch_and)             \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_or, atomic_fetch_or)   \
  GPUSHMEMI_AMO_OP(T, N, atomic_or, atomic_fetch_or)               \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_xor, atomic_fetch_xor) \
  GPUSHMEMI_AMO_OP(T, N, atomic_xor, atomic_fetch_xor)
GPUSHMEM_AMOB_TYPES(GPUSHMEMI_AMOB)
#undef GPUSHMEMI_AMOB

#undef GPUSHMEMI_AMO_FETCH_OP
#undef GPUSHMEMI_AMO_OP

#endif /* GPUSHMEM_DEVICE_API_AMO_CUH */
