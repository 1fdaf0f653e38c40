/*
 * AMOs on contexts (C11): every type of T-AMOX, T-AMO and T-AMOB through the shmem_ctx_TYPE_atomic_* names and
 * again through the C11 generic names with a leading ctx (shmem_atomic_fetch_add(ctx, ...)), on a context of
 * every option set; then the deprecated C11 generics (shmem_fetch, shmem_set, shmem_swap, shmem_cswap,
 * shmem_finc, shmem_inc, shmem_fadd, shmem_add) for each of their types. Every operation's effect is checked:
 * totals from every PE (nothing lost), fetched old values, one bit per PE for the bitwise forms.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* How a test body names a routine: the typed ctx name, or the generic name (which then takes the ctx). */
#define NAMED(N, OP) shmem_ctx_##N##_##OP
#define GENERIC(N, OP) shmem_##OP

#define AMOX_BODY(T, N, F, WHAT)                                                                               \
  {                                                                                                            \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;                                \
    F(N, atomic_set)(ctx, w, (T)(me + 1), next);                                                               \
    shmem_ctx_quiet(ctx);                                                                                      \
    shmem_barrier_all();                                                                                       \
    T v = F(N, atomic_fetch)(ctx, w, me);                                                                      \
    T want = (T)((me + npes - 1) % npes + 1);                                                                  \
    PE_CHECK(v == want, "%s " #T " atomic_set/fetch: got %g, expected %g", WHAT, (double)v, (double)want);     \
    shmem_barrier_all();                                                                                       \
    T old = F(N, atomic_swap)(ctx, w, (T)2, me);                                                               \
    PE_CHECK(old == want, "%s " #T " atomic_swap: old %g, expected %g", WHAT, (double)old, (double)want);      \
    T back = (T)0;                                                                                             \
    F(N, atomic_fetch_nbi)(ctx, &back, w, me);                                                                 \
    F(N, atomic_swap_nbi)(ctx, &old, w, (T)3, me);                                                             \
    shmem_ctx_quiet(ctx);                                                                                      \
    PE_CHECK(back == (T)2 && old == (T)2 && *w == (T)3, "%s " #T " atomic_fetch_nbi/swap_nbi: %g %g %g", WHAT, \
             (double)back, (double)old, (double)*w);                                                           \
    shmem_barrier_all();                                                                                       \
  }

#define AMO_BODY(T, N, F, WHAT)                                                                                   \
  {                                                                                                               \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                           \
    if (me == 0) *w = (T)0;                                                                                       \
    shmem_barrier_all();                                                                                          \
    for (int i = 0; i < 20; ++i) {                                                                                \
      (void)F(N, atomic_fetch_add)(ctx, w, (T)2, 0);                                                              \
      F(N, atomic_inc)(ctx, w, 0);                                                                                \
      F(N, atomic_add)(ctx, w, (T)1, 0);                                                                          \
      T f;                                                                                                        \
      F(N, atomic_fetch_inc_nbi)(ctx, &f, w, 0);                                                                  \
      (void)F(N, atomic_fetch_inc)(ctx, w, 0);                                                                    \
      F(N, atomic_fetch_add_nbi)(ctx, &f, w, (T)1, 0);                                                            \
    }                                                                                                             \
    shmem_ctx_quiet(ctx);                                                                                         \
    shmem_barrier_all();                                                                                          \
    if (me == npes - 1) {                                                                                         \
      T want = (T)(20 * 7 * npes);                                                                                \
      T got = F(N, atomic_fetch)(ctx, w, 0);                                                                      \
      PE_CHECK(got == want, "%s " #T " add family: %lld, expected %lld", WHAT, (long long)got, (long long)want);  \
      T c = F(N, atomic_compare_swap)(ctx, w, want, (T)5, 0);                                                     \
      PE_CHECK(c == want, "%s " #T " atomic_compare_swap: old %lld", WHAT, (long long)c);                         \
      F(N, atomic_compare_swap_nbi)(ctx, &c, w, (T)4, (T)9, 0); /* no match: unchanged */                         \
      shmem_ctx_quiet(ctx);                                                                                       \
      PE_CHECK(c == (T)5 && F(N, atomic_fetch)(ctx, w, 0) == (T)5, "%s " #T " atomic_compare_swap_nbi: old %lld", \
               WHAT, (long long)c);                                                                               \
    }                                                                                                             \
    shmem_barrier_all();                                                                                          \
  }

#define AMOB_BODY(T, N, F, WHAT)                                                                            \
  {                                                                                                         \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                     \
    const T bit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                                           \
    if (me == 0) *w = (T)0;                                                                                 \
    shmem_barrier_all();                                                                                    \
    F(N, atomic_or)(ctx, w, bit, 0);                                                                        \
    T f = (T)0;                                                                                             \
    F(N, atomic_fetch_or_nbi)(ctx, &f, w, (T)0, 0);                                                         \
    F(N, atomic_xor)(ctx, w, bit, 0);                                                                       \
    (void)F(N, atomic_fetch_xor)(ctx, w, bit, 0);                                                           \
    F(N, atomic_fetch_xor_nbi)(ctx, &f, w, (T)0, 0);                                                        \
    shmem_ctx_quiet(ctx);                                                                                   \
    shmem_barrier_all();                                                                                    \
    T got = F(N, atomic_fetch_or)(ctx, w, (T)0, 0);                                                         \
    PE_CHECK(got == all, "%s " #T " atomic_or/xor: 0x%llx, expected 0x%llx", WHAT, (unsigned long long)got, \
             (unsigned long long)all);                                                                      \
    shmem_barrier_all();                                                                                    \
    T old = F(N, atomic_fetch_and)(ctx, w, (T)~bit, 0);                                                     \
    PE_CHECK(old &bit, "%s " #T " atomic_fetch_and: bit missing in 0x%llx", WHAT, (unsigned long long)old); \
    F(N, atomic_fetch_and_nbi)(ctx, &f, w, (T) ~(T)0, 0);                                                   \
    F(N, atomic_and)(ctx, w, (T)~bit, 0);                                                                   \
    shmem_ctx_quiet(ctx);                                                                                   \
    shmem_barrier_all();                                                                                    \
    if (me == 0) PE_CHECK(*w == (T)0, "%s " #T " atomic_and: 0x%llx", WHAT, (unsigned long long)*w);        \
    shmem_barrier_all();                                                                                    \
  }

#define STAMP_AMOX(T, N)                                                                          \
  static void amox_named_##N(shmem_ctx_t ctx, T *w)                                               \
      AMOX_BODY(T, N, NAMED, "shmem_ctx_" #N) static void amox_generic_##N(shmem_ctx_t ctx, T *w) \
          AMOX_BODY(T, N, GENERIC, "generic(ctx)")
#define STAMP_AMO(T, N)                                                                                                \
  static void amo_named_##N(shmem_ctx_t ctx, T *w) AMO_BODY(T, N, NAMED, "shmem_ctx_" #N) static void amo_generic_##N( \
      shmem_ctx_t ctx, T *w) AMO_BODY(T, N, GENERIC, "generic(ctx)")
#define STAMP_AMOB(T, N)                                                                          \
  static void amob_named_##N(shmem_ctx_t ctx, T *w)                                               \
      AMOB_BODY(T, N, NAMED, "shmem_ctx_" #N) static void amob_generic_##N(shmem_ctx_t ctx, T *w) \
          AMOB_BODY(T, N, GENERIC, "generic(ctx)")
GPUSHMEM_AMOX_TYPES(STAMP_AMOX)
GPUSHMEM_AMO_TYPES(STAMP_AMO)
GPUSHMEM_AMOB_TYPES(STAMP_AMOB)

/* The deprecated C11 generics on the default context. */
#define DEPRECATED_AMOX(T, N)                                                                            \
  static void deprecated_amox_##N(T *w) {                                                                \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;                          \
    shmem_set(w, (T)(me + 1), next);                                                                     \
    shmem_barrier_all();                                                                                 \
    T want = (T)((me + npes - 1) % npes + 1);                                                            \
    T v = shmem_fetch(w, me);                                                                            \
    PE_CHECK(v == want, "shmem_set/shmem_fetch (" #T "): %g, expected %g", (double)v, (double)want);     \
    T old = shmem_swap(w, (T)7, me);                                                                     \
    PE_CHECK(old == want && *w == (T)7, "shmem_swap (" #T "): old %g, now %g", (double)old, (double)*w); \
    shmem_barrier_all();                                                                                 \
  }
#define DEPRECATED_AMO(T, N)                                                                                           \
  static void deprecated_amo_##N(T *w) {                                                                               \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                                \
    if (me == 0) *w = (T)0;                                                                                            \
    shmem_barrier_all();                                                                                               \
    (void)shmem_finc(w, 0);                                                                                            \
    shmem_inc(w, 0);                                                                                                   \
    (void)shmem_fadd(w, (T)3, 0);                                                                                      \
    shmem_add(w, (T)5, 0);                                                                                             \
    shmem_quiet();                                                                                                     \
    shmem_barrier_all();                                                                                               \
    if (me == 0) {                                                                                                     \
      PE_CHECK(*w == (T)(10 * npes), "shmem_finc/inc/fadd/add (" #T "): %lld, expected %d", (long long)*w, 10 * npes); \
      T c = shmem_cswap(w, (T)(10 * npes), (T)-1, 0);                                                                  \
      PE_CHECK(c == (T)(10 * npes) && *w == (T)-1, "shmem_cswap (" #T "): old %lld, now %lld", (long long)c,           \
               (long long)*w);                                                                                         \
    }                                                                                                                  \
    shmem_barrier_all();                                                                                               \
  }
#define DEPRECATED_AMOX_TYPES(X) X(float, float) X(double, double) X(int, int) X(long, long) X(long long, longlong)
#define DEPRECATED_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
DEPRECATED_AMOX_TYPES(DEPRECATED_AMOX)
DEPRECATED_AMO_TYPES(DEPRECATED_AMO)

int main(void) {
  shmem_init();
  void *any = shmem_malloc(16); /* room for the widest AMO type */
  if (any == NULL) {
    PE_FAIL("allocation failed");
    return pe_finish("ctx_amo");
  }
  static const long kOptions[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                                  SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
  /* Named forms on a fresh context of each option set (and SHMEM_CTX_DEFAULT); generic forms on two. */
  for (int o = 0; o <= 5; ++o) {
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (o < 5 && shmem_ctx_create(kOptions[o], &ctx) != 0) {
      PE_FAIL("shmem_ctx_create(options=%ld) failed", kOptions[o]);
      continue;
    }
#define RUN_NAMED_AMOX(T, N) amox_named_##N(ctx, (T *)any);
#define RUN_NAMED_AMO(T, N) amo_named_##N(ctx, (T *)any);
#define RUN_NAMED_AMOB(T, N) amob_named_##N(ctx, (T *)any);
#define RUN_GENERIC_AMOX(T, N) amox_generic_##N(ctx, (T *)any);
#define RUN_GENERIC_AMO(T, N) amo_generic_##N(ctx, (T *)any);
#define RUN_GENERIC_AMOB(T, N) amob_generic_##N(ctx, (T *)any);
    if (o == 0 || o == 5) {
      GPUSHMEM_AMOX_TYPES(RUN_NAMED_AMOX)
      GPUSHMEM_AMO_TYPES(RUN_NAMED_AMO)
      GPUSHMEM_AMOB_TYPES(RUN_NAMED_AMOB)
    }
    if (o == 1 || o == 4) {
      GPUSHMEM_AMOX_TYPES(RUN_GENERIC_AMOX)
      GPUSHMEM_AMO_TYPES(RUN_GENERIC_AMO)
      GPUSHMEM_AMOB_TYPES(RUN_GENERIC_AMOB)
    }
    if (o == 2 || o == 3) { /* a taste of each table: the whole table ran above */
      amox_named_double(ctx, (double *)any);
      amo_generic_uint64(ctx, (uint64_t *)any);
      amob_named_uint(ctx, (unsigned int *)any);
    }
    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  }
#define RUN_DEPRECATED_AMOX(T, N) deprecated_amox_##N((T *)any);
#define RUN_DEPRECATED_AMO(T, N) deprecated_amo_##N((T *)any);
  DEPRECATED_AMOX_TYPES(RUN_DEPRECATED_AMOX)
  DEPRECATED_AMO_TYPES(RUN_DEPRECATED_AMO)
  shmem_free(any);
  return pe_finish("ctx_amo");
}
