/*
 * sync_latency: the device sync over all PEs (shmem_sync_all: a barrier that does not complete earlier
 * puts) in a loop, one kernel per PE; microseconds per sync, timed inside the kernel on PE 0.
 *   -s thread  one thread per PE calls shmem_sync_all()            (the default; the issue's figure)
 *   -s warp    one warp per PE calls shmemx_sync_all_warp()
 *   -s block   one CTA of -t threads per PE calls shmemx_sync_all_block()
 *   -s all     each in turn
 * Checked after the timed loop: in each of 64 rounds every PE writes the round number into a slot of every
 * other PE with shmem_uint64_p, completes them with shmem_quiet, passes the sync, and must find every
 * peer's number in its own slots (sync_all orders what was complete before it). Reference in the same run (thread
 * scope): a barrier written by hand through the device shmem_ptr mappings (fence, a flag store into every peer, a spin
 * on plain loads until every flag has arrived).
 *
 * Usage: sync_latency [-s thread] [-t 1024] [-n 1000] [-w 100] [-r 11]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

enum Scope { kThread = 0, kWarp = 1, kBlock = 2, kAll = 3 };
const char *const kScopes[] = {"thread", "warp", "block", "all", nullptr};
const char *const kCalls[] = {"shmem_sync_all", "shmemx_sync_all_warp", "shmemx_sync_all_block"};
constexpr int kCheckRounds = 64;

template <int S>
__device__ inline void barrier() {
  if constexpr (S == kThread)
    nvshmem_sync_all();
  else if constexpr (S == kWarp)
    nvshmemx_sync_all_warp();
  else
    nvshmemx_sync_all_block();
}

/* slots: symmetric [2][npes]; round j uses row j % 2, which nobody writes again before every PE has passed
   barrier j + 1, i.e. after this PE's check of round j. */
template <int S>
__global__ void sync_kernel(uint64_t *slots, int me, int npes, int warm, int iters, int reps, unsigned long long *ns,
                            unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, threadIdx.x == 0 ? ns : nullptr, [&](long long) { barrier<S>(); });
  for (int j = 1; j <= kCheckRounds; ++j) {
    uint64_t *row = slots + (j % 2) * npes;
    if (threadIdx.x == 0)
      for (int pe = 0; pe < npes; ++pe)
        if (pe != me) nvshmem_uint64_p(&row[me], static_cast<uint64_t>(j), pe);
    if (threadIdx.x == 0) nvshmem_quiet(); /* sync_all does not complete puts: the check does it first */
    barrier<S>();
    if (threadIdx.x == 0)
      for (int pe = 0; pe < npes; ++pe)
        if (pe != me && *reinterpret_cast<volatile uint64_t *>(&row[pe]) != static_cast<uint64_t>(j)) ++*bad;
  }
}

/* The reference: flags[pe] on every PE counts PE pe's arrivals; peer_flags[pe] is PE pe's flag array
   through the peer mapping. A PE can be at most one barrier ahead, so waiting for "at least k" is right. */
