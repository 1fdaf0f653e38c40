// The public headers used from C++: shmem.h, shmemx.h and the generated gpushmem/config.h.
#include <gpushmem/config.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstring>

int main() {
#ifdef EXPECTED_VERSION_STRING
  // Built through find_package: the headers found must belong to the package version CMake found.
  if (std::strcmp(GPUSHMEM_VERSION_STRING, EXPECTED_VERSION_STRING) != 0) {
    std::printf("gpushmem/config.h says version %s, find_package found %s\n", GPUSHMEM_VERSION_STRING,
                EXPECTED_VERSION_STRING);
    return 1;
  }
#endif
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  std::printf("gpushmem consumer (C++): PE %d of %d\n", me, npes);
  shmem_finalize();
  return me >= 0 && me < npes ? 0 : 1;
}
