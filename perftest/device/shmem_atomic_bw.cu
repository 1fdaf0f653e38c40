/*
 * shmem_atomic_bw: atomic throughput, PE 0 -> PE 1. A kernel of -c CTAs x -t threads; every thread owns one
 * uint64_t word of PE 1 and runs -n atomics on it back to back (a fetching one waits for its value before
 * the next; non-fetching ones are completed by one shmem_quiet per thread at the end). Timed with CUDA
 * events; the figure is GB/s of 8-byte operands (8 * threads * n / time) and Mops/s in the JSON line.
 *   -a fetch_add | fetch_inc | fetch | swap | compare_swap | fetch_and | fetch_or | fetch_xor |
 *      add | inc | set | and | or | xor | all          (default fetch_add; see common/perf_amo.cuh)
 * Checks: every fetched value in the kernel, and every word's final value on PE 1. Reference in the same
 * run: the same grid and loop with CUDA's system-scope atomics on the device shmem_ptr of PE 1's words.
 *
 * Usage: shmem_atomic_bw [-a fetch_add] [-c 32] [-t 256] [-n 100] [-w 10] [-r 11]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perf_amo.cuh"
#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

using namespace perf_amo;

/* Operations first .. first + iters - 1 on this thread's word. */
template <int O, bool Raw>
__global__ void amo_bw_kernel(uint64_t *words, int pe, long long first, int iters, unsigned long long *bad) {
  const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t *w = words + t;
  unsigned long long wrong = 0;
  for (int i = 0; i < iters; ++i) {
    const uint64_t u = static_cast<uint64_t>(first + i);
    const uint64_t got = Raw ? raw<O>(w, u) : call<O>(w, u, pe);
    if constexpr (fetches(O)) {
      if (got != after(O, u)) ++wrong;
    }
  }
  if constexpr (!fetches(O)) {
    if (Raw)
      __threadfence_system();
    else
      nvshmem_quiet();
  }
  if (wrong != 0) atomicAdd(bad, wrong);
}

__global__ void fill_words_kernel(uint64_t *w, size_t n, uint64_t v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    w[i] = v;
}

