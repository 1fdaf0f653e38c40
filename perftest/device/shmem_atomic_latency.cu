/*
 * shmem_atomic_latency: one GPU thread on PE 0 runs an atomic on a uint64_t of PE 1 per iteration;
 * microseconds per operation, timed inside the kernel. A fetching atomic waits for its value (a remote
 * round trip); a non-fetching one is followed by shmem_quiet (the update is complete at PE 1).
 *   -a fetch_add | fetch_inc | fetch | swap | compare_swap | fetch_and | fetch_or | fetch_xor |
 *      add | inc | set | and | or | xor | all          (default fetch_add; see common/perf_amo.cuh)
 * Every fetched value is checked in the kernel against what the sequence of operations implies, and PE 1
 * checks the word's final value. Reference in the same run: the same loop with CUDA's system-scope
 * atomics (atomicAdd_system, a volatile load, atomicExch_system, atomicCAS_system, atomicAnd/Or/Xor_system;
 * non-fetching ones + __threadfence_system) on the device shmem_ptr of PE 1's word.
 *
 * Usage: shmem_atomic_latency [-a fetch_add] [-n 1000] [-w 100] [-r 11]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>

#include "perf_amo.cuh"
#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

using namespace perf_amo;

template <int O>
__global__ void amo_kernel(uint64_t *dest, int pe, int warm, int iters, int reps, unsigned long long *ns,
                           unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t u = static_cast<uint64_t>(k);
    const uint64_t got = call<O>(dest, u, pe);
    if constexpr (fetches(O)) {
      if (got != after(O, u)) ++*bad; /* also makes the thread wait for the value before the next one */
    } else {
      nvshmem_quiet();
    }
  });
}

template <int O>
__global__ void raw_kernel(uint64_t *peer_word, int warm, int iters, int reps, unsigned long long *ns,
                           unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t u = static_cast<uint64_t>(k);
    const uint64_t got = raw<O>(peer_word, u);
    if constexpr (fetches(O)) {
      if (got != after(O, u)) ++*bad;
    } else {
      __threadfence_system();
    }
  });
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.op = "fetch_add";
  perf_parse_args(argc, argv, "anwr", kHelp, &a);
  const int pick = perf_choose(argv[0], 'a', a.op, kNames);
  perf_session s = perf_start("shmem_atomic_latency", 2);

  uint64_t *word = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t)));
  unsigned long long *ns = nullptr, *bad = nullptr;
  /* pinned, not managed: no page fault when the kernel first writes them */
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns));
  PERF_CUDA_CHECK(cudaMallocHost(&bad, sizeof *bad));
  uint64_t *peer = s.me == 0 ? static_cast<uint64_t *>(perf_peer_ptr(word, 1)) : nullptr;
  const unsigned long long total = static_cast<unsigned long long>(a.warmup) + 1ull * a.iters * a.repeats;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# shmem_atomic_latency: one thread on PE 0 -> PE 1's uint64_t, one atomic per iteration (non-fetching: "
        "+ shmem_quiet), %d iterations (+%d warm-up), median [min,max] of %d repeats\n",
        a.iters, a.warmup, a.repeats);
    std::printf("%-8s %-7s %-34s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "op", "lat(us) [min,max]", "raw(us)",
                "lat/raw", "check");
  }
  for (int op = 0; op < kCount; ++op) {
    if (pick != kCount && pick != op) continue;
    /* Collective: PE 1's word back to its starting value before each run. */
    auto reset = [&] {
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      const uint64_t init = start(op);
      PERF_CUDA_CHECK(cudaMemcpy(word, &init, sizeof init, cudaMemcpyHostToDevice));
      /* A cudaMemcpy from pageable memory may return before the DMA lands: wait for it before the barrier
         tells PE 0 the word is ready. */
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      *bad = 0;
      nvshmem_barrier_all();
    };
    auto run = [&](bool use_raw) {
      perf_spin_up(s.stream, a.spin_up_ms);
      dispatch(op, [&](auto c) {
        constexpr int O = decltype(c)::value;
        if (use_raw)
          raw_kernel<O><<<1, 1, 0, s.stream>>>(peer, a.warmup, a.iters, a.repeats, ns, bad);
        else
          amo_kernel<O><<<1, 1, 0, s.stream>>>(word, 1, a.warmup, a.iters, a.repeats, ns, bad);
      });
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      if (*bad != 0)
        std::fprintf(stderr, "PE 0: %s%s returned a value other than expected %llu times\n", use_raw ? "raw " : "",
                     kCalls[op], *bad);
      return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
    };
    perf_stat lat, raw_lat;
    long long bad_count = 0;
    reset();
    if (s.me == 0 && peer != nullptr) {
      raw_lat = run(true);
      bad_count += static_cast<long long>(*bad);
    }
    reset();
    if (s.me == 0) {
      lat = run(false);
      bad_count += static_cast<long long>(*bad);
    }
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 1) {
      uint64_t got = 0;
      PERF_CUDA_CHECK(cudaMemcpy(&got, word, sizeof got, cudaMemcpyDeviceToHost));
      const uint64_t want = after(op, total);
      if (got != want) {
        std::fprintf(stderr, "PE 1: %s: the word holds 0x%llx after %llu operations, expected 0x%llx\n", kCalls[op],
                     static_cast<unsigned long long>(got), total, static_cast<unsigned long long>(want));
        ++bad_count;
      }
    }
    const long long job_bad = perf_job_errors(s, bad_count);
    if (s.me == 0) {
      std::printf("%-8zu %-7s %-34s %-26s %-10s %-8s %-5s\n", sizeof(uint64_t), "thread", kCalls[op],
                  perf_cell(lat).c_str(), perf_median_cell(raw_lat).c_str(), perf_ratio_cell(lat, raw_lat).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json("shmem_atomic_latency")
          .integer("size", static_cast<long long>(sizeof(uint64_t)))
          .str("scope", "thread")
          .str("op", kNames[op])
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_atomic_us", raw_lat)
          .ratio("ratio_to_raw", lat, raw_lat)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  PERF_CUDA_CHECK(cudaFreeHost(bad));
  nvshmem_free(word);
  return perf_finish(s);
}
