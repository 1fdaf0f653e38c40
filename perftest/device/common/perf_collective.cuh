/*
 * The body of the device collective benchmarks (bcast_latency, fcollect_latency, alltoall_latency,
 * reduction_latency): one kernel per PE calls the team collective on SHMEM_TEAM_WORLD in a loop, in thread,
 * warp or block scope; microseconds per collective, timed inside the kernel on PE 0 (every collective ends
 * with a team sync, so every PE's loop runs in step). -s stream: the host enqueues the _on_stream form back to
 * back on the program's stream instead, timed with CUDA events on PE 0 (launches included).
 *
 * SIZE is the bytes of one block: what each PE contributes (bcast: the root's buffer; fcollect: each PE's
 * source; alltoall: what each PE sends to each PE; reduction: each PE's source and the result), COUNT =
 * SIZE / sizeof(TYPE) elements (sizes below one element are skipped). Bandwidths, NCCL's conventions (as the
 * host collective programs and NVSHMEM's perftest use them), GB/s = bytes / latency:
 *   bcast      algbw = SIZE / lat            busbw = algbw
 *   fcollect   algbw = npes * SIZE / lat     busbw = algbw * (npes - 1) / npes   (NCCL's allgather)
 *   alltoall   algbw = npes * SIZE / lat     busbw = algbw * (npes - 1) / npes
 *   reduction  algbw = SIZE / lat            busbw = algbw * 2 (npes - 1) / npes (NCCL's allreduce: every PE
 *                                                                                  gets the result)
 * Reference (raw, same run, same thread count as the row's scope): the same data pushed by hand through the
 * device shmem_ptr mappings (bcast: the root stores into every PE's dest; fcollect / alltoall: every PE stores
 * its blocks into every PE's dest; reduction: a flag barrier, then each PE reduces its share of the elements by
 * loading them from every PE and stores the result into every PE's dest), each followed by a flag barrier
 * (system fence, a flag store into every peer, a spin on plain loads). Only when every PE reaches every other.
 *
 * Checks, every row: every element of dest on every PE after the timed loop (sources hold pattern A), then
 * again after one more collective with a fresh pattern B (dest poisoned first, so the timed loop's data cannot
 * pass). A wrong element names the PE, the block (source PE) and the element, and the program exits 1.
 */
#ifndef GPUSHMEM_PERF_COLLECTIVE_CUH
#define GPUSHMEM_PERF_COLLECTIVE_CUH

#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace perf_collective {

enum Kind { kBcast = 0, kFcollect = 1, kAlltoall = 2, kReduce = 3 };
const char *const kBench[] = {"bcast_latency", "fcollect_latency", "alltoall_latency", "reduction_latency"};
const char *const kCallStem[] = {"broadcast", "fcollect", "alltoall", "reduce"};

/* kStream: the host-side _on_stream form (shmemx_TYPE_..._on_stream), enqueued back to back on the program's
   stream and timed with CUDA events around each window (what a stream-ordered collective costs, launch
   included); its raw reference is the block-scope one with -t threads. */
enum Scope { kThread = 0, kWarp = 1, kBlock = 2, kStream = 3, kScopeAll = 4 };
const char *const kScopes[] = {"thread", "warp", "block", "stream", "all", nullptr};

/* -d: the types every collective measures ("all": each in turn); -o: the reduction operators. The
   specification's type rules for reductions: and / or / xor on unsigned and fixed-width integers only (here
   uint32 and uint64), the others on every type. */
#define PERF_COLL_TYPES(X) \
  X(int, int) X(long, long) X(float, float) X(double, double) X(uint32_t, uint32) X(uint64_t, uint64)
const char *const kTypes[] = {"int", "long", "float", "double", "uint32", "uint64", "all", nullptr};
constexpr int kTypeCount = 6;
enum Op { kSum = 0, kProd = 1, kMin = 2, kMax = 3, kAnd = 4, kOr = 5, kXor = 6, kOpAll = 7 };
const char *const kOps[] = {"sum", "prod", "min", "max", "and", "or", "xor", "all", nullptr};

template <class T, int Op>
constexpr bool op_valid() {
  return Op < kAnd || (std::is_integral<T>::value && std::is_unsigned<T>::value);
}

/* ---- the library's calls, by type, scope and operator (names stamped from the type list) ------------------ */
template <class T>
struct typed;
template <class T, int Op>
struct reduce_call;

