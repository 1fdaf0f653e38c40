/* An unmodified OpenSHMEM C program: the packaging tests build it with find_package, pkg-config and
   gpushmemcc, then run it as one PE. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  printf("gpushmem consumer (C): PE %d of %d\n", me, npes);
  shmem_finalize();
  return me >= 0 && me < npes ? 0 : 1;
}
