/*
 * Point-to-point synchronisation (C11 generic names, typed names for every T-AMO type):
 *  - wait_until / test on a word other PEs update with AMOs; wait_until_all / any / some on an array of
 *    PE 0 with one element per PE;
 *  - exact return values on local arrays: status masks, empty sets (nelems 0 and all excluded, test_all 1),
 *    _vector forms, unique indices from some, fairness of test_any (every satisfied element is reported);
 *  - the deprecated shmem_wait, shmem_TYPE_wait, short wait_until / test and the real symbol
 *    (shmem_wait_until)(long *, int, long).
 */
#include <string.h>

#include "pe_check.h"

enum { N = 8 };

#define TYPED_P2P(T, N_)                                                                                             \
  static void typed_##N_(T *w) {                                                                                     \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;                                      \
    for (int i = 0; i < N; ++i) w[i] = (T)0;                                                                         \
    shmem_barrier_all();                                                                                             \
    shmem_##N_##_atomic_set(&w[0], (T)3, next);                                                                      \
    shmem_##N_##_wait_until(&w[0], SHMEM_CMP_EQ, (T)3);                                                              \
    PE_CHECK(shmem_##N_##_test(&w[0], SHMEM_CMP_GE, (T)3) == 1 && shmem_##N_##_test(&w[0], SHMEM_CMP_LT, (T)3) == 0, \
             "shmem_" #N_ "_test");                                                                                  \
    shmem_barrier_all();                                                                                             \
    /* local checks: w = 0 1 2 3 4 5 6 7 */                                                                          \
    for (int i = 0; i < N; ++i) shmem_##N_##_atomic_set(&w[i], (T)i, me);                                            \
    int status[N] = {0, 1, 0, 1, 0, 1, 0, 1}; /* odd elements excluded */                                            \
    T cmp[N];                                                                                                        \
    for (int i = 0; i < N; ++i) cmp[i] = (T)i;                                                                       \
    size_t idx[N];                                                                                                   \
    PE_CHECK(shmem_##N_##_test_all(w, N, status, SHMEM_CMP_LT, (T)7) == 1, "shmem_" #N_ "_test_all");                \
    PE_CHECK(shmem_##N_##_test_all(w, N, NULL, SHMEM_CMP_LT, (T)7) == 0, "shmem_" #N_ "_test_all (NULL status)");    \
    size_t a = shmem_##N_##_test_any(w, N, status, SHMEM_CMP_GE, (T)5);                                              \
    PE_CHECK(a == 6, "shmem_" #N_ "_test_any: %zu, expected 6", a);                                                  \
    size_t c = shmem_##N_##_test_some(w, N, idx, status, SHMEM_CMP_GT, (T)1);                                        \
    PE_CHECK(c == 3, "shmem_" #N_ "_test_some: %zu, expected 3 (2, 4, 6)", c);                                       \
    shmem_##N_##_wait_until_all(w, N, status, SHMEM_CMP_LE, (T)6);                                                   \
    a = shmem_##N_##_wait_until_any(w, N, status, SHMEM_CMP_EQ, (T)4);                                               \
    PE_CHECK(a == 4, "shmem_" #N_ "_wait_until_any: %zu", a);                                                        \
    c = shmem_##N_##_wait_until_some(w, N, idx, NULL, SHMEM_CMP_GE, (T)6);                                           \
    PE_CHECK(c == 2, "shmem_" #N_ "_wait_until_some: %zu", c);                                                       \
    /* _vector: element i against cmp[i] */                                                                          \
    PE_CHECK(shmem_##N_##_test_all_vector(w, N, NULL, SHMEM_CMP_EQ, cmp) == 1, "shmem_" #N_ "_test_all_vector");     \
    shmem_##N_##_wait_until_all_vector(w, N, NULL, SHMEM_CMP_GE, cmp);                                               \
    cmp[5] = (T)9;                                                                                                   \
    PE_CHECK(shmem_##N_##_test_any_vector(w, N, NULL, SHMEM_CMP_GT, cmp) == SIZE_MAX,                                \
             "shmem_" #N_ "_test_any_vector (none)");                                                                \
    c = shmem_##N_##_test_some_vector(w, N, idx, NULL, SHMEM_CMP_LT, cmp);                                           \
    PE_CHECK(c == 1 && idx[0] == 5, "shmem_" #N_ "_test_some_vector: %zu", c);                                       \
    c = shmem_##N_##_wait_until_some_vector(w, N, idx, NULL, SHMEM_CMP_NE, cmp);                                     \
    PE_CHECK(c == 1 && idx[0] == 5, "shmem_" #N_ "_wait_until_some_vector: %zu", c);                                 \
    a = shmem_##N_##_wait_until_any_vector(w, N, NULL, SHMEM_CMP_LT, cmp);                                           \
    PE_CHECK(a == 5, "shmem_" #N_ "_wait_until_any_vector: %zu", a);                                                 \
    shmem_barrier_all();                                                                                             \
  }
GPUSHMEM_AMO_TYPES(TYPED_P2P)

/* Every PE sets its element of PE 0's array; PE 0 waits for all of them, any and some. */
static void remote_sets(int *flags) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  for (int i = 0; i < npes; ++i) flags[i] = 0;
  shmem_barrier_all();
  shmem_atomic_set(&flags[me], me + 1, 0);
  if (me == 0) {
    size_t idx[8];
    size_t any = shmem_wait_until_any(flags, (size_t)npes, NULL, SHMEM_CMP_NE, 0);
    PE_CHECK(any < (size_t)npes && flags[any] == (int)any + 1, "wait_until_any: %zu", any);
    size_t some = shmem_wait_until_some(flags, (size_t)npes, idx, NULL, SHMEM_CMP_GT, 0);
    PE_CHECK(some >= 1 && some <= (size_t)npes, "wait_until_some: %zu", some);
    for (size_t i = 0; i < some; ++i)
      for (size_t j = i + 1; j < some; ++j) PE_CHECK(idx[i] != idx[j], "wait_until_some: index %zu twice", idx[i]);
    shmem_wait_until_all(flags, (size_t)npes, NULL, SHMEM_CMP_GT, 0);
    for (int i = 0; i < npes; ++i) PE_CHECK(flags[i] == i + 1, "wait_until_all: flag %d is %d", i, flags[i]);
  }
  shmem_barrier_all();
  /* a chain through the PEs: each waits on its own word for the previous PE's add */
  int *word = &flags[npes];
  *word = 0;
  shmem_barrier_all();
  if (me == 0) shmem_atomic_add(word, 1, (me + 1) % npes);
  shmem_wait_until(word, SHMEM_CMP_GE, 1);
  if (me != 0) shmem_atomic_add(word, 1, (me + 1) % npes);
  PE_CHECK(shmem_test(word, SHMEM_CMP_EQ, 1) == 1, "test after chain: %d", *word);
  shmem_barrier_all();
}

static void empty_sets_and_fairness(long *w) {
  const int me = shmem_my_pe();
  int none[N];
  for (int i = 0; i < N; ++i) {
    none[i] = 1;
    shmem_atomic_set(&w[i], 1L, me);
  }
  size_t idx[N];
  long cmps[N] = {0};
  /* nelems == 0 */
  PE_CHECK(shmem_test_all(w, 0, NULL, SHMEM_CMP_EQ, 5L) == 1, "test_all empty");
  PE_CHECK(shmem_test_any(w, 0, NULL, SHMEM_CMP_EQ, 5L) == SIZE_MAX, "test_any empty");
  PE_CHECK(shmem_test_some(w, 0, idx, NULL, SHMEM_CMP_EQ, 5L) == 0, "test_some empty");
  shmem_wait_until_all(w, 0, NULL, SHMEM_CMP_EQ, 5L);
  PE_CHECK(shmem_wait_until_any(w, 0, NULL, SHMEM_CMP_EQ, 5L) == SIZE_MAX, "wait_until_any empty");
  PE_CHECK(shmem_wait_until_some(w, 0, idx, NULL, SHMEM_CMP_EQ, 5L) == 0, "wait_until_some empty");
  /* every element excluded (the 1.5 erratum: test_all returns 1) */
  PE_CHECK(shmem_test_all(w, N, none, SHMEM_CMP_EQ, 5L) == 1, "test_all all excluded");
  PE_CHECK(shmem_test_any(w, N, none, SHMEM_CMP_EQ, 1L) == SIZE_MAX, "test_any all excluded");
  PE_CHECK(shmem_test_some(w, N, idx, none, SHMEM_CMP_EQ, 1L) == 0, "test_some all excluded");
  shmem_wait_until_all(w, N, none, SHMEM_CMP_EQ, 5L);
  PE_CHECK(shmem_wait_until_any(w, N, none, SHMEM_CMP_EQ, 5L) == SIZE_MAX, "wait_until_any all excluded");
  PE_CHECK(shmem_wait_until_some(w, N, idx, none, SHMEM_CMP_EQ, 5L) == 0, "wait_until_some all excluded");
  PE_CHECK(shmem_test_all_vector(w, N, none, SHMEM_CMP_EQ, cmps) == 1, "test_all_vector all excluded");
  PE_CHECK(shmem_test_any_vector(w, 0, NULL, SHMEM_CMP_EQ, cmps) == SIZE_MAX, "test_any_vector empty");
  PE_CHECK(shmem_wait_until_some_vector(w, N, idx, none, SHMEM_CMP_EQ, cmps) == 0, "wait_until_some_vector empty");
  shmem_wait_until_all_vector(w, 0, NULL, SHMEM_CMP_EQ, cmps);
  PE_CHECK(shmem_wait_until_any_vector(w, N, none, SHMEM_CMP_EQ, cmps) == SIZE_MAX, "wait_until_any_vector empty");
  /* fairness: every element stays satisfied; N calls of test_any (and of wait_until_any) report each once */
  int seen[N] = {0}, seen_wait[N] = {0};
  for (int k = 0; k < N; ++k) {
    size_t i = shmem_test_any(w, N, NULL, SHMEM_CMP_EQ, 1L);
    if (i < N) seen[i]++;
  }
  for (int k = 0; k < N; ++k) {
    size_t i = shmem_wait_until_any(w, N, NULL, SHMEM_CMP_EQ, 1L);
    if (i < N) seen_wait[i]++;
  }
  for (int i = 0; i < N; ++i) {
    PE_CHECK(seen[i] == 1, "test_any fairness: element %d reported %d times in %d calls", i, seen[i], N);
    PE_CHECK(seen_wait[i] == 1, "wait_until_any fairness: element %d reported %d times", i, seen_wait[i]);
  }
  /* some reports every satisfied element once */
  size_t c = shmem_test_some(w, N, idx, NULL, SHMEM_CMP_EQ, 1L);
  int hits[N] = {0};
  for (size_t k = 0; k < c; ++k) hits[idx[k]]++;
  PE_CHECK(c == N, "test_some: %zu of %d", c, N);
  for (int i = 0; i < N; ++i) PE_CHECK(hits[i] == 1, "test_some: index %d reported %d times", i, hits[i]);
  shmem_barrier_all();
}

static void deprecated(long *w, short *s) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
  w[0] = 0;
  w[1] = 0;
  *s = 0;
  shmem_barrier_all();
  shmem_long_atomic_set(&w[0], 7, next);
  shmem_wait(&w[0], 0); /* waits until != 0 */
  PE_CHECK(w[0] == 7, "shmem_wait: %ld", w[0]);
  shmem_long_atomic_set(&w[1], 9, next);
  (shmem_wait_until)(&w[1], SHMEM_CMP_EQ, 9L); /* the real deprecated symbol, not the generic */
  shmem_long_wait(&w[1], 0);
  shmem_short_p(s, 4, next);
  shmem_short_wait_until(s, SHMEM_CMP_EQ, 4);
  shmem_short_wait(s, 0);
  PE_CHECK(shmem_short_test(s, SHMEM_CMP_EQ, 4) == 1 && shmem_ushort_test((unsigned short *)s, SHMEM_CMP_NE, 4) == 0,
           "short / ushort test");
  /* The C11 generic names take short and unsigned short ivars too. */
  shmem_wait_until(s, SHMEM_CMP_EQ, (short)4);
  PE_CHECK(shmem_test(s, SHMEM_CMP_EQ, (short)4) == 1, "generic shmem_test on a short");
  PE_CHECK(shmem_test((unsigned short *)s, SHMEM_CMP_GE, (unsigned short)4) == 1, "generic shmem_test on an ushort");
  shmem_wait_until((unsigned short *)s, SHMEM_CMP_LT, (unsigned short)5);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  long double *w = (long double *)shmem_malloc(N * 16);
  int *flags = (int *)shmem_malloc(((size_t)npes + 1) * sizeof(int));
  long *lw = (long *)shmem_malloc(N * sizeof(long));
  short *s = (short *)shmem_malloc(sizeof(short));
  if (!w || !flags || !lw || !s) {
    PE_FAIL("allocation failed");
    return pe_finish("p2p");
  }
#define RUN(T, N_) typed_##N_((T *)w);
  GPUSHMEM_AMO_TYPES(RUN)
  remote_sets(flags);
  empty_sets_and_fairness(lw);
  deprecated(lw, s);
  return pe_finish("p2p");
}
