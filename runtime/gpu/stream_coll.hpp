// The kernels behind the team collectives on a stream (stream_coll_kernels.cu, compiled by nvcc), as their entry
// points (stream_coll_api.cpp) launch them: each runs the device API's collective at grid scope
// (gpushmem/device/coll.cuh) in a cooperative launch of `g` on `stream`, in the calling thread's current context
// (the caller holds a ContextScope). Every launcher returns the launch's error, never waits, and is legal during
// stream capture. The typed broadcast / collect / fcollect / alltoall forms run the mem kernels on their bytes, and
// the typed alltoalls the kernel of their element size. Private to runtime/gpu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpushmem/stream.h" /* GPUSHMEMI_STREAM_UNPAREN */
#include "shmem.h"

namespace gpushmem::gpu::stream_coll {

// A cooperative launch: `blocks` blocks of `threads` threads, all resident at once.
struct Grid {
  unsigned blocks = 1;
  unsigned threads = 1;
};

cudaError_t launch_broadcastmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                                size_t bytes, int root);
cudaError_t launch_fcollectmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                               size_t bytes);
cudaError_t launch_collectmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                              size_t bytes);
cudaError_t launch_alltoallmem(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                               size_t bytes);
// Elements of `elem_bytes` bytes (1, 2, 4 or 8), `dst` / `sst` elements apart.
cudaError_t launch_alltoalls(Grid g, cudaStream_t stream, shmem_team_t team, void *dest, const void *source,
                             ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_bytes);
// launch_<TYPE>_<OP>_reduce for every device reduction (gpushmem/device/coll_names.cuh), with its parameters.
#define GPUSHMEMI_STREAM_DECL_reduce(BASE, PARAMS) \
  cudaError_t launch_##BASE(Grid g, cudaStream_t stream, GPUSHMEMI_STREAM_UNPAREN PARAMS);
#define GPUSHMEMI_STREAM_DECL_broadcastmem(BASE, PARAMS)
#define GPUSHMEMI_STREAM_DECL_fcollectmem(BASE, PARAMS)
#define GPUSHMEMI_STREAM_DECL_collectmem(BASE, PARAMS)
#define GPUSHMEMI_STREAM_DECL_alltoallmem(BASE, PARAMS)
#define GPUSHMEMI_STREAM_DECL_alltoalls(BASE, PARAMS)
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS) GPUSHMEMI_STREAM_DECL_##IMPL(BASE, PARAMS)
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL

}  // namespace gpushmem::gpu::stream_coll
