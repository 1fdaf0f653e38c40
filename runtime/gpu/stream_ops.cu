// The one-thread kernels of the stream-ordered operations (include/gpushmem/stream.h): signal updates,
// signal waits and the device barrier, written with the device API's own building blocks, so a barrier
// enqueued on a stream is the same barrier kernels run (same internal-area words, same sequence).
//
// This file includes <shmem.h> like an application's CUDA file: it gets its own copy of the device state,
// registered as a library file (GPUSHMEM_BUILDING_LIBRARY), which the barrier and the wait read. Copies
// (putmem / getmem) need no kernel: stream_api.cpp enqueues them with cudaMemcpyAsync.
//
// Defined here as well as by the build: a library file registered as the application's would make
// GPUSHMEM_SYMMETRIC_HEAP=auto put every program's heap on the GPU.
#ifndef GPUSHMEM_BUILDING_LIBRARY
#define GPUSHMEM_BUILDING_LIBRARY 1
#endif
#include <shmem.h>

#include "gpu/stream_ops.hpp"

namespace gpushmem::gpu::stream {
namespace {

namespace dev = ::gpushmem::device;

// The payload of a put-with-signal was copied by a copy engine before this kernel started (stream order),
// and a later operation on a stream sees an earlier one's writes; the release then orders them before the
// signal for every observer, as the device's put_signal orders its own stores.
__global__ void __launch_bounds__(1) signal_update_kernel(uint64_t *sig, uint64_t value, int sig_op) {
  if (sig_op == SHMEM_SIGNAL_ADD)
    dev::signal_add_after_payload(sig, value);
  else
    dev::signal_set_after_payload(sig, value);
}

// String literals here, not arguments: the host's strings are not readable from the device.
__global__ void __launch_bounds__(1) barrier_all_kernel() {
  dev::barrier_all<dev::thread_scope>("shmemx_barrier_all_on_stream");
}

__global__ void __launch_bounds__(1) sync_all_kernel() {
  dev::sync_all<dev::thread_scope>("shmemx_sync_all_on_stream");
}

__global__ void __launch_bounds__(1) team_sync_kernel(shmem_team_t team) {
  dev::team_sync<dev::thread_scope>("shmemx_team_sync_on_stream", team);
}

__global__ void __launch_bounds__(1) signal_wait_kernel(uint64_t *sig, int cmp, uint64_t cmp_value) {
  (void)dev::signal_wait_until("shmemx_signal_wait_until_on_stream", sig, cmp, cmp_value);
}

// To a PE on another node (reached through the CPU proxy): the device API's own operations, by one thread, each
// complete (at the target) before the kernel ends, so the stream's next operation finds it done, as after a
// copy engine's copy to a mapped peer. The symmetric addresses are this PE's; the device API translates them.
__global__ void __launch_bounds__(1) proxied_put_kernel(void *dest, const void *source, size_t bytes, int pe) {
  dev::putmem<dev::thread_scope>("shmemx_putmem_on_stream", dest, source, bytes, pe);
  dev::quiet();
}

__global__ void __launch_bounds__(1) proxied_get_kernel(void *dest, const void *source, size_t bytes, int pe) {
  dev::getmem<dev::thread_scope>("shmemx_getmem_on_stream", dest, source, bytes, pe);
}

__global__ void __launch_bounds__(1) proxied_put_signal_kernel(void *dest, const void *source, size_t bytes,
                                                               uint64_t *sig, uint64_t value, int sig_op, int pe) {
  if (bytes != 0)
    dev::putmem_signal<dev::thread_scope>("shmemx_putmem_signal_on_stream", dest, source, bytes, sig, value, sig_op,
                                          pe);
  else
    dev::signal_op("shmemx_signal_op_on_stream", sig, value, sig_op, pe);
  dev::quiet();
}

// With lazy module loading (CUDA's default) a kernel is loaded at its first launch, which may wait for the
// context to go idle: that would deadlock behind an application kernel waiting for this PE's barrier, and
// it must not happen during stream capture either. So the kernels are loaded when the device state is
// first published (shmem_init, in the PE's context); later publications find them loaded. A failure here
// shows again, and is reported, at the first launch.
void preload_kernels(const gpushmem_device_state_t *) {
  const void *kernels[] = {reinterpret_cast<const void *>(&signal_update_kernel),
                           reinterpret_cast<const void *>(&barrier_all_kernel),
                           reinterpret_cast<const void *>(&sync_all_kernel),
                           reinterpret_cast<const void *>(&team_sync_kernel),
                           reinterpret_cast<const void *>(&signal_wait_kernel),
                           reinterpret_cast<const void *>(&proxied_put_kernel),
                           reinterpret_cast<const void *>(&proxied_get_kernel),
                           reinterpret_cast<const void *>(&proxied_put_signal_kernel)};
  for (const void *kernel : kernels) {
    cudaFuncAttributes attributes;
    if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess) (void)cudaGetLastError();
  }
}

[[maybe_unused]] const int preload_registration = gpushmemi_register_library_device_state(&preload_kernels);

cudaError_t launch(const void *kernel, void **args, cudaStream_t stream) {
  cudaError_t e = cudaLaunchKernel(kernel, dim3(1), dim3(1), args, 0, stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // returned to the caller, who reports it
  return e;
}

}  // namespace

cudaError_t launch_signal_update(uint64_t *sig, uint64_t value, int sig_op, cudaStream_t stream) {
  void *args[] = {&sig, &value, &sig_op};
  return launch(reinterpret_cast<const void *>(&signal_update_kernel), args, stream);
}

cudaError_t launch_barrier_all(cudaStream_t stream) {
  return launch(reinterpret_cast<const void *>(&barrier_all_kernel), nullptr, stream);
}

cudaError_t launch_sync_all(cudaStream_t stream) {
  return launch(reinterpret_cast<const void *>(&sync_all_kernel), nullptr, stream);
}

cudaError_t launch_team_sync(shmem_team_t team, cudaStream_t stream) {
  void *args[] = {&team};
  return launch(reinterpret_cast<const void *>(&team_sync_kernel), args, stream);
}

cudaError_t launch_signal_wait_until(uint64_t *sig, int cmp, uint64_t cmp_value, cudaStream_t stream) {
  void *args[] = {&sig, &cmp, &cmp_value};
  return launch(reinterpret_cast<const void *>(&signal_wait_kernel), args, stream);
}

cudaError_t launch_proxied_put(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  void *args[] = {&dest, &source, &bytes, &pe};
  return launch(reinterpret_cast<const void *>(&proxied_put_kernel), args, stream);
}

cudaError_t launch_proxied_get(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  void *args[] = {&dest, &source, &bytes, &pe};
  return launch(reinterpret_cast<const void *>(&proxied_get_kernel), args, stream);
}

cudaError_t launch_proxied_put_signal(void *dest, const void *source, size_t bytes, uint64_t *sig, uint64_t value,
                                      int sig_op, int pe, cudaStream_t stream) {
  void *args[] = {&dest, &source, &bytes, &sig, &value, &sig_op, &pe};
  return launch(reinterpret_cast<const void *>(&proxied_put_signal_kernel), args, stream);
}

}  // namespace gpushmem::gpu::stream
