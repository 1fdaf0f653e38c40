/*
 * The body of shmem_put_bw and shmem_get_bw: device RMA bandwidth between PE 0 and PE 1.
 *
 * One kernel of C CTAs x T threads runs N iterations; in each, every worker (a CTA for -s block, a warp
 * for -s warp, a thread for -s thread) moves its share of SIZE bytes with shmemx_{put,get}mem_block /
 * _warp / shmem_{put,get}mem, then the kernel ends with shmem_quiet. Timed with CUDA events;
 * GB/s = SIZE * N / time. PE 0 -> PE 1 (put) or PE 0 <- PE 1 (get); with --bidir both PEs do it to each
 * other at once and the figures are the sum of the two directions (each PE's own median, min, max added).
 * References measured in the same run on the same buffers:
 *   raw_st  a kernel with the same grid copying with 16-byte loads and stores through the device
 *           shmem_ptr of the peer's buffer (stores for put, loads for get);
 *   ce      cudaMemcpyAsync to / from that same peer address, N times (the copy engines).
 * The receiving side checks every byte the library delivered (the references move the same pattern, so
 * it clears its buffer between them and the timed run).
 */
#ifndef GPUSHMEM_PERF_RMA_BW_CUH
#define GPUSHMEM_PERF_RMA_BW_CUH

#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace perf_rma_bw {

enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };
const char *const kScopes[] = {"thread", "warp", "block", nullptr};

/* The share [*off, *off + *len) of `size` bytes that worker `w` of `workers` moves: equal 16-byte-aligned
   chunks in order, so a worker's share is contiguous and vector-aligned; trailing workers may get none. */
__host__ __device__ inline void share(size_t size, size_t workers, size_t w, size_t *off, size_t *len) {
  const size_t chunk = ((size + workers - 1) / workers + 15) & ~static_cast<size_t>(15);
  *off = w * chunk;
  *len = *off >= size ? 0 : (size - *off < chunk ? size - *off : chunk);
}

/* dest/src: for a put, dest is the symmetric target and src local; for a get, dest is local and src the
   symmetric source. */
