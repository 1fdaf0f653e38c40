/*
 * The body of the device collective programs (bcast_latency, fcollect_latency, alltoall_latency,
 * reduction_latency): every PE runs one kernel that calls the team collective on SHMEM_TEAM_WORLD in a
 * loop; microseconds per collective on PE 0's GPU clock (timed inside the kernel).
 *   -s thread  one thread per PE: shmem_broadcastmem / fcollectmem / alltoallmem / shmem_TYPE_OP_reduce
 *   -s warp    one warp per PE: the shmemx_*_warp forms;   -s block: one CTA of -t threads, shmemx_*_block
 *   size: bytes per PE (broadcast and reduction payload; each fcollect / alltoall block)
 *   reduction: -d int | long | float | double (default int), -o sum | prod | min | max (default sum)
 * Columns as the host collectives: size, count, type, op, latency, the reference, their ratio, algbw,
 * busbw (NCCL's conventions, see docs/perftest.md). Reference in the same run (-s thread): the same data
 * movement written by hand through the device shmem_ptr of every PE's buffers (stores into the peers'
 * dest, or loads of the peers' sources for the reduction), a system fence and a flag barrier.
 * Checks after the run, on every PE: every byte (every element) of dest against what the collective must
 * leave there.
 */
#ifndef GPUSHMEM_PERF_COLL_LATENCY_CUH
#define GPUSHMEM_PERF_COLL_LATENCY_CUH

#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"
#include "perf_shmem.h"

namespace perf_coll_latency {

enum Kind { kBcast, kFcollect, kAlltoall, kReduce };
enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };
const char *const kScopes[] = {"thread", "warp", "block", nullptr};
const char *const kTypes[] = {"int", "long", "float", "double", nullptr};
const char *const kOps[] = {"sum", "prod", "min", "max", nullptr};
const char *const kBench[] = {"bcast_latency", "fcollect_latency", "alltoall_latency", "reduction_latency"};

/* The reductions by scope, type and operator. */
#define PERF_COLL_RED(T, N, OP)                                          \
  __device__ inline void red_##OP(int s, T *d, const T *src, size_t n) { \
    if (s == kBlock)                                                     \
      shmemx_##N##_##OP##_reduce_block(SHMEM_TEAM_WORLD, d, src, n);     \
    else if (s == kWarp)                                                 \
      shmemx_##N##_##OP##_reduce_warp(SHMEM_TEAM_WORLD, d, src, n);      \
    else                                                                 \
      shmem_##N##_##OP##_reduce(SHMEM_TEAM_WORLD, d, src, n);            \
  }
#define PERF_COLL_RED_TYPE(T, N) \
  PERF_COLL_RED(T, N, sum) PERF_COLL_RED(T, N, prod) PERF_COLL_RED(T, N, min) PERF_COLL_RED(T, N, max)
PERF_COLL_RED_TYPE(int, int)
PERF_COLL_RED_TYPE(long, long)
PERF_COLL_RED_TYPE(float, float)
PERF_COLL_RED_TYPE(double, double)
#undef PERF_COLL_RED_TYPE
#undef PERF_COLL_RED

/* PE p's input element i: small whole numbers, so every operator's result is exact in every type. */
__host__ __device__ inline long red_input(int op, int pe, size_t i) {
  if (op == 1) return static_cast<long>((i + static_cast<size_t>(pe)) % 3) + 1;
  return static_cast<long>((i * 7 + static_cast<size_t>(pe) * 3) % 5) + 1;
}
__host__ __device__ inline long red_fold(int op, long a, long b) {
  return op == 0 ? a + b : op == 1 ? a * b : op == 2 ? (a < b ? a : b) : (a > b ? a : b);
}

template <class T>
__global__ void red_fill_kernel(T *src, size_t n, int op, int me) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    src[i] = static_cast<T>(red_input(op, me, i));
}

