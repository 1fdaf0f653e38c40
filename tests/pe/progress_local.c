/* A PE busy with calls that stay on its node still serves the network. Over UCX's TCP transport (and for its
   software atomics over shared memory) other PEs' operations on this PE's memory complete only when this PE
   progresses its worker; its progress thread does that while the program makes no call that progresses the
   network itself. argv[1]:
     quiet  PE 0 loops on shmem_quiet (with nothing to flush) and a fetch of its own flag until every other PE
            has set its element of the flag array on PE 0 with an atomic
     lock   every PE loops on shmem_set_lock / shmem_clear_lock until each PE has taken the lock 200 times
            (one atomic increment of its counter on every PE while holding it); PEs on the lock's home node
            reach it with CPU atomics only
   Run on 2 virtual hosts; before the progress thread told such calls apart, PE 0 hung in 'quiet' and the
   remote PEs in 'lock' got the lock a few times per second. */
#include <string.h>

#include "pe_check.h"

enum { kTimes = 200 };

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "quiet";
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *flags = (long *)shmem_calloc((size_t)n, sizeof(long));
  long *taken = (long *)shmem_calloc((size_t)n, sizeof(long));
  long *lock = (long *)shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  if (strcmp(mode, "quiet") == 0) {
    if (me == 0) {
      for (int pe = 1; pe < n; ++pe)
        while (shmem_long_atomic_fetch(&flags[pe], 0) == 0) shmem_quiet();
    } else {
      shmem_long_atomic_set(&flags[me], me, 0);
    }
    shmem_barrier_all();
    if (me == 0)
      for (int pe = 1; pe < n; ++pe) PE_CHECK(flags[pe] == pe, "flag of PE %d is %ld", pe, flags[pe]);
  } else if (strcmp(mode, "lock") == 0) {
    for (long mine = 0;;) {
      int done = mine >= kTimes;
      for (int pe = 0; done && pe < n; ++pe) done = shmem_long_atomic_fetch(&taken[pe], me) >= kTimes;
      if (done) break;
      shmem_set_lock(lock);
      if (mine < kTimes) {
        ++mine;
        for (int pe = 0; pe < n; ++pe) shmem_long_atomic_inc(&taken[me], pe);
      }
      shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; ++pe) PE_CHECK(taken[pe] == kTimes, "PE %d took the lock %ld times", pe, taken[pe]);
  } else {
    fprintf(stderr, "progress_local: unknown mode '%s' (quiet, lock)\n", mode);
    return 2;
  }
  return pe_finish("progress_local");
}
