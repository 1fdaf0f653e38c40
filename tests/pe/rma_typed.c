/*
 * Typed RMA for every type of the type table, in C11: put, get, put_nbi, get_nbi, p and g through the
 * C names (shmem_<type>_put, ...) and again through the _Generic names (shmem_put, ...), to every PE
 * including this one, with 1, 7, 1000 and 100000 elements. Each phase writes a pattern that depends on
 * the source PE, the element, the phase and the type, into a buffer poisoned beforehand, and every PE
 * checks every element after a barrier.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* Small enough to be exact in every type (one-byte types < 101, two-byte < 30011, floats < 2^24). */
#define PAT_MOD(T) (sizeof(T) == 1 ? 101ul : sizeof(T) == 2 ? 30011ul : 1000003ul)
#define PATTERN(T, src, i, salt)                                                                              \
  ((T)((7919ul * (unsigned long)(src) + 31ul * (unsigned long)(i) + 104729ul * (unsigned long)(salt) + 1ul) % \
       PAT_MOD(T)))

typedef struct {
  void (*put)(void *dest, const void *source, size_t nelems, int pe);
  void (*get)(void *dest, const void *source, size_t nelems, int pe);
  void (*put_nbi)(void *dest, const void *source, size_t nelems, int pe);
  void (*get_nbi)(void *dest, const void *source, size_t nelems, int pe);
  /* dest[i] = PATTERN(src, i, salt) on PE pe */
  void (*p)(void *dest, size_t i, int src, int salt, int pe);
  /* local[i] = source[i] of PE pe */
  void (*g)(void *local, const void *source, size_t i, int pe);
} rma_ops;

typedef struct {
  const char *name;
  size_t size;
  void (*fill)(void *buf, size_t n, int src, int salt);
  /* Counts (and reports the first few) elements of buf that differ from PATTERN(src, ., salt). */
  long (*verify)(const void *buf, size_t n, int src, int salt, const char *what, int peer);
  rma_ops named;   /* shmem_<name>_put, ... */
  rma_ops generic; /* shmem_put, ... (_Generic) */
} type_case;

/* One-line forwarders per type, stamped from the type table like the library's own names. */
#define STAMP(T, N)                                                                                            \
  static void fill_##N(void *buf, size_t n, int src, int salt) {                                               \
    T *b = (T *)buf;                                                                                           \
    for (size_t i = 0; i < n; ++i) b[i] = PATTERN(T, src, i, salt);                                            \
  }                                                                                                            \
  static long verify_##N(const void *buf, size_t n, int src, int salt, const char *what, int peer) {           \
    const T *b = (const T *)buf;                                                                               \
    long bad = 0;                                                                                              \
    for (size_t i = 0; i < n; ++i) {                                                                           \
      T want = PATTERN(T, src, i, salt);                                                                       \
      if (b[i] != want && bad++ < 3)                                                                           \
        PE_FAIL("%s (" #T ", %zu elements, peer PE %d): element %zu: expected %Lg, got %Lg", what, n, peer, i, \
                (long double)want, (long double)b[i]);                                                         \
    }                                                                                                          \
    return bad;                                                                                                \
  }                                                                                                            \
  static void put_##N(void *d, const void *s, size_t n, int pe) {                                              \
    shmem_##N##_put((T *)d, (const T *)s, n, pe);                                                              \
  }                                                                                                            \
  static void get_##N(void *d, const void *s, size_t n, int pe) {                                              \
    shmem_##N##_get((T *)d, (const T *)s, n, pe);                                                              \
  }                                                                                                            \
  static void put_nbi_##N(void *d, const void *s, size_t n, int pe) {                                          \
    shmem_##N##_put_nbi((T *)d, (const T *)s, n, pe);                                                          \
  }                                                                                                            \
  static void get_nbi_##N(void *d, const void *s, size_t n, int pe) {                                          \
    shmem_##N##_get_nbi((T *)d, (const T *)s, n, pe);                                                          \
  }                                                                                                            \
  static void p_##N(void *d, size_t i, int src, int salt, int pe) {                                            \
    shmem_##N##_p((T *)d + i, PATTERN(T, src, i, salt), pe);                                                   \
  }                                                                                                            \
  static void g_##N(void *l, const void *s, size_t i, int pe) {                                                \
    ((T *)l)[i] = shmem_##N##_g((const T *)s + i, pe);                                                         \
  }
GPUSHMEM_RMA_TYPES(STAMP)
#undef STAMP

/* The _Generic names, stamped the same way (inside a type-table expansion, as users may do too). */
#define STAMP_GENERIC(T, N)                                            \
  static void gput_##N(void *d, const void *s, size_t n, int pe) {     \
    shmem_put((T *)d, (const T *)s, n, pe);                            \
  }                                                                    \
  static void gget_##N(void *d, const void *s, size_t n, int pe) {     \
    shmem_get((T *)d, (const T *)s, n, pe);                            \
  }                                                                    \
  static void gput_nbi_##N(void *d, const void *s, size_t n, int pe) { \
    shmem_put_nbi((T *)d, (const T *)s, n, pe);                        \
  }                                                                    \
  static void gget_nbi_##N(void *d, const void *s, size_t n, int pe) { \
    shmem_get_nbi((T *)d, (const T *)s, n, pe);                        \
  }                                                                    \
  static void gp_##N(void *d, size_t i, int src, int salt, int pe) {   \
    shmem_p((T *)d + i, PATTERN(T, src, i, salt), pe);                 \
  }                                                                    \
  static void gg_##N(void *l, const void *s, size_t i, int pe) {       \
    ((T *)l)[i] = shmem_g((const T *)s + i, pe);                       \
  }