/* out[0]: words that differ from v; out[1]: the first such index; out[2]: its value. */
__global__ void check_words_kernel(const uint64_t *w, size_t n, uint64_t v, unsigned long long *out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (w[i] != v) {
      atomicAdd(&out[0], 1ull);
      if (atomicMin(&out[1], static_cast<unsigned long long>(i)) > i) out[2] = w[i];
    }
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.op = "fetch_add";
  a.ctas = 32;
  a.threads = 256;
  a.iters = 100;
  a.warmup = 10;
  perf_parse_args(argc, argv, "actnwr", kHelp, &a);
  const int pick = perf_choose(argv[0], 'a', a.op, kNames);
  perf_session s = perf_start("shmem_atomic_bw", 2);

  const size_t nthreads = static_cast<size_t>(a.ctas) * a.threads;
  uint64_t *words = static_cast<uint64_t *>(nvshmem_malloc(nthreads * sizeof(uint64_t)));
  if (words == nullptr) {
    std::fprintf(stderr, "shmem_atomic_bw: PE %d: shmem_malloc(%zu) failed\n", s.me, nthreads * sizeof(uint64_t));
    perf_die(1);
  }
  /* device memory: many threads add to these (atomics on pinned host memory are not atomic over PCIe) */
  unsigned long long *bad = nullptr, *out = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  PERF_CUDA_CHECK(cudaMalloc(&out, 3 * sizeof *out));
  auto read_bad = [&] {
    unsigned long long v = 0;
    PERF_CUDA_CHECK(cudaMemcpy(&v, bad, sizeof v, cudaMemcpyDeviceToHost));
    return v;
  };
  uint64_t *peer = s.me == 0 ? static_cast<uint64_t *>(perf_peer_ptr(words, 1)) : nullptr;
  const long long total = static_cast<long long>(a.warmup) + static_cast<long long>(a.iters) * a.repeats;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# shmem_atomic_bw: PE 0 -> PE 1, %d CTAs x %d threads, one word per thread, %d atomics each (+%d "
        "warm-up), median [min,max] of %d repeats\n",
        a.ctas, a.threads, a.iters, a.warmup, a.repeats);
    std::printf("%-10s %-7s %-34s %-26s %-12s %-8s %-5s\n", "size(B)", "scope", "op", "bw(GB/s) [min,max]", "raw(GB/s)",
                "bw/raw", "check");
  }
  for (int op = 0; op < kCount; ++op) {
    if (pick != kCount && pick != op) continue;
    auto reset = [&] {
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      fill_words_kernel<<<64, 256>>>(words, nthreads, start(op));
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
    };
    auto launch = [&](bool use_raw, long long first, int iters) {
      dispatch(op, [&](auto c) {
        constexpr int O = decltype(c)::value;
        if (use_raw)
          amo_bw_kernel<O, true><<<a.ctas, a.threads, 0, s.stream>>>(peer, 1, first, iters, bad);
        else
          amo_bw_kernel<O, false><<<a.ctas, a.threads, 0, s.stream>>>(words, 1, first, iters, bad);
      });
    };
    unsigned long long last_bad = 0;
    auto measure = [&](bool use_raw) {
      std::vector<double> v;
      perf_spin_up(s.stream, a.spin_up_ms);
      if (a.warmup > 0) perf_time_ms(s, [&] { launch(use_raw, 0, a.warmup); });
      for (int r = 0; r < a.repeats; ++r) {
        const double ms =
            perf_time_ms(s, [&] { launch(use_raw, a.warmup + static_cast<long long>(r) * a.iters, a.iters); });
        v.push_back(8.0 * static_cast<double>(nthreads) * a.iters / (ms * 1e6));
      }
      last_bad = read_bad();
      if (last_bad != 0)
        std::fprintf(stderr, "PE 0: %s%s: %llu fetched values other than expected\n", use_raw ? "raw " : "", kCalls[op],
                     last_bad);
      return perf_summarize(v);
    };
    perf_stat bw, raw_bw;
    long long bad_count = 0;
    reset();
    if (s.me == 0 && peer != nullptr) {
      raw_bw = measure(true);
      bad_count += static_cast<long long>(last_bad);
    }
    reset();
    if (s.me == 0) {
      bw = measure(false);
      bad_count += static_cast<long long>(last_bad);
    }
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 1) {
      const uint64_t want = after(op, static_cast<uint64_t>(total));
      unsigned long long res[3] = {0, ~0ull, 0};
      PERF_CUDA_CHECK(cudaMemcpy(out, res, sizeof res, cudaMemcpyHostToDevice));
      check_words_kernel<<<64, 256>>>(words, nthreads, want, out);
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaMemcpy(res, out, sizeof res, cudaMemcpyDeviceToHost));
      if (res[0] != 0) {
        std::fprintf(stderr,
                     "PE 1: %s: %llu of %zu words wrong after %lld operations each; first word %llu holds "
                     "0x%llx, expected 0x%llx\n",
                     kCalls[op], res[0], nthreads, total, res[1], res[2], static_cast<unsigned long long>(want));
        bad_count += static_cast<long long>(res[0]);
      }
    }
    const long long job_bad = perf_job_errors(s, bad_count);
    if (s.me == 0) {
      std::printf("%-10zu %-7s %-34s %-26s %-12s %-8s %-5s\n", nthreads * sizeof(uint64_t), "thread", kCalls[op],
                  perf_cell(bw).c_str(), perf_median_cell(raw_bw).c_str(), perf_ratio_cell(bw, raw_bw).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_stat mops = bw;
      mops.median *= 125, mops.min *= 125, mops.max *= 125; /* GB/s of 8-byte operands -> Mops/s */
      perf_json("shmem_atomic_bw")
          .integer("size", static_cast<long long>(nthreads * sizeof(uint64_t)))
          .str("scope", "thread")
          .str("op", kNames[op])
          .integer("ctas", a.ctas)
          .integer("threads", a.threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("bw_GBps", bw)
          .stat("raw_atomic_GBps", raw_bw)
          .stat("mops", mops)
          .ratio("ratio_to_raw", bw, raw_bw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(bad));
  PERF_CUDA_CHECK(cudaFree(out));
  nvshmem_free(words);
  return perf_finish(s);
}
