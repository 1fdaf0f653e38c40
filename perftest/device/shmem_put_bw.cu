/*
 * shmem_put_bw: device put bandwidth, PE 0 -> PE 1.
 *
 * One kernel of C CTAs x T threads runs N iterations; in each, every worker (a CTA for -s block, a warp
 * for -s warp, a thread for -s thread) puts its share of SIZE bytes with shmemx_putmem_block /
 * shmemx_putmem_warp / shmem_putmem, then the kernel ends with shmem_quiet. Timed with CUDA events;
 * GB/s = SIZE * N / time. References measured in the same run on the same buffers:
 *   raw_st  a kernel with the same grid storing 16-byte vectors through the device shmem_ptr of PE 1's
 *           buffer (what SM-issued stores reach without the library);
 *   ce      cudaMemcpyAsync to that same peer address, N times (the copy engines).
 * PE 1 checks the bytes the put delivered (the references write the same pattern, so PE 1 clears its
 * buffer between them and the timed puts).
 *
 * Usage: shmem_put_bw [-b 8] [-e 64M] [-n 20] [-w 5] [-r 11] [-c 32] [-t 1024] [-s block|warp|thread]
 */
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };
const char *const kScopes[] = {"thread", "warp", "block", nullptr};

/* The share [*off, *off + *len) of `size` bytes that worker `w` of `workers` moves: equal 16-byte-aligned
   chunks in order, so a worker's share is contiguous and vector-aligned; trailing workers may get none. */
__host__ __device__ inline void share(size_t size, size_t workers, size_t w, size_t *off, size_t *len) {
  const size_t chunk = ((size + workers - 1) / workers + 15) & ~static_cast<size_t>(15);
  *off = w * chunk;
  *len = *off >= size ? 0 : (size - *off < chunk ? size - *off : chunk);
}

template <int S>
__global__ void put_kernel(char *dest, const char *src, size_t size, int iters, int pe) {
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
    if (S == kBlock)
      shmemx_putmem_block(dest + off, src + off, len, pe);
    else if (S == kWarp)
      shmemx_putmem_warp(dest + off, src + off, len, pe);
    else
      shmem_putmem(dest + off, src + off, len, pe);
  }
  __syncthreads();
  if (threadIdx.x == 0) shmem_quiet();
}

/* The reference: the same CTA shares, plain 16-byte loads and stores through the peer mapping, four in
   flight per thread. */
__global__ void raw_store_kernel(char *__restrict__ peer_dest, const char *__restrict__ src, size_t size, int iters) {
  size_t off, len;
  share(size, gridDim.x, blockIdx.x, &off, &len);
  const uint4 *__restrict__ s = reinterpret_cast<const uint4 *>(src + off);
  uint4 *__restrict__ d = reinterpret_cast<uint4 *>(peer_dest + off);
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
    for (size_t b = nv * 16 + threadIdx.x; b < len; b += step) peer_dest[off + b] = src[off + b];
    __syncthreads();
  }
  __threadfence_system();
}

