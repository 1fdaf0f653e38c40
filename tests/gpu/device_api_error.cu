// Bad arguments in device calls, with error checks on: the kernel must print one line naming the PE, the
// call, the argument and the address, then trap; the host sees the failed kernel at its next
// synchronisation, says so and ends the job with a non-zero status instead of hanging. argv[1]:
//   invalid_pe     the last PE calls shmem_int_p(x, 1, n_pes) in a kernel of 64 threads
//   not_symmetric  the last PE calls shmem_int_p on a cudaMalloc'd (non-symmetric) address
//   bad_cmp        the last PE calls shmem_int_wait_until with cmp = 42
// The other PEs wait in a host barrier. Device printf writes to stdout; this program sends stdout to
// stderr so the launcher's --expect-stderr sees the line.
#include <unistd.h>

#include <cstring>

#include "device_api_common.cuh"

namespace {

__global__ void bad_pe_kernel(int *x, int npes) {
  shmem_int_p(x, 1, npes);
}
__global__ void not_symmetric_kernel(int *x) {
  shmem_int_p(x, 1, 0);
}
__global__ void bad_cmp_kernel(int *x) {
  shmem_int_wait_until(x, 42, 0);
}

}  // namespace

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  const int skip = gpu_skip_status("device_api_error");
  if (skip != 0) return skip;
  // Device printf writes to fd 1 at the host's next synchronisation; unbuffered, onto stderr.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) std::perror("dup2");
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *x = static_cast<int *>(shmem_malloc(sizeof(int)));
  if (!device_state_ready("device_api_error")) return pe_finish("device_api_error");
  if (me == npes - 1) {
    if (std::strcmp(c, "invalid_pe") == 0) {
      bad_pe_kernel<<<1, 64>>>(x, npes);
    } else if (std::strcmp(c, "not_symmetric") == 0) {
      int *plain = nullptr;
      CUDA_CHECK(cudaMalloc(&plain, sizeof(int)));
      not_symmetric_kernel<<<1, 1>>>(plain);
    } else if (std::strcmp(c, "bad_cmp") == 0) {
      bad_cmp_kernel<<<1, 1>>>(x);
    } else {
      std::fprintf(stderr, "device_api_error: unknown case '%s'\n", c);
      shmem_global_exit(64);
    }
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      std::fprintf(stderr, "device_api_error: PE %d: the kernel failed as expected: %s (%s)\n", me,
                   cudaGetErrorName(err), cudaGetErrorString(err));
      shmem_global_exit(3);
    }
    std::fprintf(stderr, "device_api_error: FAILED: PE %d: case '%s': the kernel completed without an error\n", me, c);
    shmem_global_exit(0);  // status 0 fails the test (it expects a non-zero status)
  }
  shmem_barrier_all();  // the last PE never arrives: shmem_global_exit ends this PE
  std::fprintf(stderr, "device_api_error: FAILED: PE %d passed a barrier the last PE never reached\n", me);
  return 1;
}