template <int S, bool G>
__global__ void rma_kernel(char *dest, const char *src, size_t size, int iters, int pe) {
  size_t workers, w;
  if (S == kBlock) {
    workers = gridDim.x;
    w = blockIdx.x;
  } else if (S == kWarp) {
    const unsigned warps = blockDim.x / 32;
    workers = static_cast<size_t>(gridDim.x) * warps;
    w = static_cast<size_t>(blockIdx.x) * warps + threadIdx.x / 32;
  } else {
    workers = static_cast<size_t>(gridDim.x) * blockDim.x;
    w = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  }
  size_t off, len;
  share(size, workers, w, &off, &len);
  for (int i = 0; i < iters; ++i) {
    if (len == 0) continue; /* uniform across the worker's threads, as the collective forms require */
    if (G) {
      if (S == kBlock)
        nvshmemx_getmem_block(dest + off, src + off, len, pe);
      else if (S == kWarp)
        nvshmemx_getmem_warp(dest + off, src + off, len, pe);
      else
        nvshmem_getmem(dest + off, src + off, len, pe);
    } else {
      if (S == kBlock)
        nvshmemx_putmem_block(dest + off, src + off, len, pe);
      else if (S == kWarp)
        nvshmemx_putmem_warp(dest + off, src + off, len, pe);
      else
        nvshmem_putmem(dest + off, src + off, len, pe);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) nvshmem_quiet();
}

/* The reference: the same CTA shares, plain 16-byte loads and stores (one side through the peer mapping),
   four in flight per thread. */
__global__ void raw_copy_kernel(char *__restrict__ dest, const char *__restrict__ src, size_t size, int iters) {
  size_t off, len;
  share(size, gridDim.x, blockIdx.x, &off, &len);
  const uint4 *__restrict__ s = reinterpret_cast<const uint4 *>(src + off);
  uint4 *__restrict__ d = reinterpret_cast<uint4 *>(dest + off);
  const size_t nv = len / 16, step = blockDim.x;
  for (int i = 0; i < iters; ++i) {
    size_t v = threadIdx.x;
    for (; v + 3 * step < nv; v += 4 * step) {
      const uint4 a = s[v], b = s[v + step], c = s[v + 2 * step], e = s[v + 3 * step];
      d[v] = a;
      d[v + step] = b;
      d[v + 2 * step] = c;
      d[v + 3 * step] = e;
    }
    for (; v < nv; v += step) d[v] = s[v];
    for (size_t b = nv * 16 + threadIdx.x; b < len; b += step) dest[off + b] = src[off + b];
    __syncthreads();
  }
  __threadfence_system();
}

inline double gbps(size_t size, int iters, double ms) {
  return static_cast<double>(size) * iters / (ms * 1e6);
}

/* Collective: with --bidir the job-wide sum of each PE's figure (PE 0 and PE 1 both measured), else PE 0's
   own. Sums go through perf_job_sum in MB/s. */
inline perf_stat combine(perf_session &s, const perf_stat &mine, bool bidir) {
  if (!bidir) return mine;
  perf_stat out;
  const bool have = mine.valid && s.me < 2;
  const long long missing = perf_job_sum(s, s.me < 2 && !mine.valid ? 1 : 0);
  const double med = static_cast<double>(perf_job_sum(s, have ? static_cast<long long>(mine.median * 1e3) : 0));
  const double mn = static_cast<double>(perf_job_sum(s, have ? static_cast<long long>(mine.min * 1e3) : 0));
  const double mx = static_cast<double>(perf_job_sum(s, have ? static_cast<long long>(mine.max * 1e3) : 0));
  if (missing != 0) return out;
  out.median = med / 1e3;
  out.min = mn / 1e3;
  out.max = mx / 1e3;
  out.valid = true;
  return out;
}

inline int run(int argc, char **argv, bool get) {
  const char *const bench = get ? "shmem_get_bw" : "shmem_put_bw";
  perf_args a;
  a.min_bytes = 8;
  a.max_bytes = 64ull << 20;
  a.iters = 20;
  a.warmup = 5;
  a.ctas = 32;
  a.threads = 1024;
  a.scope = "block";
  perf_parse_args(argc, argv, "befnwrctsB", "  -s: block (default), warp, thread\n  --bidir: PE 0 and PE 1 at once",
                  &a);
  const int scope = perf_choose(argv[0], 's', a.scope, kScopes);
  if (scope == kWarp && a.threads % 32 != 0) {
    std::fprintf(stderr, "%s: -s warp needs -t to be a multiple of 32 (got %d)\n", argv[0], a.threads);
    return 2;
  }
  const bool bidir = a.bidir != 0;
  perf_session s = perf_start(bench, 2);

  /* sym: symmetric (the put's target, the get's source); local: cudaMalloc'd (the put's source, the get's
     target). Active PEs: PE 0, and PE 1 too with --bidir; each works with peer = 1 - me. */
  char *sym = static_cast<char *>(nvshmem_malloc(a.max_bytes));
  if (sym == nullptr) {
    std::fprintf(stderr, "%s: PE %d: shmem_malloc(%zu) failed; raise SHMEM_SYMMETRIC_SIZE\n", bench, s.me, a.max_bytes);
    perf_die(1);
  }
  char *local = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&local, a.max_bytes));
  const bool active = s.me == 0 || (bidir && s.me == 1);
  const bool receives = get ? active : (s.me == 1 || (bidir && s.me == 0));
  const int peer_pe = 1 - s.me;
  char *peer = active ? static_cast<char *>(perf_peer_ptr(sym, peer_pe)) : nullptr;
  const bool raw_ok = perf_job_sum(s, active && peer == nullptr ? 1 : 0) == 0;
  if (s.me == 0 && !raw_ok)
    std::printf("# the peer is not load/store reachable (device shmem_ptr is NULL): no raw_st, ce columns\n");

  auto launch_rma = [&](size_t size, int iters) {
    const dim3 grid(a.ctas), block(a.threads);
    char *d = get ? local : sym;
    const char *src = get ? sym : local;
#define PERF_RMA_LAUNCH(S)                                                           \
  if (get)                                                                           \
    rma_kernel<S, true><<<grid, block, 0, s.stream>>>(d, src, size, iters, peer_pe); \
  else                                                                               \
    rma_kernel<S, false><<<grid, block, 0, s.stream>>>(d, src, size, iters, peer_pe);
    if (scope == kBlock) {
      PERF_RMA_LAUNCH(kBlock)
    } else if (scope == kWarp) {
      PERF_RMA_LAUNCH(kWarp)
    } else {
      PERF_RMA_LAUNCH(kThread)
    }
#undef PERF_RMA_LAUNCH
  };
  auto launch_raw = [&](size_t size, int iters) {
    if (get)
      raw_copy_kernel<<<a.ctas, a.threads, 0, s.stream>>>(local, peer, size, iters);
    else
      raw_copy_kernel<<<a.ctas, a.threads, 0, s.stream>>>(peer, local, size, iters);
  };
  bool ce_ok = raw_ok;
  auto launch_ce = [&](size_t size, int iters) {
    for (int i = 0; i < iters && ce_ok; ++i) {
      const cudaError_t e = get ? cudaMemcpyAsync(local, peer, size, cudaMemcpyDeviceToDevice, s.stream)
                                : cudaMemcpyAsync(peer, local, size, cudaMemcpyDeviceToDevice, s.stream);
      if (e != cudaSuccess) {
        std::printf("# PE %d: cudaMemcpyAsync with the peer mapping failed (%s): no ce column\n", s.me,
                    cudaGetErrorString(cudaGetLastError()));
        ce_ok = false;
      }
    }
  };
  /* -w warm-up iterations, then -r timed repeats of -n iterations: GB/s per repeat. */
  auto measure = [&](auto &&launch, size_t size) {
    std::vector<double> v;
    if (a.warmup > 0) perf_time_ms(s, [&] { launch(size, a.warmup); });
    for (int r = 0; r < a.repeats; ++r)
      v.push_back(gbps(size, a.iters, perf_time_ms(s, [&] { launch(size, a.iters); })));
    return v;
  };
  /* Collective: every PE's receiving buffer back to zero. */
  auto clear_receiver = [&](size_t size) {
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (receives) {
      PERF_CUDA_CHECK(cudaMemset(get ? local : sym, 0, size));
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
    }
    nvshmem_barrier_all();
  };

  if (s.me == 0) {
    std::printf(
        "# %s: PE 0 %s PE 1%s, %s scope, %d CTAs x %d threads, %d iterations (+%d warm-up), median [min,max] of "
        "%d repeats\n",
        bench, get ? "<-" : "->", bidir ? " and back at once (figures: both directions summed)" : "", a.scope, a.ctas,
        a.threads, a.iters, a.warmup, a.repeats);
    std::printf("%-10s %-6s %-28s %-12s %-12s %-8s %-8s %-5s\n", "size(B)", "scope",
                get ? "get(GB/s) [min,max]" : "put(GB/s) [min,max]", "raw_st(GB/s)", "ce(GB/s)",
                get ? "get/raw" : "put/raw", get ? "get/ce" : "put/ce", "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    const uint32_t seed = static_cast<uint32_t>(size) ^ (get ? 0x3c3c0000u : 0x5a5a0000u);
    /* the sending side's buffer holds the pattern of the PE it belongs to */
    const bool sends = get ? (s.me == 1 || (bidir && s.me == 0)) : active;
    if (sends) perf_fill(get ? sym : local, size, seed + static_cast<uint32_t>(s.me));
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    perf_stat raw_bw, ce_bw, rma_bw;
    if (active && raw_ok) raw_bw = perf_summarize(measure(launch_raw, size));
    raw_bw = combine(s, raw_bw, bidir);
    if (active && ce_ok) {
      std::vector<double> v = measure(launch_ce, size);
      if (ce_ok) ce_bw = perf_summarize(v);
    }
    ce_bw = combine(s, ce_bw, bidir);
    clear_receiver(size); /* what the references moved must not pass for the library's delivery */
    if (active) rma_bw = perf_summarize(measure(launch_rma, size));
    rma_bw = combine(s, rma_bw, bidir);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    long long bad = 0;
    if (receives) {
      bad = perf_check(get ? local : sym, size, seed + static_cast<uint32_t>(1 - s.me),
                       get ? "shmem_get_bw: the get destination" : "shmem_put_bw: the put destination");
    }
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-10zu %-6s %-28s %-12s %-12s %-8s %-8s %-5s\n", size, a.scope, perf_cell(rma_bw, 2).c_str(),
                  perf_median_cell(raw_bw, 2).c_str(), perf_median_cell(ce_bw, 2).c_str(),
                  perf_ratio_cell(rma_bw, raw_bw).c_str(), perf_ratio_cell(rma_bw, ce_bw).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json(bench)
          .integer("size", static_cast<long long>(size))
          .str("scope", a.scope)
          .integer("bidir", bidir ? 1 : 0)
          .integer("ctas", a.ctas)
          .integer("threads", a.threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("bw_GBps", rma_bw)
          .stat("raw_store_GBps", raw_bw)
          .stat("copy_engine_GBps", ce_bw)
          .ratio("ratio_to_raw_store", rma_bw, raw_bw)
          .ratio("ratio_to_copy_engine", rma_bw, ce_bw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(local));
  nvshmem_free(sym);
  return perf_finish(s);
}

}  // namespace perf_rma_bw

#endif /* GPUSHMEM_PERF_RMA_BW_CUH */
