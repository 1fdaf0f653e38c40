// The kernels of the team collectives on a stream (include/gpushmem/stream.h): the device API's collectives at grid
// scope, so one collective uses every block of its launch (the team sync's one-thread kernel is in stream_ops.cu).
// Like stream_ops.cu, this file includes <shmem.h> as an application's CUDA file does and gets its own copy of the
// device state, registered as a library file: the collectives here use the same team-sync words as the application's
// kernels.
#ifndef GPUSHMEM_BUILDING_LIBRARY
#define GPUSHMEM_BUILDING_LIBRARY 1
#endif
#include <shmemx.h>

#include "gpu/stream_coll.hpp"

namespace gpushmem::gpu::stream_coll {
namespace {

namespace dev = ::gpushmem::device;
using grid = dev::grid_scope;

// 512 threads (stream_coll_api.cpp's blocks), at least two blocks per SM: at most 64 registers, so the grids of two
// PEs sharing the GPU (MPS, virtual hosts) can be resident together.
#define GPUSHMEMI_STREAM_COLL_BOUNDS __launch_bounds__(512, 2)

// The typed forms run these on their bytes, so a device-side report (the host checked the arguments before the
// launch; what is left is, e.g., a team destroyed between the call and the kernel) names the mem form.
__global__ void GPUSHMEMI_STREAM_COLL_BOUNDS broadcastmem_kernel(shmem_team_t team, void *dest, const void *source,
                                                                 size_t bytes, int root) {
  dev::broadcastmem<grid>("shmemx_broadcastmem_on_stream", team, dest, source, bytes, root);
}
__global__ void GPUSHMEMI_STREAM_COLL_BOUNDS fcollectmem_kernel(shmem_team_t team, void *dest, const void *source,
                                                                size_t bytes) {
  dev::fcollectmem<grid>("shmemx_fcollectmem_on_stream", team, dest, source, bytes);
}
__global__ void GPUSHMEMI_STREAM_COLL_BOUNDS collectmem_kernel(shmem_team_t team, void *dest, const void *source,
                                                               size_t bytes) {
  dev::collectmem<grid>("shmemx_collectmem_on_stream", team, dest, source, bytes);
}
__global__ void GPUSHMEMI_STREAM_COLL_BOUNDS alltoallmem_kernel(shmem_team_t team, void *dest, const void *source,
                                                                size_t bytes) {
  dev::alltoallmem<grid>("shmemx_alltoallmem_on_stream", team, dest, source, bytes);
}
template <class E>
__global__ void GPUSHMEMI_STREAM_COLL_BOUNDS alltoalls_kernel(shmem_team_t team, E *dest, const E *source,
                                                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
  dev::alltoalls<grid>("shmemx_alltoallsmem_on_stream", team, dest, source, dst, sst, nelems);
}

// Arguments by value: args[] points at this frame's copies, which the launch reads before it returns.
template <class... A>
cudaError_t launch_grid(const void *kernel, Grid g, cudaStream_t stream, A... a) {
  void *args[] = {&a...};
  cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(g.blocks), dim3(g.threads), args, 0, stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // returned to the caller, who reports it
  return e;
}

template <class E>
cudaError_t launch_alltoalls_of(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {
  return launch_grid(reinterpret_cast<const void *>(&alltoalls_kernel<E>), g, stream, team, static_cast<E *>(dest),
                     static_cast<const E *>(source), dst, sst, nelems);
}

}  // namespace

// One kernel and launcher per device reduction, from the device API's list.
// EXTRA (", operator, type" for a reduction, nothing for the others) is passed last: its commas make it two
// arguments there.
#define GPUSHMEMI_STREAM_KERNEL_reduce(BASE, PARAMS, ARGS, IMPL_ARGS, OP, T)                               \
  namespace {                                                                                              \
  __global__ void GPUSHMEMI_STREAM_COLL_BOUNDS BASE##_kernel PARAMS {                                      \
    dev::reduce<grid, OP, T>("shmemx_" #BASE "_on_stream", GPUSHMEMI_UNPAREN IMPL_ARGS);                   \
  }                                                                                                        \
  }                                                                                                        \
  cudaError_t launch_##BASE(Grid g, cudaStream_t stream, GPUSHMEMI_UNPAREN PARAMS) {                       \
    return launch_grid(reinterpret_cast<const void *>(&BASE##_kernel), g, stream, GPUSHMEMI_UNPAREN ARGS); \
  }
#define GPUSHMEMI_STREAM_KERNEL_broadcastmem(BASE, PARAMS, ARGS, IMPL_ARGS)
#define GPUSHMEMI_STREAM_KERNEL_fcollectmem(BASE, PARAMS, ARGS, IMPL_ARGS)
#define GPUSHMEMI_STREAM_KERNEL_collectmem(BASE, PARAMS, ARGS, IMPL_ARGS)
#define GPUSHMEMI_STREAM_KERNEL_alltoallmem(BASE, PARAMS, ARGS, IMPL_ARGS)
#define GPUSHMEMI_STREAM_KERNEL_alltoalls(BASE, PARAMS, ARGS, IMPL_ARGS)
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS) \
  GPUSHMEMI_STREAM_KERNEL_##IMPL(BASE, PARAMS, ARGS, IMPL_ARGS EXTRA)
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL

cudaError_t launch_broadcastmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                                size_t bytes, int root) {
  return launch_grid(reinterpret_cast<const void *>(&broadcastmem_kernel), g, stream, team, dest, source, bytes, root);
}
cudaError_t launch_fcollectmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                               size_t bytes) {
  return launch_grid(reinterpret_cast<const void *>(&fcollectmem_kernel), g, stream, team, dest, source, bytes);
}
cudaError_t launch_collectmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                              size_t bytes) {
  return launch_grid(reinterpret_cast<const void *>(&collectmem_kernel), g, stream, team, dest, source, bytes);
}
cudaError_t launch_alltoallmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                               size_t bytes) {
  return launch_grid(reinterpret_cast<const void *>(&alltoallmem_kernel), g, stream, team, dest, source, bytes);
}
cudaError_t launch_alltoalls(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                             ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_bytes) {
  switch (elem_bytes) {
    case 1:
      return launch_alltoalls_of<uint8_t>(g, stream, team, dest, source, dst, sst, nelems);
    case 2:
      return launch_alltoalls_of<uint16_t>(g, stream, team, dest, source, dst, sst, nelems);
    case 4:
      return launch_alltoalls_of<uint32_t>(g, stream, team, dest, source, dst, sst, nelems);
    case 8:
      return launch_alltoalls_of<uint64_t>(g, stream, team, dest, source, dst, sst, nelems);
    default:
      return cudaErrorInvalidValue;
  }
}

