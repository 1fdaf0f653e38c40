/*
 * Shared by the multi-PE test programs (C11 and C++): reporting data mismatches with the PE, the
 * element, the expected and the observed value, and ending a program with the right status.
 * Every function is static inline so each program carries its own copy; nothing here is collective
 * except pe_finish.
 */
#ifndef GPUSHMEM_TESTS_PE_CHECK_H
#define GPUSHMEM_TESTS_PE_CHECK_H

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

/* Mismatches past this many per PE are counted but not printed. */
#define PE_MAX_REPORTS 20

static inline long *pe_failure_count(void) {
  static long count;
  return &count;
}

static inline double pe_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Prints "PE <me>: FAILED <file>:<line>: <message>" (the first PE_MAX_REPORTS times) and counts it. */
static inline void pe_report(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void pe_report(const char *file, int line, const char *fmt, ...) {
  long n = ++*pe_failure_count();
  if (n > PE_MAX_REPORTS) return;
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(stderr, "PE %d: FAILED %s:%d: %s%s\n", shmem_my_pe(), file, line, text,
          n == PE_MAX_REPORTS ? " (further failures are counted, not printed)" : "");
  fflush(stderr);
}

#define PE_FAIL(...) pe_report(__FILE__, __LINE__, __VA_ARGS__)
#define PE_CHECK(cond, ...) \
  do {                      \
    if (!(cond)) {          \
      PE_FAIL(__VA_ARGS__); \
    }                       \
  } while (0)

/* Spins until *flag == value, yielding the core now and then (tests run oversubscribed). Returns 1, or 0
   after reporting a failure when `limit_s` seconds pass: a test must fail, not hang. */
static inline int pe_wait_int_eq(const volatile int *flag, int value, double limit_s, const char *what) {
  double start = pe_now_s();
  for (unsigned long spins = 0;; ++spins) {
    if (*flag == value) return 1;
    if ((spins & 255u) == 255u) {
      sched_yield();
      if (pe_now_s() - start > limit_s) {
        PE_FAIL("waited %.0f s for %s: flag is %d, expected %d", limit_s, what, *flag, value);
        return 0;
      }
    }
  }
}

/* Collective: reports this PE's result, finalizes, and gives the exit status (0 only if no PE-local
   check failed; the launcher makes the job fail if any PE does). */
static inline int pe_finish(const char *test) {
  long failures = *pe_failure_count();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  if (failures != 0)
    fprintf(stderr, "PE %d: %s: %ld check(s) FAILED\n", me, test, failures);
  else if (me == 0)
    printf("%s: PASS on %d PE(s)\n", test, npes);
  fflush(NULL);
  shmem_finalize();
  return failures != 0 ? 1 : 0;
}

#endif /* GPUSHMEM_TESTS_PE_CHECK_H */
