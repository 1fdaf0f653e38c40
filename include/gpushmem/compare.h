/*
 * The SHMEM_CMP_* comparison, written once for the host runtime and the device API (C++ only; included by
 * runtime/amo and include/gpushmem/device/wait.cuh).
 */
#ifndef GPUSHMEM_COMPARE_H
#define GPUSHMEM_COMPARE_H

#include "shmem.h"

#if defined(__CUDACC__)
#define GPUSHMEMI_HOST_DEVICE __host__ __device__
#else
#define GPUSHMEMI_HOST_DEVICE
#endif

namespace gpushmem {

/* 1 when cmp is one of the SHMEM_CMP_* constants. */
GPUSHMEMI_HOST_DEVICE inline bool is_comparison(int cmp) {
  return cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_GE;
}

/* `value cmp target`; false for a code that is not a comparison (callers validate cmp first). */
template <class T>
GPUSHMEMI_HOST_DEVICE inline bool compare_values(T value, int cmp, T target) {
  switch (cmp) {
    case SHMEM_CMP_EQ:
      return value == target;
    case SHMEM_CMP_NE:
      return value != target;
    case SHMEM_CMP_GT:
      return value > target;
    case SHMEM_CMP_LE:
      return value <= target;
    case SHMEM_CMP_LT:
      return value < target;
    case SHMEM_CMP_GE:
      return value >= target;
    default:
      return false;
  }
}

}  // namespace gpushmem

#endif /* GPUSHMEM_COMPARE_H */
