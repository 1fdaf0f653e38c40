// <shmem.h> alone, as strict C++: it must bring everything it uses, and its overloads must resolve.
#include <shmem.h>

int header_alone_shmem_h_cpp(int *dest, long double *ld) {
  shmem_p(dest, 1, 0);
  shmem_put(ld, ld, 1, 0);
  return shmem_g(dest, 0) + SHMEM_MAJOR_VERSION;
}
