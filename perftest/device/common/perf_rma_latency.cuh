/*
 * The body of shmem_put_latency and shmem_get_latency: one CTA on PE 0 moves SIZE bytes to PE 1
 * (shmem_putmem, then shmem_quiet) or from PE 1 (shmem_getmem) per iteration; microseconds per iteration,
 * timed inside the kernel with the GPU clock.
 *   -s thread  one thread: shmem_putmem / shmem_getmem                        (default)
 *   -s warp    one warp: shmemx_putmem_warp / shmemx_getmem_warp
 *   -s block   one CTA of -t threads: shmemx_putmem_block / shmemx_getmem_block
 * Reference in the same run: the same threads copy the bytes through the device shmem_ptr of PE 1's buffer,
 * raw_us: a put with volatile 8-byte stores then __threadfence_system; a get with plain 16-byte loads, four
 * in flight per thread (sizes that are not a multiple of 16: volatile 8-byte or byte loads, one at a time).
 * A get reads a different slot of a window of at least 4 MiB in each iteration (PE 1 holds the same pattern
 * in every slot), for the library and the reference alike: the SM's L1 caches loads from a peer's memory,
 * and a loop that gets the same bytes again would time L1 hits (about 0.08 us) instead of NVLink round
 * trips. A synchronizing call (a barrier, a wait, a fence) invalidates L1, so this is the latency a get has
 * after one.
 * Checks: the receiving side compares every byte with the pattern the sender holds.
 */
#ifndef GPUSHMEM_PERF_RMA_LATENCY_CUH
#define GPUSHMEM_PERF_RMA_LATENCY_CUH

#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace perf_rma_latency {

enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };
const char *const kScopes[] = {"thread", "warp", "block", nullptr};

template <int S>
__device__ inline void group_sync() {
  if constexpr (S == kBlock)
    __syncthreads();
  else if constexpr (S == kWarp)
    __syncwarp();
}

/* The get window: at least 4 MiB (L1 is 256 KiB per SM), in slots of SIZE rounded up to 256 bytes. */
constexpr size_t kGetWindow = size_t{4} << 20;
inline size_t slot_stride(size_t size) {
  return (size + 255) & ~static_cast<size_t>(255);
}
inline size_t get_slots(size_t size, size_t buffer) {
  return buffer / slot_stride(size);
}

/* G: dest local, src_base PE pe's symmetric buffer, whose step k reads slot k % slots; else dest symmetric
   (slots 1). Raw: the peer side is a mapping. */
template <int S, bool G, bool Raw>
__global__ void rma_latency_kernel(char *dest, const char *src_base, size_t size, size_t stride, size_t slots, int pe,
                                   int warm, int iters, int reps, unsigned long long *ns) {
  const unsigned n = S == kThread ? 1 : blockDim.x;
  const size_t window = stride * slots;
  size_t offset = 0; /* the slot this step reads: a running offset, not a 64-bit modulo in the timed loop */
  perf_timed_loop(warm, iters, reps, threadIdx.x == 0 ? ns : nullptr, [&](long long) {
    const char *src = src_base + offset;
    if (G) {
      offset += stride;
      if (offset == window) offset = 0;
    }
    if constexpr (Raw) {
      if (G && size % 16 == 0) {
        /* A get waits for its loads: issue four 16-byte loads per thread before storing any (plain loads,
           as the library's copy issues), so a single thread does not pay one NVLink round trip per word. */
        const uint4 *s4 = reinterpret_cast<const uint4 *>(src);
        uint4 *d4 = reinterpret_cast<uint4 *>(dest);
        const size_t nv = size / 16;
        size_t v = threadIdx.x;
        for (; v + 3 * n < nv; v += 4 * n) {
          const uint4 a = s4[v], b = s4[v + n], c = s4[v + 2 * n], e = s4[v + 3 * n];
          d4[v] = a;
          d4[v + n] = b;
          d4[v + 2 * n] = c;
          d4[v + 3 * n] = e;
        }
        for (; v < nv; v += n) d4[v] = s4[v];
      } else if (size % 8 == 0) {
        for (size_t w = threadIdx.x; w < size / 8; w += n)
          reinterpret_cast<volatile uint64_t *>(dest)[w] = reinterpret_cast<const volatile uint64_t *>(src)[w];
      } else {
        for (size_t b = threadIdx.x; b < size; b += n)
          reinterpret_cast<volatile char *>(dest)[b] = reinterpret_cast<const volatile char *>(src)[b];
      }
      if (!G) __threadfence_system();
      group_sync<S>();
    } else if constexpr (G) {
      if constexpr (S == kBlock)
        nvshmemx_getmem_block(dest, src, size, pe);
      else if constexpr (S == kWarp)
        nvshmemx_getmem_warp(dest, src, size, pe);
      else
        nvshmem_getmem(dest, src, size, pe);
      group_sync<S>();
    } else {
      if constexpr (S == kBlock)
        nvshmemx_putmem_block(dest, src, size, pe);
      else if constexpr (S == kWarp)
        nvshmemx_putmem_warp(dest, src, size, pe);
      else
        nvshmem_putmem(dest, src, size, pe);
      group_sync<S>();
      if (threadIdx.x == 0) nvshmem_quiet();
      group_sync<S>();
    }
  });
}

