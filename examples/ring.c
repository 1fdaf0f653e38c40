/*
 * Ring exchange, written only against the OpenSHMEM 1.5 specification.
 *
 * Every PE puts its number (and a small block derived from it) to its right-hand neighbour, then checks
 * what arrived from its left-hand neighbour. Then a token travels once around the whole ring, each PE
 * adding its number, so PE 0 ends with 0 + 1 + ... + (n-1).
 *
 *   gpushmemcc ring.c -o ring && mpirun -np 4 ./ring      (or: gpushmemrun -n 4 ./ring)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 1024

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int right = (me + 1) % npes;
  int left = (me + npes - 1) % npes;

  int *from_left = shmem_malloc(sizeof(int));
  long *block = shmem_malloc(BLOCK * sizeof(long));
  long *token = shmem_calloc(1, sizeof(long));
  long local[BLOCK];
  for (int i = 0; i < BLOCK; ++i) local[i] = (long)me * 1000000 + i;

  /* 1. neighbour exchange */
  shmem_int_p(from_left, me, right);
  shmem_long_put(block, local, BLOCK, right);
  shmem_barrier_all();
  int errors = 0;
  if (*from_left != left) ++errors;
  for (int i = 0; i < BLOCK; ++i)
    if (block[i] != (long)left * 1000000 + i) ++errors;

  /* 2. a token around the ring: PE 0 starts, each PE adds its number and passes it on */
  for (int step = 0; step < npes; ++step) {
    if (me == step) {
      long value = shmem_long_g(token, me) + me;
      shmem_long_p(token, value, right);
      shmem_quiet();
    }
    shmem_barrier_all();
  }
  long expected_sum = (long)npes * (npes - 1) / 2;

  printf("PE %d of %d: got %d from PE %d, block %s\n", me, npes, *from_left, left, errors == 0 ? "OK" : "CORRUPT");
  fflush(stdout);
  shmem_barrier_all();
  if (me == 0) {
    printf("ring token after one lap: %ld (expected %ld) -> %s\n", *token, expected_sum,
           *token == expected_sum && errors == 0 ? "PASS" : "FAIL");
    if (*token != expected_sum) errors++;
  }
  shmem_free(token);
  shmem_free(block);
  shmem_free(from_left);
  shmem_finalize();
  return errors == 0 ? 0 : 1;
}
