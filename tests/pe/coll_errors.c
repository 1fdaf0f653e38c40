/*
 * Misuse of teams and collectives that the library must report, naming the call and the argument, and turn
 * into a failed job (error checks on). argv[1] picks the case; reaching the end of a case is a failure.
 *   team_destroyed   shmem_team_sync on a team after shmem_team_destroy
 *   destroy_world    shmem_team_destroy(SHMEM_TEAM_WORLD)
 *   root_range       shmem_int_broadcast with PE_root = team size
 *   size_mismatch    shmem_int_sum_reduce with a different nreduce on the last PE
 *   root_mismatch    shmem_int_broadcast with a different root on the last PE
 *   not_symmetric    shmem_int_fcollect with a stack buffer as dest
 *   active_set       shmem_barrier with an active set that leaves this PE out
 *   overlap          shmem_int_sum_reduce with source and dest overlapping partially
 */
#include <string.h>

#include "pe_check.h"

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *a = (int *)shmem_calloc(64, sizeof(int));
  int *b = (int *)shmem_calloc(64 * 4, sizeof(int));
  if (strcmp(c, "team_destroyed") == 0) {
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    shmem_team_destroy(t);
    shmem_team_sync(t);
  } else if (strcmp(c, "destroy_world") == 0) {
    shmem_team_destroy(SHMEM_TEAM_WORLD);
  } else if (strcmp(c, "root_range") == 0) {
    shmem_int_broadcast(SHMEM_TEAM_WORLD, b, a, 4, npes);
  } else if (strcmp(c, "size_mismatch") == 0) {
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, b, a, me == npes - 1 ? 8 : 4);
  } else if (strcmp(c, "root_mismatch") == 0) {
    shmem_int_broadcast(SHMEM_TEAM_WORLD, b, a, 4, me == npes - 1 ? 1 : 0);
  } else if (strcmp(c, "not_symmetric") == 0) {
    int local[64];
    if (me == npes - 1)
      shmem_int_fcollect(SHMEM_TEAM_WORLD, local, a, 1);
    else
      shmem_int_fcollect(SHMEM_TEAM_WORLD, b, a, 1);
  } else if (strcmp(c, "active_set") == 0) {
    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    long *ps = (long *)shmem_calloc(SHMEM_BARRIER_SYNC_SIZE, sizeof(long));
    (void)psync;
    shmem_barrier(npes, 0, 1, ps);
  } else if (strcmp(c, "overlap") == 0) {
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, a + 1, a, 4);
  } else {
    fprintf(stderr, "coll_errors: unknown case '%s'\n", c);
    return 64;
  }
  fprintf(stderr, "coll_errors: FAILED: PE %d: case '%s' did not end the job\n", me, c);
  shmem_finalize();
  return 0;
}
