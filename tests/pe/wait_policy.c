/*
 * GPUSHMEM_WAIT_POLICY=sleep leaves the core: PE 1 waits 1.5 s for a lock PE 0 holds (shmem_set_lock) and
 * then 1.5 s in shmem_int_wait_until for a flag PE 0 sets; its CPU time over each wait must be well under
 * the wall time (a spinning or yielding wait on an idle core uses about all of it). Run with 2 PEs or more;
 * the other PEs only take part in the barriers.
 */
#include <time.h>

#include "pe_check.h"

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void hold_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void report(const char *what, double cpu, double wall) {
  printf("wait_policy: %s: %.3f s CPU over %.3f s waiting\n", what, cpu, wall);
  PE_CHECK(wall > 1.0, "%s: waited only %.3f s (the holder keeps it 1.5 s)", what, wall);
  PE_CHECK(cpu < 0.25 * wall, "%s: %.3f s of CPU over a %.3f s wait: the sleep policy should leave the core", what, cpu,
           wall);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  long *lock = (long *)shmem_calloc(1, sizeof(long));
  int *flag = (int *)shmem_calloc(1, sizeof(int));
  if (me == 0) shmem_set_lock(lock);
  shmem_barrier_all();
  if (me == 0) {
    hold_ms(1500);
    shmem_clear_lock(lock);
    hold_ms(1500);
    shmem_int_atomic_set(flag, 1, 1);
  } else if (me == 1) {
    double wall = pe_now_s(), cpu = cpu_s();
    shmem_set_lock(lock);
    report("shmem_set_lock", cpu_s() - cpu, pe_now_s() - wall);
    shmem_clear_lock(lock);
    wall = pe_now_s();
    cpu = cpu_s();
    shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
    report("shmem_int_wait_until", cpu_s() - cpu, pe_now_s() - wall);
  }
  shmem_barrier_all();
  return pe_finish("wait_policy");
}
