/* An NVSHMEM-style program built against the installed gpushmem with `gpushmemcc --nvshmem` (pkg.install). */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

int main(void) {
  nvshmem_init();
  int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  printf("gpushmem consumer (NVSHMEM names): PE %d of %d\n", me, npes);
  nvshmem_finalize();
  return me >= 0 && me < npes ? 0 : 1;
}
