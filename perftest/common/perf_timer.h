/*
 * The one timing helper the host perftest programs use besides the standard OpenSHMEM API, so the same
 * sources also build with another OpenSHMEM library (oshcc) for side-by-side runs.
 */
#ifndef GPUSHMEM_PERF_TIMER_H
#define GPUSHMEM_PERF_TIMER_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic time in nanoseconds. */
static inline double perf_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int perf_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts `v` in place and returns its median; *min and *max receive the extremes. */
static inline double perf_median(double *v, int n, double *min, double *max) {
  qsort(v, (size_t)n, sizeof *v, perf_cmp_double);
  if (min != NULL) *min = v[0];
  if (max != NULL) *max = v[n - 1];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif /* GPUSHMEM_PERF_TIMER_H */
