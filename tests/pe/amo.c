/*
 * Host AMOs (C11, generic names where the specification has them):
 *  - every PE hammers one long on PE 0 with fetch_add, then a compare_swap loop: nothing is lost (exact
 *    total) and every fetched old value is unique (PE 0 checks the union is exactly 0..npes*K-1);
 *  - inc and add from every PE: exact totals; the _nbi fetching forms;
 *  - swap from every PE on one word of PE 0: the fetched values plus the final one are exactly what was sent;
 *  - bitwise and / or / xor with one bit per PE (fetch forms see the other PEs' bits);
 *  - set / fetch / swap for float and double (bit-exact values);
 *  - every type of T-AMOX, T-AMO and T-AMOB through its typed name, and the deprecated names for one type each.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

enum { K = 2000 };

/* PE 0: the K*npes values in olds[] are exactly 0..K*npes-1. */
static void check_unique(const char *what, const long *olds, int npes) {
  size_t n = (size_t)K * (size_t)npes;
  unsigned char *seen = (unsigned char *)calloc(n, 1);
  for (size_t i = 0; i < n; ++i) {
    long v = olds[i];
    if (v < 0 || (size_t)v >= n) {
      PE_FAIL("%s: fetched value %ld (entry %zu) outside 0..%zu", what, v, i, n - 1);
    } else if (seen[v]++) {
      PE_FAIL("%s: value %ld fetched twice (entry %zu): an update was lost", what, v, i);
    }
  }
  free(seen);
}

static void hammer(long *counter, long *olds, long *mine) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const long total = (long)K * npes;
  /* fetch_add */
  if (me == 0) *counter = 0;
  shmem_barrier_all();
  for (int i = 0; i < K; ++i) mine[i] = shmem_atomic_fetch_add(counter, 1L, 0);
  shmem_long_put(olds + (size_t)me * K, mine, K, 0);
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(*counter == total, "fetch_add: counter %ld, expected %ld", *counter, total);
    check_unique("fetch_add", olds, npes);
    *counter = 0;
  }
  shmem_barrier_all();
  /* compare_swap loop: each success fetched a distinct old value */
  for (int i = 0; i < K; ++i) {
    long seen = shmem_atomic_fetch(counter, 0);
    for (;;) {
      long old = shmem_atomic_compare_swap(counter, seen, seen + 1, 0);
      if (old == seen) break;
      seen = old;
    }
    mine[i] = seen;
  }
  shmem_long_put(olds + (size_t)me * K, mine, K, 0);
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(*counter == total, "compare_swap: counter %ld, expected %ld", *counter, total);
    check_unique("compare_swap", olds, npes);
    *counter = 0;
  }
  shmem_barrier_all();
  /* inc, add, fetch_inc, and the _nbi fetching forms */
  long fetched = 0;
  for (int i = 0; i < K; ++i) {
    shmem_atomic_inc(counter, 0);
    shmem_atomic_add(counter, 2L, 0);
    (void)shmem_atomic_fetch_inc(counter, 0);
    shmem_atomic_fetch_add_nbi(&fetched, counter, 3L, 0);
    shmem_atomic_fetch_inc_nbi(&fetched, counter, 0);
  }
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0) PE_CHECK(*counter == 8L * total, "inc/add/nbi: counter %ld, expected %ld", *counter, 8L * total);
  shmem_barrier_all();
}

