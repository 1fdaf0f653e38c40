/*
 * The host side of a ping-pong between PE 0 and PE 1 (each runs one kernel; PE 0's timed windows give the
 * round-trip time); the raw reference's flag wait is perf_raw_wait in perf_cuda.cuh.
 */
#ifndef GPUSHMEM_PERF_PINGPONG_CUH
#define GPUSHMEM_PERF_PINGPONG_CUH

#include <cuda_runtime.h>
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

struct perf_pingpong {
  int peer = -1;                     /* the other PE of the pair; -1 on PEs 2 and up, which only wait */
  uint64_t *sig = nullptr;           /* symmetric signal word, one per PE */
  uint64_t *peer_sig = nullptr;      /* the peer's signal word through the device shmem_ptr (raw reference) */
  bool raw_ok = false;               /* PE 0 and PE 1 both reach each other by load/store */
  unsigned long long *ns = nullptr;  /* [repeats] window times, host-readable */
  unsigned long long *bad = nullptr; /* wrong values the kernel saw, host-readable */
};

/* Collective. */
inline perf_pingpong perf_pingpong_setup(perf_session &s, const perf_args &a) {
  perf_pingpong p;
  p.peer = s.me < 2 ? 1 - s.me : -1;
  p.sig = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t)));
  /* pinned host memory, not managed: a kernel's first store to a managed page that the host touched last
     is a page fault and a migration in the middle of the timed loop */
  PERF_CUDA_CHECK(cudaMallocHost(&p.ns, static_cast<size_t>(a.repeats) * sizeof *p.ns));
  PERF_CUDA_CHECK(cudaMallocHost(&p.bad, sizeof *p.bad));
  if (p.peer >= 0) p.peer_sig = static_cast<uint64_t *>(perf_peer_ptr(p.sig, p.peer));
  const long long unreachable = p.peer >= 0 && p.peer_sig == nullptr ? 1 : 0;
  p.raw_ok = perf_job_sum(s, unreachable) == 0;
  if (s.me == 0 && !p.raw_ok)
    std::printf("# PE 0 and PE 1 are not load/store reachable from each other: no raw reference column\n");
  return p;
}

/* Collective: zeroes the signal word and `n` bytes at `data` (may be NULL) on every PE, and the kernel's
   error counter, so the next run starts from 0 everywhere. */
inline void perf_pingpong_reset(perf_pingpong &p, void *data, size_t n) {
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all(); /* every PE is done with the previous run before anything is cleared */
  PERF_CUDA_CHECK(cudaMemset(p.sig, 0, sizeof *p.sig));
  if (data != nullptr) PERF_CUDA_CHECK(cudaMemset(data, 0, n));
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  *p.bad = 0;
  nvshmem_barrier_all();
}

/* Collective: runs `launch` (which enqueues one kernel on s.stream) on PE 0 and PE 1, after the -W spin-up,
   and waits for it.
   Returns PE 0's microseconds per round trip (an invalid stat on the other PEs). */
template <class Launch>
perf_stat perf_pingpong_run(perf_session &s, perf_pingpong &p, const perf_args &a, Launch &&launch) {
  perf_stat rtt;
  if (p.peer >= 0) {
    perf_spin_up(s.stream, a.spin_up_ms);
    launch();
    PERF_CUDA_CHECK(cudaGetLastError());
    PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    if (s.me == 0) rtt = perf_summarize(perf_window_us(p.ns, a.repeats, a.iters));
  }
  nvshmem_barrier_all();
  return rtt;
}

inline void perf_pingpong_free(perf_pingpong &p) {
  PERF_CUDA_CHECK(cudaFreeHost(p.ns));
  PERF_CUDA_CHECK(cudaFreeHost(p.bad));
  nvshmem_free(p.sig);
}

#endif /* GPUSHMEM_PERF_PINGPONG_CUH */
