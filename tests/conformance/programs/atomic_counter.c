/* A shared ticket counter on PE 0: every PE takes ITERS tickets with fetch_inc; the tickets are unique and
   cover 0..ITERS*npes-1. Then a compare_swap election: exactly one PE wins. OpenSHMEM 1.5 API only. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 500

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();

  long *counter = shmem_calloc(1, sizeof(long));
  int *winner = shmem_malloc(sizeof(int));
  long *tickets = shmem_malloc((size_t)ITERS * npes * sizeof(long));
  long mine[ITERS];
  *winner = -1;
  shmem_barrier_all();

  for (int i = 0; i < ITERS; i++) mine[i] = shmem_atomic_fetch_inc(counter, 0);
  shmem_long_put(&tickets[me * ITERS], mine, ITERS, 0);
  int old = shmem_int_atomic_compare_swap(winner, -1, me, 0);
  shmem_barrier_all();

  int errors = 0;
  if (me == 0) {
    long total = (long)ITERS * npes;
    if (*counter != total) {
      printf("counter = %ld, expected %ld\n", *counter, total);
      errors++;
    }
    char *seen = calloc((size_t)total, 1);
    for (long i = 0; i < total; i++) {
      long t = tickets[i];
      if (t < 0 || t >= total || seen[t]++) {
        if (errors++ < 5) printf("ticket %ld (entry %ld) is out of range or taken twice\n", t, i);
      }
    }
    free(seen);
    if (*winner < 0 || *winner >= npes) {
      printf("election: winner %d\n", *winner);
      errors++;
    }
  }
  int my_win = (old == -1);
  int *wins = shmem_calloc(1, sizeof(int));
  shmem_barrier_all();
  if (my_win) shmem_int_atomic_add(wins, 1, 0);
  shmem_barrier_all();
  if (me == 0 && shmem_atomic_fetch(wins, 0) != 1) {
    printf("election: %d winners\n", *wins);
    errors++;
  }

  shmem_barrier_all();
  shmem_free(wins);
  shmem_free(tickets);
  shmem_free(winner);
  shmem_free(counter);
  if (errors)
    printf("atomic_counter: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("atomic_counter: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