#define PERF_COLL_SCOPED(S, STEM, ARGS)          \
  do {                                           \
    if constexpr (S == kThread)                  \
      (void)PERF_SHMEM_NAME(STEM) ARGS;          \
    else if constexpr (S == kWarp)               \
      (void)PERF_SHMEMX_NAME(STEM##_warp) ARGS;  \
    else                                         \
      (void)PERF_SHMEMX_NAME(STEM##_block) ARGS; \
  } while (0)

#define PERF_COLL_TYPED(T, N)                                                                 \
  template <>                                                                                 \
  struct typed<T> {                                                                           \
    template <int S>                                                                          \
    __device__ static void bcast(T *d, const T *s, size_t n, int root) {                      \
      PERF_COLL_SCOPED(S, N##_broadcast, (NVSHMEM_TEAM_WORLD, d, s, n, root));                \
    }                                                                                         \
    template <int S>                                                                          \
    __device__ static void fcollect(T *d, const T *s, size_t n) {                             \
      PERF_COLL_SCOPED(S, N##_fcollect, (NVSHMEM_TEAM_WORLD, d, s, n));                       \
    }                                                                                         \
    template <int S>                                                                          \
    __device__ static void alltoall(T *d, const T *s, size_t n) {                             \
      PERF_COLL_SCOPED(S, N##_alltoall, (NVSHMEM_TEAM_WORLD, d, s, n));                       \
    }                                                                                         \
    static void bcast_on_stream(T *d, const T *s, size_t n, int root, cudaStream_t st) {      \
      (void)PERF_SHMEMX_NAME(N##_broadcast_on_stream)(NVSHMEM_TEAM_WORLD, d, s, n, root, st); \
    }                                                                                         \
    static void fcollect_on_stream(T *d, const T *s, size_t n, cudaStream_t st) {             \
      (void)PERF_SHMEMX_NAME(N##_fcollect_on_stream)(NVSHMEM_TEAM_WORLD, d, s, n, st);        \
    }                                                                                         \
    static void alltoall_on_stream(T *d, const T *s, size_t n, cudaStream_t st) {             \
      (void)PERF_SHMEMX_NAME(N##_alltoall_on_stream)(NVSHMEM_TEAM_WORLD, d, s, n, st);        \
    }                                                                                         \
  };
PERF_COLL_TYPES(PERF_COLL_TYPED)
#undef PERF_COLL_TYPED

#define PERF_COLL_REDUCE(T, N, OP, I)                                                       \
  template <>                                                                               \
  struct reduce_call<T, I> {                                                                \
    template <int S>                                                                        \
    __device__ static void run(T *d, const T *s, size_t n) {                                \
      PERF_COLL_SCOPED(S, N##_##OP##_reduce, (NVSHMEM_TEAM_WORLD, d, s, n));                \
    }                                                                                       \
    static void on_stream(T *d, const T *s, size_t n, cudaStream_t st) {                    \
      (void)PERF_SHMEMX_NAME(N##_##OP##_reduce_on_stream)(NVSHMEM_TEAM_WORLD, d, s, n, st); \
    }                                                                                       \
  };
#define PERF_COLL_REDUCE_ARITH(T, N) \
  PERF_COLL_REDUCE(T, N, sum, 0)     \
  PERF_COLL_REDUCE(T, N, prod, 1) PERF_COLL_REDUCE(T, N, min, 2) PERF_COLL_REDUCE(T, N, max, 3)
#define PERF_COLL_REDUCE_BITS(T, N) \
  PERF_COLL_REDUCE(T, N, and, 4) PERF_COLL_REDUCE(T, N, or, 5) PERF_COLL_REDUCE(T, N, xor, 6)
PERF_COLL_TYPES(PERF_COLL_REDUCE_ARITH)
PERF_COLL_REDUCE_BITS(uint32_t, uint32)
PERF_COLL_REDUCE_BITS(uint64_t, uint64)
#undef PERF_COLL_REDUCE_BITS
#undef PERF_COLL_REDUCE_ARITH
#undef PERF_COLL_REDUCE
#undef PERF_COLL_SCOPED

/* What every kernel gets: this PE's buffers, every PE's through the peer mappings (the raw reference), the
   raw barrier's flags, and the shape of the collective. */
struct coll_args {
  char *dest;
  const char *src;
  char *const *peer_dest;      /* peer_dest[pe]: PE pe's dest (NULL when there is no raw reference) */
  const char *const *peer_src; /* peer_src[pe]: PE pe's src */
  uint64_t *flags;             /* symmetric, npes: flags[pe] counts PE pe's arrivals at the raw barrier */
  uint64_t *const *peer_flags; /* peer_flags[pe]: PE pe's flags */
  size_t count;                /* elements per block */
  int me, npes, root;
};

template <int K, int S, class T, int Op>
__device__ inline void call(const coll_args &a) {
  T *d = reinterpret_cast<T *>(a.dest);
  const T *s = reinterpret_cast<const T *>(a.src);
  if constexpr (K == kBcast)
    typed<T>::template bcast<S>(d, s, a.count, a.root);
  else if constexpr (K == kFcollect)
    typed<T>::template fcollect<S>(d, s, a.count);
  else if constexpr (K == kAlltoall)
    typed<T>::template alltoall<S>(d, s, a.count);
  else
    reduce_call<T, Op>::template run<S>(d, s, a.count);
}

/* The library's collective: `warm` untimed calls, then `reps` windows of `iters` (thread 0 records). Every PE
   runs the same loop, so every PE enters the collective the same number of times. Bounded for 1024 threads (the
   largest -t): without the bound the block-scope reduction needs more registers than a 1024-thread block has
   (cudaErrorLaunchOutOfResources on the H200). */
template <int K, int S, class T, int Op>
__global__ void __launch_bounds__(1024)
    coll_kernel(coll_args a, int warm, int iters, int reps, unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, threadIdx.x == 0 ? ns : nullptr, [&](long long) { call<K, S, T, Op>(a); });
}

/* ---- the reduction's inputs and expected results ---------------------------------------------------------- */
__host__ __device__ inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* PE pe's element i for `seed`: small whole numbers (sum of up to 5 * npes, a product of 2 or 3, a min / max in
   1..5), exact in every type; random bits for the bitwise operators. Seeds A and B give different results. */
template <class T, int Op>
__host__ __device__ inline T red_input(int pe, size_t i, uint32_t seed, int npes) {
  const uint64_t p = static_cast<uint64_t>(pe);
  if constexpr (Op == kProd)
    return static_cast<T>((i + seed) % static_cast<uint64_t>(npes) == p ? 2 + (i + seed) % 2 : 1);
  else if constexpr (Op >= kAnd)
    return static_cast<T>(mix((i * 0x9e3779b97f4a7c15ull) ^ (p << 48) ^ seed));
  else
    return static_cast<T>((i * 7 + p * 3 + seed) % 5 + 1);
}

template <class T, int Op>
__host__ __device__ inline T red_apply(T x, T y) {
  if constexpr (Op == kSum)
    return x + y;
  else if constexpr (Op == kProd)
    return x * y;
  else if constexpr (Op == kMin)
    return y < x ? y : x;
  else if constexpr (Op == kMax)
    return x < y ? y : x;
  else if constexpr (Op == kAnd)
    return x & y;
  else if constexpr (Op == kOr)
    return x | y;
  else
    return x ^ y;
}

template <class T, int Op>
__host__ __device__ inline T red_expected(size_t i, uint32_t seed, int npes) {
  T acc = red_input<T, Op>(0, i, seed, npes);
  for (int pe = 1; pe < npes; ++pe) acc = red_apply<T, Op>(acc, red_input<T, Op>(pe, i, seed, npes));
  return acc;
}

template <class T, int Op>
__global__ void red_fill_kernel(T *p, size_t n, int me, int npes, uint32_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = red_input<T, Op>(me, i, seed, npes);
}

/* out[0]: wrong elements; out[1]: the first wrong index (initialised to ~0). */
template <class T, int Op>
__global__ void red_check_kernel(const T *p, size_t n, int npes, uint32_t seed, unsigned long long *out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (p[i] != red_expected<T, Op>(i, seed, npes)) {
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], static_cast<unsigned long long>(i));
    }
  }
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

/* ---- the raw reference ------------------------------------------------------------------------------------ */
/* Every thread of the CTA copies its share of `bytes`, in the widest word both addresses and the length allow. */
template <class W>
__device__ inline void raw_copy_words(char *to, const char *from, size_t bytes) {
  W *t = reinterpret_cast<W *>(to);
  const W *f = reinterpret_cast<const W *>(from);
  for (size_t i = threadIdx.x; i < bytes / sizeof(W); i += blockDim.x) t[i] = f[i];
}
__device__ inline void raw_copy(char *to, const char *from, size_t bytes) {
  const uintptr_t align = reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from) | bytes;
  if (align % 16 == 0)
    raw_copy_words<uint4>(to, from, bytes);
  else if (align % 8 == 0)
    raw_copy_words<uint2>(to, from, bytes);
  else if (align % 4 == 0)
    raw_copy_words<unsigned>(to, from, bytes);
  else
    raw_copy_words<char>(to, from, bytes);
}

/* The hand-written barrier: the CTA's stores are ordered before this PE's flag reaches any peer (CTA barrier,
   then a system fence by thread 0), then thread 0 waits for every peer's flag to reach v. Flags only grow and a
   PE is at most one barrier ahead, so "at least v" is right. */
__device__ inline void raw_barrier(const coll_args &a, uint64_t v) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    for (int pe = 0; pe < a.npes; ++pe)
      if (pe != a.me) *reinterpret_cast<volatile uint64_t *>(&a.peer_flags[pe][a.me]) = v;
    for (int pe = 0; pe < a.npes; ++pe)
      if (pe != a.me) perf_raw_wait(&a.flags[pe], v, a.me);
    __threadfence_system(); /* what the peers stored before arriving is read after this */
  }
  __syncthreads();
}

template <int K, class T, int Op>
__device__ inline void raw_step(const coll_args &a, long long k) {
  const size_t bytes = a.count * sizeof(T);
  if constexpr (K == kReduce) {
    raw_barrier(a, static_cast<uint64_t>(2 * k + 1)); /* every source is ready */
    const size_t n = static_cast<size_t>(a.npes);
    const size_t share = (a.count + n - 1) / n;
    const size_t first = share * static_cast<size_t>(a.me);
    const size_t last = first + share < a.count ? first + share : a.count;
    for (size_t e = first + threadIdx.x; e < last; e += blockDim.x) {
      T acc = reinterpret_cast<const T *>(a.peer_src[0])[e];
      for (int pe = 1; pe < a.npes; ++pe) acc = red_apply<T, Op>(acc, reinterpret_cast<const T *>(a.peer_src[pe])[e]);
      for (int pe = 0; pe < a.npes; ++pe) reinterpret_cast<T *>(a.peer_dest[pe])[e] = acc;
    }
    raw_barrier(a, static_cast<uint64_t>(2 * k + 2));
  } else {
    if (K != kBcast || a.me == a.root)
      for (int j = 1; j <= a.npes; ++j) { /* the next PE first, as the library does */
        const int pe = (a.me + j) % a.npes;
        char *to = a.peer_dest[pe] + (K == kBcast ? 0 : static_cast<size_t>(a.me) * bytes);
        const char *from = a.src + (K == kAlltoall ? static_cast<size_t>(pe) * bytes : 0);
        raw_copy(to, from, bytes);
      }
    raw_barrier(a, static_cast<uint64_t>(k + 1));
  }
}

template <int K, class T, int Op>
__global__ void __launch_bounds__(1024) raw_kernel(coll_args a, int warm, int iters, int reps, unsigned long long *ns) {
  perf_timed_loop(warm, iters, reps, threadIdx.x == 0 ? ns : nullptr, [&](long long k) { raw_step<K, T, Op>(a, k); });
}

/* ---- the host side ---------------------------------------------------------------------------------------- */
struct bench {
  int kind = 0;
  perf_args a;
  perf_session s;
  char *dest = nullptr, *src = nullptr;
  uint64_t *flags = nullptr;
  char **peer_dest = nullptr, **peer_src = nullptr; /* managed: the raw kernel reads them */
  uint64_t **peer_flags = nullptr;
  bool raw_ok = false;
  unsigned long long *ns = nullptr;
  size_t dest_blocks = 1, src_blocks = 1; /* blocks of SIZE bytes in dest and src */
  const char *type_name = "", *op_name = "";
};

/* Collective: dest, src and the raw flags are rewritten on every PE only once no PE is still using them (no
   kernel of any PE runs past the first barrier: each synchronised its device before it), and nobody starts
   the next kernel before every PE has finished rewriting (second barrier). `fill` rewrites src. */
template <class Fill>
inline void reset(bench &b, size_t size, Fill &&fill) {
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  fill();
  PERF_CUDA_CHECK(cudaMemset(b.dest, 0xee, b.dest_blocks * size)); /* poison: nothing stale passes the check */
  PERF_CUDA_CHECK(cudaMemset(b.flags, 0, static_cast<size_t>(b.s.npes) * sizeof(uint64_t)));
  PERF_CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  perf_spin_up(b.s.stream, b.a.spin_up_ms); /* ahead of the timed kernel the caller enqueues next */
}

inline perf_stat finish(bench &b, bool timed) {
  PERF_CUDA_CHECK(cudaGetLastError());
  PERF_CUDA_CHECK(cudaStreamSynchronize(b.s.stream));
  if (!timed) return perf_stat{};
  return perf_summarize(perf_window_us(b.ns, b.a.repeats, b.a.iters));
}

/* The seed of the block PE `from` contributes to PE `to` (bcast / fcollect: to = 0), per size, phase and type. */
inline uint32_t block_seed(const bench &b, size_t size, int phase, int type, int from, int to) {
  return static_cast<uint32_t>(size) * 131u + static_cast<uint32_t>(phase) * 7919u +
         static_cast<uint32_t>(type) * 104729u + static_cast<uint32_t>(b.kind) * 15485863u +
         static_cast<uint32_t>(from) * 257u + static_cast<uint32_t>(to) * 65537u;
}

/* This PE's sources for `phase`: the byte pattern per block (bcast, fcollect, alltoall) or the reduction's
   inputs. */
template <class T, int Op>
inline void fill_src(bench &b, size_t size, int phase, int type) {
  const size_t count = size / sizeof(T);
  if (b.kind == kReduce) {
    red_fill_kernel<T, Op>
        <<<1024, 256>>>(reinterpret_cast<T *>(b.src), count, b.s.me, b.s.npes, block_seed(b, size, phase, type, 0, 0));
    PERF_CUDA_CHECK(cudaGetLastError());
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  for (size_t j = 0; j < b.src_blocks; ++j)
    perf_fill(b.src + j * size, size, block_seed(b, size, phase, type, b.s.me, b.kind == kAlltoall ? int(j) : 0));
}

/* Checks every element of this PE's dest for `phase`; returns the wrong bytes (or elements). */
template <class T, int Op>
inline long long check_dest(bench &b, size_t size, int phase, int type, const char *when) {
  const size_t count = size / sizeof(T);
  const char *bench_name = kBench[b.kind];
  char what[256];
  if (b.kind == kReduce) {
    unsigned long long *out = nullptr;
    PERF_CUDA_CHECK(cudaMallocManaged(&out, 2 * sizeof *out));
    out[0] = 0;
    out[1] = ~0ull;
    const uint32_t seed = block_seed(b, size, phase, type, 0, 0);
    red_check_kernel<T, Op><<<1024, 256>>>(reinterpret_cast<const T *>(b.dest), count, b.s.npes, seed, out);
    PERF_CUDA_CHECK(cudaGetLastError());
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    const long long bad = static_cast<long long>(out[0]);
    if (bad != 0) {
      T got{};
      PERF_CUDA_CHECK(cudaMemcpy(&got, b.dest + out[1] * sizeof(T), sizeof(T), cudaMemcpyDeviceToHost));
      std::fprintf(stderr,
                   "PE %d: %s: %s %s, %zu elements, dest %s: %lld elements wrong; first at element %llu: got %s, "
                   "expected %s\n",
                   b.s.me, bench_name, b.type_name, b.op_name, count, when, bad, out[1], show(got).c_str(),
                   show(red_expected<T, Op>(out[1], seed, b.s.npes)).c_str());
    }
    PERF_CUDA_CHECK(cudaFree(out));
    return bad;
  }
  long long bad = 0;
  for (int p = 0; p < (b.kind == kBcast ? 1 : b.s.npes); ++p) {
    /* bcast: all of dest is the root's source; otherwise block p came from PE p (alltoall: its block for me) */
    const int src_pe = b.kind == kBcast ? 0 : p; /* bcast: the root, PE 0 */
    const uint32_t seed = block_seed(b, size, phase, type, src_pe, b.kind == kAlltoall ? b.s.me : 0);
    std::snprintf(what, sizeof what, "%s: %s, %zu elements, dest block %d (from PE %d) %s", bench_name, b.type_name,
                  count, p, src_pe, when);
    bad += perf_check(b.dest + static_cast<size_t>(p) * size, size, seed, what);
  }
  return bad;
}

template <int K, int S, class T, int Op>
inline void launch_coll(bench &b, const coll_args &args, int threads, int warm, int iters, int reps) {
  coll_kernel<K, S, T, Op><<<1, threads, 0, b.s.stream>>>(args, warm, iters, reps, b.ns);
}

/* The _on_stream form: `warm` untimed calls, then `reps` windows of `iters`, each between two events; waits for
   the stream and leaves each window's nanoseconds in b.ns, as the kernels' timed loop does. */
template <int K, class T, int Op>
inline void launch_on_stream(bench &b, const coll_args &a, int warm, int iters, int reps) {
  T *d = reinterpret_cast<T *>(a.dest);
  const T *s = reinterpret_cast<const T *>(a.src);
  const auto one = [&] {
    if constexpr (K == kBcast)
      typed<T>::bcast_on_stream(d, s, a.count, a.root, b.s.stream);
    else if constexpr (K == kFcollect)
      typed<T>::fcollect_on_stream(d, s, a.count, b.s.stream);
    else if constexpr (K == kAlltoall)
      typed<T>::alltoall_on_stream(d, s, a.count, b.s.stream);
    else
      reduce_call<T, Op>::on_stream(d, s, a.count, b.s.stream);
  };
  for (int i = 0; i < warm; ++i) one();
  std::vector<cudaEvent_t> marks(2 * static_cast<size_t>(reps));
  for (cudaEvent_t &e : marks) PERF_CUDA_CHECK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    PERF_CUDA_CHECK(cudaEventRecord(marks[2 * r], b.s.stream));
    for (int i = 0; i < iters; ++i) one();
    PERF_CUDA_CHECK(cudaEventRecord(marks[2 * r + 1], b.s.stream));
  }
  PERF_CUDA_CHECK(cudaStreamSynchronize(b.s.stream));
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    PERF_CUDA_CHECK(cudaEventElapsedTime(&ms, marks[2 * r], marks[2 * r + 1]));
    b.ns[r] = static_cast<unsigned long long>(static_cast<double>(ms) * 1e6);
  }
  for (cudaEvent_t &e : marks) PERF_CUDA_CHECK(cudaEventDestroy(e));
}

template <int K, class T, int Op>
inline void launch(bench &b, int scope, bool raw, const coll_args &args, int threads, int warm, int iters, int reps) {
  if (raw)
    raw_kernel<K, T, Op><<<1, threads, 0, b.s.stream>>>(args, warm, iters, reps, b.ns);
  else if (scope == kThread)
    launch_coll<K, kThread, T, Op>(b, args, threads, warm, iters, reps);
  else if (scope == kWarp)
    launch_coll<K, kWarp, T, Op>(b, args, threads, warm, iters, reps);
  else if (scope == kBlock)
    launch_coll<K, kBlock, T, Op>(b, args, threads, warm, iters, reps);
  else
    launch_on_stream<K, T, Op>(b, args, warm, iters, reps);
}

/* Loads every kernel of this type and operator now: CUDA loads a kernel's code at its first launch, and that
   load may wait for the running work of the context (device/README.md); none of them may first load while a
   collective or the raw barrier spins. */
template <int K, class T, int Op>
inline void preload() {
  cudaFuncAttributes attr{};
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, coll_kernel<K, kThread, T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, coll_kernel<K, kWarp, T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, coll_kernel<K, kBlock, T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, raw_kernel<K, T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, red_fill_kernel<T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, red_check_kernel<T, Op>));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, perf_fill_kernel));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, perf_check_kernel));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, perf_spin_kernel));
  PERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, perf_publish_errors_kernel));
}

