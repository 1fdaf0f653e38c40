/*
 * Who runs one device call: a thread alone, a whole warp, or a whole block. Every operation is written
 * once as a template on one of these; the warp and block forms (shmemx_*_warp / _block) split the work
 * over the group's lanes. A cooperative call must be made by every thread of its warp or block, with
 * the same arguments (as with __syncthreads).
 */
#ifndef GPUSHMEM_DEVICE_SCOPE_CUH
#define GPUSHMEM_DEVICE_SCOPE_CUH

#include <cuda_runtime.h>

namespace gpushmem {
namespace device {

/* The thread's index in its block, x fastest: the order in which the hardware forms warps. */
__device__ __forceinline__ unsigned int linear_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned int block_thread_count() {
  return blockDim.x * blockDim.y * blockDim.z;
}

struct thread_scope {
  __device__ static unsigned int rank() { return 0; }
  __device__ static unsigned int size() { return 1; }
  __device__ static void sync() {}
  /* Rank 0's v, returned to every member of the group (all of them call it). */
  __device__ static unsigned long long share(unsigned long long v) { return v; }
};

/* A warp: 32 threads, or fewer for the last warp of a block whose size is not a multiple of 32. */
struct warp_scope {
  __device__ static unsigned int rank() { return linear_thread_index() & 31u; }
  __device__ static unsigned int size() {
    const unsigned int left = block_thread_count() - (linear_thread_index() & ~31u);
    return left < 32u ? left : 32u;
  }
  __device__ static unsigned int mask() {
    const unsigned int n = size();
    return n == 32u ? 0xffffffffu : (1u << n) - 1u;
  }
  /* Also orders the memory accesses of the lanes before it ahead of those after it. */
  __device__ static void sync() { __syncwarp(mask()); }
  __device__ static unsigned long long share(unsigned long long v) { return __shfl_sync(mask(), v, 0); }
};

struct block_scope {
  __device__ static unsigned int rank() { return linear_thread_index(); }
  __device__ static unsigned int size() { return block_thread_count(); }
  /* Also orders the memory accesses of the block's threads before it ahead of those after it. */
  __device__ static void sync() { __syncthreads(); }
  __device__ static unsigned long long share(unsigned long long v) {
    __shared__ unsigned long long shared_value;
    if (rank() == 0) shared_value = v;
    __syncthreads();
    v = shared_value;
    __syncthreads();  // every thread has read it before a later share rewrites it
    return v;
  }
};

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_SCOPE_CUH */
