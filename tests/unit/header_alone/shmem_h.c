/* <shmem.h> alone, as strict C11: it must bring everything it uses, and its _Generic names must work. */
#include <shmem.h>

int header_alone_shmem_h_c(int *dest, long *ldest) {
  shmem_p(dest, 1, 0);
  shmem_put(ldest, ldest, 1, 0);
  return shmem_g(dest, 0) + SHMEM_MAJOR_VERSION;
}