static void swap_chain(long *word, long *olds, long *mine) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (me == 0) *word = -1;
  shmem_barrier_all();
  /* each PE sends me*K + i + 1 (1..K*npes, all distinct): the fetched old values plus the final one must be
     exactly the initial -1 and everything sent, each once */
  for (int i = 0; i < K; ++i) {
    if (i % 2 == 0)
      mine[i] = shmem_atomic_swap(word, (long)me * K + i + 1, 0);
    else
      shmem_atomic_swap_nbi(&mine[i], word, (long)me * K + i + 1, 0);
  }
  shmem_quiet();
  shmem_long_put(olds + (size_t)me * K, mine, K, 0);
  shmem_barrier_all();
  if (me == 0) {
    size_t n = (size_t)K * npes;
    unsigned char *seen = (unsigned char *)calloc(n + 1, 1);
    for (size_t i = 0; i <= n; ++i) {
      long sent = i < n ? olds[i] : *word;
      long v = sent == -1 ? 0 : sent; /* -1 (initial) -> 0; the values sent are 1..n already */
      if (v < 0 || (size_t)v > n || seen[v]++) PE_FAIL("swap: value %ld (entry %zu) duplicated or out of range", v, i);
    }
    free(seen);
  }
  shmem_barrier_all();
}

static void bitwise(uint64_t *word) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const uint64_t bit = UINT64_C(1) << me, all = (npes >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << npes) - 1);
  if (me == 0) *word = 0;
  shmem_barrier_all();
  shmem_atomic_or(word, bit, 0);
  shmem_barrier_all();
  uint64_t v = shmem_atomic_fetch(word, 0);
  PE_CHECK(v == all, "or: word 0x%llx, expected 0x%llx", (unsigned long long)v, (unsigned long long)all);
  shmem_barrier_all();
  uint64_t old = shmem_atomic_fetch_and(word, ~bit, 0); /* clears my bit; it must still have been set */
  PE_CHECK(old & bit, "fetch_and: my bit 0x%llx already clear in 0x%llx", (unsigned long long)bit,
           (unsigned long long)old);
  shmem_barrier_all();
  v = shmem_atomic_fetch(word, 0);
  PE_CHECK(v == 0, "and: word 0x%llx, expected 0", (unsigned long long)v);
  shmem_barrier_all();
  shmem_atomic_xor(word, bit, 0);
  old = shmem_atomic_fetch_xor(word, bit, 0); /* toggled on by my xor, off by this one */
  PE_CHECK(old & bit, "fetch_xor: my bit missing in 0x%llx", (unsigned long long)old);
  uint64_t f = 0;
  shmem_atomic_fetch_or_nbi(&f, word, bit, 0);
  shmem_atomic_fetch_and_nbi(&f, word, ~bit, 0);
  PE_CHECK(f & bit, "fetch_and_nbi: my bit missing in 0x%llx", (unsigned long long)f);
  shmem_atomic_fetch_xor_nbi(&f, word, 0, 0);
  shmem_atomic_and(word, ~bit, 0);
  shmem_quiet();
  shmem_barrier_all();
  v = shmem_atomic_fetch(word, 0);
  PE_CHECK(v == 0, "xor: word 0x%llx, expected 0", (unsigned long long)v);
  shmem_barrier_all();
}

static void floating(float *fw, double *dw) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes;
  shmem_atomic_set(fw, 0.25f + (float)me, next);
  shmem_atomic_set(dw, -1.5 - (double)me, next);
  shmem_barrier_all();
  const int prev = (me + npes - 1) % npes;
  float fv = shmem_atomic_fetch(fw, me);
  double dv = shmem_atomic_fetch(dw, me);
  PE_CHECK(fv == 0.25f + (float)prev, "float set/fetch: %g, expected %g", (double)fv, (double)(0.25f + (float)prev));
  PE_CHECK(dv == -1.5 - (double)prev, "double set/fetch: %g, expected %g", dv, -1.5 - (double)prev);
  shmem_barrier_all();
  float fo = shmem_atomic_swap(fw, 3.0f, next);
  double dn = 0;
  shmem_atomic_swap_nbi(&dn, dw, 7.0, next);
  shmem_quiet();
  PE_CHECK(fo == 0.25f + (float)me, "float swap: old %g", (double)fo);
  PE_CHECK(dn == -1.5 - (double)me, "double swap_nbi: old %g", dn);
  float ff = 0;
  shmem_atomic_fetch_nbi(&ff, fw, next);
  shmem_quiet();
  PE_CHECK(ff == 3.0f, "float fetch_nbi: %g, expected 3", (double)ff);
  shmem_barrier_all();
}

