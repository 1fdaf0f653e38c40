/* A lock-protected append log on PE 0: every PE appends ITEMS records with a plain get of the length, a put
   of the record and a put of the new length, all under shmem_set_lock / shmem_clear_lock. Afterwards every
   record is present exactly once. shmem_test_lock is used for half the acquisitions. OpenSHMEM 1.5 API
   only. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define ITEMS 100

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();

  long *lock = shmem_calloc(1, sizeof(long));
  int *length = shmem_calloc(1, sizeof(int));
  int *records = shmem_malloc((size_t)ITEMS * npes * sizeof(int));
  shmem_barrier_all();

  for (int i = 0; i < ITEMS; i++) {
    if (i % 2)
      while (shmem_test_lock(lock)) {
      }
    else
      shmem_set_lock(lock);
    int n = shmem_int_g(length, 0);
    shmem_int_p(&records[n], me * ITEMS + i, 0);
    shmem_int_p(length, n + 1, 0);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();

  int errors = 0;
  if (me == 0) {
    int total = ITEMS * npes;
    if (*length != total) {
      printf("length = %d, expected %d\n", *length, total);
      errors++;
    }
    char *seen = calloc((size_t)total, 1);
    for (int i = 0; i < *length && i < total; i++) {
      int v = records[i];
      if (v < 0 || v >= total || seen[v]++) {
        if (errors++ < 5) printf("record %d = %d: out of range or duplicated (a lost update)\n", i, v);
      }
    }
    free(seen);
  }

  shmem_barrier_all();
  shmem_free(records);
  shmem_free(length);
  shmem_free(lock);
  if (errors)
    printf("lock_update: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("lock_update: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
