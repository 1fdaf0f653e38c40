/*
 * CUDA plumbing shared by the device benchmarks: error checks that end the whole job, the "no GPU: skip"
 * rule, the device clock, and the byte pattern every benchmark moves and then verifies.
 */
#ifndef GPUSHMEM_PERF_CUDA_CUH
#define GPUSHMEM_PERF_CUDA_CUH

#include <cuda_runtime.h>
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

/* True between shmem_init and shmem_finalize (perf_start / perf_finish): the library ends a program that
   asks shmem_my_pe outside that window, so the error path must know without asking. */
inline bool &perf_shmem_active() {
  static bool active = false;
  return active;
}

/* Ends the job: once shmem is running every PE must go down, or the others would wait for this one. */
[[noreturn]] inline void perf_die(int status) {
  if (perf_shmem_active()) nvshmem_global_exit(status);
  std::exit(status);
}

#define PERF_CUDA_CHECK(call)                                                                                     \
  do {                                                                                                            \
    const cudaError_t perf_err_ = (call);                                                                         \
    if (perf_err_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(perf_err_), \
                   cudaGetErrorString(perf_err_));                                                                \
      perf_die(1);                                                                                                \
    }                                                                                                             \
  } while (0)

/* Called first thing in main, before shmem_init: a machine without a usable GPU skips (status 77, which
   ctest reports as skipped) instead of failing. */
inline void perf_require_gpu(const char *prog) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: SKIP: no usable CUDA device (cudaGetDeviceCount: %s, %d device(s))\n", prog,
                 err != cudaSuccess ? cudaGetErrorString(err) : "no error", count);
    std::exit(77);
  }
}

/* The GPU's global nanosecond clock: the same time base on every SM, so a loop can be timed inside one
   kernel without the launch overhead. */
__device__ inline uint64_t perf_clock_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* The loop every latency kernel runs: step(k) for k = 0 .. warm-1 untimed, then `reps` windows of `iters`
   steps each (k keeps counting), window r's nanoseconds stored in ns[r] (unless ns is NULL: in a kernel of
   many threads only one records). Both PEs of a ping-pong run the same loop, so the warm-up also lines up
   their start.
   Each step ends with a compiler barrier (no instruction): the compiler may not keep a value one step
   loaded for the next, nor start the next step's loads early: a library whose get is a plain load may
   otherwise have a loop of gets of the same bytes compiled to one load. (The hardware's L1 caches peer
   loads too; the get programs avoid that by reading a different slot in each step.) */
__device__ inline void perf_step_fence() {
  asm volatile("" ::: "memory");
}

template <class Step>
__device__ void perf_timed_loop(int warm, int iters, int reps, unsigned long long *ns, Step &&step) {
  long long k = 0;
  for (; k < warm; ++k) {
    step(k);
    perf_step_fence();
  }
  for (int r = 0; r < reps; ++r) {
    const uint64_t t0 = perf_clock_ns();
    for (int i = 0; i < iters; ++i) {
      step(k++);
      perf_step_fence();
    }
    const uint64_t t1 = perf_clock_ns();
    if (ns != nullptr) ns[r] = t1 - t0;
  }
}

/* The raw references' wait: plain volatile loads until the word holds v or more (flags only grow). Gives up after 20 s
   with a message naming the PE and the values, then traps, so a broken mapping ends the job instead of hanging. */
__device__ inline void perf_raw_wait(const volatile uint64_t *flag, uint64_t v, int me) {
  const uint64_t t0 = perf_clock_ns();
  for (unsigned spins = 1; *flag < v; ++spins) {
    /* the clock is read once every 1024 spins, so the timeout costs the spin nothing measurable */
    if (spins % 1024 == 0 && perf_clock_ns() - t0 > 20000000000ull) {
      printf("PE %d: raw reference: waited 20 s for a flag to reach %llu; it holds %llu\n", me,
             static_cast<unsigned long long>(v), static_cast<unsigned long long>(*flag));
      __trap();
    }
  }
}

static __global__ void perf_spin_kernel(unsigned long long ns) {
  const uint64_t t0 = perf_clock_ns();
  while (perf_clock_ns() - t0 < ns) {
  }
}

/* Enqueues on `stream` a kernel that keeps every SM of the current GPU busy for `ms` milliseconds (nothing
   when ms is 0). A latency kernel is one thread: launched on a GPU that idled through the host-side
   barriers and checks before it, it would run its first windows while the clocks climb back from idle,
   which shows up as windows several times slower than the rest (max far above min in the tables). */
