/*
 * Distributed locks (shmem_set_lock / test_lock / clear_lock):
 *  - mutual exclusion: every PE increments counters with a plain get + put (not atomic) under the lock,
 *    K times, on three locks whose home PEs differ; totals must be exact, and an "inside" AMO counter
 *    proves no two PEs are ever inside at once. Half the updates are put_nbi, completed only by the quiet
 *    that clear_lock performs;
 *  - test_lock: 0 when it takes a free lock, 1 while another PE holds it; with every PE trying once on a
 *    free lock exactly one wins; test_lock-spinning and set_lock PEs mixed keep mutual exclusion;
 *  - fairness (first come, first served): one PE holds the lock, the others ask for it one after another
 *    (each waits until the previous one has asked, plus a pause) and must get it in that order; then every
 *    PE hammers the lock: a PE's median overtaking by later arrivals stays within 2*(npes-1), and at most a
 *    third of its acquisitions exceed that (a PE preempted between taking its arrival number and joining
 *    the queue);
 *  - reuse: the same lock words serve every phase, so a lock returns to its free state after each use.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pe_check.h"

enum { K = 300, HAMMER = 200, NLOCKS = 3 };

static void pause_ms(int ms) {
  struct timespec ts = {0, (long)ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* The symmetric state of the test (one allocation, zeroed by shmem_calloc). */
struct state {
  long locks[NLOCKS]; /* consecutive words: different home PEs when npes > 1 */
  long counter[NLOCKS];
  long inside[NLOCKS];
  long winners;
  long log_count;
  long log[64];
  int turn;
  long arrivals;
  long served;
};

static void mutual_exclusion(struct state *s) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  for (int i = 0; i < K; ++i) {
    for (int l = 0; l < NLOCKS; ++l) {
      const int target = (l + 1) % npes; /* where the protected counter lives */
      shmem_set_lock(&s->locks[l]);
      long was = shmem_long_atomic_fetch_inc(&s->inside[l], 0);
      PE_CHECK(was == 0, "lock %d: %ld other PE(s) inside the critical section with this one", l, was);
      long v = shmem_long_g(&s->counter[l], target);
      if (i % 7 == 0) sched_yield(); /* widen the window a lost update would need */
      ++v;
      if (i % 2 == 0)
        shmem_long_p(&s->counter[l], v, target);
      else
        shmem_long_put_nbi(&s->counter[l], &v, 1, target); /* completed by clear_lock's quiet */
      shmem_long_atomic_add(&s->inside[l], -1L, 0);
      shmem_clear_lock(&s->locks[l]);
    }
  }
  shmem_barrier_all();
  for (int l = 0; l < NLOCKS; ++l)
    if (me == (l + 1) % npes)
      PE_CHECK(s->counter[l] == (long)K * npes,
               "lock %d: counter %ld after %d PEs x %d locked increments, expected %ld", l, s->counter[l], npes, K,
               (long)K * npes);
  shmem_barrier_all();
}

static void test_lock_semantics(struct state *s) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long *lock = &s->locks[0];
  /* Free lock: test_lock takes it (0); held by another PE: 1. */
  if (me == npes - 1) PE_CHECK(shmem_test_lock(lock) == 0, "test_lock on a free lock did not return 0");
  shmem_barrier_all();
  if (me != npes - 1) {
    int r = shmem_test_lock(lock);
    PE_CHECK(r == 1, "test_lock returned %d while PE %d holds the lock, expected 1", r, npes - 1);
  }
  shmem_barrier_all();
  if (me == npes - 1) shmem_clear_lock(lock);
  shmem_barrier_all();
  /* Everyone tries once on a free lock: exactly one wins and keeps it until everyone has tried. */
  int got = shmem_test_lock(lock) == 0;
  if (got) shmem_long_atomic_inc(&s->winners, 0);
  shmem_barrier_all();
  if (me == 0) PE_CHECK(s->winners == 1, "%ld PEs took a free lock with test_lock at once, expected 1", s->winners);
  if (got) shmem_clear_lock(lock);
  shmem_barrier_all();
  /* Mixed: odd PEs spin on test_lock, even PEs block in set_lock; plain increments stay exact. */
  if (me == 0) s->counter[0] = 0;
  shmem_barrier_all();
  for (int i = 0; i < K; ++i) {
    if (me % 2)
      while (shmem_test_lock(lock) != 0) sched_yield();
    else
      shmem_set_lock(lock);
    long was = shmem_long_atomic_fetch_inc(&s->inside[0], 0);
    PE_CHECK(was == 0, "mixed test_lock/set_lock: %ld other PE(s) inside with this one", was);
    shmem_long_p(&s->counter[0], shmem_long_g(&s->counter[0], 0) + 1, 0);
    shmem_long_atomic_add(&s->inside[0], -1L, 0);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  if (me == 0)
    PE_CHECK(s->counter[0] == (long)K * npes, "mixed test_lock/set_lock: counter %ld, expected %ld", s->counter[0],
             (long)K * npes);
  shmem_barrier_all();
}

