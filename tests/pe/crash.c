/* A PE that dies: PE 1 kills itself with SIGKILL (no handler, no goodbye) while the others are busy with
   it. The job must end with a non-zero status soon, saying which PE died, instead of the other PEs waiting
   forever. Needs at least 2 PEs. argv[1] says what the others are doing when PE 1 dies:
     barrier (default)  shmem_barrier_all
     wait               shmem_long_wait_until on a word PE 1 would set
     collective         shmem_long_sum_reduce on the world team
     lock               shmem_set_lock on a lock PE 1 holds
     put                a loop of puts (and quiets) to PE 1
   On virtual hosts (gpushmem-vhost) PE 1 is on another host than PE 0, so the network must notice too. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "pe_check.h"

static void die(const char *mode) {
  fprintf(stderr, "crash: PE 1 raises SIGKILL (%s)\n", mode);
  fflush(stderr);
  raise(SIGKILL);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "barrier";
  shmem_init();
  const int me = shmem_my_pe();
  long *flag = (long *)shmem_calloc(1, sizeof(long));
  long *lock = (long *)shmem_calloc(1, sizeof(long));
  long *src = (long *)shmem_calloc(1024, sizeof(long));
  long *dst = (long *)shmem_calloc(1024, sizeof(long));
  if (me == 1 && strcmp(mode, "lock") == 0) shmem_set_lock(lock);
  shmem_barrier_all();
  if (me == 1) {
    usleep(200 * 1000); /* the others are inside the call by now */
    die(mode);
  }
  if (strcmp(mode, "barrier") == 0) {
    shmem_barrier_all();
  } else if (strcmp(mode, "wait") == 0) {
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
  } else if (strcmp(mode, "collective") == 0) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1024);
  } else if (strcmp(mode, "lock") == 0) {
    shmem_set_lock(lock);
  } else if (strcmp(mode, "put") == 0) {
    for (long i = 0; i < 100000000; ++i) {
      src[0] = i;
      shmem_long_put(dst, src, 1024, 1);
      shmem_quiet();
    }
  } else {
    fprintf(stderr, "crash: unknown mode '%s' (barrier, wait, collective, lock, put)\n", mode);
    return 2;
  }
  fprintf(stderr, "crash: FAILED: PE %d finished '%s' although PE 1 is dead\n", me, mode);
  shmem_finalize();
  return 0;
}