template <int K, int S, class T, int O>
__device__ inline void coll_call(char *dest, const char *src, size_t size, int root) {
  if constexpr (K == kBcast) {
    if constexpr (S == kBlock)
      shmemx_broadcastmem_block(SHMEM_TEAM_WORLD, dest, src, size, root);
    else if constexpr (S == kWarp)
      shmemx_broadcastmem_warp(SHMEM_TEAM_WORLD, dest, src, size, root);
    else
      shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, src, size, root);
  } else if constexpr (K == kFcollect) {
    if constexpr (S == kBlock)
      shmemx_fcollectmem_block(SHMEM_TEAM_WORLD, dest, src, size);
    else if constexpr (S == kWarp)
      shmemx_fcollectmem_warp(SHMEM_TEAM_WORLD, dest, src, size);
    else
      shmem_fcollectmem(SHMEM_TEAM_WORLD, dest, src, size);
  } else if constexpr (K == kAlltoall) {
    if constexpr (S == kBlock)
      shmemx_alltoallmem_block(SHMEM_TEAM_WORLD, dest, src, size);
    else if constexpr (S == kWarp)
      shmemx_alltoallmem_warp(SHMEM_TEAM_WORLD, dest, src, size);
    else
      shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, src, size);
  } else {
    T *d = reinterpret_cast<T *>(dest);
    const T *s = reinterpret_cast<const T *>(src);
    const size_t n = size / sizeof(T);
    if constexpr (O == 0) red_sum(S, d, s, n);
    if constexpr (O == 1) red_prod(S, d, s, n);
    if constexpr (O == 2) red_min(S, d, s, n);
    if constexpr (O == 3) red_max(S, d, s, n);
  }
}

template <int K, int S, class T, int O>
__global__ void coll_kernel(char *dest, const char *src, size_t size, int warm, int iters, int reps,
                            unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, threadIdx.x == 0 ? ns : nullptr,
                  [&](long long) { coll_call<K, S, T, O>(dest, src, size, 0); });
}

/* The reference's pieces: a copy through a peer mapping, and the flag barrier of barrier_latency. */
__device__ inline void raw_copy(char *d, const char *s, size_t n) {
  if (n % 8 == 0 && reinterpret_cast<uintptr_t>(d) % 8 == 0 && reinterpret_cast<uintptr_t>(s) % 8 == 0) {
    for (size_t w = 0; w < n / 8; ++w)
      reinterpret_cast<volatile uint64_t *>(d)[w] = reinterpret_cast<const uint64_t *>(s)[w];
  } else {
    for (size_t b = 0; b < n; ++b) reinterpret_cast<volatile char *>(d)[b] = s[b];
  }
}
__device__ inline void raw_barrier(uint64_t *const *peer_flags, uint64_t *flags, int me, int npes, uint64_t v) {
  __threadfence_system();
  for (int pe = 0; pe < npes; ++pe)
    if (pe != me) *reinterpret_cast<volatile uint64_t *>(&peer_flags[pe][me]) = v;
  for (int pe = 0; pe < npes; ++pe)
    if (pe != me) perf_raw_wait(&flags[pe], v, me);
}

template <int K, class T, int O>
__global__ void raw_kernel(char *const *peer_dest, char *const *peer_src, uint64_t *const *peer_flags, uint64_t *flags,
                           char *dest, const char *src, size_t size, int me, int npes, int warm, int iters, int reps,
                           unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, ns, [&](long long k) {
    if constexpr (K == kBcast) {
      if (me == 0)
        for (int pe = 0; pe < npes; ++pe) raw_copy(peer_dest[pe], src, size);
    } else if constexpr (K == kFcollect) {
      for (int pe = 0; pe < npes; ++pe) raw_copy(peer_dest[pe] + static_cast<size_t>(me) * size, src, size);
    } else if constexpr (K == kAlltoall) {
      for (int pe = 0; pe < npes; ++pe)
        raw_copy(peer_dest[pe] + static_cast<size_t>(me) * size, src + static_cast<size_t>(pe) * size, size);
    } else {
      const size_t n = size / sizeof(T);
      T *d = reinterpret_cast<T *>(dest);
      for (size_t i = 0; i < n; ++i) {
        T acc = reinterpret_cast<const volatile T *>(peer_src[0])[i];
        for (int pe = 1; pe < npes; ++pe) {
          const T v = reinterpret_cast<const volatile T *>(peer_src[pe])[i];
          acc = O == 0 ? acc + v : O == 1 ? acc * v : O == 2 ? (v < acc ? v : acc) : (v > acc ? v : acc);
        }
        d[i] = acc;
      }
    }
    raw_barrier(peer_flags, flags, me, npes, static_cast<uint64_t>(k) + 1);
  });
}

