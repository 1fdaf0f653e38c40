/* shmem_global_exit: the last PE calls shmem_global_exit(3) while the others wait in shmem_barrier_all; the
   whole job must end with status 3 (no PE may hang in the barrier, none may exit 0). */
#include "pe_check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  shmem_barrier_all();
  if (me == npes - 1) {
    fprintf(stderr, "global_exit: PE %d calls shmem_global_exit(3)\n", me);
    shmem_global_exit(3);
    fprintf(stderr, "global_exit: FAILED: shmem_global_exit returned on PE %d\n", me);
    return 1;
  }
  shmem_barrier_all();
  fprintf(stderr, "global_exit: FAILED: PE %d left the barrier although PE %d called shmem_global_exit\n", me,
          npes - 1);
  shmem_finalize();
  return 0;
}
