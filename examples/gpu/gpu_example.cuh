/*
 * What every GPU example needs besides the OpenSHMEM API: CUDA error checks that end the whole job, the
 * "no GPU: skip" rule, the check that the symmetric heap really is GPU memory, and a job-wide verdict.
 */
#ifndef GPUSHMEM_EXAMPLE_GPU_CUH
#define GPUSHMEM_EXAMPLE_GPU_CUH

#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdio>
#include <cstdlib>

/* Used between shmem_init and shmem_finalize only: every PE must go down together, or the others would
   wait for this one forever. */
#define EXAMPLE_CUDA_CHECK(call)                                                                                   \
  do {                                                                                                             \
    const cudaError_t example_err_ = (call);                                                                       \
    if (example_err_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(example_err_)); \
      shmem_global_exit(1);                                                                                        \
    }                                                                                                              \
  } while (0)

/* Before shmem_init: without a usable GPU the example exits 77 (ctest: skipped). */
inline void example_require_gpu(const char *prog) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: SKIP: no usable CUDA device (cudaGetDeviceCount: %s, %d device(s))\n", prog,
                 err != cudaSuccess ? cudaGetErrorString(err) : "no error", count);
    std::exit(77);
  }
}

/* After the first shmem_malloc: kernels can only use the symmetric heap when it lives on the GPU. */
inline void example_require_gpu_heap(const char *prog, const void *sym) {
  cudaPointerAttributes attr{};
  if (sym == nullptr || cudaPointerGetAttributes(&attr, sym) != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
    (void)cudaGetLastError();
    std::fprintf(stderr,
                 "%s: PE %d: shmem_malloc returned %p, which is not GPU memory: the GPU symmetric heap is not "
                 "active (is GPUSHMEM_DISABLE_CUDA set?)\n",
                 prog, shmem_my_pe(), sym);
    shmem_global_exit(1);
  }
}

__global__ void example_publish_kernel(int *slots, int value, int me, int npes) {
  for (int pe = 0; pe < npes; ++pe) shmem_int_p(&slots[me], value, pe);
  shmem_quiet();
}

/* Collective: the number of errors over all PEs (each PE passes its own). */
inline int example_job_errors(int local) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *slots = static_cast<int *>(shmem_calloc(static_cast<size_t>(npes), sizeof(int)));
  example_publish_kernel<<<1, 1>>>(slots, local, me, npes);
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all();
  int *all = new int[npes];
  EXAMPLE_CUDA_CHECK(cudaMemcpy(all, slots, static_cast<size_t>(npes) * sizeof(int), cudaMemcpyDeviceToHost));
  int total = 0;
  for (int pe = 0; pe < npes; ++pe) total += all[pe];
  delete[] all;
  shmem_free(slots); /* starts with a barrier: every PE has read its copy before the memory goes */
  return total;
}

#endif /* GPUSHMEM_EXAMPLE_GPU_CUH */
