/*
 * Bad arguments to locks, AMOs, signals and waits: the library must end the job with a message that names
 * the call and the argument (the CMake registration checks the status and the message). argv[1] picks the
 * case; the last PE makes the bad call while the others wait in a barrier. Reaching the end of a case is a
 * failure. The case list is in tests/pe/CMakeLists.txt beside the expected messages.
 * One case ends normally: lock_wait_report (a PE that waits for a lock says so every GPUSHMEM_HANG_WARN s).
 */
#include <string.h>
#include <time.h>

#include "pe_check.h"

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long *sym = (long *)shmem_calloc(8, sizeof(long));
  uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
  long local[2] = {0, 0};
  int *isym = (int *)sym;
  const int bad = me == npes - 1; /* the PE that misbehaves */

  if (strcmp(c, "lock_wait_report") == 0) {
    /* PE 0 holds the lock for 2.5 s; PE 1 waits and must report it (GPUSHMEM_HANG_WARN=1), then gets it. */
    if (me == 0) shmem_set_lock(&sym[0]);
    shmem_barrier_all();
    if (me == 0) {
      pause_ms(2500);
      shmem_clear_lock(&sym[0]);
    } else if (me == 1) {
      shmem_set_lock(&sym[0]);
      shmem_clear_lock(&sym[0]);
    }
    return pe_finish("bad_input lock_wait_report");
  }
  if (!bad) {
    shmem_barrier_all();
  } else if (strcmp(c, "lock_stack") == 0) {
    shmem_set_lock(&local[0]);
  } else if (strcmp(c, "lock_null") == 0) {
    (void)shmem_test_lock(NULL);
  } else if (strcmp(c, "lock_misaligned") == 0) {
    shmem_set_lock((long *)((char *)&sym[1] + 4));
  } else if (strcmp(c, "lock_clear_unheld") == 0) {
    shmem_clear_lock(&sym[0]);
  } else if (strcmp(c, "lock_reentrant") == 0) {
    shmem_set_lock(&sym[0]);
    shmem_set_lock(&sym[0]);
  } else if (strcmp(c, "amo_misaligned") == 0) {
    (void)shmem_int_atomic_fetch_add((int *)((char *)sym + 2), 1, 0);
  } else if (strcmp(c, "amo_invalid_pe") == 0) {
    shmem_long_atomic_inc(sym, npes);
  } else if (strcmp(c, "amo_negative_pe") == 0) {
    (void)shmem_long_atomic_swap(sym, 1, -1);
  } else if (strcmp(c, "amo_stack") == 0) {
    (void)shmem_long_atomic_fetch(&local[0], 0);
  } else if (strcmp(c, "amo_null_fetch") == 0) {
    shmem_long_atomic_fetch_add_nbi(NULL, sym, 1, 0);
  } else if (strcmp(c, "signal_bad_op") == 0) {
    shmem_putmem_signal(&sym[2], local, sizeof local, sig, 1, 7, 0);
  } else if (strcmp(c, "signal_overlap") == 0) {
    shmem_long_put_signal(sym, local, 2, (uint64_t *)&sym[1], 1, SHMEM_SIGNAL_SET, 0);
  } else if (strcmp(c, "signal_fetch_stack") == 0) {
    (void)shmem_signal_fetch((const uint64_t *)&local[0]);
  } else if (strcmp(c, "signal_wait_bad_cmp") == 0) {
    (void)shmem_signal_wait_until(sig, 42, 0);
  } else if (strcmp(c, "wait_bad_cmp") == 0) {
    shmem_int_wait_until(isym, 99, 0);
  } else if (strcmp(c, "test_all_empty_bad_cmp") == 0) {
    (void)shmem_int_test_all(isym, 0, NULL, -1, 0);
  } else if (strcmp(c, "wait_stack_ivar") == 0) {
    (void)shmem_long_test(&local[0], SHMEM_CMP_EQ, 0);
  } else if (strcmp(c, "wait_null_ivars") == 0) {
    (void)shmem_int_test_any(NULL, 3, NULL, SHMEM_CMP_EQ, 0);
  } else if (strcmp(c, "wait_null_indices") == 0) {
    (void)shmem_int_test_some(isym, 2, NULL, NULL, SHMEM_CMP_EQ, 0);
  } else if (strcmp(c, "wait_null_cmp_values") == 0) {
    (void)shmem_int_test_all_vector(isym, 2, NULL, SHMEM_CMP_EQ, NULL);
  } else {
    fprintf(stderr, "bad_input: unknown case '%s'\n", c);
    return 64;
  }
  fprintf(stderr, "bad_input: FAILED: PE %d: case '%s' did not end the job\n", me, c);
  shmem_finalize();
  return 0;
}