double gbps(size_t size, int iters, double ms) {
  return static_cast<double>(size) * iters / (ms * 1e6);
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.min_bytes = 8;
  a.max_bytes = 64ull << 20;
  a.iters = 20;
  a.warmup = 5;
  a.ctas = 32;
  a.threads = 1024;
  a.scope = "block";
  perf_parse_args(argc, argv, "befnwrcts", nullptr, &a);
  const int scope = perf_choose(argv[0], 's', a.scope, kScopes);
  if (scope == kWarp && a.threads % 32 != 0) {
    std::fprintf(stderr, "%s: -s warp needs -t to be a multiple of 32 (got %d)\n", argv[0], a.threads);
    return 2;
  }
  perf_session s = perf_start("shmem_put_bw", 2);

  char *dest = static_cast<char *>(shmem_malloc(a.max_bytes));
  if (dest == nullptr) {
    std::fprintf(stderr, "shmem_put_bw: PE %d: shmem_malloc(%zu) failed; raise SHMEM_SYMMETRIC_SIZE\n", s.me,
                 a.max_bytes);
    perf_die(1);
  }
  char *src = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&src, a.max_bytes));
  char *peer = s.me == 0 ? static_cast<char *>(perf_peer_ptr(dest, 1)) : nullptr;
  if (s.me == 0 && peer == nullptr)
    std::printf("# PE 1 is not load/store reachable from PE 0 (device shmem_ptr is NULL): no raw_st, ce columns\n");

  auto put = [&](size_t size, int iters) {
    const dim3 grid(a.ctas), block(a.threads);
    if (scope == kBlock) put_kernel<kBlock><<<grid, block, 0, s.stream>>>(dest, src, size, iters, 1);
    if (scope == kWarp) put_kernel<kWarp><<<grid, block, 0, s.stream>>>(dest, src, size, iters, 1);
    if (scope == kThread) put_kernel<kThread><<<grid, block, 0, s.stream>>>(dest, src, size, iters, 1);
  };
  auto raw = [&](size_t size, int iters) {
    raw_store_kernel<<<a.ctas, a.threads, 0, s.stream>>>(peer, src, size, iters);
  };
  /* The copy engines: returns false (and the column reads n/a) where they cannot reach the peer mapping. */
  bool ce_ok = peer != nullptr;
  auto ce = [&](size_t size, int iters) {
    for (int i = 0; i < iters && ce_ok; ++i) {
      if (cudaMemcpyAsync(peer, src, size, cudaMemcpyDeviceToDevice, s.stream) != cudaSuccess) {
        std::printf("# cudaMemcpyAsync to the peer mapping failed (%s): no ce column\n",
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

  if (s.me == 0) {
    std::printf(
        "# shmem_put_bw: PE 0 -> PE 1, %s scope, %d CTAs x %d threads, %d iterations (+%d warm-up), "
        "median [min,max] of %d repeats\n",
        a.scope, a.ctas, a.threads, a.iters, a.warmup, a.repeats);
    std::printf("%-10s %-6s %-28s %-12s %-12s %-8s %-8s %-5s\n", "size(B)", "scope", "put(GB/s) [min,max]",
                "raw_st(GB/s)", "ce(GB/s)", "put/raw", "put/ce", "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    const uint32_t seed = static_cast<uint32_t>(size) ^ 0x5a5a0000u;
    perf_stat raw_bw, ce_bw, put_bw;
    if (s.me == 0) {
      perf_fill(src, size, seed);
      if (peer != nullptr) raw_bw = perf_summarize(measure(raw, size));
      if (ce_ok) {
        std::vector<double> v = measure(ce, size);
        if (ce_ok) ce_bw = perf_summarize(v);
      }
    }
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();
    if (s.me == 1) { /* what the references wrote must not pass for the put's delivery */
      PERF_CUDA_CHECK(cudaMemset(dest, 0, size));
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
    }
    shmem_barrier_all();
    if (s.me == 0) put_bw = perf_summarize(measure(put, size));
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();
    const long long bad = s.me == 1 ? perf_check(dest, size, seed, "shmem_put_bw: PE 1's destination") : 0;
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-10zu %-6s %-28s %-12s %-12s %-8s %-8s %-5s\n", size, a.scope, perf_cell(put_bw, 2).c_str(),
                  perf_median_cell(raw_bw, 2).c_str(), perf_median_cell(ce_bw, 2).c_str(),
                  perf_ratio_cell(put_bw, raw_bw).c_str(), perf_ratio_cell(put_bw, ce_bw).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json("shmem_put_bw")
          .integer("size", static_cast<long long>(size))
          .str("scope", a.scope)
          .integer("ctas", a.ctas)
          .integer("threads", a.threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("bw_GBps", put_bw)
          .stat("raw_store_GBps", raw_bw)
          .stat("copy_engine_GBps", ce_bw)
          .ratio("ratio_to_raw_store", put_bw, raw_bw)
          .ratio("ratio_to_copy_engine", put_bw, ce_bw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(src));
  shmem_free(dest);
  return perf_finish(s);
}