/* Every type through its typed name: set, fetch, swap (T-AMOX); fetch_add / inc from every PE (T-AMO); one
   bit per PE (T-AMOB, PEs beyond the type's width share bit 0 through or, which stays exact). */
#define AMOX_TYPED(T, N)                                                                                \
  static void typed_amox_##N(T *w) {                                                                    \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;                         \
    shmem_##N##_atomic_set(w, (T)(me + 1), next);                                                       \
    shmem_barrier_all();                                                                                \
    T v = shmem_##N##_atomic_fetch(w, me);                                                              \
    T want = (T)((me + npes - 1) % npes + 1);                                                           \
    PE_CHECK(v == want, "shmem_" #N "_atomic_set/fetch: got %g, expected %g", (double)v, (double)want); \
    shmem_barrier_all();                                                                                \
    T old = shmem_##N##_atomic_swap(w, (T)2, me);                                                       \
    PE_CHECK(old == want, "shmem_" #N "_atomic_swap: old %g, expected %g", (double)old, (double)want);  \
    T back = (T)0;                                                                                      \
    shmem_##N##_atomic_fetch_nbi(&back, w, me);                                                         \
    shmem_quiet();                                                                                      \
    PE_CHECK(back == (T)2, "shmem_" #N "_atomic_fetch_nbi: %g", (double)back);                          \
    shmem_barrier_all();                                                                                \
  }
GPUSHMEM_AMOX_TYPES(AMOX_TYPED)

#define AMO_TYPED(T, N)                                                                                            \
  static void typed_amo_##N(T *w) {                                                                                \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                            \
    if (me == 0) *w = (T)0;                                                                                        \
    shmem_barrier_all();                                                                                           \
    for (int i = 0; i < 50; ++i) {                                                                                 \
      (void)shmem_##N##_atomic_fetch_add(w, (T)2, 0);                                                              \
      shmem_##N##_atomic_inc(w, 0);                                                                                \
      shmem_##N##_atomic_add(w, (T)1, 0);                                                                          \
      T f;                                                                                                         \
      shmem_##N##_atomic_fetch_inc_nbi(&f, w, 0);                                                                  \
      (void)shmem_##N##_atomic_fetch_inc(w, 0);                                                                    \
      shmem_##N##_atomic_fetch_add_nbi(&f, w, (T)1, 0);                                                            \
    }                                                                                                              \
    shmem_quiet();                                                                                                 \
    shmem_barrier_all();                                                                                           \
    if (me == 0) {                                                                                                 \
      T want = (T)(50 * 7 * npes);                                                                                 \
      PE_CHECK(*w == want, "shmem_" #N "_atomic add family: %lld, expected %lld", (long long)*w, (long long)want); \
      T c = shmem_##N##_atomic_compare_swap(w, want, (T)5, 0);                                                     \
      PE_CHECK(c == want && *w == (T)5, "shmem_" #N "_atomic_compare_swap: old %lld", (long long)c);               \
      shmem_##N##_atomic_compare_swap_nbi(&c, w, (T)4, (T)9, 0); /* no match: unchanged */                         \
      PE_CHECK(c == (T)5 && *w == (T)5, "shmem_" #N "_atomic_compare_swap_nbi: old %lld", (long long)c);           \
    }                                                                                                              \
    shmem_barrier_all();                                                                                           \
  }
GPUSHMEM_AMO_TYPES(AMO_TYPED)

#define AMOB_TYPED(T, N)                                                                                 \
  static void typed_amob_##N(T *w) {                                                                     \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                  \
    const T bit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                                        \
    if (me == 0) *w = (T)0;                                                                              \
    shmem_barrier_all();                                                                                 \
    shmem_##N##_atomic_or(w, bit, 0);                                                                    \
    T f = (T)0;                                                                                          \
    shmem_##N##_atomic_fetch_or_nbi(&f, w, (T)0, 0);                                                     \
    shmem_##N##_atomic_xor(w, bit, 0);                                                                   \
    (void)shmem_##N##_atomic_fetch_xor(w, bit, 0);                                                       \
    shmem_##N##_atomic_fetch_xor_nbi(&f, w, (T)0, 0);                                                    \
    shmem_quiet();                                                                                       \
    shmem_barrier_all();                                                                                 \
    PE_CHECK(shmem_##N##_atomic_fetch_or(w, (T)0, 0) == all, "shmem_" #N "_atomic_or/xor: 0x%llx",       \
             (unsigned long long)*w);                                                                    \
    shmem_barrier_all();                                                                                 \
    T old = shmem_##N##_atomic_fetch_and(w, (T)~bit, 0);                                                 \
    PE_CHECK(old &bit, "shmem_" #N "_atomic_fetch_and: bit missing in 0x%llx", (unsigned long long)old); \
    shmem_##N##_atomic_fetch_and_nbi(&f, w, (T) ~(T)0, 0);                                               \
    shmem_##N##_atomic_and(w, (T)~bit, 0);                                                               \
    shmem_quiet();                                                                                       \
    shmem_barrier_all();                                                                                 \
    if (me == 0) PE_CHECK(*w == (T)0, "shmem_" #N "_atomic_and: 0x%llx", (unsigned long long)*w);        \
    shmem_barrier_all();                                                                                 \
  }
GPUSHMEM_AMOB_TYPES(AMOB_TYPED)

static void deprecated(long *w, double *dw) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (me == 0) *w = 0;
  shmem_barrier_all();
  (void)shmem_long_finc(w, 0);
  shmem_long_inc(w, 0);
  (void)shmem_long_fadd(w, 3, 0);
  shmem_long_add(w, 5, 0);
  shmem_quiet();
  shmem_barrier_all();
  PE_CHECK(shmem_long_fetch(w, 0) == 10L * npes, "deprecated long: %ld", *w);
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(shmem_long_cswap(w, 10L * npes, -1, 0) == 10L * npes && *w == -1, "shmem_long_cswap");
    shmem_double_set(dw, 2.5, 0);
    PE_CHECK(shmem_double_swap(dw, 1.0, 0) == 2.5 && shmem_double_fetch(dw, 0) == 1.0, "shmem_double_swap/fetch");
    shmem_int_set((int *)w, 4, 0);
    PE_CHECK(shmem_int_swap((int *)w, 6, 0) == 4 && shmem_int_finc((int *)w, 0) == 6, "shmem_int_swap/finc");
  }
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  long *counter = (long *)shmem_malloc(sizeof(long));
  long *olds = (long *)shmem_malloc((size_t)K * (size_t)npes * sizeof(long));
  long *mine = (long *)malloc((size_t)K * sizeof(long));
  uint64_t *bits = (uint64_t *)shmem_malloc(sizeof(uint64_t));
  float *fw = (float *)shmem_malloc(sizeof(float));
  double *dw = (double *)shmem_malloc(sizeof(double));
  long double *any = (long double *)shmem_malloc(16); /* room for the widest AMO type */
  if (!counter || !olds || !mine || !bits || !fw || !dw || !any) {
    PE_FAIL("allocation failed");
    return pe_finish("amo");
  }
  hammer(counter, olds, mine);
  swap_chain(counter, olds, mine);
  bitwise(bits);
  floating(fw, dw);
#define RUN_AMOX(T, N) typed_amox_##N((T *)any);
#define RUN_AMO(T, N) typed_amo_##N((T *)any);
#define RUN_AMOB(T, N) typed_amob_##N((T *)any);
  GPUSHMEM_AMOX_TYPES(RUN_AMOX)
  GPUSHMEM_AMO_TYPES(RUN_AMO)
  GPUSHMEM_AMOB_TYPES(RUN_AMOB)
  deprecated(counter, dw);
  return pe_finish("amo");
}