/* Under the lock: append this PE to the log on PE 0. */
static void log_holder(struct state *s) {
  long idx = shmem_long_g(&s->log_count, 0);
  if (idx < 64) shmem_long_p(&s->log[idx], shmem_my_pe(), 0);
  shmem_long_p(&s->log_count, idx + 1, 0);
}

/* Round r: PE r holds the lock; then PEs r+1, r+2, ... (mod npes) ask in that order, each one after the
   previous has announced it is about to ask, plus a pause. The log must be r, r+1, r+2, ... */
static void fifo_order(struct state *s, int r) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int first = r % npes;
  long *lock = &s->locks[r % NLOCKS];
  if (me == 0) s->log_count = 0;
  s->turn = 0;
  shmem_barrier_all();
  const int pos = (me - first + npes) % npes; /* my place in the intended order */
  if (pos == 0) {
    shmem_set_lock(lock);
    log_holder(s);
    if (npes > 1) {
      shmem_int_atomic_set(&s->turn, 1, (first + 1) % npes);
      shmem_int_wait_until(&s->turn, SHMEM_CMP_EQ, npes); /* the last one is about to ask */
    }
    pause_ms(40);
    shmem_clear_lock(lock);
  } else {
    shmem_int_wait_until(&s->turn, SHMEM_CMP_EQ, pos);
    pause_ms(40); /* the previous PE has joined the queue by now */
    int next = pos + 1 < npes ? (first + pos + 1) % npes : first;
    shmem_int_atomic_set(&s->turn, pos + 1 < npes ? pos + 1 : npes, next);
    shmem_set_lock(lock);
    log_holder(s);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(s->log_count == npes, "round %d: %ld acquisitions logged, expected %d", r, s->log_count, npes);
    for (int k = 0; k < npes && k < s->log_count; ++k)
      PE_CHECK(s->log[k] == (first + k) % npes,
               "round %d: acquisition %d went to PE %ld, expected PE %d (PEs asked in the order %d, %d, ...: "
               "first come, first served)",
               r, k, s->log[k], (first + k) % npes, first, (first + 1) % npes);
  }
  shmem_barrier_all();
}

static int compare_long(const void *a, const void *b) {
  const long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* Everyone hammers one lock; an arrival number (fetch_inc before set_lock) against the number of earlier
   acquisitions (read under the lock) says how many later arrivals overtook this PE. */
static void hammer_bound(struct state *s) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long *lock = &s->locks[1];
  const long bound = 2L * (npes - 1);
  long overtaken[HAMMER];
  long worst = 0, over = 0;
  shmem_barrier_all();
  for (int i = 0; i < HAMMER; ++i) {
    long arrival = shmem_long_atomic_fetch_inc(&s->arrivals, 0);
    shmem_set_lock(lock);
    long before = shmem_long_g(&s->served, 0);
    shmem_long_p(&s->served, before + 1, 0);
    shmem_clear_lock(lock);
    overtaken[i] = before - arrival;
    if (overtaken[i] > worst) worst = overtaken[i];
    if (overtaken[i] > bound) ++over;
  }
  shmem_barrier_all();
  if (me == 0)
    PE_CHECK(s->served == (long)HAMMER * npes, "hammer: %ld acquisitions counted, expected %ld", s->served,
             (long)HAMMER * npes);
  /* Strict FIFO gives overtaken <= 0 once a PE has joined the queue; the arrival number is taken just
     before joining, so a few PEs may slip in between. A PE preempted between the two, or whose joining
     operation waits for its target's progress (UCX over TCP), lets every other PE in, once per time slice:
     with PEs outnumbering cores (2 cores in CI, other tests beside) CI saw 10 and 29 of 200 (5% and 15%).
     So the test asks what a lock its releaser can take straight back fails: there most acquisitions of a
     waiting PE come late, so the median is above the bound (and outliers are many more than a third). */
  qsort(overtaken, HAMMER, sizeof overtaken[0], compare_long);
  const long median = overtaken[HAMMER / 2];
  PE_CHECK(median <= bound && over * 3 <= HAMMER,
           "hammer: median overtaking %ld (bound %ld), %ld of %d acquisitions overtaken by more than %ld later "
           "arrivals (worst %ld): the lock is not first come, first served",
           median, bound, over, HAMMER, bound, worst);
  if (me == 0)
    printf("lock hammer: PE 0 overtaken at most %ld times, median %ld (bound %ld, outliers %ld)\n", worst, median,
           bound, over);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  struct state *s = (struct state *)shmem_calloc(1, sizeof(struct state));
  PE_CHECK(s != NULL, "shmem_calloc of the test state failed");
  if (s == NULL) return pe_finish("lock");
  mutual_exclusion(s);
  test_lock_semantics(s);
  for (int r = 0; r < 3; ++r) fifo_order(s, r);
  hammer_bound(s);
  /* Every lock word is back to its free state: a fresh test_lock takes each one. */
  for (int l = 0; l < NLOCKS; ++l) {
    if (shmem_my_pe() == 0) {
      PE_CHECK(shmem_test_lock(&s->locks[l]) == 0, "lock %d not free after the test", l);
      shmem_clear_lock(&s->locks[l]);
    }
  }
  shmem_free(s);
  return pe_finish("lock");
}
