/*
 * shmem_atomic_latency: one GPU thread on PE 0 runs a fetching atomic on a uint64_t of PE 1 per iteration
 * and waits for its result (a remote round trip); microseconds per operation, timed inside the kernel.
 *   -a fetch_add     shmem_uint64_atomic_fetch_add(dest, 1)    returns k on iteration k (word starts at 0)
 *   -a fetch         shmem_uint64_atomic_fetch(dest)           returns the word's fixed value
 *   -a swap          shmem_uint64_atomic_swap(dest, k + 1)     returns k
 *   -a compare_swap  shmem_uint64_atomic_compare_swap(dest, k, k + 1)  returns k
 *   -a all           each of them in turn
 * Every returned value is checked in the kernel, and PE 1 checks the word's final value. Reference in the
 * same run: the same loop with the CUDA system-scope atomic (atomicAdd_system, a volatile load,
 * atomicExch_system, atomicCAS_system) on the device shmem_ptr of PE 1's word.
 *
 * Usage: shmem_atomic_latency [-a fetch_add] [-n 1000] [-w 100] [-r 11]
 */
#include <shmem.h>

#include <cstdint>
#include <cstdio>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

enum Op { kFetchAdd = 0, kFetch = 1, kSwap = 2, kCompareSwap = 3, kAll = 4 };
const char *const kOps[] = {"fetch_add", "fetch", "swap", "compare_swap", "all", nullptr};
const char *const kOpNames[] = {"shmem_uint64_atomic_fetch_add", "shmem_uint64_atomic_fetch",
                                "shmem_uint64_atomic_swap", "shmem_uint64_atomic_compare_swap"};
constexpr uint64_t kFixed = 0x0123456789abcdefull; /* the word's value for -a fetch */

/* What iteration k must get back. */
__host__ __device__ inline uint64_t expected(int op, uint64_t k) {
  return op == kFetch ? kFixed : k;
}

template <int O>
__global__ void amo_kernel(uint64_t *dest, int pe, int warm, int iters, int reps, unsigned long long *ns,
                           unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t u = static_cast<uint64_t>(k);
    uint64_t got;
    if constexpr (O == kFetchAdd)
      got = shmem_uint64_atomic_fetch_add(dest, 1, pe);
    else if constexpr (O == kFetch)
      got = shmem_uint64_atomic_fetch(dest, pe);
    else if constexpr (O == kSwap)
      got = shmem_uint64_atomic_swap(dest, u + 1, pe);
    else
      got = shmem_uint64_atomic_compare_swap(dest, u, u + 1, pe);
    if (got != expected(O, u)) ++*bad; /* also makes the thread wait for the value before the next one */
  });
}

template <int O>
__global__ void raw_kernel(uint64_t *peer_word, int warm, int iters, int reps, unsigned long long *ns,
                           unsigned long long *bad) {
  auto *w = reinterpret_cast<unsigned long long *>(peer_word);
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const unsigned long long u = static_cast<unsigned long long>(k);
    unsigned long long got;
    if constexpr (O == kFetchAdd)
      got = atomicAdd_system(w, 1ull);
    else if constexpr (O == kFetch)
      got = *reinterpret_cast<volatile unsigned long long *>(w);
    else if constexpr (O == kSwap)
      got = atomicExch_system(w, u + 1);
    else
      got = atomicCAS_system(w, u, u + 1);
    if (got != expected(O, u)) ++*bad;
  });
}