inline std::string call_name(int kind, int scope, const char *type, const char *op) {
  std::string name = std::string(scope == kThread ? "shmem_" : "shmemx_") + type + "_";
  if (kind == kReduce) name += std::string(op) + "_";
  name += kCallStem[kind];
  if (scope == kWarp) name += "_warp";
  if (scope == kBlock) name += "_block";
  if (scope == kStream) name += "_on_stream";
  return name;
}

/* Every row of one type and operator: sizes -b .. -e, scopes as -s says. */
template <int K, class T, int Op>
inline void run_type(bench &b, int type, int pick_scope) {
  preload<K, T, Op>();
  const int npes = b.s.npes;
  for (int scope = kThread; scope <= kStream; ++scope) {
    if (pick_scope != kScopeAll && pick_scope != scope) continue;
    const int threads = scope == kThread ? 1 : scope == kWarp ? 32 : b.a.threads;
    for (size_t size0 = b.a.min_bytes; size0 != 0; size0 = perf_next_size(&b.a, size0)) {
      const size_t count = size0 / sizeof(T);
      if (count == 0) continue; /* below one element: the same on every PE */
      const size_t size = count * sizeof(T);
      coll_args args{b.dest, b.src, b.peer_dest, b.peer_src, b.flags, b.peer_flags, count, b.s.me, npes, 0};
      perf_stat raw;
      if (b.raw_ok) {
        reset(b, size, [&] { fill_src<T, Op>(b, size, 0, type); });
        launch<K, T, Op>(b, scope, true, args, threads, b.a.warmup, b.a.iters, b.a.repeats);
        raw = finish(b, true);
      }
      /* the timed loop on pattern A (dest poisoned: what the reference delivered does not pass) */
      reset(b, size, [&] { fill_src<T, Op>(b, size, 0, type); });
      launch<K, T, Op>(b, scope, false, args, threads, b.a.warmup, b.a.iters, b.a.repeats);
      const perf_stat lat = finish(b, true);
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      long long bad = check_dest<T, Op>(b, size, 0, type, "after the timed loop");
      /* one more collective on a fresh pattern B */
      reset(b, size, [&] { fill_src<T, Op>(b, size, 1, type); });
      launch<K, T, Op>(b, scope, false, args, threads, 0, 1, 1);
      (void)finish(b, false);
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      bad += check_dest<T, Op>(b, size, 1, type, "after the check iteration (fresh pattern)");
      const long long job_bad = perf_job_errors(b.s, bad);
      if (b.s.me != 0) continue;
      const double moved = static_cast<double>(size) * (K == kFcollect || K == kAlltoall ? npes : 1);
      const double algbw = lat.valid && lat.median > 0 ? moved / (lat.median * 1e3) : 0;
      const double n = static_cast<double>(npes);
      const double busbw = K == kReduce ? algbw * 2 * (n - 1) / n : K == kBcast ? algbw : algbw * (n - 1) / n;
      char bw[64];
      std::snprintf(bw, sizeof bw, "%-11.3f %-11.3f", algbw, busbw);
      if (K == kReduce)
        std::printf("%-10zu %-10zu %-7s %-5s %-7s %-26s %s %-10s %-8s %-5s\n", size, count, b.type_name, b.op_name,
                    kScopes[scope], perf_cell(lat).c_str(), bw, perf_median_cell(raw).c_str(),
                    perf_ratio_cell(lat, raw).c_str(), job_bad ? "FAIL" : "ok");
      else
        std::printf("%-10zu %-10zu %-7s %-7s %-26s %s %-10s %-8s %-5s\n", size, count, b.type_name, kScopes[scope],
                    perf_cell(lat).c_str(), bw, perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(),
                    job_bad ? "FAIL" : "ok");
      perf_json j(kBench[K]);
      j.integer("size", static_cast<long long>(size))
          .integer("count", static_cast<long long>(count))
          .str("type", b.type_name);
      if (K == kReduce) j.str("op", b.op_name);
      if (K == kBcast) j.integer("root", 0);
      j.str("scope", kScopes[scope])
          .integer("threads", threads)
          .str("call", call_name(K, scope, b.type_name, b.op_name).c_str())
          .integer("iters", b.a.iters)
          .integer("warmup", b.a.warmup)
          .integer("repeats", b.a.repeats)
          .stat("lat_us", lat)
          .number("algbw_GBps", algbw)
          .number("busbw_GBps", busbw)
          .stat("raw_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
}

/* Every type of one collective and operator. Not inline: reduction_latency compiles each operator's
   instantiation in a file of its own (reduction_op.cu.in), so that the seven build in parallel. */
template <int K, int Op>
void run_op(bench &b, int pick_type, int pick_scope) {
  int index = 0;
  b.op_name = K == kReduce ? kOps[Op] : "";
#define PERF_COLL_RUN(T, N)                            \
  if (pick_type == kTypeCount || pick_type == index) { \
    if constexpr (op_valid<T, Op>()) {                 \
      b.type_name = #N;                                \
      run_type<K, T, Op>(b, index, pick_scope);        \
    }                                                  \
  }                                                    \
  ++index;
  PERF_COLL_TYPES(PERF_COLL_RUN)
#undef PERF_COLL_RUN
}

#ifdef PERF_COLL_REDUCE_OPS_ELSEWHERE
/* The program's file leaves the reduction operators to reduction_latency_<op>.cu (generated). */
extern template void run_op<kReduce, kSum>(bench &, int, int);
extern template void run_op<kReduce, kProd>(bench &, int, int);
extern template void run_op<kReduce, kMin>(bench &, int, int);
extern template void run_op<kReduce, kMax>(bench &, int, int);
extern template void run_op<kReduce, kAnd>(bench &, int, int);
extern template void run_op<kReduce, kOr>(bench &, int, int);
extern template void run_op<kReduce, kXor>(bench &, int, int);
#endif

/* The program's body. The kind is a template argument, so each program instantiates only its own collective's
   kernels (with a run-time kind, every program compiled all four: four times the compile, and, against
   NVSHMEM, every type x scope of all its inline collectives). */
template <int kind>
int run(int argc, char **argv) {
  static_assert(kind >= kBcast && kind <= kReduce, "kind: kBcast, kFcollect, kAlltoall or kReduce");
  bench b;
  b.kind = kind;
  b.a.min_bytes = 8;
  b.a.max_bytes =
      64 << 10; /* thread-scope rows of larger sizes take long: run_device.sh measures those in block scope */
  b.a.iters = 100;
  b.a.warmup = 10;
  b.a.threads = 1024;
  b.a.type = "int";
  b.a.reduce_op = "sum";
  const char *help = kind == kReduce
                         ? "  -s: thread (default), warp, block (-t threads), stream (the _on_stream form), all\n"
                           "  -d: int (default), long, float, double, uint32, uint64, all\n"
                           "  -o: sum (default), prod, min, max, and, or, xor (and/or/xor: uint32 and uint64 only), all"
                         : "  -s: thread (default), warp, block (-t threads), stream (the _on_stream form), all\n"
                           "  -d: int (default), long, float, double, uint32, uint64, all";
  perf_parse_args(argc, argv, kind == kReduce ? "befnwrstdo" : "befnwrstd", help, &b.a);
  const int pick_scope = perf_choose(argv[0], 's', b.a.scope, kScopes);
  const int pick_type = perf_choose(argv[0], 'd', b.a.type, kTypes);
  const int pick_op = kind == kReduce ? perf_choose(argv[0], 'o', b.a.reduce_op, kOps) : kSum;
  if (kind == kReduce && pick_op >= kAnd && pick_op != kOpAll && pick_type < kTypeCount && pick_type < 4) {
    std::fprintf(stderr,
                 "%s: -o %s -d %s: the bitwise reductions take unsigned and fixed-width integer types only "
                 "(OpenSHMEM 1.5; here -d uint32 or uint64)\n",
                 b.a.prog, b.a.reduce_op, b.a.type);
    return 2;
  }
  b.s = perf_start(kBench[kind], 2);
  perf_session &s = b.s;
  const size_t n = static_cast<size_t>(s.npes);
  b.src_blocks = kind == kAlltoall ? n : 1;
  b.dest_blocks = kind == kAlltoall || kind == kFcollect ? n : 1;
  const size_t max = b.a.max_bytes;
  b.dest = static_cast<char *>(nvshmem_malloc(b.dest_blocks * max));
  b.src = static_cast<char *>(nvshmem_malloc(b.src_blocks * max));
  b.flags = static_cast<uint64_t *>(nvshmem_malloc(n * sizeof(uint64_t)));
  if (b.dest == nullptr || b.src == nullptr || b.flags == nullptr) {
    std::fprintf(stderr,
                 "%s: PE %d: shmem_malloc of %zu + %zu bytes failed: raise SHMEM_SYMMETRIC_SIZE (or lower -e)\n",
                 kBench[kind], s.me, b.dest_blocks * max, b.src_blocks * max);
    perf_die(1);
  }
  PERF_CUDA_CHECK(cudaMallocHost(&b.ns, static_cast<size_t>(b.a.repeats) * sizeof *b.ns)); /* pinned */
  PERF_CUDA_CHECK(cudaMallocManaged(&b.peer_dest, n * sizeof *b.peer_dest));
  PERF_CUDA_CHECK(cudaMallocManaged(&b.peer_src, n * sizeof *b.peer_src));
  PERF_CUDA_CHECK(cudaMallocManaged(&b.peer_flags, n * sizeof *b.peer_flags));
  long long unreachable = 0;
  for (int pe = 0; pe < s.npes; ++pe) {
    b.peer_dest[pe] = static_cast<char *>(perf_peer_ptr(b.dest, pe));
    b.peer_src[pe] = static_cast<char *>(perf_peer_ptr(b.src, pe));
    b.peer_flags[pe] = static_cast<uint64_t *>(perf_peer_ptr(b.flags, pe));
    if (b.peer_dest[pe] == nullptr || b.peer_src[pe] == nullptr || b.peer_flags[pe] == nullptr) ++unreachable;
  }
  b.raw_ok = perf_job_sum(s, unreachable) == 0;

  if (s.me == 0) {
    if (!b.raw_ok) std::printf("# not every PE is load/store reachable from every other: no raw column\n");
    static const char *const bw_rule[] = {
        "algbw = size / lat, busbw = algbw",
        "algbw = npes * size / lat, busbw = algbw * (npes - 1) / npes",
        "algbw = npes * size / lat, busbw = algbw * (npes - 1) / npes",
        "algbw = size / lat, busbw = algbw * 2 (npes - 1) / npes",
    };
    static const char *const what[] = {"broadcast from PE 0 of size bytes", "fcollect of size bytes from every PE",
                                       "alltoall of size bytes from every PE to every PE", "all-reduce of size bytes"};
    std::printf(
        "# %s: %d PEs, SHMEM_TEAM_WORLD, %s, %d collectives (+%d warm-up), median [min,max] of %d repeats; %s "
        "(GB/s); raw: the same blocks stored through shmem_ptr + a flag barrier\n",
        kBench[kind], s.npes, what[kind], b.a.iters, b.a.warmup, b.a.repeats, bw_rule[kind]);
    if (kind == kReduce)
      std::printf("%-10s %-10s %-7s %-5s %-7s %-26s %-11s %-11s %-10s %-8s %-5s\n", "size(B)", "count", "type", "op",
                  "scope", "lat(us) [min,max]", "algbw(GB/s)", "busbw(GB/s)", "raw(us)", "lat/raw", "check");
    else
      std::printf("%-10s %-10s %-7s %-7s %-26s %-11s %-11s %-10s %-8s %-5s\n", "size(B)", "count", "type", "scope",
                  "lat(us) [min,max]", "algbw(GB/s)", "busbw(GB/s)", "raw(us)", "lat/raw", "check");
  }
  if constexpr (kind != kReduce) {
    run_op<kind, kSum>(b, pick_type, pick_scope);
  } else {
#define PERF_COLL_OP(I) \
  if (pick_op == kOpAll || pick_op == I) run_op<kReduce, I>(b, pick_type, pick_scope);
    PERF_COLL_OP(kSum)
    PERF_COLL_OP(kProd)
    PERF_COLL_OP(kMin)
    PERF_COLL_OP(kMax)
    PERF_COLL_OP(kAnd)
    PERF_COLL_OP(kOr)
    PERF_COLL_OP(kXor)
#undef PERF_COLL_OP
  }
  PERF_CUDA_CHECK(cudaFreeHost(b.ns));
  PERF_CUDA_CHECK(cudaFree(b.peer_dest));
  PERF_CUDA_CHECK(cudaFree(b.peer_src));
  PERF_CUDA_CHECK(cudaFree(b.peer_flags));
  nvshmem_free(b.flags);
  nvshmem_free(b.src);
  nvshmem_free(b.dest);
  return perf_finish(s);
}

}  // namespace perf_collective

#endif /* GPUSHMEM_PERF_COLLECTIVE_CUH */
