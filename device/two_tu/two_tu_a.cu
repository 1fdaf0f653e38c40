// First file of the two-file test (see two_tu_b.cu, which holds main).
#include <shmem.h>

#include "two_tu.h"

namespace {
__global__ void a_kernel(int *dest, int value, int pe) {
  shmem_int_p(dest, value, pe);
  shmem_quiet();
}
}  // namespace

int two_tu_a_put(int *dest, int value, int pe) {
  a_kernel<<<1, 1>>>(dest, value, pe);
  const cudaError_t launch = cudaGetLastError();
  return launch != cudaSuccess ? launch : cudaDeviceSynchronize();
}

int two_tu_a_state(gpushmem_device_state_t *out) {
  return cudaMemcpyFromSymbol(out, gpushmemi_device_state, sizeof *out);
}
