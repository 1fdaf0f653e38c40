/*
 * Part of gpushmem/device/shmem_api.cuh: signals and point-to-point synchronisation, on both
 * sides (the host forms call the library, which supports host-heap words only).
 *   shmem_putmem_signal, shmem_TYPE_put_signal, shmem_putSIZE_signal (+ _nbi): when the signal update
 *   (SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD on the 64-bit symmetric *sig_addr of PE pe) is visible, the
 *   call's payload is too. Earlier puts are not covered without a shmem_fence.
 *   shmem_signal_fetch: this PE's signal word (an acquire load).
 *   shmem_signal_wait_until: waits until this PE's signal word satisfies cmp, returns that value.
 *   shmem_TYPE_wait_until / test and the _all / _any / _some (+ _vector) forms over T-AMO: see wait.cuh
 *   for return values (empty sets included) and fairness. The deprecated short / ushort wait_until and
 *   test, shmem_TYPE_wait and shmem_wait on both sides too.
 */
#ifndef GPUSHMEM_DEVICE_API_SIGNAL_WAIT_CUH
#define GPUSHMEM_DEVICE_API_SIGNAL_WAIT_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* ---- put with signal ------------------------------------------------------------------------------ */
#define GPUSHMEMI_SIGNAL_PARAMS(T) \
  (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
#define GPUSHMEMI_SIGNAL_ARGS (dest, source, nelems, sig_addr, signal, sig_op, pe)

#define GPUSHMEMI_MEM_SIGNAL(SUFFIX)                                                                                  \
  GPUSHMEMI_HD_FN(void, shmem_putmem_signal##SUFFIX, GPUSHMEMI_SIGNAL_PARAMS(void), GPUSHMEMI_SIGNAL_ARGS,            \
                  GPUSHMEMI_DEV::putmem_signal##SUFFIX<GPUSHMEMI_THREAD>("shmem_putmem_signal" #SUFFIX, dest, source, \
                                                                         nelems, sig_addr, signal, sig_op, pe))
GPUSHMEMI_MEM_SIGNAL()
GPUSHMEMI_MEM_SIGNAL(_nbi)
#undef GPUSHMEMI_MEM_SIGNAL

#define GPUSHMEMI_TYPED_SIGNAL_ONE(T, N, SUFFIX)                                                                       \
  GPUSHMEMI_HD_FN(void, shmem_##N##_put_signal##SUFFIX, GPUSHMEMI_SIGNAL_PARAMS(T), GPUSHMEMI_SIGNAL_ARGS,             \
                  GPUSHMEMI_DEV::put_signal##SUFFIX<GPUSHMEMI_THREAD>("shmem_" #N "_put_signal" #SUFFIX, dest, source, \
                                                                      nelems, sig_addr, signal, sig_op, pe))
#define GPUSHMEMI_TYPED_SIGNAL(T, N) GPUSHMEMI_TYPED_SIGNAL_ONE(T, N, ) GPUSHMEMI_TYPED_SIGNAL_ONE(T, N, _nbi)
GPUSHMEM_DEVICE_RMA_TYPES(GPUSHMEMI_TYPED_SIGNAL)
#undef GPUSHMEMI_TYPED_SIGNAL
#undef GPUSHMEMI_TYPED_SIGNAL_ONE

#define GPUSHMEMI_SIZED_SIGNAL_ONE(S, SUFFIX)                                                                \
  GPUSHMEMI_HD_FN(                                                                                           \
      void, shmem_put##S##_signal##SUFFIX, GPUSHMEMI_SIGNAL_PARAMS(void), GPUSHMEMI_SIGNAL_ARGS,             \
      GPUSHMEMI_DEV::putmem_signal##SUFFIX<GPUSHMEMI_THREAD>("shmem_put" #S "_signal" #SUFFIX, dest, source, \
                                                             nelems * ((S) / 8), sig_addr, signal, sig_op, pe))
#define GPUSHMEMI_SIZED_SIGNAL(S) GPUSHMEMI_SIZED_SIGNAL_ONE(S, ) GPUSHMEMI_SIZED_SIGNAL_ONE(S, _nbi)
GPUSHMEM_RMA_SIZES(GPUSHMEMI_SIZED_SIGNAL)
#undef GPUSHMEMI_SIZED_SIGNAL
#undef GPUSHMEMI_SIZED_SIGNAL_ONE
#undef GPUSHMEMI_SIGNAL_PARAMS
#undef GPUSHMEMI_SIGNAL_ARGS

/* ---- signal words --------------------------------------------------------------------------------- */
GPUSHMEMI_HD_FN(uint64_t, shmem_signal_fetch, (const uint64_t *sig_addr), (sig_addr),
                (GPUSHMEMI_DEV::signal_fetch("shmem_signal_fetch", sig_addr)))
GPUSHMEMI_HD_FN(uint64_t, shmem_signal_wait_until, (uint64_t * sig_addr, int cmp, uint64_t cmp_value),
                (sig_addr, cmp, cmp_value),
                (GPUSHMEMI_DEV::signal_wait_until("shmem_signal_wait_until", sig_addr, cmp, cmp_value)))

/* ---- wait_until and test -------------------------------------------------------------------------- */
/* KIND is same_target (one cmp_value) or each_target (_vector: cmp_values[i]); ARG declares that
   parameter and VALUE names it. */
