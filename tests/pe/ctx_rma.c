/*
 * RMA on contexts (C11), to every PE including this one:
 *  - every type of the type table through the shmem_ctx_TYPE_{put,get,put_nbi,get_nbi,p,g,iput,iget} names and
 *    through the generic names with a leading ctx (shmem_put(ctx, ...)), on contexts of different options;
 *  - the SIZE and byte forms shmem_ctx_{putS,getS,putS_nbi,getS_nbi,iputS,igetS,putmem,getmem,...}.
 * Completion goes through shmem_ctx_quiet(ctx) (shmem_barrier_all only quiets the default context). Every
 * element is checked: written positions hold the writer's pattern, strided gaps still hold the poison.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* Small enough to be exact in every type (one-byte types < 101, two-byte < 30011, floats < 2^24). */
#define PAT_MOD(T) (sizeof(T) == 1 ? 101ul : sizeof(T) == 2 ? 30011ul : 1000003ul)
#define PATTERN(T, src, i, salt)                                                                              \
  ((T)((7919ul * (unsigned long)(src) + 31ul * (unsigned long)(i) + 104729ul * (unsigned long)(salt) + 1ul) % \
       PAT_MOD(T)))

enum {
  NP = 100, /* put / get elements */
  NS = 5,   /* p / g elements */
  NI = 20,  /* iput / iget elements: dest stride 3, source stride 2 */
  SPAN_D = (NI - 1) * 3 + 1,
  SPAN_S = (NI - 1) * 2 + 1,
  SLOT = 2 * NP + NS + SPAN_D, /* one writer's part of a dest: put | put_nbi | p | iput */
  SRC = NP + NS + SPAN_S       /* a source: contiguous | p/g | strided */
};
enum { kPoison = 0xff };

/* How a body names a routine: the typed ctx name, or the generic name (which takes the ctx first). */
#define NAMED(N, OP) shmem_ctx_##N##_##OP
#define GENERIC(N, OP) shmem_##OP

/* Checks one writer's slot of a dest: every region holds `from`'s pattern, strided gaps hold poison. */
#define VERIFY(T, slot, from, salt, what)                                                          \
  do {                                                                                             \
    long bad = 0;                                                                                  \
    for (size_t j = 0; j < SLOT; ++j) {                                                            \
      int gap = 0;                                                                                 \
      T want;                                                                                      \
      if (j < 2 * NP)                                                                              \
        want = PATTERN(T, from, j % NP, salt);                                                     \
      else if (j < 2 * NP + NS)                                                                    \
        want = PATTERN(T, from, NP + j - 2 * NP, salt);                                            \
      else if ((j - 2 * NP - NS) % 3 == 0)                                                         \
        want = PATTERN(T, from, NP + NS + (j - 2 * NP - NS) / 3, salt);                            \
      else                                                                                         \
        gap = 1, want = (T)0;                                                                      \
      const unsigned char *bytes = (const unsigned char *)&(slot)[j];                              \
      int ok = 1;                                                                                  \
      if (gap) {                                                                                   \
        for (size_t b = 0; b < sizeof(T); ++b) ok &= bytes[b] == kPoison;                          \
      } else {                                                                                     \
        ok = (slot)[j] == want;                                                                    \
      }                                                                                            \
      if (!ok && bad++ < 3)                                                                        \
        PE_FAIL("%s (" #T ", peer PE %d): element %zu (%s): expected %Lg, got %Lg", what, from, j, \
                j < 2 * NP        ? "put/get"                                                      \
                : j < 2 * NP + NS ? "p/g"                                                          \
                : gap             ? "strided gap"                                                  \
                                  : "iput/iget",                                                               \
                (long double)want, (long double)(slot)[j]);                                        \
    }                                                                                              \
  } while (0)

/* Fills a source: [0, NP) contiguous, [NP, NP + NS) for p / g, then NI elements at stride 2. */
#define FILL(T, src, me, salt)                                                                  \
  do {                                                                                          \
    memset((src), kPoison, SRC * sizeof(T));                                                    \
    for (size_t i = 0; i < NP + NS; ++i) (src)[i] = PATTERN(T, me, i, salt);                    \
    for (size_t i = 0; i < NI; ++i) (src)[NP + NS + 2 * i] = PATTERN(T, me, NP + NS + i, salt); \
  } while (0)

