/*
 * Who runs one device call: a thread alone, a whole warp, a whole block, or (the team collectives' _grid forms and
 * the collectives on a stream) every thread of a cooperatively launched grid. Every operation is written once as a
 * template on one of these; the warp, block and grid forms (shmemx_*_warp / _block / _grid) split the work over the
 * group's lanes. A cooperative call must be made by every thread of its warp, block or grid, with the same
 * arguments (as with __syncthreads).
 */
#ifndef GPUSHMEM_DEVICE_SCOPE_CUH
#define GPUSHMEM_DEVICE_SCOPE_CUH

#include <cooperative_groups.h>
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

/* Every thread of a grid whose blocks are all resident at once (shmemx_collective_launch, or the _on_stream
   collectives' own launch): lanes numbered block by block, so a block's lanes are consecutive and its accesses
   coalesce. sync() is the cooperative grid barrier, which also orders every lane's memory accesses before it ahead
   of those after it (at GPU scope; the collectives' one caller then fences for the system). No share(): nothing
   that hands a value from rank 0 to every lane has a grid form. */
struct grid_scope {
  __device__ static unsigned int block_rank() { return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); }
  __device__ static unsigned int rank() { return block_rank() * block_thread_count() + linear_thread_index(); }
  __device__ static unsigned int size() { return gridDim.x * gridDim.y * gridDim.z * block_thread_count(); }
  __device__ static void sync() { cooperative_groups::this_grid().sync(); }
  /* Whether the kernel was launched cooperatively: sync() of any other grid is undefined (it may hang). */
  __device__ static bool launched_cooperatively() { return cooperative_groups::this_grid().is_valid(); }
};

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_SCOPE_CUH */
