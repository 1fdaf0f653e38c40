/*
 * Ordering and synchronisation:
 *  - fence: data put, shmem_fence, flag put; the receiver spins on the flag (volatile read) and then
 *    finds the data. The same with shmem_quiet in place of the fence.
 *  - 1000 rounds of shmem_barrier_all, each checking that every PE's round-numbered put has arrived.
 *  - 200 rounds of shmem_sync_all, each checking every PE's local store of the round number.
 * Every PE sends to the next one (ring), so at np 1 a PE signals itself.
 */
#include <string.h>

#include "pe_check.h"

enum { kDataInts = 4096, kFenceRounds = 100, kBarrierRounds = 1000, kSyncRounds = 200 };

static int data_value(int src, int round, int i) {
  return src * 1000003 + round * 4099 + i;
}

/* Data then flag to the next PE, ordered by `order` (shmem_fence or shmem_quiet). */
static void ordered_signal(void (*order)(void), const char *name, int *data, int *flag, int *local) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  *flag = 0;
  shmem_barrier_all();
  for (int round = 1; round <= kFenceRounds; ++round) {
    for (int i = 0; i < kDataInts; ++i) local[i] = data_value(me, round, i);
    shmem_int_put(data, local, kDataInts, next);
    order();
    shmem_int_p(flag, round, next);
    char what[96];
    snprintf(what, sizeof what, "the round-%d flag from PE %d after %s", round, prev, name);
    if (!pe_wait_int_eq((volatile int *)flag, round, 20.0, what)) break;
    /* The flag arrived, so with the ordering call between them the data has too. */
    long bad = 0;
    for (int i = 0; i < kDataInts; ++i) {
      int want = data_value(prev, round, i);
      int got = ((volatile int *)data)[i];
      if (got != want && bad++ < 3)
        PE_FAIL("%s: round %d: data from PE %d element %d: expected %d, got %d (flag seen before data)", name, round,
                prev, i, want, got);
    }
    shmem_barrier_all(); /* nobody overwrites data before its receiver has checked it */
  }
}

static void fence_order(void) {
  shmem_fence();
}
static void quiet_order(void) {
  shmem_quiet();
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *data = (int *)shmem_malloc(kDataInts * sizeof(int));
  int *flag = (int *)shmem_malloc(sizeof(int));
  int *counters = (int *)shmem_calloc(2 * (size_t)npes, sizeof(int)); /* [parity][source PE] */
  int *local = (int *)malloc(kDataInts * sizeof(int));
  if (data == NULL || flag == NULL || counters == NULL || local == NULL) {
    PE_FAIL("cannot allocate the buffers");
    return pe_finish("sync");
  }

  ordered_signal(fence_order, "shmem_fence", data, flag, local);
  ordered_signal(quiet_order, "shmem_quiet", data, flag, local);

  /* Barrier rounds: every PE puts the round number into its cell on every PE, then all check all cells.
     Two cell sets by parity, so a fast PE's next round cannot overwrite a cell a slow PE still checks. */
  shmem_barrier_all();
  for (int round = 1; round <= kBarrierRounds; ++round) {
    int *cells = counters + (round & 1) * npes;
    for (int pe = 0; pe < npes; ++pe) shmem_int_p(&cells[me], round, pe);
    shmem_barrier_all();
    for (int s = 0; s < npes; ++s)
      PE_CHECK(((volatile int *)cells)[s] == round, "shmem_barrier_all round %d: cell of PE %d: expected %d, got %d",
               round, s, round, ((volatile int *)cells)[s]);
  }

  /* sync_all rounds: local stores only (sync_all does not complete puts), read by the others with g. */
  shmem_barrier_all();
  for (int round = 1; round <= kSyncRounds; ++round) {
    int *cell = &counters[round & 1];
    *(volatile int *)cell = round * 7 + me;
    shmem_sync_all();
    for (int pe = 0; pe < npes; ++pe) {
      int got = shmem_int_g(cell, pe);
      PE_CHECK(got == round * 7 + pe, "shmem_sync_all round %d: PE %d's cell: expected %d, got %d", round, pe,
               round * 7 + pe, got);
    }
  }
  shmem_barrier_all();
  free(local);
  shmem_free(counters);
  shmem_free(flag);
  shmem_free(data);
  return pe_finish("sync");
}
