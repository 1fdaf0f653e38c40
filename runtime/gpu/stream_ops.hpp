// The kernels behind the stream-ordered operations (stream_ops.cu, compiled by nvcc), as the host entry
// points (stream_api.cpp) launch them. Every launch is one thread on the given stream, in the calling
// thread's current context (the caller holds a ContextScope); it returns the launch's error, never waits, and
// is legal during stream capture. Private to runtime/gpu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "shmem.h"

namespace gpushmem::gpu::stream {

// *sig (already translated to this process's mapping of the target PE's word) = value, or += value for
// SHMEM_SIGNAL_ADD, as a system-scope release: whoever sees the new value sees everything the stream
// completed before it (the payload of a put-with-signal, earlier puts).
cudaError_t launch_signal_update(uint64_t *sig, uint64_t value, int sig_op, cudaStream_t stream);

// The device's barrier_all / sync_all, run by one thread: this PE's one caller for that collective. Device-side
// error reports name shmemx_barrier_all_on_stream / shmemx_sync_all_on_stream.
cudaError_t launch_barrier_all(cudaStream_t stream);
cudaError_t launch_sync_all(cudaStream_t stream);
// The device's team sync of `team` by one thread (reports name shmemx_team_sync_on_stream).
cudaError_t launch_team_sync(shmem_team_t team, cudaStream_t stream);

// To a PE reached through the CPU proxy (another node): the device API's putmem + quiet, getmem, and
// putmem_signal (bytes 0: signal_op) + quiet, by one thread, on this PE's symmetric addresses; each complete at
// the target when the kernel ends. `source` / `dest` must be readable / writable by the GPU (device memory, or
// pinned host memory).
cudaError_t launch_proxied_put(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
cudaError_t launch_proxied_get(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
cudaError_t launch_proxied_put_signal(void *dest, const void *source, size_t bytes, uint64_t *sig, uint64_t value,
                                      int sig_op, int pe, cudaStream_t stream);

// Polls this PE's signal word until it satisfies cmp / cmp_value, then acquires (reports name
// shmemx_signal_wait_until_on_stream).
cudaError_t launch_signal_wait_until(uint64_t *sig, int cmp, uint64_t cmp_value, cudaStream_t stream);

}  // namespace gpushmem::gpu::stream
