/* A transport error mid-run. GPUSHMEM_FAULT_INJECT=ucx-endpoint:V:N makes every PE that reaches PE V through
   the network lose its endpoint to V at its N-th operation to V, as if the connection had been reset. The PE
   whose operation fails must stop the job with a message naming the call, PE V and the cause, and the other
   PEs (V among them, alive and waiting) must end with it. argv[1] says what the PEs do, argv[2] is V
   (default 1):
     put         PEs other than V: 1 KiB puts to V, each followed by a quiet
     get         PEs other than V: 1 KiB gets from V, checked
     amo         PEs other than V: fetch-and-add on a counter of V, checked
     signal      PEs other than V: put-with-signal to V
     collective  every PE: sum reductions and broadcasts on the world team, checked
     lock        every PE: shmem_set_lock / shmem_clear_lock on one lock (V = 0 reaches its home copy)
   PEs that have nothing to do wait in shmem_barrier_all, which the others never reach. PE 0 prints a
   "pe_launch-mark: <seconds>" line (wall clock) when the operations start: pe_launch.sh's --max-seconds counts from
   there, not from the launch, so a slow start on a loaded machine is not taken for a slow failure. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pe_check.h"

enum { kElems = 128 };
static const long kRounds = 100000000;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "put";
  const int victim = argc > 2 ? atoi(argv[2]) : 1;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (victim < 0 || victim >= n) {
    fprintf(stderr, "transport_error: PE %d is not a PE of this %d-PE job\n", victim, n);
    return 2;
  }
  long *src = (long *)shmem_calloc(kElems, sizeof(long));
  long *dst = (long *)shmem_calloc(kElems, sizeof(long));
  long *counter = (long *)shmem_calloc(1, sizeof(long));
  uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
  long *lock = (long *)shmem_calloc(1, sizeof(long));
  for (int i = 0; i < kElems; ++i) src[i] = 1000L * me + i;
  shmem_barrier_all();
  if (me == 0) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(stderr, "pe_launch-mark: %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
  }
  const int busy = strcmp(mode, "collective") == 0 || strcmp(mode, "lock") == 0 || me != victim;
  for (long r = 0; busy && r < kRounds; ++r) {
    if (strcmp(mode, "put") == 0) {
      shmem_putmem(dst, src, sizeof(long) * kElems, victim);
      shmem_quiet();
    } else if (strcmp(mode, "get") == 0) {
      shmem_getmem(dst, src, sizeof(long) * kElems, victim);
      for (int i = 0; i < kElems; ++i) PE_CHECK(dst[i] == 1000L * victim + i, "get: element %d is %ld", i, dst[i]);
    } else if (strcmp(mode, "amo") == 0) {
      const long before = shmem_long_atomic_fetch_add(counter, 1, victim);
      PE_CHECK(before >= 0, "fetch_add returned %ld", before);
    } else if (strcmp(mode, "signal") == 0) {
      shmem_putmem_signal(dst, src, sizeof(long) * kElems, sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET, victim);
      shmem_quiet();
    } else if (strcmp(mode, "collective") == 0) {
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, kElems);
      for (int i = 0; i < kElems; ++i) {
        const long want = 1000L * n * (n - 1) / 2 + (long)n * i;
        PE_CHECK(dst[i] == want, "sum: element %d is %ld, want %ld", i, dst[i], want);
      }
      shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof(long) * kElems, (int)(r % n));
    } else if (strcmp(mode, "lock") == 0) {
      shmem_set_lock(lock);
      shmem_clear_lock(lock);
    } else {
      fprintf(stderr, "transport_error: unknown mode '%s' (put, get, amo, signal, collective, lock)\n", mode);
      return 2;
    }
    if (*pe_failure_count() != 0) return 1;
  }
  shmem_barrier_all();
  fprintf(stderr, "transport_error: FAILED: PE %d finished '%s' although its endpoint to PE %d failed\n", me, mode,
          victim);
  shmem_finalize();
  return 1;
}
