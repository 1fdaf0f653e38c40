/*
 * Contexts (C11): creation with every option set, distinct handles, SHMEM_CTX_DEFAULT and SHMEM_CTX_INVALID
 * (fence / quiet / destroy on INVALID do nothing), many create / destroy cycles (slots are reused, handles are
 * not), put-with-signal on contexts for every type (typed ctx names and the generic names with a ctx, blocking
 * and _nbi) plus the SIZE and byte forms, and fence / quiet ordering on a context: a put, a fence, then a flag,
 * and the flag's reader sees the put.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* Usable in a static initialiser: both are constants. */
static shmem_ctx_t g_default = SHMEM_CTX_DEFAULT;
static shmem_ctx_t g_invalid = SHMEM_CTX_INVALID;

enum { NE = 16 }; /* elements per put_signal */

/* Each PE put_signals its pattern into its slot of the next PE's buffer, adding 1 to the next PE's signal
   word; it then waits for the previous PE's to arrive and checks the payload. */
#define NAMED(N, OP) shmem_ctx_##N##_##OP
#define GENERIC(N, OP) shmem_##OP
#define SIGNAL_BODY(T, N, F, OP, WHAT)                                                                               \
  {                                                                                                                  \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;                                      \
    const int prev = (me + npes - 1) % npes;                                                                         \
    T src[NE];                                                                                                       \
    for (int i = 0; i < NE; ++i) src[i] = (T)(me * 3 + i + round);                                                   \
    F(N, OP)(ctx, buf, src, NE, sig, 1, SHMEM_SIGNAL_ADD, next);                                                     \
    shmem_ctx_quiet(ctx);                                                                                            \
    (void)shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)(round + 1));                                         \
    for (int i = 0; i < NE; ++i)                                                                                     \
      PE_CHECK(buf[i] == (T)(prev * 3 + i + round), "%s (" #T "): element %d from PE %d: got %g, expected %g", WHAT, \
               i, prev, (double)buf[i], (double)(T)(prev * 3 + i + round));                                          \
    shmem_barrier_all(); /* the buffer is free again everywhere */                                                   \
  }
#define STAMP(T, N)                                                                                                    \
  static void signal_named_##N(shmem_ctx_t ctx, T *buf, uint64_t *sig, int round)                                      \
      SIGNAL_BODY(T, N, NAMED, put_signal, "shmem_ctx_" #N "_put_signal") static void signal_named_nbi_##N(            \
          shmem_ctx_t ctx, T *buf, uint64_t *sig, int round)                                                           \
          SIGNAL_BODY(T, N, NAMED, put_signal_nbi, "shmem_ctx_" #N "_put_signal_nbi") static void signal_generic_##N(  \
              shmem_ctx_t ctx, T *buf, uint64_t *sig, int round)                                                       \
              SIGNAL_BODY(T, N, GENERIC, put_signal, "shmem_put_signal(ctx, ...)") static void signal_generic_nbi_##N( \
                  shmem_ctx_t ctx, T *buf, uint64_t *sig, int round)                                                   \
                  SIGNAL_BODY(T, N, GENERIC, put_signal_nbi, "shmem_put_signal_nbi(ctx, ...)")
GPUSHMEM_RMA_TYPES(STAMP)
#undef STAMP

