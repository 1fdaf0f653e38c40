/*
 * The device state as one CUDA translation unit sees it (design: include/gpushmem/device_state.h).
 *
 * Every CUDA file that includes <shmem.h> gets, from this header:
 *   - its own `static __constant__` copy of gpushmem_device_state_t. Static, because without -rdc each
 *     file is its own device module anyway, and with -rdc a non-static definition in a header would be
 *     defined once per file and fail to link;
 *   - a host function that copies a state into that copy, compiled here so that it uses the CUDA runtime
 *     the application links;
 *   - a static initialiser that hands that function to libgpushmem, which calls it at shmem_init, when
 *     the state changes (heap growth) and, for a file loaded after init, at once.
 * So user kernels reach the state without -rdc and without any call of their own.
 *
 * Everything device-side that reads the state is in an unnamed namespace for the same reason the copy is
 * static: each file's functions must read that file's copy.
 */
#ifndef GPUSHMEM_DEVICE_STATE_CUH
#define GPUSHMEM_DEVICE_STATE_CUH

#include <cuda_runtime.h>
#include <stdio.h>

#include "gpushmem/config.h"
#include "gpushmem/device_state.h"

static __constant__ gpushmem_device_state_t gpushmemi_device_state;

/* The updater registered below (see gpushmemi_device_state_updater_t). The copy goes through a
   non-blocking stream of its own: it must not wait behind the application's kernels (a persistent
   kernel may be running while the heap grows), and it must have landed when this returns
   (cudaMemcpyToSymbol from pageable memory may return before the data reaches the device). */
static void gpushmemi_device_state_update(const gpushmem_device_state_t *state) {
  cudaStream_t stream = nullptr;
  cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaMemcpyToSymbolAsync(gpushmemi_device_state, state, sizeof *state, 0, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (stream != nullptr) (void)cudaStreamDestroy(stream);
  if (err != cudaSuccess) {
#if defined(__BASE_FILE__)
    const char *file = __BASE_FILE__;
#else
    const char *file = "a CUDA file";
#endif
    fprintf(stderr,
            "gpushmem[PE %d]: copying the device state into the kernels of %s failed: %s (%s). Kernels of that "
            "file will stop at their first gpushmem call; check that the file was built for this GPU's "
            "architecture.\n",
            state->my_pe, file, cudaGetErrorName(err), cudaGetErrorString(err));
    fflush(stderr);
  }
}

/* Registered while the program (or the library holding this file) starts. */
#if defined(GPUSHMEM_BUILDING_LIBRARY)
[[maybe_unused]] static const int gpushmemi_device_state_registration =
    gpushmemi_register_library_device_state(&gpushmemi_device_state_update);
#else
[[maybe_unused]] static const int gpushmemi_device_state_registration =
    gpushmemi_register_device_state(&gpushmemi_device_state_update);
#endif

namespace gpushmem {
namespace device {
namespace {

__device__ __forceinline__ const gpushmem_device_state_t &state() {
  return gpushmemi_device_state;
}

/* Nonzero when the runtime asked for argument checks (and the library was built with them). */
__device__ __forceinline__ bool error_checks() {
#if GPUSHMEM_BUILT_WITH_ERROR_CHECKS
  return gpushmemi_device_state.error_checks != 0;
#else
  return false;
#endif
}

/* -1 before shmem_init filled this file's copy, as on the host. */
__device__ __forceinline__ int my_pe() {
  return state().version != 0 ? state().my_pe : -1;
}
__device__ __forceinline__ int n_pes() {
  return state().version != 0 ? state().n_pes : -1;
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_STATE_CUH */
