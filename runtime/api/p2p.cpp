// Point-to-point synchronisation: wait_until / test and their _all / _any / _some (+ _vector) forms for
// every T-AMO type, and the deprecated short / ushort forms and shmem_wait names.
#include "amo/host_signal_wait.hpp"
#include "shmem.h"

using namespace gpushmem;

#define GPUSHMEM_DEFINE_WAIT_ONE(T, N)                                         \
  GPUSHMEM_EXPORT void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) { \
    (void)amo::wait_until<T>("shmem_" #N "_wait_until", ivar, cmp, cmp_value); \
  }                                                                            \
  GPUSHMEM_EXPORT int shmem_##N##_test(T *ivar, int cmp, T cmp_value) {        \
    return amo::test<T>("shmem_" #N "_test", ivar, cmp, cmp_value);            \
  }

// TARGETS is SameTarget (one cmp_value) or EachTarget (_vector: cmp_values[i]); ARG declares that parameter.
#define GPUSHMEM_DEFINE_WAIT_SET(T, N, SUFFIX, ARG, VALUE, TARGETS)                                                   \
  GPUSHMEM_EXPORT void shmem_##N##_wait_until_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG) { \
    amo::wait_until_all("shmem_" #N "_wait_until_all" #SUFFIX, ivars, nelems, status, cmp, amo::TARGETS<T>{VALUE});   \
  }                                                                                                                   \
  GPUSHMEM_EXPORT size_t shmem_##N##_wait_until_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,      \
                                                            ARG) {                                                    \
    return amo::wait_until_any("shmem_" #N "_wait_until_any" #SUFFIX, ivars, nelems, status, cmp,                     \
                               amo::TARGETS<T>{VALUE});                                                               \
  }                                                                                                                   \
  GPUSHMEM_EXPORT size_t shmem_##N##_wait_until_some##SUFFIX(T *ivars, size_t nelems, size_t *indices,                \
                                                             const int *status, int cmp, ARG) {                       \
    return amo::wait_until_some("shmem_" #N "_wait_until_some" #SUFFIX, ivars, nelems, indices, status, cmp,          \
                                amo::TARGETS<T>{VALUE});                                                              \
  }                                                                                                                   \
  GPUSHMEM_EXPORT int shmem_##N##_test_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG) {        \
    return amo::test_all("shmem_" #N "_test_all" #SUFFIX, ivars, nelems, status, cmp, amo::TARGETS<T>{VALUE});        \
  }                                                                                                                   \
  GPUSHMEM_EXPORT size_t shmem_##N##_test_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG) {     \
    return amo::test_any("shmem_" #N "_test_any" #SUFFIX, ivars, nelems, status, cmp, amo::TARGETS<T>{VALUE});        \
  }                                                                                                                   \
  GPUSHMEM_EXPORT size_t shmem_##N##_test_some##SUFFIX(T *ivars, size_t nelems, size_t *indices, const int *status,   \
                                                       int cmp, ARG) {                                                \
    return amo::test_some("shmem_" #N "_test_some" #SUFFIX, ivars, nelems, indices, status, cmp,                      \
                          amo::TARGETS<T>{VALUE});                                                                    \
  }

#define GPUSHMEM_DEFINE_WAIT(T, N)                                     \
  GPUSHMEM_DEFINE_WAIT_ONE(T, N)                                       \
  GPUSHMEM_DEFINE_WAIT_SET(T, N, , T cmp_value, cmp_value, SameTarget) \
  GPUSHMEM_DEFINE_WAIT_SET(T, N, _vector, const T *cmp_values, cmp_values, EachTarget)
GPUSHMEM_AMO_TYPES(GPUSHMEM_DEFINE_WAIT)
GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_DEFINE_WAIT_ONE)

// Deprecated: shmem_wait is wait_until with SHMEM_CMP_NE; shmem_wait_until is the plain long form (C11
// programs reach it through the generic name as well).
#define GPUSHMEM_DEFINE_DEPRECATED_WAIT(T, N)                                     \
  GPUSHMEM_EXPORT void shmem_##N##_wait(T *ivar, T cmp_value) {                   \
    (void)amo::wait_until<T>("shmem_" #N "_wait", ivar, SHMEM_CMP_NE, cmp_value); \
  }
GPUSHMEM_DEPRECATED_WAIT_TYPES(GPUSHMEM_DEFINE_DEPRECATED_WAIT)

GPUSHMEM_EXPORT void shmem_wait(long *ivar, long cmp_value) {
  (void)amo::wait_until<long>("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value);
}

// The plain long form: shmem.h declares it with C linkage (in C it is also the generic macro's name; C++
// overloads it with the other types).
GPUSHMEM_EXPORT void shmem_wait_until(long *ivar, int cmp, long cmp_value) {
  (void)amo::wait_until<long>("shmem_wait_until", ivar, cmp, cmp_value);
}
