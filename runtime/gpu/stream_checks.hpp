// What every stream-ordered entry point checks before it enqueues work (defined in stream_api.cpp; the collectives
// on a stream, stream_coll_api.cpp, use them too). Private to runtime/gpu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/session.hpp"

namespace gpushmem::gpu {

// Running, in GPU mode (a GPU symmetric heap), or the job ends naming the call.
const Session &gpu_mode(const char *call);

// Where [sym, sym + bytes) of PE `pe`'s GPU heap is reached from this process. Checked whatever
// GPUSHMEM_ERROR_CHECKS says: a wrong address here would fault later, inside a copy or kernel far from the call,
// and the few comparisons cost nothing next to enqueueing work on a stream. nullptr_if_proxied: NULL (after the
// same checks) where PE pe is reached through the CPU proxy; otherwise such a PE ends the job naming the call.
char *peer_address(const char *call, const char *arg, const void *sym, size_t bytes, int pe,
                   bool nullptr_if_proxied = false);

// A launch's error ends the job naming the call, the kernel, the stream and the GPU.
void check_launch(const char *call, const Session &s, cudaError_t e, const char *kernel, cudaStream_t stream);

}  // namespace gpushmem::gpu
