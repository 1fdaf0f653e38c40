// Shared by the tests/gpu/stream_*.cu programs: CUDA error checks that end the job naming the call, the
// check that shmem_init put the heap on the GPU, byte patterns that say who wrote them, and comparing
// device memory with them.
#pragma once

#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "pe_check.h"

#define STREAM_CUDA_OK(expr)                                                                               \
  do {                                                                                                     \
    const cudaError_t stream_cuda_err_ = (expr);                                                           \
    if (stream_cuda_err_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "PE %d: FAILED %s:%d: %s: %s (%s)\n", shmem_my_pe(), __FILE__, __LINE__, #expr, \
                   cudaGetErrorName(stream_cuda_err_), cudaGetErrorString(stream_cuda_err_));              \
      std::fflush(stderr);                                                                                 \
      shmem_global_exit(1);                                                                                \
    }                                                                                                      \
  } while (0)

// After shmem_init: `sym` (from shmem_malloc) must be device memory of the current device, and the next PE's
// heap mapped here; false after reporting what is wrong.
inline bool stream_gpu_mode(const void *sym, int next) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, sym) != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
    (void)cudaGetLastError();
    PE_FAIL(
        "shmem_malloc returned %p, not device memory: the symmetric heap is not on the GPU "
        "(GPUSHMEM_DEBUG=INFO says why)",
        sym);
    return false;
  }
  if (!shmem_pe_accessible(next)) {
    PE_FAIL("PE %d is not accessible from PE %d (no P2P between the PEs' GPUs, and no network transport)", next,
            shmem_my_pe());
    return false;
  }
  return true;
}

// Copies n bytes of host memory into device memory and returns once they are there. A plain cudaMemcpy is
// not enough before stream-ordered operations: from pageable host memory it returns once the bytes are
// staged, while the DMA into device memory may still be running (documented CUDA behaviour), and it runs on
// the legacy default stream, which a cudaStreamNonBlocking stream does not wait for. A put enqueued next on
// such a stream, or another PE's get after a host barrier, would then read the old bytes.
inline void stream_upload(void *device, const void *host, size_t n) {
  STREAM_CUDA_OK(cudaMemcpy(device, host, n, cudaMemcpyDefault));
  STREAM_CUDA_OK(cudaDeviceSynchronize());
}

// Byte k of what PE `writer` sends in step `step`.
inline unsigned char stream_pattern(int writer, int step, size_t k) {
  return static_cast<unsigned char>(writer * 53 + step * 29 + k * 7 + 1);
}

inline std::vector<unsigned char> stream_bytes(int writer, int step, size_t n) {
  std::vector<unsigned char> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = stream_pattern(writer, step, k);
  return v;
}

// Reports (the first few) bytes of host memory `got` that differ from stream_pattern(writer, step, first + k).
inline void stream_expect(const char *what, const unsigned char *got, size_t n, int writer, int step,
                          size_t first = 0) {
  long bad = 0;
  for (size_t k = 0; k < n; ++k) {
    const unsigned char want = stream_pattern(writer, step, first + k);
    if (got[k] == want) continue;
    if (bad++ < 3)
      PE_FAIL("%s: step %d byte %zu: expected 0x%02x (sent by PE %d), got 0x%02x", what, step, k, want, writer, got[k]);
  }
  if (bad > 3) PE_FAIL("%s: step %d: %ld of %zu bytes differ", what, step, bad, n);
}

// The same for device (or any) memory, read with a synchronous copy.
inline void stream_expect_device(const char *what, const void *device, size_t n, int writer, int step,
                                 size_t first = 0) {
  std::vector<unsigned char> got(n);
  STREAM_CUDA_OK(cudaMemcpy(got.data(), device, n, cudaMemcpyDefault));
  stream_expect(what, got.data(), n, writer, step, first);
}

inline uint64_t stream_read_u64(const uint64_t *device) {
  uint64_t v = 0;
  STREAM_CUDA_OK(cudaMemcpy(&v, device, sizeof v, cudaMemcpyDefault));
  return v;
}
