/*
 * shmemx_collective_launch: the launch for kernels that synchronise on the device (shmem_barrier_all,
 * shmem_sync_all, waits on other PEs' signals, grid-wide syncs). Included by <shmemx.h> in CUDA files.
 *
 * Such a kernel must have every block resident at once: a block waiting for another that the GPU has not
 * scheduled yet (because it waits for the first to finish) waits forever. A cooperative launch guarantees
 * co-residency or refuses the launch, and this function first checks it with the occupancy calculator, so
 * a grid that is too large gets a message saying how large it may be instead of a hang or a bare error.
 *
 * Header-only on purpose: it runs in the application's translation unit, so the kernel is looked up in the
 * application's CUDA runtime, where it is registered (libgpushmem has its own, static, CUDA runtime).
 */
#ifndef GPUSHMEM_DEVICE_COLLECTIVE_LAUNCH_CUH
#define GPUSHMEM_DEVICE_COLLECTIVE_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdio.h>

/* Reports a failed CUDA call of shmemx_collective_launch and passes its error on. */
static inline int gpushmemi_collective_launch_failed(cudaError_t err, const char *what, int device) {
  fprintf(stderr, "shmemx_collective_launch: %s failed on GPU %d: %s: %s\n", what, device, cudaGetErrorName(err),
          cudaGetErrorString(err));
  fflush(stderr);
  (void)cudaGetLastError(); /* the error is returned; do not leave it for the application's next check */
  return (int)err;
}

/*
 * Launches `func` (a __global__ function of this file or of the application, passed as (const void *)kernel)
 * with `grid` x `block` threads, `shared_mem` bytes of dynamic shared memory and the kernel arguments
 * `args` (an array of pointers to each argument, as for cudaLaunchKernel) on `stream`, as a cooperative
 * launch on the current device (the PE's GPU after shmem_init), so every block is resident at once and
 * the kernel may use device-side collectives and cooperative_groups::this_grid().sync().
 *
 * Returns 0 when the kernel was launched, else a cudaError_t value, after printing one line to stderr:
 *   - cudaErrorCooperativeLaunchTooLarge when the grid cannot be co-resident, with the message
 *     "shmemx_collective_launch: grid of N blocks cannot be co-resident: at most M blocks of T threads fit
 *     on this GPU" and nothing launched (M = blocks per SM for this kernel, block size and shared memory,
 *     times the number of SMs);
 *   - cudaErrorNotSupported when the GPU has no cooperative launch;
 *   - the error of any CUDA call that failed (a bad block size, too much shared memory, an invalid stream).
 * Non-blocking like any launch: errors of the running kernel appear at the next synchronisation.
 *
 * Every PE launches its kernel this way; the call itself does not synchronise PEs. Co-residency is
 * checked for this kernel on its own: several PEs sharing one GPU time-share it (without MPS each process
 * runs alone on the whole GPU in its time slice), but under MPS their kernels compete for the same SMs.
 * Thread safe. Nothing here synchronises or allocates, so it may be called during stream capture where
 * the CUDA version captures cooperative launches.
 */
static inline int shmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shared_mem,
                                           cudaStream_t stream) {
  int device = -1;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return gpushmemi_collective_launch_failed(err, "cudaGetDevice", device);
  int cooperative = 0, sms = 0;
  err = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return gpushmemi_collective_launch_failed(err, "cudaDeviceGetAttribute", device);
  if (!cooperative) {
    fprintf(stderr,
            "shmemx_collective_launch: GPU %d does not support cooperative launches "
            "(cudaDevAttrCooperativeLaunch is 0); kernels that synchronise on the device cannot run there\n",
            device);
    fflush(stderr);
    return (int)cudaErrorNotSupported;
  }

  const unsigned int threads = block.x * block.y * block.z;
  int per_sm = 0;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)threads, shared_mem);
  if (err != cudaSuccess)
    return gpushmemi_collective_launch_failed(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", device);

  const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
  const unsigned long long fit = (unsigned long long)per_sm * (unsigned long long)sms;
  if (blocks > fit) {
    fprintf(stderr,
            "shmemx_collective_launch: grid of %llu blocks cannot be co-resident: at most %llu blocks of %u "
            "threads fit on this GPU (GPU %d: %d per SM x %d SMs with %zu bytes of dynamic shared memory); "
            "launch at most %llu blocks, or use fewer threads, registers or shared memory per block\n",
            blocks, fit, threads, device, per_sm, sms, shared_mem, fit);
    fflush(stderr);
    return (int)cudaErrorCooperativeLaunchTooLarge;
  }

  err = cudaLaunchCooperativeKernel(func, grid, block, args, shared_mem, stream);
  if (err != cudaSuccess) return gpushmemi_collective_launch_failed(err, "cudaLaunchCooperativeKernel", device);
  return 0;
}

#endif /* GPUSHMEM_DEVICE_COLLECTIVE_LAUNCH_CUH */
