/*
 * The stream-ordered operations from plain C, where they cannot work: in host mode (GPUSHMEM_DISABLE_CUDA=1,
 * or a machine without a GPU) and before shmem_init. Each case makes one call, which must end the job with a
 * message naming the call (ctest checks the status and the text). Needs no GPU and no CUDA header: it also
 * shows that <shmemx.h> declares the calls in C11 (a cudaStream_t is passed as struct CUstream_st *).
 *   before_init  shmemx_putmem_on_stream before shmem_init
 *   putmem       shmemx_putmem_on_stream in host mode
 *   barrier      shmemx_barrier_all_on_stream in host mode
 *   quiet        shmemx_quiet_on_stream in host mode
 *   typed        shmemx_int_get_on_stream in host mode
 *   reduce       shmemx_int_sum_reduce_on_stream in host mode (the collectives' declarations in C, too)
 *   alltoall     shmemx_alltoallmem_on_stream in host mode
 */
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <case>\n", argv[0]);
    return 64;
  }
  const char *which = argv[1];
  int local[4] = {0, 0, 0, 0};
  struct CUstream_st *stream = NULL; /* the legacy default stream */
  if (strcmp(which, "before_init") == 0) {
    shmemx_putmem_on_stream(local, local, sizeof local, 0, stream);
    fprintf(stderr, "stream_host_mode: shmemx_putmem_on_stream returned before shmem_init\n");
    return 1;
  }
  shmem_init();
  int *sym = (int *)shmem_malloc(sizeof local);
  const int next = (shmem_my_pe() + 1) % shmem_n_pes();
  if (strcmp(which, "putmem") == 0)
    shmemx_putmem_on_stream(sym, local, sizeof local, next, stream);
  else if (strcmp(which, "barrier") == 0)
    shmemx_barrier_all_on_stream(stream);
  else if (strcmp(which, "quiet") == 0)
    shmemx_quiet_on_stream(stream);
  else if (strcmp(which, "typed") == 0)
    shmemx_int_get_on_stream(local, sym, 4, next, stream);
  else if (strcmp(which, "reduce") == 0)
    (void)shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_WORLD, sym, sym, 4, stream);
  else if (strcmp(which, "alltoall") == 0)
    (void)shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, sym, sym, 0, stream);
  else
    fprintf(stderr, "stream_host_mode: unknown case '%s'\n", which);
  fprintf(stderr, "PE %d: stream_host_mode: case %s returned instead of ending the job\n", shmem_my_pe(), which);
  shmem_finalize();
  return 1;
}
