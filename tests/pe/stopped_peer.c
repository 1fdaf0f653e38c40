/* A PE that stops (SIGSTOP) and stays stopped: PE 1 stops itself after a barrier while the others wait for
   it, in shmem_malloc (argv[1] = malloc, default) or in shmem_barrier_all (barrier). Run with
   GPUSHMEM_BOOTSTRAP_TIMEOUT=2: once PE 1 has been stopped for longer than that, a PE of its node that waits
   ends the job naming it ("PE 1 (pid N, on this node) has been stopped ..."), and the launcher ends PE 1
   too, instead of every PE waiting forever. Detection needs a PE on PE 1's node: not a virtual-host test. */
#include <signal.h>
#include <string.h>

#include "pe_check.h"

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "malloc";
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
  if (me == 1) {
    fprintf(stderr, "stopped_peer: PE 1 stops itself (%s)\n", mode);
    fflush(stderr);
    raise(SIGSTOP);
  }
  if (strcmp(mode, "malloc") == 0) {
    void *p = shmem_malloc(1 << 20);
    (void)p;
  } else if (strcmp(mode, "barrier") == 0) {
    shmem_barrier_all();
  } else {
    fprintf(stderr, "stopped_peer: unknown mode '%s' (malloc, barrier)\n", mode);
    return 2;
  }
  fprintf(stderr, "stopped_peer: FAILED: PE %d finished '%s' although PE 1 is stopped\n", me, mode);
  shmem_finalize();
  return 0;
}
