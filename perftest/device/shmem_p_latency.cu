/*
 * shmem_p_latency: one GPU thread on PE 0 does (shmem_TYPE_p to PE 1 + shmem_quiet) per iteration; the
 * figure is microseconds per iteration, timed inside the kernel with the GPU clock (no launch overhead).
 * Rows: shmem_int_p, shmem_long_p, shmem_double_p, and shmem_putmem of 8 bytes (+ quiet) for comparison.
 * Reference in the same run: the same loop with a plain store through the device shmem_ptr of PE 1's
 * word followed by __threadfence_system() (the cost of a remote store made visible, without the library).
 * PE 1 checks that the last value written arrived.
 *
 * Usage: shmem_p_latency [-n 1000] [-w 100] [-r 11] [-d int|long|double|putmem|all]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

enum Op { kInt = 0, kLong = 1, kDouble = 2, kPutmem = 3, kAll = 4 };
const char *const kOps[] = {"int", "long", "double", "putmem", "all", nullptr};
const char *const kOpNames[] = {"shmem_int_p", "shmem_long_p", "shmem_double_p", "shmem_putmem"};
const size_t kOpBytes[] = {sizeof(int), sizeof(long), sizeof(double), 8};

/* The value iteration k writes, as the 8 bytes the check compares. */
__host__ __device__ inline uint64_t value_bits(int op, long long k) {
  uint64_t bits = 0;
  if (op == kInt) {
    const int v = static_cast<int>(k) + 1;
    memcpy(&bits, &v, sizeof v);
  } else if (op == kDouble) {
    const double v = static_cast<double>(k) + 0.5;
    memcpy(&bits, &v, sizeof v);
  } else {
    const long v = static_cast<long>(k) + 1;
    memcpy(&bits, &v, sizeof v);
  }
  return bits;
}

template <int O>
__global__ void p_kernel(void *dest, uint64_t *scratch, int pe, int warm, int iters, int reps, unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    if constexpr (O == kInt) {
      nvshmem_int_p(static_cast<int *>(dest), static_cast<int>(k) + 1, pe);
    } else if constexpr (O == kLong) {
      nvshmem_long_p(static_cast<long *>(dest), static_cast<long>(k) + 1, pe);
    } else if constexpr (O == kDouble) {
      nvshmem_double_p(static_cast<double *>(dest), static_cast<double>(k) + 0.5, pe);
    } else {
      *scratch = value_bits(O, k); /* the source of this iteration's 8-byte put */
      nvshmem_putmem(dest, scratch, 8, pe);
    }
    nvshmem_quiet();
  });
}

/* The reference: a plain store of the same width through the peer mapping, then a system-scope fence. */
template <int O>
__global__ void raw_kernel(void *peer_dest, int warm, int iters, int reps, unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t bits = value_bits(O, k);
    if constexpr (O == kInt)
      *static_cast<volatile uint32_t *>(peer_dest) = static_cast<uint32_t>(bits);
    else
      *static_cast<volatile uint64_t *>(peer_dest) = bits;
    __threadfence_system();
  });
}

template <int O>
void launch(bool raw, void *dest, void *peer, uint64_t *scratch, const perf_args &a, unsigned long long *ns,
            cudaStream_t st) {
  perf_spin_up(st, a.spin_up_ms);
  if (raw)
    raw_kernel<O><<<1, 1, 0, st>>>(peer, a.warmup, a.iters, a.repeats, ns);
  else
    p_kernel<O><<<1, 1, 0, st>>>(dest, scratch, 1, a.warmup, a.iters, a.repeats, ns);
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.type = "all";
  perf_parse_args(argc, argv, "nwrd", nullptr, &a);
  const int pick = perf_choose(argv[0], 'd', a.type, kOps);
  perf_session s = perf_start("shmem_p_latency", 2);

  void *dest = nvshmem_malloc(8);
  uint64_t *scratch = nullptr;
  unsigned long long *ns = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&scratch, sizeof *scratch));
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns)); /* pinned: no page faults */
  void *peer = s.me == 0 ? perf_peer_ptr(dest, 1) : nullptr;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# shmem_p_latency: one thread on PE 0 -> PE 1, (op + shmem_quiet) per iteration, %d iterations "
        "(+%d warm-up), median [min,max] of %d repeats\n",
        a.iters, a.warmup, a.repeats);
    std::printf("%-8s %-7s %-15s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "op", "lat(us) [min,max]", "raw(us)",
                "lat/raw", "check");
  }
  for (int op = kInt; op <= kPutmem; ++op) {
    if (pick != kAll && pick != op) continue;
    auto run = [&](bool raw) {
      if (op == kInt) launch<kInt>(raw, dest, peer, scratch, a, ns, s.stream);
      if (op == kLong) launch<kLong>(raw, dest, peer, scratch, a, ns, s.stream);
      if (op == kDouble) launch<kDouble>(raw, dest, peer, scratch, a, ns, s.stream);
      if (op == kPutmem) launch<kPutmem>(raw, dest, peer, scratch, a, ns, s.stream);
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
    };
    perf_stat lat, raw;
    if (s.me == 0 && peer != nullptr) raw = run(true);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 1) { /* the reference wrote the same last value: clear it so only the library's write counts */
      PERF_CUDA_CHECK(cudaMemset(dest, 0, 8));
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
    }
    nvshmem_barrier_all();
    if (s.me == 0) lat = run(false);
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    long long bad = 0;
    if (s.me == 1) {
      const long long last = static_cast<long long>(a.warmup) + static_cast<long long>(a.iters) * a.repeats - 1;
      uint64_t got = 0;
      PERF_CUDA_CHECK(cudaMemcpy(&got, dest, kOpBytes[op], cudaMemcpyDeviceToHost));
      uint64_t want = value_bits(op, last);
      if (kOpBytes[op] < 8) want &= (1ull << (8 * kOpBytes[op])) - 1;
      if (got != want) {
        std::fprintf(stderr, "PE 1: %s: after the run the word holds 0x%llx, expected 0x%llx (iteration %lld)\n",
                     kOpNames[op], static_cast<unsigned long long>(got), static_cast<unsigned long long>(want), last);
        bad = 1;
      }
    }
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-8zu %-7s %-15s %-26s %-10s %-8s %-5s\n", kOpBytes[op], "thread", kOpNames[op],
                  perf_cell(lat).c_str(), perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json("shmem_p_latency")
          .integer("size", static_cast<long long>(kOpBytes[op]))
          .str("scope", "thread")
          .str("op", kOpNames[op])
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_store_fence_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(scratch));
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  nvshmem_free(dest);
  return perf_finish(s);
}