typedef void (*bytes_signal_fn)(shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int);
typedef struct {
  const char *name;
  size_t elem;
  bytes_signal_fn fn;
} bytes_signal_case;
#define SIZED_CASE(S)                                                 \
  {"shmem_ctx_put" #S "_signal", (S) / 8, shmem_ctx_put##S##_signal}, \
      {"shmem_ctx_put" #S "_signal_nbi", (S) / 8, shmem_ctx_put##S##_signal_nbi},
static const bytes_signal_case kBytesSignal[] = {
    GPUSHMEM_RMA_SIZES(SIZED_CASE){"shmem_ctx_putmem_signal", 1, shmem_ctx_putmem_signal},
    {"shmem_ctx_putmem_signal_nbi", 1, shmem_ctx_putmem_signal_nbi}};
#undef SIZED_CASE

static void bytes_signal(const bytes_signal_case *c, shmem_ctx_t ctx, unsigned char *buf, uint64_t *sig, int round) {
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  unsigned char src[NE * 16];
  const size_t bytes = NE * c->elem;
  for (size_t b = 0; b < bytes; ++b) src[b] = (unsigned char)(me * 7 + (int)b + round);
  c->fn(ctx, buf, src, NE, sig, (uint64_t)round + 1, SHMEM_SIGNAL_SET, next);
  shmem_ctx_quiet(ctx);
  (void)shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)round + 1);
  for (size_t b = 0; b < bytes; ++b)
    PE_CHECK(buf[b] == (unsigned char)(prev * 7 + (int)b + round), "%s: byte %zu from PE %d: got %u", c->name, b, prev,
             buf[b]);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
  PE_CHECK(g_default == SHMEM_CTX_DEFAULT && g_invalid == SHMEM_CTX_INVALID && g_default != g_invalid,
           "SHMEM_CTX_DEFAULT / SHMEM_CTX_INVALID are not distinct constants");

  /* INVALID: fence, quiet and destroy do nothing. */
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  shmem_ctx_fence(SHMEM_CTX_DEFAULT);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);

  /* Every option set; handles are distinct from each other and from the constants. */
  enum { kSets = 8 };
  shmem_ctx_t ctxs[kSets];
  for (int o = 0; o < kSets; ++o) {
    const long options =
        (o & 1 ? SHMEM_CTX_PRIVATE : 0) | (o & 2 ? SHMEM_CTX_SERIALIZED : 0) | (o & 4 ? SHMEM_CTX_NOSTORE : 0);
    ctxs[o] = SHMEM_CTX_DEFAULT;
    PE_CHECK(shmem_ctx_create(options, &ctxs[o]) == 0, "shmem_ctx_create(options=%ld) returned nonzero", options);
    PE_CHECK(ctxs[o] != SHMEM_CTX_INVALID && ctxs[o] != SHMEM_CTX_DEFAULT, "options=%ld: handle is a constant",
             options);
    for (int p = 0; p < o; ++p) PE_CHECK(ctxs[p] != ctxs[o], "contexts %d and %d have the same handle", p, o);
  }
  for (int o = 0; o < kSets; ++o) {
    shmem_ctx_fence(ctxs[o]);
    shmem_ctx_quiet(ctxs[o]);
    shmem_ctx_destroy(ctxs[o]);
  }

  /* Create / destroy cycles: a recreated context gets a handle different from the destroyed one. */
  shmem_ctx_t last = SHMEM_CTX_INVALID;
  for (int i = 0; i < 2000; ++i) {
    shmem_ctx_t c;
    if (shmem_ctx_create(0, &c) != 0) {
      PE_FAIL("cycle %d: shmem_ctx_create failed", i);
      break;
    }
    PE_CHECK(c != last, "cycle %d: the destroyed context's handle was handed out again", i);
    last = c;
    shmem_ctx_destroy(c);
  }
  /* Many alive at once. */
  enum { kMany = 600 };
  static shmem_ctx_t many[kMany];
  for (int i = 0; i < kMany; ++i)
    if (shmem_ctx_create(SHMEM_CTX_SERIALIZED, &many[i]) != 0) PE_FAIL("context %d of %d: create failed", i, kMany);
  for (int i = 0; i < kMany; ++i) shmem_ctx_destroy(many[kMany - 1 - i]);

  /* put-with-signal on contexts, every type. */
  void *buf = shmem_malloc(NE * 16);
  uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
  shmem_ctx_t ctx;
  if (buf == NULL || sig == NULL || shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
    PE_FAIL("setup failed");
    return pe_finish("ctx");
  }
  int round = 0;
#define RUN(T, N)                                                  \
  signal_named_##N(ctx, (T *)buf, sig, round++);                   \
  signal_named_nbi_##N(SHMEM_CTX_DEFAULT, (T *)buf, sig, round++); \
  signal_generic_##N(ctx, (T *)buf, sig, round++);                 \
  signal_generic_nbi_##N(ctx, (T *)buf, sig, round++);
  GPUSHMEM_RMA_TYPES(RUN)
#undef RUN
  *sig = 0;
  shmem_barrier_all();
  for (size_t c = 0; c < sizeof kBytesSignal / sizeof kBytesSignal[0]; ++c)
    bytes_signal(&kBytesSignal[c], ctx, (unsigned char *)buf, sig, (int)c);

  /* fence on a context: data, fence, flag; whoever sees the flag sees the data. */
  int *data = (int *)shmem_calloc(64, sizeof(int));
  int *flag = (int *)shmem_calloc(1, sizeof(int));
  int local[64];
  for (int i = 0; i < 64; ++i) local[i] = me * 100 + i;
  shmem_ctx_int_put(ctx, data, local, 64, next);
  shmem_ctx_fence(ctx);
  shmem_ctx_int_atomic_set(ctx, flag, 1, next);
  shmem_ctx_quiet(ctx);
  shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
  const int prev = (me + npes - 1) % npes;
  for (int i = 0; i < 64; ++i)
    PE_CHECK(data[i] == prev * 100 + i, "fenced put from PE %d: element %d is %d", prev, i, data[i]);
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  shmem_free(flag);
  shmem_free(data);
  shmem_free(sig);
  shmem_free(buf);
  return pe_finish("ctx");
}