inline void perf_spin_up(cudaStream_t stream, int ms) {
  if (ms <= 0) return;
  int device = 0, sms = 1;
  PERF_CUDA_CHECK(cudaGetDevice(&device));
  PERF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  perf_spin_kernel<<<sms, 128, 0, stream>>>(static_cast<unsigned long long>(ms) * 1000000ull);
  PERF_CUDA_CHECK(cudaGetLastError());
}

/* Microseconds per step of each window perf_timed_loop stored (ns: host-readable memory). */
inline std::vector<double> perf_window_us(const unsigned long long *ns, int reps, int iters) {
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) us.push_back(static_cast<double>(ns[r]) / iters / 1e3);
  return us;
}

/* Byte i of the payload for `seed` (different sizes and PEs use different seeds, so stale data from an
   earlier point never passes the check). */
__host__ __device__ inline uint8_t perf_pattern(size_t i, uint32_t seed) {
  const uint32_t x = static_cast<uint32_t>(i) * 2654435761u + seed * 40503u + 12345u;
  return static_cast<uint8_t>(x >> 24);
}

static __global__ void perf_fill_kernel(uint8_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = perf_pattern(i, seed);
}

/* Slot j of `slots` (`stride` bytes apart) holds the same `n`-byte pattern for `seed`. */
static __global__ void perf_fill_slots_kernel(uint8_t *p, size_t n, size_t stride, size_t slots, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < stride * slots;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (i % stride < n) p[i] = perf_pattern(i % stride, seed);
}

/* out[0]: number of wrong bytes; out[1]: the first wrong index (initialise it to SIZE_MAX). */
static __global__ void perf_check_kernel(const uint8_t *p, size_t n, uint32_t seed, unsigned long long *out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (p[i] != perf_pattern(i, seed)) {
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], static_cast<unsigned long long>(i));
    }
  }
}

/* Fills `n` bytes of device memory with the pattern for `seed` and waits for it. */
inline void perf_fill(void *p, size_t n, uint32_t seed) {
  perf_fill_kernel<<<1024, 256>>>(static_cast<uint8_t *>(p), n, seed);
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
}

/* perf_fill for `slots` copies of the pattern, `stride` bytes apart. */
inline void perf_fill_slots(void *p, size_t n, size_t stride, size_t slots, uint32_t seed) {
  perf_fill_slots_kernel<<<1024, 256>>>(static_cast<uint8_t *>(p), n, stride, slots, seed);
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
}

/* Checks `n` bytes of device memory against the pattern for `seed`; prints the first wrong byte and
   returns how many bytes are wrong. `what` names the buffer in the message. */
inline long long perf_check(const void *p, size_t n, uint32_t seed, const char *what) {
  unsigned long long *out = nullptr;
  PERF_CUDA_CHECK(cudaMallocManaged(&out, 2 * sizeof *out));
  out[0] = 0;
  out[1] = ~0ull;
  perf_check_kernel<<<1024, 256>>>(static_cast<const uint8_t *>(p), n, seed, out);
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  const long long bad = static_cast<long long>(out[0]);
  if (bad != 0) {
    uint8_t got = 0;
    PERF_CUDA_CHECK(cudaMemcpy(&got, static_cast<const uint8_t *>(p) + out[1], 1, cudaMemcpyDeviceToHost));
    std::fprintf(stderr, "PE %d: %s: %lld of %zu bytes wrong; first at byte %llu: got 0x%02x, expected 0x%02x\n",
                 nvshmem_my_pe(), what, bad, n, out[1], got, perf_pattern(out[1], seed));
  }
  PERF_CUDA_CHECK(cudaFree(out));
  return bad;
}

static __global__ void perf_peer_ptr_kernel(void **out, const void *sym, int pe) {
  *out = nvshmem_ptr(sym, pe);
}

/* Where PE `pe`'s copy of the symmetric object `sym` is mapped in this PE's GPU address space, as the
   device-side shmem_ptr reports it (NULL: not load/store reachable). */
inline void *perf_peer_ptr(const void *sym, int pe) {
  void **out = nullptr;
  PERF_CUDA_CHECK(cudaMallocManaged(&out, sizeof *out));
  *out = nullptr;
  perf_peer_ptr_kernel<<<1, 1>>>(out, sym, pe);
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  void *p = *out;
  PERF_CUDA_CHECK(cudaFree(out));
  return p;
}

#endif /* GPUSHMEM_PERF_CUDA_CUH */
