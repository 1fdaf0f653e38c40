/* Hang reports name the PE that is late, not only the partner a PE waits for: the last PE enters
   shmem_barrier_all (then shmem_team_sync) 3 s after the others. In a dissemination barrier of 4 PEs, PE 2
   waits in its second round for PE 0, which itself waits for PE 3; with GPUSHMEM_HANG_WARN=1 PE 2's
   report must add "not arrived yet: PE 3". The test checks the job's stderr for it. */
#include <unistd.h>

#include "pe_check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_barrier_all();
  if (me == n - 1) sleep(3);
  shmem_barrier_all();
  if (me == n - 1) sleep(3);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  printf("late_barrier: PE %d passed both\n", me);
  shmem_finalize();
  return 0;
}