/* f(T{}, std::integral_constant<int, O>{}) for the run-time type and operator; only the reduction has more
   than one (the others instantiate int / sum alone). */
template <int K, class F>
inline void dispatch_type_op(int type, int op, F &&f) {
  if constexpr (K != kReduce) {
    (void)type;
    (void)op;
    f(int{}, std::integral_constant<int, 0>{});
    return;
  }
  auto with_op = [&](auto tag) {
    using T = decltype(tag);
    if (op == 0) f(tag, std::integral_constant<int, 0>{});
    if (op == 1) f(tag, std::integral_constant<int, 1>{});
    if (op == 2) f(tag, std::integral_constant<int, 2>{});
    if (op == 3) f(tag, std::integral_constant<int, 3>{});
    (void)sizeof(T);
  };
  if (type == 0) with_op(int{});
  if (type == 1) with_op(long{});
  if (type == 2) with_op(float{});
  if (type == 3) with_op(double{});
}

template <int K>
inline int run(int argc, char **argv) {
  constexpr int kind = K;
  const char *const bench = kBench[kind];
  perf_args a;
  a.min_bytes = kind == kReduce ? 4 : 8;
  a.max_bytes = 1 << 20;
  a.iters = 100;
  a.warmup = 10;
  a.threads = 1024;
  a.type = "int";
  a.reduce_op = "sum";
  perf_parse_args(argc, argv, kind == kReduce ? "befnwrstdo" : "befnwrst",
                  kind == kReduce ? "  -s: thread (default), warp, block\n  -d: int (default), long, float, double\n"
                                    "  -o: sum (default), prod, min, max"
                                  : "  -s: thread (default), warp, block",
                  &a);
  const int scope = perf_choose(argv[0], 's', a.scope, kScopes);
  const int type = kind == kReduce ? perf_choose(argv[0], 'd', a.type, kTypes) : 0;
  const int op = kind == kReduce ? perf_choose(argv[0], 'o', a.reduce_op, kOps) : 0;
  const size_t tsize = type == 0 ? sizeof(int) : type == 1 ? sizeof(long) : type == 2 ? sizeof(float) : sizeof(double);
  perf_session s = perf_start(bench, 1);
  const size_t n = static_cast<size_t>(s.npes);
  const size_t blocks = kind == kFcollect || kind == kAlltoall ? n : 1;
  char *dest = static_cast<char *>(shmem_malloc(a.max_bytes * blocks));
  char *src = static_cast<char *>(shmem_malloc(a.max_bytes * (kind == kAlltoall ? n : 1)));
  uint64_t *flags = static_cast<uint64_t *>(shmem_malloc(n * sizeof(uint64_t)));
  if (dest == nullptr || src == nullptr || flags == nullptr) {
    std::fprintf(stderr, "%s: PE %d: shmem_malloc failed (raise SHMEM_SYMMETRIC_SIZE)\n", bench, s.me);
    perf_die(1);
  }
  unsigned long long *ns = nullptr;
  char **peer_dest = nullptr, **peer_src = nullptr;
  uint64_t **peer_flags = nullptr;
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns)); /* pinned: no page faults */
  PERF_CUDA_CHECK(cudaMallocManaged(&peer_dest, n * sizeof *peer_dest));
  PERF_CUDA_CHECK(cudaMallocManaged(&peer_src, n * sizeof *peer_src));
  PERF_CUDA_CHECK(cudaMallocManaged(&peer_flags, n * sizeof *peer_flags));
  long long unreachable = 0;
  for (int pe = 0; pe < s.npes; ++pe) {
    peer_dest[pe] = static_cast<char *>(perf_peer_ptr(dest, pe));
    peer_src[pe] = static_cast<char *>(perf_peer_ptr(src, pe));
    peer_flags[pe] = static_cast<uint64_t *>(perf_peer_ptr(flags, pe));
    if (peer_dest[pe] == nullptr || peer_src[pe] == nullptr || peer_flags[pe] == nullptr) ++unreachable;
  }
  const bool raw_ok = perf_job_sum(s, unreachable) == 0 && scope == kThread;
  const int threads = scope == kThread ? 1 : scope == kWarp ? 32 : a.threads;
  if (s.me == 0) {
    std::printf(
        "# %s: %d PEs, SHMEM_TEAM_WORLD, %s scope (%d threads), %d collectives (+%d warm-up), median [min,max] of "
        "%d repeats%s\n",
        bench, s.npes, a.scope, threads, a.iters, a.warmup, a.repeats,
        raw_ok ? "" : "; no raw column (-s warp/block, or a PE not load/store reachable)");
    std::printf("%-10s %-8s %-7s %-10s %-26s %-10s %-8s %-11s %-11s %-5s\n", "size(B)", "count", "type", "op",
                "lat(us) [min,max]", "raw(us)", "lat/raw", "algbw(GB/s)", "busbw(GB/s)", "check");
  }
  for (size_t size = a.min_bytes; size != 0; size = perf_next_size(&a, size)) {
    if (kind == kReduce && size % tsize != 0) continue;
    const uint32_t seed = static_cast<uint32_t>(size) * 13u + static_cast<uint32_t>(kind);
    /* sources: the pattern of this PE (alltoall: one per destination block), the reduction's inputs */
    if (kind == kAlltoall) {
      for (size_t q = 0; q < n; ++q)
        perf_fill(src + q * size, size, seed + static_cast<uint32_t>(s.me * s.npes + static_cast<int>(q)));
    } else if (kind == kReduce) {
      dispatch_type_op<K>(type, op, [&](auto tag, auto) {
        using T = decltype(tag);
        red_fill_kernel<T><<<64, 256>>>(reinterpret_cast<T *>(src), size / sizeof(T), op, s.me);
      });
      PERF_CUDA_CHECK(cudaGetLastError());
    } else {
      perf_fill(src, size, seed + static_cast<uint32_t>(s.me));
    }
    auto clear = [&] {
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      shmem_barrier_all();
      PERF_CUDA_CHECK(cudaMemset(dest, 0, size * blocks));
      PERF_CUDA_CHECK(cudaMemset(flags, 0, n * sizeof(uint64_t)));
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      shmem_barrier_all();
      perf_spin_up(s.stream, a.spin_up_ms);
    };
    auto finish = [&] {
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      return s.me == 0 ? perf_summarize(perf_window_us(ns, a.repeats, a.iters)) : perf_stat{};
    };
    perf_stat lat, raw;
    dispatch_type_op<K>(type, op, [&](auto tag, auto oc) {
      using T = decltype(tag);
      constexpr int O = decltype(oc)::value;
      if (raw_ok) {
        clear();
#define PERF_RAW(K)                                                                                                 \
  raw_kernel<K, T, O><<<1, 1, 0, s.stream>>>(peer_dest, peer_src, peer_flags, flags, dest, src, size, s.me, s.npes, \
                                             a.warmup, a.iters, a.repeats, ns);
        PERF_RAW(K)
#undef PERF_RAW
        raw = finish();
      }
      clear(); /* the reference left the same results: only the library's count */
#define PERF_LIB(K, S) \
  coll_kernel<K, S, T, O><<<1, threads, 0, s.stream>>>(dest, src, size, a.warmup, a.iters, a.repeats, ns);
#define PERF_LIB_SCOPES(K)                   \
  if (scope == kThread) PERF_LIB(K, kThread) \
  if (scope == kWarp) PERF_LIB(K, kWarp)     \
  if (scope == kBlock) PERF_LIB(K, kBlock)
      PERF_LIB_SCOPES(K)
#undef PERF_LIB_SCOPES
#undef PERF_LIB
      lat = finish();
    });
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();
    long long bad = 0;
    if (kind == kBcast) {
      bad = perf_check(dest, size, seed + 0u, "broadcast destination (root PE 0)");
    } else if (kind == kFcollect || kind == kAlltoall) {
      for (int pe = 0; pe < s.npes; ++pe) {
        char what[64];
        std::snprintf(what, sizeof what, "%s block from PE %d", kind == kFcollect ? "fcollect" : "alltoall", pe);
        const uint32_t sd =
            kind == kFcollect ? seed + static_cast<uint32_t>(pe) : seed + static_cast<uint32_t>(pe * s.npes + s.me);
        bad += perf_check(dest + static_cast<size_t>(pe) * size, size, sd, what);
      }
    } else {
      dispatch_type_op<K>(type, op, [&](auto tag, auto) {
        using T = decltype(tag);
        const size_t count = size / sizeof(T);
        std::vector<T> got(count);
        PERF_CUDA_CHECK(cudaMemcpy(got.data(), dest, size, cudaMemcpyDeviceToHost));
        size_t first = 0;
        for (size_t i = 0; i < count; ++i) {
          long want = red_input(op, 0, i);
          for (int pe = 1; pe < s.npes; ++pe) want = red_fold(op, want, red_input(op, pe, i));
          if (got[i] != static_cast<T>(want) && bad++ == 0) first = i;
        }
        if (bad != 0)
          std::fprintf(stderr, "PE %d: %s %s reduction of %zu elements: %lld wrong; first at element %zu (got %g)\n",
                       s.me, kTypes[type], kOps[op], count, bad, first, static_cast<double>(got[first]));
      });
    }
    const long long job_bad = perf_job_errors(s, bad);
    if (s.me == 0) {
      const size_t count = kind == kReduce ? size / tsize : size;
      double algbw = 0, busbw = 0;
      if (lat.valid && lat.median > 0) {
        const double moved = kind == kFcollect || kind == kAlltoall ? static_cast<double>(size) * n : size;
        algbw = moved / (lat.median * 1e3);
        busbw = kind == kReduce ? algbw * 2.0 * (n - 1) / n : kind == kBcast ? algbw : algbw * (n - 1) / n;
      }
      const char *tname = kind == kReduce ? kTypes[type] : "byte";
      const char *oname = kind == kReduce     ? kOps[op]
                          : kind == kBcast    ? "broadcast"
                          : kind == kFcollect ? "fcollect"
                                              : "alltoall";
      std::printf("%-10zu %-8zu %-7s %-10s %-26s %-10s %-8s %-11.3f %-11.3f %-5s\n", size, count, tname, oname,
                  perf_cell(lat).c_str(), perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(), algbw,
                  busbw, job_bad ? "FAIL" : "ok");
      perf_json(bench)
          .integer("npes", s.npes)
          .integer("size", static_cast<long long>(size))
          .integer("count", static_cast<long long>(count))
          .str("type", tname)
          .str("op", oname)
          .str("scope", a.scope)
          .integer("threads", threads)
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .number("algbw_GBps", algbw)
          .number("busbw_GBps", busbw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  PERF_CUDA_CHECK(cudaFree(peer_dest));
  PERF_CUDA_CHECK(cudaFree(peer_src));
  PERF_CUDA_CHECK(cudaFree(peer_flags));
  shmem_free(flags);
  shmem_free(src);
  shmem_free(dest);
  return perf_finish(s);
}

}  // namespace perf_coll_latency

#endif /* GPUSHMEM_PERF_COLL_LATENCY_CUH */
