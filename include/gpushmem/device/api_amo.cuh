/*
 * Part of gpushmem/device/shmem_api.cuh: the AMOs, on both sides (the host forms call the library, which
 * supports host-heap words only).
 *   T-AMOX: shmem_TYPE_atomic_fetch / set / swap;
 *   T-AMO:  compare_swap, fetch_inc / inc, fetch_add / add;
 *   T-AMOB: fetch_and / and, fetch_or / or, fetch_xor / xor;
 *   and the non-blocking fetching forms shmem_TYPE_atomic_<op>_nbi(TYPE *fetch, ...), which store the old
 *   value in the local *fetch (over P2P before they return).
 * On the device each is one system-scope atomic on the target PE's word, relaxed: fence and quiet order AMOs.
 */
#ifndef GPUSHMEM_DEVICE_API_AMO_CUH
#define GPUSHMEM_DEVICE_API_AMO_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* A fetching AMO with one operand, its _nbi form and its non-fetching form. FETCH and PLAIN are whole
   suffixes (atomic_fetch_and, atomic_and): C++ reserves and, or and xor as operator names, which cannot be
   pasted into identifiers. */
#define GPUSHMEMI_AMO_FETCH_OP(T, N, FETCH, PLAIN, IMPL, PLAIN_IMPL)                                                 \
  GPUSHMEMI_HD_FN(T, shmem_##N##_##FETCH, (T * dest, T value, int pe), (dest, value, pe),                            \
                  (GPUSHMEMI_DEV::IMPL("shmem_" #N "_" #FETCH, dest, value, pe)))                                    \
  GPUSHMEMI_HD_FN(void, shmem_##N##_##FETCH##_nbi, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe), \
                  (void)(*fetch = GPUSHMEMI_DEV::IMPL("shmem_" #N "_" #FETCH "_nbi", dest, value, pe)))              \
  GPUSHMEMI_HD_FN(void, shmem_##N##_##PLAIN, (T * dest, T value, int pe), (dest, value, pe),                         \
                  GPUSHMEMI_DEV::PLAIN_IMPL("shmem_" #N "_" #PLAIN, dest, value, pe))

#define GPUSHMEMI_AMOX(T, N)                                                                                           \
  GPUSHMEMI_HD_FN(T, shmem_##N##_atomic_fetch, (const T *source, int pe), (source, pe),                                \
                  (GPUSHMEMI_DEV::atomic_fetch("shmem_" #N "_atomic_fetch", source, pe)))                              \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_fetch_nbi, (T * fetch, const T *source, int pe), (fetch, source, pe),       \
                  (void)(*fetch = GPUSHMEMI_DEV::atomic_fetch("shmem_" #N "_atomic_fetch_nbi", source, pe)))           \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_set, (T * dest, T value, int pe), (dest, value, pe),                        \
                  GPUSHMEMI_DEV::atomic_set("shmem_" #N "_atomic_set", dest, value, pe))                               \
  GPUSHMEMI_HD_FN(T, shmem_##N##_atomic_swap, (T * dest, T value, int pe), (dest, value, pe),                          \
                  (GPUSHMEMI_DEV::atomic_swap("shmem_" #N "_atomic_swap", dest, value, pe)))                           \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_swap_nbi, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe), \
                  (void)(*fetch = GPUSHMEMI_DEV::atomic_swap("shmem_" #N "_atomic_swap_nbi", dest, value, pe)))
GPUSHMEM_AMOX_TYPES(GPUSHMEMI_AMOX)
#undef GPUSHMEMI_AMOX

#define GPUSHMEMI_AMO(T, N)                                                                                         \
  GPUSHMEMI_HD_FN(T, shmem_##N##_atomic_compare_swap, (T * dest, T cond, T value, int pe), (dest, cond, value, pe), \
                  (GPUSHMEMI_DEV::atomic_compare_swap("shmem_" #N "_atomic_compare_swap", dest, cond, value, pe)))  \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_compare_swap_nbi, (T * fetch, T * dest, T cond, T value, int pe),        \
                  (fetch, dest, cond, value, pe),                                                                   \
                  (void)(*fetch = GPUSHMEMI_DEV::atomic_compare_swap("shmem_" #N "_atomic_compare_swap_nbi", dest,  \
                                                                     cond, value, pe)))                             \
  GPUSHMEMI_HD_FN(T, shmem_##N##_atomic_fetch_inc, (T * dest, int pe), (dest, pe),                                  \
                  (GPUSHMEMI_DEV::atomic_fetch_add("shmem_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), pe)))  \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe), (fetch, dest, pe),         \
                  (void)(*fetch = GPUSHMEMI_DEV::atomic_fetch_add("shmem_" #N "_atomic_fetch_inc_nbi", dest,        \
                                                                  static_cast<T>(1), pe)))                          \
  GPUSHMEMI_HD_FN(void, shmem_##N##_atomic_inc, (T * dest, int pe), (dest, pe),                                     \
                  GPUSHMEMI_DEV::atomic_add("shmem_" #N "_atomic_inc", dest, static_cast<T>(1), pe))                \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_add, atomic_add, atomic_fetch_add, atomic_add)
GPUSHMEM_AMO_TYPES(GPUSHMEMI_AMO)
#undef GPUSHMEMI_AMO

#define GPUSHMEMI_AMOB(T, N)                                                               \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_and, atomic_and, atomic_fetch_and, atomic_and) \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_or, atomic_or, atomic_fetch_or, atomic_or)     \
  GPUSHMEMI_AMO_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor, atomic_fetch_xor, atomic_xor)
GPUSHMEM_AMOB_TYPES(GPUSHMEMI_AMOB)
#undef GPUSHMEMI_AMOB

#undef GPUSHMEMI_AMO_FETCH_OP

#endif /* GPUSHMEM_DEVICE_API_AMO_CUH */
