/*
 * shmem_put_signal_ping_pong_latency: round trip of a put-with-signal between PE 0 and PE 1, one GPU
 * thread each, inside one kernel per PE. Iteration k: PE 0 does shmem_putmem_signal(SIZE bytes, signal
 * SET k) to PE 1 and waits with shmem_signal_wait_until(EQ k) for PE 1's answer, which PE 1 sends (the
 * same put_signal back) once it has seen k. Microseconds per round trip, timed on PE 0 with the GPU clock.
 * Reference in the same run: the same exchange written by hand through the device shmem_ptr mappings
 * (SIZE bytes stored 8 at a time, __threadfence_system, the flag stored; the wait spins on plain loads).
 * Each PE checks the payload it received from the other and every signal value it waited for.
 *
 * Usage: shmem_put_signal_ping_pong_latency [-b 8] [-e 4096] [-n 1000] [-w 100] [-r 11]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_pingpong.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

__global__ void put_signal_kernel(char *data, const char *src, size_t size, uint64_t *sig, int me, int peer, int warm,
                                  int iters, int reps, unsigned long long *ns, unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t v = static_cast<uint64_t>(k) + 1;
    if (me == 0) nvshmem_putmem_signal(data, src, size, sig, v, NVSHMEM_SIGNAL_SET, peer);
    if (nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, v) != v) ++*bad;
    if (me == 1) nvshmem_putmem_signal(data, src, size, sig, v, NVSHMEM_SIGNAL_SET, peer);
  });
}

/* The reference: payload stores, a system-scope fence (payload visible before the flag), the flag store. */
__global__ void raw_kernel(char *peer_data, const char *src, size_t size, uint64_t *peer_sig, uint64_t *my_sig, int me,
                           int warm, int iters, int reps, unsigned long long *ns) {
  auto send = [&](uint64_t v) {
    const size_t words = size / 8;
    for (size_t i = 0; i < words; ++i)
      reinterpret_cast<volatile uint64_t *>(peer_data)[i] = reinterpret_cast<const uint64_t *>(src)[i];
    for (size_t b = words * 8; b < size; ++b) peer_data[b] = src[b];
    __threadfence_system();
    *reinterpret_cast<volatile uint64_t *>(peer_sig) = v;
  };
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t v = static_cast<uint64_t>(k) + 1;
    if (me == 0) send(v);
    perf_raw_wait(my_sig, v, me);
    if (me == 1) send(v);
  });
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.min_bytes = 8;
  a.max_bytes = 4096;
  perf_parse_args(argc, argv, "befnwr", nullptr, &a);
  perf_session s = perf_start("shmem_put_signal_ping_pong_latency", 2);
  perf_pingpong p = perf_pingpong_setup(s, a);

  char *data = static_cast<char *>(nvshmem_malloc(a.max_bytes));
  char *src = nullptr;
  PERF_CUDA_CHECK(cudaMalloc(&src, a.max_bytes));
  char *peer_data = p.raw_ok && p.peer >= 0 ? static_cast<char *>(perf_peer_ptr(data, p.peer)) : nullptr;
  if (s.me == 0) {
    std::printf(
        "# shmem_put_signal_ping_pong_latency: PE 0 <-> PE 1, one thread each, shmem_putmem_signal "
        "(SIGNAL_SET) + shmem_signal_wait_until, %d round trips (+%d warm-up), median [min,max] of %d "
        "repeats\n",
        a.iters, a.warmup, a.repeats);
    std::printf("%-8s %-7s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "rtt(us) [min,max]", "raw(us)", "rtt/raw",
                "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    const uint32_t seed = static_cast<uint32_t>(size) * 8 + 1;
    if (p.peer >= 0) perf_fill(src, size, seed + static_cast<uint32_t>(s.me));
    perf_stat rtt, raw;
    if (p.raw_ok) {
      perf_pingpong_reset(p, data, size);
      raw = perf_pingpong_run(s, p, a, [&] {
        raw_kernel<<<1, 1, 0, s.stream>>>(peer_data, src, size, p.peer_sig, p.sig, s.me, a.warmup, a.iters, a.repeats,
                                          p.ns);
      });
    }
    perf_pingpong_reset(p, data, size); /* the reference delivered the same payload: clear it */
    rtt = perf_pingpong_run(s, p, a, [&] {
      put_signal_kernel<<<1, 1, 0, s.stream>>>(data, src, size, p.sig, s.me, p.peer, a.warmup, a.iters, a.repeats, p.ns,
                                               p.bad);
    });
    long long bad = 0;
    if (p.peer >= 0) {
      if (*p.bad != 0) {
        std::fprintf(stderr,
                     "PE %d: shmem_signal_wait_until returned a value other than the one waited for %llu "
                     "times (size %zu)\n",
                     s.me, *p.bad, size);
        bad += static_cast<long long>(*p.bad);
      }
      bad += perf_check(data, size, seed + static_cast<uint32_t>(p.peer), "payload received by put_signal");
    }
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      std::printf("%-8zu %-7s %-26s %-10s %-8s %-5s\n", size, "thread", perf_cell(rtt).c_str(),
                  perf_median_cell(raw).c_str(), perf_ratio_cell(rtt, raw).c_str(), job_bad ? "FAIL" : "ok");
      perf_json("shmem_put_signal_ping_pong_latency")
          .integer("size", static_cast<long long>(size))
          .str("scope", "thread")
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("rtt_us", rtt)
          .stat("raw_rtt_us", raw)
          .ratio("ratio_to_raw", rtt, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFree(src));
  nvshmem_free(data);
  perf_pingpong_free(p);
  return perf_finish(s);
}