__global__ void raw_sync_kernel(uint64_t *const *peer_flags, uint64_t *flags, int me, int npes, int warm, int iters,
                                int reps, unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t v = static_cast<uint64_t>(k) + 1;
    __threadfence_system(); /* what this PE wrote before the barrier is visible before it arrives */
    for (int pe = 0; pe < npes; ++pe)
      if (pe != me) *reinterpret_cast<volatile uint64_t *>(&peer_flags[pe][me]) = v;
    for (int pe = 0; pe < npes; ++pe)
      if (pe != me) perf_raw_wait(&flags[pe], v, me);
  });
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.threads = 1024;
  perf_parse_args(argc, argv, "stnwr", "  -s: thread (default), warp, block, all", &a);
  const int pick = perf_choose(argv[0], 's', a.scope, kScopes);
  perf_session s = perf_start("sync_latency", 2);

  const size_t n = static_cast<size_t>(s.npes);
  uint64_t *slots = static_cast<uint64_t *>(nvshmem_malloc(2 * n * sizeof(uint64_t)));
  uint64_t *flags = static_cast<uint64_t *>(nvshmem_malloc(n * sizeof(uint64_t)));
  unsigned long long *ns = nullptr, *bad = nullptr;
  uint64_t **peer_flags = nullptr;
  /* pinned, not managed: no page fault when the kernel first writes them */
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns));
  PERF_CUDA_CHECK(cudaMallocHost(&bad, sizeof *bad));
  PERF_CUDA_CHECK(cudaMallocManaged(&peer_flags, n * sizeof *peer_flags));
  long long unreachable = 0;
  for (int pe = 0; pe < s.npes; ++pe) {
    peer_flags[pe] = static_cast<uint64_t *>(perf_peer_ptr(flags, pe));
    if (peer_flags[pe] == nullptr) ++unreachable;
  }
  const bool raw_ok = perf_job_sum(s, unreachable) == 0;

  /* Collective: slots, flags and the error counter back to zero on every PE. */
  auto reset = [&] {
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_sync_all();
    PERF_CUDA_CHECK(cudaMemset(slots, 0, 2 * n * sizeof(uint64_t)));
    PERF_CUDA_CHECK(cudaMemset(flags, 0, n * sizeof(uint64_t)));
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    *bad = 0;
    nvshmem_sync_all();
    perf_spin_up(s.stream, a.spin_up_ms); /* ahead of the timed kernel the caller enqueues next */
  };
  auto finish = [&] {
    PERF_CUDA_CHECK(cudaGetLastError());
    PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
  };

  if (s.me == 0) {
    if (!raw_ok) std::printf("# not every PE is load/store reachable from every other: no raw column\n");
    std::printf(
        "# sync_latency: %d PEs, device sync over all PEs, %d syncs (+%d warm-up), median "
        "[min,max] of %d repeats\n",
        s.npes, a.iters, a.warmup, a.repeats);
    std::printf("%-4s %-7s %-8s %-26s %-26s %-10s %-8s %-5s\n", "PEs", "scope", "threads", "call", "lat(us) [min,max]",
                "raw(us)", "lat/raw", "check");
  }
  perf_stat raw;
  if (raw_ok) {
    reset();
    raw_sync_kernel<<<1, 1, 0, s.stream>>>(peer_flags, flags, s.me, s.npes, a.warmup, a.iters, a.repeats, ns);
    raw = finish();
  }
  for (int sc = kThread; sc <= kBlock; ++sc) {
    if (pick != kAll && pick != sc) continue;
    const int threads = sc == kThread ? 1 : sc == kWarp ? 32 : a.threads;
    reset();
    if (sc == kThread)
      sync_kernel<kThread><<<1, threads, 0, s.stream>>>(slots, s.me, s.npes, a.warmup, a.iters, a.repeats, ns, bad);
    if (sc == kWarp)
      sync_kernel<kWarp><<<1, threads, 0, s.stream>>>(slots, s.me, s.npes, a.warmup, a.iters, a.repeats, ns, bad);
    if (sc == kBlock)
      sync_kernel<kBlock><<<1, threads, 0, s.stream>>>(slots, s.me, s.npes, a.warmup, a.iters, a.repeats, ns, bad);
    const perf_stat lat = finish();
    if (*bad != 0)
      std::fprintf(stderr, "PE %d: %s: %llu of %d rounds found a peer's put missing after the sync\n", s.me, kCalls[sc],
                   *bad, kCheckRounds * (s.npes - 1));
    const long long job_bad = perf_job_errors(s, static_cast<long long>(*bad));
    const perf_stat ref = sc == kThread ? raw : perf_stat{};
    if (s.me == 0) {
      std::printf("%-4d %-7s %-8d %-26s %-26s %-10s %-8s %-5s\n", s.npes, kScopes[sc], threads, kCalls[sc],
                  perf_cell(lat).c_str(), perf_median_cell(ref).c_str(), perf_ratio_cell(lat, ref).c_str(),
                  job_bad ? "FAIL" : "ok");
      perf_json("sync_latency")
          .str("scope", kScopes[sc])
          .integer("threads", threads)
          .str("call", kCalls[sc])
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_barrier_us", ref)
          .ratio("ratio_to_raw", lat, ref)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  PERF_CUDA_CHECK(cudaFreeHost(bad));
  PERF_CUDA_CHECK(cudaFree(peer_flags));
  nvshmem_free(flags);
  nvshmem_free(slots);
  return perf_finish(s);
}