inline int run(int argc, char **argv, bool get) {
  const char *const bench = get ? "shmem_get_latency" : "shmem_put_latency";
  perf_args a;
  a.min_bytes = 8;
  /* A get of 64 KiB by one thread is 1024 NVLink round trips (about 0.9 ms): 11 repeats of 1000 of them
     would take minutes, so gets stop at 16 KiB unless -e says otherwise. */
  a.max_bytes = get ? 16 << 10 : 64 << 10;
  a.threads = 1024;
  a.scope = "thread";
  perf_parse_args(argc, argv, "befnwrst", "  -s: thread (default), warp, block (-t threads)", &a);
  const int scope = perf_choose(argv[0], 's', a.scope, kScopes);
  perf_session s = perf_start(bench, 2);
  const size_t sym_bytes = get && a.max_bytes < kGetWindow ? kGetWindow : a.max_bytes;
  char *sym = static_cast<char *>(nvshmem_malloc(sym_bytes));
  char *local = nullptr;
  unsigned long long *ns = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&local, a.max_bytes));
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns)); /* pinned: no page faults */
  if (sym == nullptr) {
    std::fprintf(stderr, "%s: PE %d: shmem_malloc(%zu) failed\n", bench, s.me, sym_bytes);
    perf_die(1);
  }
  char *peer = s.me == 0 ? static_cast<char *>(perf_peer_ptr(sym, 1)) : nullptr;
  const int threads = scope == kThread ? 1 : scope == kWarp ? 32 : a.threads;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# %s: PE 0 %s PE 1, %s scope (%d threads), one %s per iteration, %d iterations (+%d warm-up), median "
        "[min,max] of %d repeats\n",
        bench, get ? "<-" : "->", a.scope, threads, get ? "get" : "put + quiet", a.iters, a.warmup, a.repeats);
    if (get)
      std::printf("# each get reads the next slot of a %zu-byte window on PE 1, so none is served from L1\n",
                  sym_bytes);
    std::printf("%-10s %-6s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "lat(us) [min,max]", "raw(us)", "lat/raw",
                "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    const uint32_t seed = static_cast<uint32_t>(size) * 11u + (get ? 1u : 0u);
    /* the sender's buffer holds the pattern: PE 0's local one for a put, PE 1's symmetric one for a get */
    const size_t stride = slot_stride(size), slots = get ? get_slots(size, sym_bytes) : 1;
    if (get && s.me == 1) perf_fill_slots(sym, size, stride, slots, seed);
    if (!get && s.me == 0) perf_fill(local, size, seed);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    auto run_one = [&](bool raw) {
      perf_spin_up(s.stream, a.spin_up_ms);
      char *d = get ? local : (raw ? peer : sym);
      const char *src = get ? (raw ? peer : sym) : local;
#define PERF_RL(S)                                                                                       \
  if (raw && get)                                                                                        \
    rma_latency_kernel<S, true, true>                                                                    \
        <<<1, threads, 0, s.stream>>>(d, src, size, stride, slots, 1, a.warmup, a.iters, a.repeats, ns); \
  else if (raw)                                                                                          \
    rma_latency_kernel<S, false, true>                                                                   \
        <<<1, threads, 0, s.stream>>>(d, src, size, stride, slots, 1, a.warmup, a.iters, a.repeats, ns); \
  else if (get)                                                                                          \
    rma_latency_kernel<S, true, false>                                                                   \
        <<<1, threads, 0, s.stream>>>(d, src, size, stride, slots, 1, a.warmup, a.iters, a.repeats, ns); \
  else                                                                                                   \
    rma_latency_kernel<S, false, false>                                                                  \
        <<<1, threads, 0, s.stream>>>(d, src, size, stride, slots, 1, a.warmup, a.iters, a.repeats, ns);
      if (scope == kBlock) {
        PERF_RL(kBlock)
      } else if (scope == kWarp) {
        PERF_RL(kWarp)
      } else {
        PERF_RL(kThread)
      }
#undef PERF_RL
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
    };
    perf_stat lat, raw;
    if (s.me == 0 && peer != nullptr) raw = run_one(true);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    /* what the reference delivered must not pass for the library's */
    if (get ? s.me == 0 : s.me == 1) PERF_CUDA_CHECK(cudaMemset(get ? local : sym, 0, size));
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 0) lat = run_one(false);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    long long bad = 0;
    if (get ? s.me == 0 : s.me == 1)
      bad = perf_check(get ? local : sym, size, seed,
                       get ? "shmem_get_latency: the get destination" : "shmem_put_latency: the put destination");
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-10zu %-6s %-26s %-10s %-8s %-5s\n", size, a.scope, perf_cell(lat).c_str(),
                  perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(), job_bad ? "FAIL" : "ok");
      perf_json(bench)
          .integer("size", static_cast<long long>(size))
          .str("scope", a.scope)
          .integer("threads", threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .integer("window", static_cast<long long>(get ? sym_bytes : size))
          .stat("lat_us", lat)
          .stat("raw_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(local));
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  nvshmem_free(sym);
  return perf_finish(s);
}

}  // namespace perf_rma_latency

#endif /* GPUSHMEM_PERF_RMA_LATENCY_CUH */
