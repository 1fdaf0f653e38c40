/* A PE that is stopped (SIGSTOP) while it waits, then resumed, does not count the time it was stopped as
   waiting: PE 1 waits in shmem_barrier_all for PE 0, which arrives after 7 s; a helper process stops PE 1
   after 0.5 s and resumes it 6 s later. Run with GPUSHMEM_HANG_WARN=4: PE 0 (awake) never waits, and PE 1
   waited about 1.5 s while running, so neither may say "still waiting" (before, PE 1 blamed PE 0 for the
   6 s it was stopped). The test's wrapper checks the job's stderr for that. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pe_check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
  if (me == 1) {
    const pid_t self = getpid();
    const pid_t helper = fork();
    if (helper == 0) {
      usleep(500 * 1000);
      kill(self, SIGSTOP);
      sleep(6);
      kill(self, SIGCONT);
      _exit(0);
    }
    shmem_barrier_all(); /* stopped inside, resumed inside */
    waitpid(helper, NULL, 0);
  } else {
    if (me == 0) sleep(7);
    shmem_barrier_all();
  }
  printf("stop_resume: PE %d passed the barrier\n", me);
  shmem_finalize();
  return 0;
}
