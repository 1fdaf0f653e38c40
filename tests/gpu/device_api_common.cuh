// Shared by the tests/gpu/device_api_*.cu programs: skipping without a GPU, checking that this file's
// device state was filled, CUDA error checks that end the job naming the call, the host-side
// synchronisation between steps, and a small report kernels fill when a device-side check fails.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>

#include "pe_check.h"

#define CUDA_CHECK(call)                                                                                   \
  do {                                                                                                     \
    const cudaError_t cuda_check_err_ = (call);                                                            \
    if (cuda_check_err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "PE %d: FAILED %s:%d: %s: %s (%s)\n", shmem_my_pe(), __FILE__, __LINE__, #call, \
                   cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));                \
      std::fflush(stderr);                                                                                 \
      shmem_global_exit(1);                                                                                \
    }                                                                                                      \
  } while (0)

// Before shmem_init: 77 (skip) when this process sees no GPU, else 0.
inline int gpu_skip_status(const char *test) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: SKIP: no usable CUDA GPU\n", test);
    return 77;
  }
  return 0;
}

// After shmem_init: the library must have filled this file's copy of the device state (GPU mode), with
// the PE numbers the host API reports. Returns false after reporting what is wrong.
inline bool device_state_ready(const char *test) {
  gpushmem_device_state_t s{};
  const cudaError_t err = cudaMemcpyFromSymbol(&s, gpushmemi_device_state, sizeof s);
  if (err != cudaSuccess) {
    PE_FAIL("%s: reading this file's device state: %s", test, cudaGetErrorString(err));
    return false;
  }
  if (s.version != GPUSHMEM_DEVICE_STATE_VERSION || s.struct_size != sizeof s || s.my_pe != shmem_my_pe() ||
      s.n_pes != shmem_n_pes() || s.heap_base == nullptr || s.peer_base == nullptr) {
    PE_FAIL(
        "%s: this file's device state was not filled by shmem_init (version %u, size %u, my_pe %d, n_pes %d, "
        "heap_base %p): is the GPU heap on (GPUSHMEM_DISABLE_CUDA unset)?",
        test, s.version, s.struct_size, s.my_pe, s.n_pes, static_cast<void *>(s.heap_base));
    return false;
  }
  return true;
}

// Every kernel of this PE is done and every PE got here.
inline void device_sync_barrier() {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  shmem_barrier_all();
}

// What a kernel reports when a device-side check fails: how many failed and the first one.
struct device_report {
  unsigned long long failures;
  int first_set;
  long long round, index, expected, got;
};

__device__ inline void report_failure(device_report *r, long long round, long long index, long long expected,
                                      long long got) {
  if (atomicAdd(&r->failures, 1ull) == 0ull) {
    r->round = round;
    r->index = index;
    r->expected = expected;
    r->got = got;
    __threadfence();
    atomicExch(&r->first_set, 1);
  }
}

inline device_report *new_device_report() {
  device_report *r = nullptr;
  CUDA_CHECK(cudaMalloc(&r, sizeof *r));
  CUDA_CHECK(cudaMemset(r, 0, sizeof *r));
  return r;
}

// Prints the report's first failure (as a PE_FAIL naming `what`) and clears it.
inline void check_device_report(device_report *r, const char *what) {
  device_report h{};
  CUDA_CHECK(cudaMemcpy(&h, r, sizeof h, cudaMemcpyDeviceToHost));
  if (h.failures != 0)
    PE_FAIL("%s: %llu device-side check(s) failed; first: round %lld, element %lld: expected %lld, got %lld", what,
            h.failures, h.round, h.index, h.expected, h.got);
  CUDA_CHECK(cudaMemset(r, 0, sizeof *r));
}

// kGrid: the team collectives' _grid forms, by every thread of kGridBlocks blocks launched cooperatively.
enum scope_kind { kThread = 0, kWarp = 1, kBlock = 2, kGrid = 3 };
constexpr unsigned int kGridBlocks = 3;
inline const char *scope_name(int scope) {
  return scope == kThread ? "thread" : scope == kWarp ? "warp" : scope == kBlock ? "block" : "grid";
}
// Threads per block for a scope's test kernel: a whole warp, and a block of several warps that is not a
// power of two (kGrid: kGridBlocks of them).
inline unsigned int scope_threads(int scope) {
  return scope == kThread ? 1u : scope == kWarp ? 32u : 160u;
}

// The lane of the calling thread and how many share the work in scope S.
template <int S>
__device__ inline unsigned int scope_rank() {
  return S == kThread  ? 0u
         : S == kWarp  ? (threadIdx.x & 31u)
         : S == kBlock ? threadIdx.x
                       : blockIdx.x * blockDim.x + threadIdx.x;
}
template <int S>
__device__ inline unsigned int scope_size() {
  return S == kThread ? 1u : S == kWarp ? 32u : S == kBlock ? blockDim.x : gridDim.x * blockDim.x;
}
template <int S>
__device__ inline void scope_sync() {
  if (S == kWarp) __syncwarp();
  if (S == kBlock) __syncthreads();
  if constexpr (S == kGrid) cooperative_groups::this_grid().sync();
}