#define GPUSHMEMI_WAIT_SET(T, N, SUFFIX, ARG, VALUE, KIND)                                                           \
  GPUSHMEMI_HD_FN(void, shmem_##N##_wait_until_all##SUFFIX,                                                          \
                  (T * ivars, size_t nelems, const int *status, int cmp, ARG), (ivars, nelems, status, cmp, VALUE),  \
                  GPUSHMEMI_DEV::wait_until_all("shmem_" #N "_wait_until_all" #SUFFIX, ivars, nelems, status, cmp,   \
                                                GPUSHMEMI_DEV::KIND<T>{VALUE}))                                      \
  GPUSHMEMI_HD_FN(size_t, shmem_##N##_wait_until_any##SUFFIX,                                                        \
                  (T * ivars, size_t nelems, const int *status, int cmp, ARG), (ivars, nelems, status, cmp, VALUE),  \
                  (GPUSHMEMI_DEV::wait_until_any("shmem_" #N "_wait_until_any" #SUFFIX, ivars, nelems, status, cmp,  \
                                                 GPUSHMEMI_DEV::KIND<T>{VALUE})))                                    \
  GPUSHMEMI_HD_FN(size_t, shmem_##N##_wait_until_some##SUFFIX,                                                       \
                  (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, ARG),                     \
                  (ivars, nelems, indices, status, cmp, VALUE),                                                      \
                  (GPUSHMEMI_DEV::wait_until_some("shmem_" #N "_wait_until_some" #SUFFIX, ivars, nelems, indices,    \
                                                  status, cmp, GPUSHMEMI_DEV::KIND<T>{VALUE})))                      \
  GPUSHMEMI_HD_FN(int, shmem_##N##_test_all##SUFFIX, (T * ivars, size_t nelems, const int *status, int cmp, ARG),    \
                  (ivars, nelems, status, cmp, VALUE),                                                               \
                  (GPUSHMEMI_DEV::test_all("shmem_" #N "_test_all" #SUFFIX, ivars, nelems, status, cmp,              \
                                           GPUSHMEMI_DEV::KIND<T>{VALUE})))                                          \
  GPUSHMEMI_HD_FN(size_t, shmem_##N##_test_any##SUFFIX, (T * ivars, size_t nelems, const int *status, int cmp, ARG), \
                  (ivars, nelems, status, cmp, VALUE),                                                               \
                  (GPUSHMEMI_DEV::test_any("shmem_" #N "_test_any" #SUFFIX, ivars, nelems, status, cmp,              \
                                           GPUSHMEMI_DEV::KIND<T>{VALUE})))                                          \
  GPUSHMEMI_HD_FN(size_t, shmem_##N##_test_some##SUFFIX,                                                             \
                  (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, ARG),                     \
                  (ivars, nelems, indices, status, cmp, VALUE),                                                      \
                  (GPUSHMEMI_DEV::test_some("shmem_" #N "_test_some" #SUFFIX, ivars, nelems, indices, status, cmp,   \
                                            GPUSHMEMI_DEV::KIND<T>{VALUE})))

#define GPUSHMEMI_WAIT(T, N)                                                                              \
  GPUSHMEMI_HD_FN(void, shmem_##N##_wait_until, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value), \
                  (void)GPUSHMEMI_DEV::wait_until("shmem_" #N "_wait_until", ivar, cmp, cmp_value))       \
  GPUSHMEMI_HD_FN(int, shmem_##N##_test, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value),        \
                  (GPUSHMEMI_DEV::test("shmem_" #N "_test", ivar, cmp, cmp_value)))                       \
  GPUSHMEMI_WAIT_SET(T, N, , T cmp_value, cmp_value, same_target)                                         \
  GPUSHMEMI_WAIT_SET(T, N, _vector, const T *cmp_values, cmp_values, each_target)
GPUSHMEM_AMO_TYPES(GPUSHMEMI_WAIT)
#undef GPUSHMEMI_WAIT
#undef GPUSHMEMI_WAIT_SET

/* Deprecated forms 1.5 still lists: short / ushort wait_until and test, shmem_TYPE_wait and shmem_wait
   (wait_until with SHMEM_CMP_NE). */
#define GPUSHMEMI_WAIT_EXTRA(T, N)                                                                        \
  GPUSHMEMI_HD_FN(void, shmem_##N##_wait_until, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value), \
                  (void)GPUSHMEMI_DEV::wait_until("shmem_" #N "_wait_until", ivar, cmp, cmp_value))       \
  GPUSHMEMI_HD_FN(int, shmem_##N##_test, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value),        \
                  (GPUSHMEMI_DEV::test("shmem_" #N "_test", ivar, cmp, cmp_value)))
GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEMI_WAIT_EXTRA)
#undef GPUSHMEMI_WAIT_EXTRA
#define GPUSHMEMI_DEPRECATED_WAIT(T, N)                                               \
  GPUSHMEMI_HD_FN(void, shmem_##N##_wait, (T * ivar, T cmp_value), (ivar, cmp_value), \
                  (void)GPUSHMEMI_DEV::wait_until("shmem_" #N "_wait", ivar, SHMEM_CMP_NE, cmp_value))
GPUSHMEM_DEPRECATED_WAIT_TYPES(GPUSHMEMI_DEPRECATED_WAIT)
#undef GPUSHMEMI_DEPRECATED_WAIT
GPUSHMEMI_HD_FN(void, shmem_wait, (long *ivar, long cmp_value), (ivar, cmp_value),
                (void)GPUSHMEMI_DEV::wait_until("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value))

#endif /* GPUSHMEM_DEVICE_API_SIGNAL_WAIT_CUH */