template <int O>
void launch(bool raw, uint64_t *word, const perf_args &a, unsigned long long *ns, unsigned long long *bad,
            cudaStream_t st) {
  perf_spin_up(st, a.spin_up_ms);
  if (raw)
    raw_kernel<O><<<1, 1, 0, st>>>(word, a.warmup, a.iters, a.repeats, ns, bad);
  else
    amo_kernel<O><<<1, 1, 0, st>>>(word, 1, a.warmup, a.iters, a.repeats, ns, bad);
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.op = "fetch_add";
  perf_parse_args(argc, argv, "anwr", "  -a: fetch_add (default), fetch, swap, compare_swap, all", &a);
  const int pick = perf_choose(argv[0], 'a', a.op, kOps);
  perf_session s = perf_start("shmem_atomic_latency", 2);

  uint64_t *word = static_cast<uint64_t *>(shmem_malloc(sizeof(uint64_t)));
  unsigned long long *ns = nullptr, *bad = nullptr;
  /* pinned, not managed: no page fault when the kernel first writes them */
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns));
  PERF_CUDA_CHECK(cudaMallocHost(&bad, sizeof *bad));
  uint64_t *peer = s.me == 0 ? static_cast<uint64_t *>(perf_peer_ptr(word, 1)) : nullptr;
  const unsigned long long total = static_cast<unsigned long long>(a.warmup) + 1ull * a.iters * a.repeats;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# shmem_atomic_latency: one thread on PE 0 -> PE 1's uint64_t, one fetching atomic per iteration, "
        "%d iterations (+%d warm-up), median [min,max] of %d repeats\n",
        a.iters, a.warmup, a.repeats);
    std::printf("%-8s %-7s %-34s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "op", "lat(us) [min,max]", "raw(us)",
                "lat/raw", "check");
  }
  for (int op = kFetchAdd; op <= kCompareSwap; ++op) {
    if (pick != kAll && pick != op) continue;
    /* Collective: PE 1's word back to its starting value before each run. */
    auto reset = [&] {
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      shmem_barrier_all();
      const uint64_t start = op == kFetch ? kFixed : 0;
      PERF_CUDA_CHECK(cudaMemcpy(word, &start, sizeof start, cudaMemcpyHostToDevice));
      /* A cudaMemcpy from pageable memory may return before the DMA lands: wait for it before the barrier
         tells PE 0 the word is ready. */
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      *bad = 0;
      shmem_barrier_all();
    };
    auto run = [&](bool raw) {
      if (op == kFetchAdd) launch<kFetchAdd>(raw, raw ? peer : word, a, ns, bad, s.stream);
      if (op == kFetch) launch<kFetch>(raw, raw ? peer : word, a, ns, bad, s.stream);
      if (op == kSwap) launch<kSwap>(raw, raw ? peer : word, a, ns, bad, s.stream);
      if (op == kCompareSwap) launch<kCompareSwap>(raw, raw ? peer : word, a, ns, bad, s.stream);
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      if (*bad != 0)
        std::fprintf(stderr, "PE 0: %s%s returned a value other than expected %llu times\n", raw ? "raw " : "",
                     kOpNames[op], *bad);
      return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
    };
    perf_stat lat, raw;
    long long bad_count = 0;
    reset();
    if (s.me == 0 && peer != nullptr) {
      raw = run(true);
      bad_count += static_cast<long long>(*bad);
    }
    reset();
    if (s.me == 0) {
      lat = run(false);
      bad_count += static_cast<long long>(*bad);
    }
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();
    if (s.me == 1) {
      uint64_t got = 0;
      PERF_CUDA_CHECK(cudaMemcpy(&got, word, sizeof got, cudaMemcpyDeviceToHost));
      const uint64_t want = op == kFetch ? kFixed : total;
      if (got != want) {
        std::fprintf(stderr, "PE 1: %s: the word holds %llu after the run, expected %llu\n", kOpNames[op],
                     static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
        ++bad_count;
      }
    }
    const long long job_bad = perf_job_errors(s, bad_count);
    if (s.me == 0) {
      std::printf("%-8zu %-7s %-34s %-26s %-10s %-8s %-5s\n", sizeof(uint64_t), "thread", kOpNames[op],
                  perf_cell(lat).c_str(), perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json("shmem_atomic_latency")
          .integer("size", static_cast<long long>(sizeof(uint64_t)))
          .str("scope", "thread")
          .str("op", kOps[op])
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_atomic_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  PERF_CUDA_CHECK(cudaFreeHost(bad));
  shmem_free(word);
  return perf_finish(s);
}
