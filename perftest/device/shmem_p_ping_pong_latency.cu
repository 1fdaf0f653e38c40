/*
 * shmem_p_ping_pong_latency: PE 0 <-> PE 1 round trip of one word, one thread each: shmem_uint64_p of the
 * iteration number into the peer's flag, the peer waits for it with shmem_uint64_wait_until and answers
 * the same way. Microseconds per round trip (PE 0's clock).
 * Reference in the same run: a flag store through shmem_ptr and a spin on plain loads. Checks: every wait
 * saw exactly the value it waited for.
 *
 * Usage: shmem_p_ping_pong_latency [-n 1000] [-w 100] [-r 11] [--json FILE]
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

__global__ void p_pingpong_kernel(uint64_t *sig, int me, int peer, int warm, int iters, int reps,
                                  unsigned long long *ns, unsigned long long *bad) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t v = static_cast<uint64_t>(k) + 1;
    if (me == 0) nvshmem_uint64_p(sig, v, peer);
    nvshmem_uint64_wait_until(sig, NVSHMEM_CMP_GE, v);
    if (*reinterpret_cast<volatile uint64_t *>(sig) != v) ++*bad;
    if (me == 1) nvshmem_uint64_p(sig, v, peer);
  });
  nvshmem_quiet();
}

__global__ void raw_kernel(uint64_t *peer_sig, uint64_t *my_sig, int me, int warm, int iters, int reps,
                           unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    const uint64_t v = static_cast<uint64_t>(k) + 1;
    if (me == 0) *reinterpret_cast<volatile uint64_t *>(peer_sig) = v;
    perf_raw_wait(my_sig, v, me);
    if (me == 1) *reinterpret_cast<volatile uint64_t *>(peer_sig) = v;
  });
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  perf_parse_args(argc, argv, "nwr", nullptr, &a);
  perf_session s = perf_start("shmem_p_ping_pong_latency", 2);
  perf_pingpong p = perf_pingpong_setup(s, a);
  if (s.me == 0) {
    std::printf(
        "# shmem_p_ping_pong_latency: PE 0 <-> PE 1, one thread each, shmem_uint64_p + shmem_uint64_wait_until, %d "
        "round trips (+%d warm-up), median [min,max] of %d repeats\n",
        a.iters, a.warmup, a.repeats);
    std::printf("%-8s %-7s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "rtt(us) [min,max]", "raw(us)", "rtt/raw",
                "check");
  }
  perf_stat rtt, raw;
  if (p.raw_ok) {
    perf_pingpong_reset(p, nullptr, 0);
    raw = perf_pingpong_run(s, p, a, [&] {
      raw_kernel<<<1, 1, 0, s.stream>>>(p.peer_sig, p.sig, s.me, a.warmup, a.iters, a.repeats, p.ns);
    });
  }
  perf_pingpong_reset(p, nullptr, 0);
  rtt = perf_pingpong_run(s, p, a, [&] {
    p_pingpong_kernel<<<1, 1, 0, s.stream>>>(p.sig, s.me, p.peer, a.warmup, a.iters, a.repeats, p.ns, p.bad);
  });
  long long bad = 0;
  if (p.peer >= 0 && *p.bad != 0) {
    std::fprintf(stderr, "PE %d: the flag held a value other than the one waited for %llu times\n", s.me, *p.bad);
    bad = static_cast<long long>(*p.bad);
  }
  const long long job_bad = perf_job_errors(s, bad);
  if (s.me == 0) {
    std::printf("%-8zu %-7s %-26s %-10s %-8s %-5s\n", sizeof(uint64_t), "thread", perf_cell(rtt).c_str(),
                perf_median_cell(raw).c_str(), perf_ratio_cell(rtt, raw).c_str(), job_bad ? "FAIL" : "ok");
    perf_json("shmem_p_ping_pong_latency")
        .integer("size", static_cast<long long>(sizeof(uint64_t)))
        .str("scope", "thread")
        .integer("iters", a.iters)
        .integer("repeats", a.repeats)
        .stat("rtt_us", rtt)
        .stat("raw_rtt_us", raw)
        .ratio("ratio_to_raw", rtt, raw)
        .str("check", job_bad ? "FAIL" : "ok")
        .print();
  }
  perf_pingpong_free(p);
  return perf_finish(s);
}