#define RMA_BODY(T, N, F, WHAT)                                                                                  \
  {                                                                                                              \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                                          \
    T *dst = (T *)sym_dst, *ssrc = (T *)sym_src, *lsrc = (T *)local_src, *ldst = (T *)local_dst;                 \
    /* puts: my slot of every PE's dst */                                                                        \
    FILL(T, lsrc, me, salt);                                                                                     \
    memset(dst, kPoison, (size_t)npes *SLOT * sizeof(T));                                                        \
    shmem_barrier_all();                                                                                         \
    for (int k = 0; k < npes; ++k) {                                                                             \
      const int pe = (me + k) % npes;                                                                            \
      T *d = dst + (size_t)me * SLOT;                                                                            \
      F(N, put)(ctx, d, lsrc, NP, pe);                                                                           \
      F(N, put_nbi)(ctx, d + NP, lsrc, NP, pe);                                                                  \
      for (size_t i = 0; i < NS; ++i) F(N, p)(ctx, d + 2 * NP + i, lsrc[NP + i], pe);                            \
      F(N, iput)(ctx, d + 2 * NP + NS, lsrc + NP + NS, 3, 2, NI, pe);                                            \
    }                                                                                                            \
    shmem_ctx_quiet(ctx);                                                                                        \
    shmem_barrier_all();                                                                                         \
    for (int from = 0; from < npes; ++from) VERIFY(T, dst + (size_t)from * SLOT, from, salt, WHAT " puts");      \
    /* gets: every PE's source into my slot for it */                                                            \
    FILL(T, ssrc, me, salt + 1);                                                                                 \
    memset(ldst, kPoison, (size_t)npes *SLOT * sizeof(T));                                                       \
    shmem_barrier_all();                                                                                         \
    for (int k = 0; k < npes; ++k) {                                                                             \
      const int pe = (me + k) % npes;                                                                            \
      T *d = ldst + (size_t)pe * SLOT;                                                                           \
      F(N, get)(ctx, d, ssrc, NP, pe);                                                                           \
      F(N, get_nbi)(ctx, d + NP, ssrc, NP, pe);                                                                  \
      for (size_t i = 0; i < NS; ++i) d[2 * NP + i] = F(N, g)(ctx, ssrc + NP + i, pe);                           \
      F(N, iget)(ctx, d + 2 * NP + NS, ssrc + NP + NS, 3, 2, NI, pe);                                            \
    }                                                                                                            \
    shmem_ctx_quiet(ctx); /* completes the get_nbi */                                                            \
    for (int from = 0; from < npes; ++from) VERIFY(T, ldst + (size_t)from * SLOT, from, salt + 1, WHAT " gets"); \
    shmem_barrier_all(); /* nobody refills a source another PE still reads */                                    \
  }

#define STAMP(T, N)                                                                                                \
  static void named_##N(shmem_ctx_t ctx, void *sym_dst, void *sym_src, void *local_src, void *local_dst, int salt) \
      RMA_BODY(T, N, NAMED, "shmem_ctx_" #N "_*") static void generic_##N(                                         \
          shmem_ctx_t ctx, void *sym_dst, void *sym_src, void *local_src, void *local_dst, int salt)               \
          RMA_BODY(T, N, GENERIC, "generic(ctx, ...)")
GPUSHMEM_RMA_TYPES(STAMP)
#undef STAMP

