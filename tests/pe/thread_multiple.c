/*
 * SHMEM_THREAD_MULTIPLE stress: 8 threads per PE, each with a context of its own (private, serialized or
 * plain), for many rounds put a block, a strided block and p's into their slot on every PE, fetch_add a
 * per-thread counter and inc a shared counter (default context) on every PE, quiet their context, and
 * create / destroy scratch contexts meanwhile. Afterwards every PE checks every slot (the last round's
 * pattern) and every counter (exact totals: nothing lost), and that each thread's fetched values on each
 * PE were strictly increasing.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

enum { kThreads = 8, kRounds = 60, kBlock = 128, kStrided = 16 };
/* One writer's slot: a block, then kStrided elements at stride 2, then one p element. */
enum { kSlot = kBlock + 2 * kStrided + 1 };

static long *g_data;     /* [src PE][thread][kSlot] on every PE */
static long *g_counters; /* [thread] per-thread counters, then [kThreads] the shared one */

static long pattern(int pe, int t, int round, int i) {
  return ((long)pe << 40) ^ ((long)t << 32) ^ ((long)round << 16) ^ (long)i;
}

typedef struct {
  int t;
  long bad;
} worker_arg;

static void *worker(void *p) {
  worker_arg *arg = (worker_arg *)p;
  const int t = arg->t, me = shmem_my_pe(), npes = shmem_n_pes();
  static const long kOptions[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
  shmem_ctx_t ctx;
  if (shmem_ctx_create(kOptions[t % 4], &ctx) != 0) {
    PE_FAIL("thread %d: shmem_ctx_create failed", t);
    arg->bad++;
    return NULL;
  }
  long block[kBlock], strided[2 * kStrided], last[64];
  for (int pe = 0; pe < npes && pe < 64; ++pe) last[pe] = -1;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kBlock; ++i) block[i] = pattern(me, t, round, i);
    for (int i = 0; i < kStrided; ++i) strided[i] = pattern(me, t, round, kBlock + i);
    long *slot = g_data + ((size_t)me * kThreads + (size_t)t) * kSlot;
    for (int k = 0; k < npes; ++k) {
      const int pe = (me + t + k) % npes;
      shmem_ctx_long_put(ctx, slot, block, kBlock, pe);
      shmem_ctx_long_iput(ctx, slot + kBlock, strided, 2, 1, kStrided, pe);
      shmem_long_p(slot + kBlock + 2 * kStrided, pattern(me, t, round, -1), pe);
      long old = shmem_ctx_long_atomic_fetch_add(ctx, &g_counters[t], 1, pe);
      if (pe < 64 && old <= last[pe]) {
        PE_FAIL("thread %d: fetch_add on PE %d returned %ld after %ld", t, pe, old, last[pe]);
        arg->bad++;
      }
      if (pe < 64) last[pe] = old;
      shmem_atomic_inc(&g_counters[kThreads], pe);
    }
    shmem_ctx_quiet(ctx);
    if (round % 10 == t % 10) {
      shmem_ctx_t scratch;
      if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &scratch) == 0) {
        shmem_ctx_long_atomic_add(scratch, &g_counters[kThreads + 1], 1, me);
        shmem_ctx_destroy(scratch);
      }
    }
    if (t == 0) shmem_quiet();
  }
  shmem_ctx_destroy(ctx);
  return NULL;
}

int main(void) {
  int provided = -1;
  if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
    fprintf(stderr, "thread_multiple: SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
    return 1;
  }
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  g_data = (long *)shmem_calloc((size_t)npes * kThreads * kSlot, sizeof(long));
  g_counters = (long *)shmem_calloc(kThreads + 2, sizeof(long));
  if (g_data == NULL || g_counters == NULL) {
    PE_FAIL("allocation failed");
    return pe_finish("thread_multiple");
  }
  pthread_t threads[kThreads];
  worker_arg args[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    args[t].t = t;
    args[t].bad = 0;
    if (pthread_create(&threads[t], NULL, worker, &args[t]) != 0) {
      PE_FAIL("pthread_create failed");
      return pe_finish("thread_multiple");
    }
  }
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  shmem_barrier_all();
  long bad = 0;
  for (int src = 0; src < npes; ++src)
    for (int t = 0; t < kThreads; ++t) {
      const long *slot = g_data + ((size_t)src * kThreads + (size_t)t) * kSlot;
      for (int i = 0; i < kSlot; ++i) {
        long want;
        if (i < kBlock)
          want = pattern(src, t, kRounds - 1, i);
        else if (i < kBlock + 2 * kStrided)
          want = (i - kBlock) % 2 == 0 ? pattern(src, t, kRounds - 1, kBlock + (i - kBlock) / 2) : 0;
        else
          want = pattern(src, t, kRounds - 1, -1);
        if (slot[i] != want && bad++ < 5)
          PE_FAIL("slot of PE %d thread %d: element %d: expected %#lx, got %#lx", src, t, i, want, slot[i]);
      }
    }
  for (int t = 0; t < kThreads; ++t)
    PE_CHECK(g_counters[t] == (long)npes * kRounds, "counter of thread %d: %ld, expected %ld", t, g_counters[t],
             (long)npes * kRounds);
  PE_CHECK(g_counters[kThreads] == (long)npes * kThreads * kRounds, "shared counter: %ld, expected %ld",
           g_counters[kThreads], (long)npes * kThreads * kRounds);
  PE_CHECK(g_counters[kThreads + 1] == (long)kThreads * (kRounds / 10), "scratch-context counter: %ld, expected %d",
           g_counters[kThreads + 1], kThreads * (kRounds / 10));
  (void)me;
  shmem_barrier_all();
  return pe_finish("thread_multiple");
}
