// A CUDA program against the installed package, built with nvcc through find_package, pkg-config and
// gpushmemc++ (ctest pkg.install), without -rdc: a kernel puts to this PE's symmetric heap with the device
// API, and the host reads the value back. Without a GPU it starts and ends as one PE and says so.
#include <shmem.h>

#include <cstdio>

__global__ void put_to_self(int *box, int value) {
  shmem_int_p(box, value, shmem_my_pe());
}

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gpushmem consumer (CUDA): PE %d of %d; no GPU here, so no kernel ran\n", me, npes);
    shmem_finalize();
    return 0;
  }
  int *box = static_cast<int *>(shmem_malloc(sizeof(int)));
  put_to_self<<<1, 1>>>(box, 4200 + me);
  const cudaError_t err = cudaDeviceSynchronize();
  shmem_barrier_all();
  const int got = shmem_int_g(box, me);
  std::printf("gpushmem consumer (CUDA): PE %d of %d; the kernel put %d (%s)\n", me, npes, got,
              err == cudaSuccess ? cudaGetErrorString(err) : "kernel failed");
  shmem_free(box);
  shmem_finalize();
  return err == cudaSuccess && got == 4200 + me ? 0 : 1;
}