/* ---- SIZE and byte forms: bytes of a pattern, elements of S/8 bytes ------------------------------------- */
typedef void (*bulk_fn)(shmem_ctx_t, void *, const void *, size_t, int);
typedef void (*strided_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef struct {
  const char *name;
  size_t elem;
  bulk_fn put, get, put_nbi, get_nbi;
  strided_fn iput, iget; /* NULL for the byte forms */
} bytes_case;
#define SIZED_CASE(S)                                                                                     \
  {"shmem_ctx_*" #S,       (S) / 8,           shmem_ctx_put##S, shmem_ctx_get##S, shmem_ctx_put##S##_nbi, \
   shmem_ctx_get##S##_nbi, shmem_ctx_iput##S, shmem_ctx_iget##S},
static const bytes_case kBytes[] = {GPUSHMEM_RMA_SIZES(SIZED_CASE){
    "shmem_ctx_*mem", 1, shmem_ctx_putmem, shmem_ctx_getmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem_nbi, NULL, NULL}};
#undef SIZED_CASE

static unsigned char byte_pattern(int src, size_t i, int salt) {
  return (unsigned char)((131u * (unsigned)src + 7u * (unsigned)i + 29u * (unsigned)salt + 1u) % 127u);
}

/* Byte layout of a slot, in elements: put | put_nbi | iput span (stride 3). Source: NP contiguous, then NI at
   stride 2. */
static void bytes_round(const bytes_case *c, shmem_ctx_t ctx, char *sym_dst, char *sym_src, char *lsrc, char *ldst,
                        int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const size_t e = c->elem, slot = (2 * NP + SPAN_D) * e, src_bytes = (NP + SPAN_S) * e;
  for (int phase = 0; phase < 2; ++phase) {
    const int is_put = phase == 0;
    char *src = is_put ? lsrc : sym_src;
    char *dst = is_put ? sym_dst : ldst;
    memset(src, kPoison, src_bytes);
    for (size_t b = 0; b < NP * e; ++b) src[b] = (char)byte_pattern(me, b, salt + phase);
    for (size_t i = 0; i < NI; ++i)
      for (size_t b = 0; b < e; ++b)
        src[(NP + 2 * i) * e + b] = (char)byte_pattern(me, NP * e + i * e + b, salt + phase);
    memset(dst, kPoison, slot * (size_t)npes);
    shmem_barrier_all();
    for (int k = 0; k < npes; ++k) {
      const int pe = (me + k) % npes;
      char *d = dst + (size_t)(is_put ? me : pe) * slot;
      (is_put ? c->put : c->get)(ctx, d, src, NP, pe);
      (is_put ? c->put_nbi : c->get_nbi)(ctx, d + NP * e, src, NP, pe);
      if (c->iput != NULL) (is_put ? c->iput : c->iget)(ctx, d + 2 * NP * e, src + NP * e, 3, 2, NI, pe);
    }
    shmem_ctx_quiet(ctx);
    if (is_put) shmem_barrier_all();
    for (int from = 0; from < npes; ++from) {
      const unsigned char *s = (const unsigned char *)dst + (size_t)from * slot;
      long bad = 0;
      for (size_t b = 0; b < slot; ++b) {
        const size_t el = b / e;
        unsigned char want;
        if (b < 2 * NP * e)
          want = byte_pattern(from, b % (NP * e), salt + phase);
        else if (c->iput != NULL && (el - 2 * NP) % 3 == 0)
          want = byte_pattern(from, NP * e + (el - 2 * NP) / 3 * e + b % e, salt + phase);
        else
          want = kPoison;
        if (s[b] != want && bad++ < 3)
          PE_FAIL("%s %s (peer PE %d): byte %zu (element %zu): expected 0x%02x, got 0x%02x", c->name,
                  is_put ? "puts" : "gets", from, b, el, want, s[b]);
      }
    }
    shmem_barrier_all();
  }
}

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  const size_t most = 16; /* the widest element */
  void *sym_dst = shmem_malloc((size_t)npes * SLOT * most);
  void *sym_src = shmem_malloc(SRC * most);
  void *local_src = malloc(SRC * most);
  void *local_dst = malloc((size_t)npes * SLOT * most);
  if (!sym_dst || !sym_src || !local_src || !local_dst) {
    PE_FAIL("allocation failed");
    return pe_finish("ctx_rma");
  }
  shmem_ctx_t plain, serialized, private_nostore;
  if (shmem_ctx_create(0, &plain) != 0 || shmem_ctx_create(SHMEM_CTX_SERIALIZED, &serialized) != 0 ||
      shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE, &private_nostore) != 0) {
    PE_FAIL("shmem_ctx_create failed");
    return pe_finish("ctx_rma");
  }
  int salt = 0;
#define RUN(T, N)                                                                     \
  named_##N(plain, sym_dst, sym_src, local_src, local_dst, (salt = (salt + 3) % 40)); \
  generic_##N(serialized, sym_dst, sym_src, local_src, local_dst, (salt = (salt + 3) % 40));
  GPUSHMEM_RMA_TYPES(RUN)
#undef RUN
  /* A few types again on the default context and on a private, nostore one. */
  named_int(SHMEM_CTX_DEFAULT, sym_dst, sym_src, local_src, local_dst, 41);
  generic_longdouble(SHMEM_CTX_DEFAULT, sym_dst, sym_src, local_src, local_dst, 42);
  generic_uint8(private_nostore, sym_dst, sym_src, local_src, local_dst, 43);
  for (size_t c = 0; c < sizeof kBytes / sizeof kBytes[0]; ++c)
    bytes_round(&kBytes[c], c % 2 ? private_nostore : plain, (char *)sym_dst, (char *)sym_src, (char *)local_src,
                (char *)local_dst, (int)c * 2);
  shmem_ctx_destroy(private_nostore);
  shmem_ctx_destroy(serialized);
  shmem_ctx_destroy(plain);
  free(local_dst);
  free(local_src);
  shmem_free(sym_src);
  shmem_free(sym_dst);
  return pe_finish("ctx_rma");
}
