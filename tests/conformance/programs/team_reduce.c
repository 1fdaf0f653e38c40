/* Team collectives: a sum reduction over SHMEM_TEAM_WORLD, a broadcast from the last PE, and the same sum on
   a team of the even PEs made with shmem_team_split_strided. OpenSHMEM 1.5 API only. Built by the
   conformance tests once teams and collectives are no longer pending. */
#include <shmem.h>
#include <stdio.h>

#define N 16

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int errors = 0;

  long *src = shmem_malloc(N * sizeof(long));
  long *dst = shmem_malloc(N * sizeof(long));
  for (int i = 0; i < N; i++) src[i] = me + i;
  shmem_barrier_all();

  if (shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, N) != 0) errors++;
  for (int i = 0; i < N; i++) {
    long expect = (long)npes * (npes - 1) / 2 + (long)npes * i;
    if (dst[i] != expect && errors++ < 5) printf("PE %d: sum[%d] = %ld, expected %ld\n", me, i, dst[i], expect);
  }

  if (shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, N, npes - 1) != 0) errors++;
  for (int i = 0; i < N; i++)
    if (dst[i] != npes - 1 + i && errors++ < 10)
      printf("PE %d: broadcast[%d] = %ld, expected %d\n", me, i, dst[i], npes - 1 + i);

  shmem_team_t evens;
  int n_even = (npes + 1) / 2;
  if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_even, NULL, 0, &evens) != 0) errors++;
  if (me % 2 == 0) {
    if (shmem_team_my_pe(evens) != me / 2 || shmem_team_n_pes(evens) != n_even) {
      printf("PE %d: even team: my_pe %d n_pes %d\n", me, shmem_team_my_pe(evens), shmem_team_n_pes(evens));
      errors++;
    }
    if (shmem_long_sum_reduce(evens, dst, src, N) != 0) errors++;
    for (int i = 0; i < N; i++) {
      long expect = 0;
      for (int p = 0; p < npes; p += 2) expect += p + i;
      if (dst[i] != expect && errors++ < 15) printf("PE %d: even sum[%d] = %ld, expected %ld\n", me, i, dst[i], expect);
    }
    shmem_team_destroy(evens);
  } else if (evens != SHMEM_TEAM_INVALID) {
    printf("PE %d: not in the even team but got a handle\n", me);
    errors++;
  }

  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
  if (errors)
    printf("team_reduce: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("team_reduce: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
