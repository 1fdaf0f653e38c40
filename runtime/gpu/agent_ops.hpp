// The one-thread kernel behind the GPU heap agent's atomics (agent_ops.cu, compiled by nvcc): an atomic of
// transport::AmoOp on a GPU-heap word with system scope, so it is atomic with the device API's atomics on
// that word (from this GPU and its peers) and with other agent atomics. Private to runtime/gpu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpushmem::gpu::agent_ops {

// *old (mapped pinned host memory) receives the word's value before the operation (zero-extended). `op` is
// a transport::AmoOp, `width` 4 or 8. Launched on `stream` in the caller's current context; never waits.
cudaError_t launch_atomic(void *word, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old,
                          cudaStream_t stream);

// Loads the kernel now (in the caller's current context). With lazy module loading (CUDA's default) a kernel
// is loaded at its first launch, which waits for the context to go idle: the first atomic a peer sends while
// this PE's kernel spins waiting for it would never run. A failure shows again, and is reported, at the first
// launch.
void preload();

}  // namespace gpushmem::gpu::agent_ops