GPUSHMEM_RMA_TYPES(STAMP_GENERIC)
#undef STAMP_GENERIC

#define CASE(T, N)                                             \
  {#N,                                                         \
   sizeof(T),                                                  \
   fill_##N,                                                   \
   verify_##N,                                                 \
   {put_##N, get_##N, put_nbi_##N, get_nbi_##N, p_##N, g_##N}, \
   {gput_##N, gget_##N, gput_nbi_##N, gget_nbi_##N, gp_##N, gg_##N}},
static const type_case kTypes[] = {GPUSHMEM_RMA_TYPES(CASE)};
#undef CASE

enum { kPoison = 0xff }; /* all-ones: NaN for floats, above every pattern for integers */

/* Every phase moves all four sizes at once, each in its own region of a block of kTotal elements, so the
   barriers (slow when PEs outnumber cores) are paid once per phase rather than once per size. */
static const size_t kSizes[] = {1, 7, 1000, 100000};
enum { kNumSizes = 4, kTotal = 1 + 7 + 1000 + 100000 };

static size_t region(size_t si) {
  size_t off = 0;
  for (size_t j = 0; j < si; ++j) off += kSizes[j];
  return off;
}

/* How many of n elements the p / g phases move one at a time to `pe`: all of them where `sym` is load/store
   reachable, at most kElementwiseRemote where each is a network round trip. */
enum { kElementwiseRemote = 1024 };
static size_t elementwise_count(size_t n, const void *sym, int pe) {
  return shmem_ptr(sym, pe) == NULL && n > kElementwiseRemote ? (size_t)kElementwiseRemote : n;
}

/* Runs `kind` (0..2: put, put_nbi, p; 3..5: get, get_nbi, g) with `ops` for every size. Puts: every PE
   writes its slot of `dst` on every PE. Gets: every PE reads every PE's `src` into its slot of `local`. */
static void phase(const type_case *t, const rma_ops *ops, int kind, char *src, char *dst, char *local, int salt,
                  const char *what) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const size_t block = (size_t)kTotal * t->size;
  const int is_put = kind < 3;
  char *into = is_put ? dst : local;
  for (size_t si = 0; si < kNumSizes; ++si) t->fill(src + region(si) * t->size, kSizes[si], me, salt * 4 + (int)si);
  memset(into, kPoison, block * (size_t)npes);
  shmem_barrier_all(); /* every dst is poisoned and every src holds this phase's pattern */
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + k) % npes; /* start at a different target on each PE */
    for (size_t si = 0; si < kNumSizes; ++si) {
      const size_t n = kSizes[si], at = region(si) * t->size;
      char *s = src + at;
      char *d = is_put ? dst + (size_t)me * block + at : local + (size_t)pe * block + at;
      switch (kind) {
        case 0:
          ops->put(d, s, n, pe);
          break;
        case 1:
          ops->put_nbi(d, s, n, pe);
          break;
        case 2: {
          /* One network round trip per element to a PE this one cannot load and store (another node): the
             first kElementwiseRemote elements element by element, the rest in bulk. */
          const size_t m = elementwise_count(n, dst, pe);
          for (size_t i = 0; i < m; ++i) ops->p(d, i, me, salt * 4 + (int)si, pe);
          if (m < n) ops->put(d + m * t->size, s + m * t->size, n - m, pe);
          break;
        }
        case 3:
          ops->get(d, s, n, pe);
          break;
        case 4:
          ops->get_nbi(d, s, n, pe);
          break;
        case 5: {
          const size_t m = elementwise_count(n, src, pe);
          for (size_t i = 0; i < m; ++i) ops->g(d, s, i, pe);
          if (m < n) ops->get(d + m * t->size, s + m * t->size, n - m, pe);
          break;
        }
      }
    }
  }
  shmem_quiet(); /* completes the _nbi forms; harmless for the others */
  if (is_put) shmem_barrier_all();
  for (int from = 0; from < npes; ++from)
    for (size_t si = 0; si < kNumSizes; ++si)
      t->verify(into + (size_t)from * block + region(si) * t->size, kSizes[si], from, salt * 4 + (int)si, what, from);
  shmem_barrier_all(); /* nobody refills src or re-poisons dst while another PE still uses it */
}

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  size_t max_size = 0;
  for (size_t t = 0; t < sizeof kTypes / sizeof kTypes[0]; ++t)
    if (kTypes[t].size > max_size) max_size = kTypes[t].size;
  const size_t block = (size_t)kTotal * max_size;
  char *src = (char *)shmem_malloc(block);
  char *dst = (char *)shmem_malloc(block * (size_t)npes);
  char *local = (char *)malloc(block * (size_t)npes);
  if (src == NULL || dst == NULL || local == NULL) {
    PE_FAIL("cannot allocate the buffers (%zu bytes symmetric)", block * (size_t)(npes + 1));
    return pe_finish("rma_typed");
  }
  static const char *const op_names[6] = {"put", "put_nbi", "p", "get", "get_nbi", "g"};
  int salt = 0;
  for (size_t t = 0; t < sizeof kTypes / sizeof kTypes[0]; ++t) {
    const type_case *tc = &kTypes[t];
    for (int generic = 0; generic < 2; ++generic) {
      for (int kind = 0; kind < 6; ++kind) {
        char what[64];
        if (generic)
          snprintf(what, sizeof what, "shmem_%s (_Generic)", op_names[kind]);
        else
          snprintf(what, sizeof what, "shmem_%s_%s", tc->name, op_names[kind]);
        phase(tc, generic ? &tc->generic : &tc->named, kind, src, dst, local, ++salt % 16, what);
      }
    }
  }
  free(local);
  shmem_free(dst);
  shmem_free(src);
  return pe_finish("rma_typed");
}
