/* Circular shift: every PE puts its block into the next PE's buffer, then reads the previous PE's block
   back with a get, and checks both. OpenSHMEM 1.5 API only. */
#include <shmem.h>
#include <stdio.h>

#define N 1000

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int right = (me + 1) % npes;
  int left = (me + npes - 1) % npes;

  int *src = shmem_malloc(N * sizeof(int));
  int *dst = shmem_malloc(N * sizeof(int));
  int back[N];
  for (int i = 0; i < N; i++) {
    src[i] = me * N + i;
    dst[i] = -1;
  }
  shmem_barrier_all();

  shmem_int_put(dst, src, N, right);
  shmem_p(&dst[0], src[0], right); /* the generic name, same value */
  shmem_barrier_all();

  int errors = 0;
  for (int i = 0; i < N; i++)
    if (dst[i] != left * N + i) {
      if (errors++ < 5) printf("PE %d: dst[%d] = %d, expected %d\n", me, i, dst[i], left * N + i);
    }
  shmem_get(back, dst, N, right); /* what the right neighbour received: my block */
  for (int i = 0; i < N; i++)
    if (back[i] != me * N + i) {
      if (errors++ < 10) printf("PE %d: back[%d] = %d, expected %d\n", me, i, back[i], me * N + i);
    }

  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
  if (errors)
    printf("circular_shift: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("circular_shift: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
