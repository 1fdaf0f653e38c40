/* A PE that dies: PE 1 kills itself with SIGKILL (no handler, no goodbye) while the others wait in
   shmem_barrier_all. The job must end with a non-zero status soon, saying which PE died, instead of the
   other PEs waiting forever. Needs at least 2 PEs. */
#include <signal.h>

#include "pe_check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
  if (me == 1) {
    fprintf(stderr, "crash: PE 1 raises SIGKILL\n");
    fflush(stderr);
    raise(SIGKILL);
  }
  shmem_barrier_all();
  fprintf(stderr, "crash: FAILED: PE %d left the barrier although PE 1 is dead\n", me);
  shmem_finalize();
  return 0;
}
