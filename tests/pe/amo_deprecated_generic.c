/*
 * The deprecated generic AMO names (C11 _Generic: shmem_fetch / set / swap / cswap / finc / inc / fadd / add)
 * on words of PE 0, from every PE: exact totals and the right old values.
 */
#include "pe_check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *i = (int *)shmem_calloc(1, sizeof(int));
  long *l = (long *)shmem_calloc(1, sizeof(long));
  long long *q = (long long *)shmem_calloc(1, sizeof(long long));
  double *d = (double *)shmem_calloc(1, sizeof(double));
  float *f = (float *)shmem_calloc(1, sizeof(float));
  shmem_barrier_all();
  shmem_inc(i, 0);
  (void)shmem_finc(i, 0);
  shmem_add(l, 3L, 0);
  (void)shmem_fadd(l, 4L, 0);
  (void)shmem_fadd(q, (long long)me + 1, 0);
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(*i == 2 * npes, "shmem_inc + shmem_finc: %d, expected %d", *i, 2 * npes);
    PE_CHECK(*l == 7L * npes, "shmem_add + shmem_fadd: %ld, expected %ld", *l, 7L * npes);
    long long sum = (long long)npes * (npes + 1) / 2;
    PE_CHECK(*q == sum, "shmem_fadd (long long): %lld, expected %lld", *q, sum);
  }
  shmem_barrier_all();
  if (me == npes - 1) {
    shmem_set(d, 2.5, 0);
    shmem_set(f, -1.5f, 0);
    double old = shmem_swap(d, 4.0, 0);
    PE_CHECK(old == 2.5, "shmem_swap (double) returned %g, expected 2.5", old);
    PE_CHECK(shmem_fetch(d, 0) == 4.0, "shmem_fetch (double): %g, expected 4", shmem_fetch(d, 0));
    PE_CHECK(shmem_fetch(f, 0) == -1.5f, "shmem_fetch (float): %g, expected -1.5", (double)shmem_fetch(f, 0));
    long long seen = shmem_fetch(q, 0);
    long long was = shmem_cswap(q, seen, -7LL, 0);
    PE_CHECK(was == seen, "shmem_cswap returned %lld, expected %lld", was, seen);
    PE_CHECK(shmem_fetch(q, 0) == -7LL, "after shmem_cswap: %lld, expected -7", shmem_fetch(q, 0));
    int iv = shmem_swap(i, 11, 0);
    PE_CHECK(iv == 2 * npes, "shmem_swap (int) returned %d, expected %d", iv, 2 * npes);
  }
  shmem_barrier_all();
  return pe_finish("amo_deprecated_generic");
}
