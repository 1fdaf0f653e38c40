/*
 * Distributed locks under SHMEM_THREAD_MULTIPLE: THREADS threads per PE each increment a counter on PE 0
 * K times with a plain get + put under one lock (set_lock for even threads, a test_lock loop for odd ones).
 * The lock must exclude threads of the same PE as well as other PEs: the total is exact, and an AMO
 * "inside" counter never sees two holders.
 */
#include <pthread.h>

#include "pe_check.h"

enum { THREADS = 4, K = 200 };

struct shared {
  long lock;
  long counter;
  long inside;
};
static struct shared *s;

static void *worker(void *arg) {
  const int t = (int)(long)arg;
  for (int i = 0; i < K; ++i) {
    if (t % 2)
      while (shmem_test_lock(&s->lock) != 0) sched_yield();
    else
      shmem_set_lock(&s->lock);
    long was = shmem_long_atomic_fetch_inc(&s->inside, 0);
    PE_CHECK(was == 0, "thread %d: %ld other holder(s) inside the critical section", t, was);
    long v = shmem_long_g(&s->counter, 0);
    if (i % 5 == 0) sched_yield();
    shmem_long_p(&s->counter, v + 1, 0);
    shmem_long_atomic_add(&s->inside, -1L, 0);
    shmem_clear_lock(&s->lock);
  }
  return NULL;
}

int main(void) {
  int provided = -1;
  if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
    fprintf(stderr, "lock_threads: SHMEM_THREAD_MULTIPLE not granted (%d)\n", provided);
    return 1;
  }
  s = (struct shared *)shmem_calloc(1, sizeof *s);
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, worker, (void *)t);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  shmem_barrier_all();
  const long total = (long)K * THREADS * shmem_n_pes();
  if (shmem_my_pe() == 0)
    PE_CHECK(s->counter == total, "counter %ld after %d PEs x %d threads x %d locked increments, expected %ld",
             s->counter, shmem_n_pes(), THREADS, K, total);
  shmem_barrier_all();
  shmem_free(s);
  return pe_finish("lock_threads");
}
