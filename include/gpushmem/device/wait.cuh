/*
 * Point-to-point synchronisation on this PE's own symmetric words (OpenSHMEM 1.5 section 9.10 and the
 * notes' 4.5): wait_until / test and their _all, _any, _some and _vector forms. Words are read with
 * system-scope acquire loads (ordering.cuh), atomic with respect to the AMOs and signals that update them:
 * the load that finds an element satisfied is the one that makes the data delivered before that update
 * visible, so no wait or test needs a fence.
 *
 * Return values, including the empty set (nelems == 0 or every element excluded by status):
 *   wait_until_all: returns; wait_until_any: SIZE_MAX; wait_until_some: 0;
 *   test_all: 1 (1.5 erratum); test_any: SIZE_MAX; test_some: 0.
 * The _any forms start their scan at a different element on every call, so an element that stays
 * satisfied is eventually reported even when a lower index is satisfied too.
 */
#ifndef GPUSHMEM_DEVICE_WAIT_CUH
#define GPUSHMEM_DEVICE_WAIT_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/compare.h"
#include "gpushmem/device/address.cuh"
#include "gpushmem/device/ordering.cuh"

/* Where the next _any scan starts (modulo nelems); one per file, advanced once per call. */
static __device__ unsigned int gpushmemi_any_scan_start;

namespace gpushmem {
namespace device {
namespace {

template <class T>
__device__ __forceinline__ bool compare(T value, int cmp, T target) {
  return compare_values(value, cmp, target);
}

/* The comparison value of element i: one for all, or one per element (_vector forms). */
template <class T>
struct same_target {
  T value;
  __device__ T operator[](size_t) const { return value; }
};
template <class T>
struct each_target {
  const T *values;
  __device__ T operator[](size_t i) const { return values[i]; }
};

__device__ __forceinline__ bool included(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

template <class T>
__device__ __forceinline__ void check_wait_args(const char *call, const T *ivars, size_t nelems, int cmp) {
  if (error_checks()) {
    check_cmp(call, cmp);
    if (nelems != 0) local(call, "ivars", ivars, nelems * sizeof(T));
  }
}

/* Spins until *word satisfies cmp; returns the value that satisfied it, read by the acquire load that
   saw it (so the data delivered before exactly that value is visible). No checks. */
template <class T>
__device__ __forceinline__ T wait_value(T *word, int cmp, T target) {
  for (;;) {
    const T seen = acquire_load(word);
    if (compare(seen, cmp, target)) return seen;
  }
}

template <class T>
__device__ __forceinline__ T wait_until(const char *call, T *ivar, int cmp, T target) {
  check_wait_args(call, ivar, 1, cmp);
  return wait_value(ivar, cmp, target);
}

template <class T>
__device__ __forceinline__ int test(const char *call, T *ivar, int cmp, T target) {
  check_wait_args(call, ivar, 1, cmp);
  return compare(acquire_load(ivar), cmp, target) ? 1 : 0;
}

template <class T, class Targets>
__device__ __forceinline__ void wait_until_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp,
                                               Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  for (size_t i = 0; i < nelems; ++i) {
    if (!included(status, i)) continue;
    while (!compare(acquire_load(ivars + i), cmp, targets[i])) {
    }
  }
}

template <class T, class Targets>
__device__ __forceinline__ int test_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp,
                                        Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i) && !compare(acquire_load(ivars + i), cmp, targets[i])) return 0;
  return 1;
}

__device__ __forceinline__ size_t any_scan_start(size_t nelems) {
  return nelems < 2 ? 0 : atomicAdd(&gpushmemi_any_scan_start, 1u) % nelems;
}

/* One pass from `start`: the first satisfied included element, SIZE_MAX if none. Sets *empty when no
   element is included at all. */
template <class T, class Targets>
__device__ __forceinline__ size_t scan_any(T *ivars, size_t nelems, const int *status, int cmp, Targets targets,
                                           size_t start, bool *empty) {
  bool any_included = false;
  for (size_t k = 0, i = start; k < nelems; ++k, i = (i + 1 == nelems ? 0 : i + 1)) {
    if (!included(status, i)) continue;
    any_included = true;
    if (compare(acquire_load(ivars + i), cmp, targets[i])) return i;
  }
  *empty = !any_included;
  return SIZE_MAX;
}

template <class T, class Targets>
__device__ __forceinline__ size_t test_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp,
                                           Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  bool empty = false;
  return scan_any(ivars, nelems, status, cmp, targets, any_scan_start(nelems), &empty);
}

template <class T, class Targets>
__device__ __forceinline__ size_t wait_until_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp,
                                                 Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  const size_t start = any_scan_start(nelems);
  for (;;) {
    bool empty = false;
    const size_t found = scan_any(ivars, nelems, status, cmp, targets, start, &empty);
    if (empty) return SIZE_MAX;
    if (found != SIZE_MAX) return found;
  }
}

/* One pass over every included element: stores the satisfied ones' indices, returns how many. */
template <class T, class Targets>
__device__ __forceinline__ size_t scan_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                            Targets targets, bool *empty) {
  bool any_included = false;
  size_t count = 0;
  for (size_t i = 0; i < nelems; ++i) {
    if (!included(status, i)) continue;
    any_included = true;
    if (compare(acquire_load(ivars + i), cmp, targets[i])) indices[count++] = i;
  }
  *empty = !any_included;
  return count;
}

template <class T, class Targets>
__device__ __forceinline__ size_t test_some(const char *call, T *ivars, size_t nelems, size_t *indices,
                                            const int *status, int cmp, Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  bool empty = false;
  return scan_some(ivars, nelems, indices, status, cmp, targets, &empty);
}

template <class T, class Targets>
__device__ __forceinline__ size_t wait_until_some(const char *call, T *ivars, size_t nelems, size_t *indices,
                                                  const int *status, int cmp, Targets targets) {
  check_wait_args(call, ivars, nelems, cmp);
  for (;;) {
    bool empty = false;
    const size_t count = scan_some(ivars, nelems, indices, status, cmp, targets, &empty);
    if (empty) return 0;
    if (count != 0) return count;
  }
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_WAIT_CUH */
