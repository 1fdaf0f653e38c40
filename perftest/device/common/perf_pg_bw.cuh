/*
 * The body of shmem_p_bw and shmem_g_bw: element-wise RMA throughput, PE 0 -> PE 1 (p) or PE 0 <- PE 1 (g).
 * A kernel of -c CTAs x -t threads runs -n iterations; in each, thread t of T handles elements t, t + T,
 * ... of SIZE / 4 ints with shmem_int_p (every thread ends with one shmem_quiet) or shmem_int_g (storing
 * each value into a local array). Timed with CUDA events; GB/s = SIZE * n / time.
 * Reference in the same run: the same grid and loop with plain int stores / loads through the device
 * shmem_ptr of PE 1's array (raw, + __threadfence_system at the end for stores).
 * Checks: the receiving side copies the ints to the host and compares every one with the value written;
 * a wrong one names its index.
 */
#ifndef GPUSHMEM_PERF_PG_BW_CUH
#define GPUSHMEM_PERF_PG_BW_CUH

#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace perf_pg_bw {

__host__ __device__ inline int value(size_t i, uint32_t seed) {
  return static_cast<int>(static_cast<uint32_t>(i) * 2654435761u + seed * 40503u + 7u);
}

/* G: dest is local, src is PE pe's symmetric array; otherwise dest is symmetric. Raw: src/dest go
   through the peer mapping instead of the library. */
template <bool G, bool Raw>
__global__ void pg_kernel(int *dest, const int *src, size_t count, uint32_t seed, int iters, int pe) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    for (size_t i = t; i < count; i += stride) {
      if (G) {
        dest[i] = Raw ? reinterpret_cast<const volatile int *>(src)[i] : nvshmem_int_g(src + i, pe);
      } else {
        const int v = value(i, seed);
        if (Raw)
          reinterpret_cast<volatile int *>(dest)[i] = v;
        else
          nvshmem_int_p(dest + i, v, pe);
      }
    }
  }
  if (!G) {
    if (Raw)
      __threadfence_system();
    else
      nvshmem_quiet();
  }
}

__global__ void fill_kernel(int *p, size_t count, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = value(i, seed);
}

/* Compares `count` ints of device memory with the values for `seed`; prints the first wrong one. */
inline long long check(const int *p, size_t count, uint32_t seed, const char *what) {
  std::vector<int> h(count);
  PERF_CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(int), cudaMemcpyDeviceToHost));
  long long bad = 0;
  size_t first = 0;
  for (size_t i = 0; i < count; ++i)
    if (h[i] != value(i, seed) && bad++ == 0) first = i;
  if (bad != 0)
    std::fprintf(stderr, "PE %d: %s: %lld of %zu ints wrong; first at element %zu: expected %d, got %d\n",
                 nvshmem_my_pe(), what, bad, count, first, value(first, seed), h[first]);
  return bad;
}

inline int run(int argc, char **argv, bool get) {
  const char *const bench = get ? "shmem_g_bw" : "shmem_p_bw";
  perf_args a;
  a.min_bytes = 4;
  a.max_bytes = 1 << 20;
  a.iters = 10;
  a.warmup = 2;
  a.ctas = 32;
  a.threads = 256;
  perf_parse_args(argc, argv, "befnwrct", nullptr, &a);
  perf_session s = perf_start(bench, 2);
  const size_t max_count = a.max_bytes / sizeof(int) + 1;
  int *sym = static_cast<int *>(nvshmem_malloc(max_count * sizeof(int)));
  int *local = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&local, max_count * sizeof(int)));
  if (sym == nullptr) {
    std::fprintf(stderr, "%s: PE %d: shmem_malloc(%zu) failed\n", bench, s.me, max_count * sizeof(int));
    perf_die(1);
  }
  int *peer = s.me == 0 ? static_cast<int *>(perf_peer_ptr(sym, 1)) : nullptr;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# %s: PE 0 %s PE 1, shmem_int_%s per element, %d CTAs x %d threads, %d iterations (+%d warm-up), "
        "median [min,max] of %d repeats\n",
        bench, get ? "<-" : "->", get ? "g" : "p", a.ctas, a.threads, a.iters, a.warmup, a.repeats);
    std::printf("%-10s %-6s %-28s %-12s %-8s %-5s\n", "size(B)", "scope", "bw(GB/s) [min,max]", "raw(GB/s)", "bw/raw",
                "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    const size_t count = size / sizeof(int);
    if (count == 0) continue;
    const uint32_t seed = static_cast<uint32_t>(size) * 3u + (get ? 1u : 2u);
    auto launch = [&](bool raw, int iters) {
      const dim3 grid(a.ctas), block(a.threads);
      if (get && raw) pg_kernel<true, true><<<grid, block, 0, s.stream>>>(local, peer, count, seed, iters, 1);
      if (get && !raw) pg_kernel<true, false><<<grid, block, 0, s.stream>>>(local, sym, count, seed, iters, 1);
      if (!get && raw) pg_kernel<false, true><<<grid, block, 0, s.stream>>>(peer, nullptr, count, seed, iters, 1);
      if (!get && !raw) pg_kernel<false, false><<<grid, block, 0, s.stream>>>(sym, nullptr, count, seed, iters, 1);
    };
    auto measure = [&](bool raw) {
      std::vector<double> v;
      perf_spin_up(s.stream, a.spin_up_ms);
      if (a.warmup > 0) perf_time_ms(s, [&] { launch(raw, a.warmup); });
      for (int r = 0; r < a.repeats; ++r)
        v.push_back(static_cast<double>(size) * a.iters / (perf_time_ms(s, [&] { launch(raw, a.iters); }) * 1e6));
      return perf_summarize(v);
    };
    /* the source holds the values (PE 1's array for g); the receiver starts from zeroes */
    if (get && s.me == 1) fill_kernel<<<64, 256>>>(sym, count, seed);
    PERF_CUDA_CHECK(cudaGetLastError());
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    perf_stat bw, raw_bw;
    if (s.me == 0 && peer != nullptr) raw_bw = measure(true);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (get ? s.me == 0 : s.me == 1) PERF_CUDA_CHECK(cudaMemset(get ? local : sym, 0, count * sizeof(int)));
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 0) bw = measure(false);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    long long bad = 0;
    if (get ? s.me == 0 : s.me == 1)
      bad = check(get ? local : sym, count, seed,
                  get ? "shmem_g_bw: the values fetched" : "shmem_p_bw: the ints written");
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-10zu %-6s %-28s %-12s %-8s %-5s\n", size, "thread", perf_cell(bw, 2).c_str(),
                  perf_median_cell(raw_bw, 2).c_str(), perf_ratio_cell(bw, raw_bw).c_str(), job_bad ? "FAIL" : "ok");
      perf_json(bench)
          .integer("size", static_cast<long long>(size))
          .str("scope", "thread")
          .str("type", "int")
          .integer("ctas", a.ctas)
          .integer("threads", a.threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("bw_GBps", bw)
          .stat(get ? "raw_load_GBps" : "raw_store_GBps", raw_bw)
          .ratio("ratio_to_raw", bw, raw_bw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(local));
  nvshmem_free(sym);
  return perf_finish(s);
}

}  // namespace perf_pg_bw

#endif /* GPUSHMEM_PERF_PG_BW_CUH */