namespace {

// Loaded when the device state is first published (shmem_init), as stream_ops.cu's kernels are and for the same
// reason: a lazily loaded kernel's first launch may wait for the context to go idle, behind a kernel that waits for
// this PE.
#define GPUSHMEMI_STREAM_PRELOAD_reduce(BASE) reinterpret_cast<const void *>(&BASE##_kernel),
#define GPUSHMEMI_STREAM_PRELOAD_broadcastmem(BASE)
#define GPUSHMEMI_STREAM_PRELOAD_fcollectmem(BASE)
#define GPUSHMEMI_STREAM_PRELOAD_collectmem(BASE)
#define GPUSHMEMI_STREAM_PRELOAD_alltoallmem(BASE)
#define GPUSHMEMI_STREAM_PRELOAD_alltoalls(BASE)
void preload_kernels(const gpushmem_device_state_t *) {
  const void *const kernels[] = {
      reinterpret_cast<const void *>(&broadcastmem_kernel),
      reinterpret_cast<const void *>(&fcollectmem_kernel),
      reinterpret_cast<const void *>(&collectmem_kernel),
      reinterpret_cast<const void *>(&alltoallmem_kernel),
      reinterpret_cast<const void *>(&alltoalls_kernel<uint8_t>),
      reinterpret_cast<const void *>(&alltoalls_kernel<uint16_t>),
      reinterpret_cast<const void *>(&alltoalls_kernel<uint32_t>),
      reinterpret_cast<const void *>(&alltoalls_kernel<uint64_t>),
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS) GPUSHMEMI_STREAM_PRELOAD_##IMPL(BASE)
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL
  };
  for (const void *kernel : kernels) {
    cudaFuncAttributes attributes;
    if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess) (void)cudaGetLastError();
  }
}

[[maybe_unused]] const int preload_registration = gpushmemi_register_library_device_state(&preload_kernels);

}  // namespace
}  // namespace gpushmem::gpu::stream_coll
