// A user program whose kernels live in two CUDA files, built without -rdc (and, as a second program,
// with it): including <shmem.h> must be all each file needs. Both files' device states must be filled by
// shmem_init, identically; each file's kernel puts into the right neighbour with shmem_int_p, and every PE
// checks what its left neighbour put through both.
#include <shmem.h>

#include <cstdio>
#include <cstring>

#include "pe_check.h"
#include "two_tu.h"

namespace {
__global__ void b_kernel(int *dest, int value, int pe) {
  shmem_int_p(dest, value, pe);
  shmem_quiet();
}
}  // namespace

int two_tu_b_put(int *dest, int value, int pe) {
  b_kernel<<<1, 1>>>(dest, value, pe);
  const cudaError_t launch = cudaGetLastError();
  return launch != cudaSuccess ? launch : cudaDeviceSynchronize();
}

int two_tu_b_state(gpushmem_device_state_t *out) {
  return cudaMemcpyFromSymbol(out, gpushmemi_device_state, sizeof *out);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "two_tu: SKIP: no usable CUDA GPU\n");
    return 77;
  }
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  gpushmem_device_state_t a{}, b{};
  int err = two_tu_a_state(&a);
  PE_CHECK(err == 0, "reading two_tu_a.cu's device state: %s", cudaGetErrorString(static_cast<cudaError_t>(err)));
  err = two_tu_b_state(&b);
  PE_CHECK(err == 0, "reading two_tu_b.cu's device state: %s", cudaGetErrorString(static_cast<cudaError_t>(err)));
  PE_CHECK(a.version == GPUSHMEM_DEVICE_STATE_VERSION && a.my_pe == me && a.n_pes == npes,
           "two_tu_a.cu's device state: version %u, my_pe %d, n_pes %d; expected %d, %d, %d", a.version, a.my_pe,
           a.n_pes, GPUSHMEM_DEVICE_STATE_VERSION, me, npes);
  PE_CHECK(std::memcmp(&a, &b, sizeof a) == 0, "the two files' device states differ");
  int *x = static_cast<int *>(shmem_calloc(2, sizeof(int)));
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  shmem_barrier_all();
  err = two_tu_a_put(x, 100 + me, right);
  PE_CHECK(err == 0, "two_tu_a.cu's kernel: %s", cudaGetErrorString(static_cast<cudaError_t>(err)));
  err = two_tu_b_put(x + 1, 200 + me, right);
  PE_CHECK(err == 0, "two_tu_b.cu's kernel: %s", cudaGetErrorString(static_cast<cudaError_t>(err)));
  shmem_barrier_all();
  int got[2] = {0, 0};
  PE_CHECK(cudaMemcpy(got, x, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy of the results");
  PE_CHECK(got[0] == 100 + left, "value put by two_tu_a.cu's kernel on PE %d: expected %d, got %d", left, 100 + left,
           got[0]);
  PE_CHECK(got[1] == 200 + left, "value put by two_tu_b.cu's kernel on PE %d: expected %d, got %d", left, 200 + left,
           got[1]);
  shmem_free(x);
  return pe_finish("two_tu");
}
