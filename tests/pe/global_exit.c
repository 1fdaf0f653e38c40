/* shmem_global_exit: the last PE calls shmem_global_exit(status) while the others wait in shmem_barrier_all;
   the whole job must end with that status (no PE may hang in the barrier, none may exit 0). status is argv[1]
   (default 3); 256, whose low 8 bits read as success, must end the job with 1. */
#include <stdlib.h>

#include "pe_check.h"

int main(int argc, char **argv) {
  const int status = argc > 1 ? atoi(argv[1]) : 3;
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  shmem_barrier_all();
  if (me == npes - 1) {
    fprintf(stderr, "global_exit: PE %d calls shmem_global_exit(%d)\n", me, status);
    shmem_global_exit(status);
    fprintf(stderr, "global_exit: FAILED: shmem_global_exit returned on PE %d\n", me);
    return 1;
  }
  shmem_barrier_all();
  fprintf(stderr, "global_exit: FAILED: PE %d left the barrier although PE %d called shmem_global_exit\n", me,
          npes - 1);
  shmem_finalize();
  return 0;
}
