// Every device reduction: each type of the specification's reduction table that device code has (type_table.h,
// GPUSHMEM_DEVICE_REDUCE_*_TYPES), each operator the type takes, in thread, warp and block scope, on
// SHMEM_TEAM_WORLD, with nreduce 1, 37 and 1031 (some members with an empty share, then several elements a lane),
// out of place and in place; then on a stream (shmemx_TYPE_OP_reduce_on_stream, between a fill and a check kernel),
// with nreduce 1, 1031 and 70000 (a launch of several blocks). The stream form runs the _grid form in libgpushmem's
// kernels, so this covers grid scope for every type and operator; device_api_coll.cu calls the _grid forms from an
// application kernel. Each kernel fills its source, reduces, and checks every element of its dest against the fold
// over the PEs in team order that it computes itself; the first mismatch is reported. Run on one GPU with 1 to 4 PEs
// (P2P), and with 2 PEs in two virtual hosts, where each member's part goes to its CPU proxy as one COLL request
// (runtime/proxy/proxy_coll.cpp: every element class and width of the table).
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdio>

#include "device_api_common.cuh"

namespace {

enum op_code { op_and, op_or, op_xor, op_min, op_max, op_sum, op_prod };

template <class T>
__host__ __device__ constexpr bool is_floating() {
  return static_cast<T>(1) / static_cast<T>(2) != static_cast<T>(0);
}

// Element i of PE pe's source for operator op: values whose fold over 4 PEs stays inside every type (sums of
// at most 4 x 7, products of at most 2^4), exact in floating point, negative where the type is signed, and bit
// patterns that differ between PEs for the bitwise operators.
template <class T>
__device__ T input(int op, int pe, size_t i) {
  const int k = static_cast<int>(i % 1013);
  switch (op) {
    case op_and:
    case op_or:
    case op_xor:
      if constexpr (!is_floating<T>())
        return static_cast<T>((1u << ((pe + k) % 7)) | static_cast<unsigned>(k & 0x30) | (pe == 0 ? 0x41u : 0u));
      return T{};
    case op_min:
    case op_max:
      return static_cast<T>((k * 7 + pe * 3) % 11 - 5);
    case op_sum:
      return static_cast<T>((k + pe) % 7) + (is_floating<T>() ? static_cast<T>(0.5) : static_cast<T>(0));
    default:  // op_prod
      return static_cast<T>(1 + (k + pe) % 2);
  }
}

template <class T>
__device__ T apply(int op, T a, T b) {
  switch (op) {
    case op_min:
      return b < a ? b : a;
    case op_max:
      return a < b ? b : a;
    case op_sum:
      return static_cast<T>(a + b);
    case op_prod:
      return static_cast<T>(a * b);
    default:
      break;
  }
  if constexpr (!is_floating<T>()) {
    if (op == op_and) return static_cast<T>(a & b);
    if (op == op_or) return static_cast<T>(a | b);
    return static_cast<T>(a ^ b);
  }
  return a;
}

// Reported values: floating ones doubled (every input is a multiple of 0.5), so they stay exact.
template <class T>
__device__ long long reported(T v) {
  if constexpr (is_floating<T>()) return static_cast<long long>(static_cast<double>(v) * 2.0);
  return static_cast<long long>(v);
}

template <class T>
__device__ void fill(int op, T *source, T *dest, size_t n, bool in_place) {
  const int me = shmem_my_pe();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    source[i] = input<T>(op, me, i);
    if (!in_place) dest[i] = static_cast<T>(99);  // what the reduction must overwrite
  }
}

template <class T>
__device__ void check(int op, const T *dest, size_t n, int rc, device_report *r, long long round) {
  const int npes = shmem_n_pes();
  if (rc != 0 && threadIdx.x == 0) report_failure(r, round, -1, 0, rc);
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    T want = input<T>(op, 0, i);
    for (int pe = 1; pe < npes; ++pe) want = apply<T>(op, want, input<T>(op, pe, i));
    if (dest[i] != want) report_failure(r, round, static_cast<long long>(i), reported(want), reported(dest[i]));
  }
}

// Per type and operator: one kernel for thread, warp and block scope (chosen at run time, launched with
// scope_threads(scope) threads), and the fill and check kernels around the stream form.
#define GPUSHMEMT_REDUCE_KERNEL(T, N, OP)                                                                    \
  __global__ void reduce_##N##_##OP(int scope, T *dest, T *source, size_t n, int in_place, device_report *r, \
                                    long long round) {                                                       \
    T *d = in_place ? source : dest;                                                                         \
    fill<T>(op_##OP, source, d, n, in_place != 0);                                                           \
    __syncthreads();                                                                                         \
    int rc = 0;                                                                                              \
    if (scope == kThread)                                                                                    \
      rc = shmem_##N##_##OP##_reduce(SHMEM_TEAM_WORLD, d, source, n);                                        \
    else if (scope == kWarp)                                                                                 \
      rc = shmemx_##N##_##OP##_reduce_warp(SHMEM_TEAM_WORLD, d, source, n);                                  \
    else                                                                                                     \
      rc = shmemx_##N##_##OP##_reduce_block(SHMEM_TEAM_WORLD, d, source, n);                                 \
    __syncthreads();                                                                                         \
    check<T>(op_##OP, d, n, rc, r, round);                                                                   \
  }                                                                                                          \
  __global__ void fill_##N##_##OP(T *dest, T *source, size_t n, int in_place) {                              \
    fill<T>(op_##OP, source, in_place ? source : dest, n, in_place != 0);                                    \
  }                                                                                                          \
  __global__ void check_##N##_##OP(const T *dest, size_t n, device_report *r, long long round) {             \
    check<T>(op_##OP, dest, n, 0, r, round);                                                                 \
  }                                                                                                          \
  void launch_##N##_##OP(int scope, void *dest, void *source, size_t n, int in_place, device_report *r,      \
                         long long round) {                                                                  \
    T *td = static_cast<T *>(dest), *ts = static_cast<T *>(source);                                          \
    if (scope <= kBlock) {                                                                                   \
      reduce_##N##_##OP<<<1, scope_threads(scope)>>>(scope, td, ts, n, in_place, r, round);                  \
    } else { /* kStream, on the legacy default stream (0) */                                                 \
      T *d = in_place ? ts : td;                                                                             \
      fill_##N##_##OP<<<1, 256>>>(td, ts, n, in_place);                                                      \
      PE_CHECK(shmemx_##N##_##OP##_reduce_on_stream(SHMEM_TEAM_WORLD, d, ts, n, 0) == 0,                     \
               "shmemx_" #N "_" #OP "_reduce_on_stream returned non-zero");                                  \
      check_##N##_##OP<<<1, 256>>>(d, n, r, round);                                                          \
    }                                                                                                        \
  }
#define GPUSHMEMT_BITWISE(T, N) \
  GPUSHMEMT_REDUCE_KERNEL(T, N, and) GPUSHMEMT_REDUCE_KERNEL(T, N, or) GPUSHMEMT_REDUCE_KERNEL(T, N, xor)
#define GPUSHMEMT_MINMAX(T, N) GPUSHMEMT_REDUCE_KERNEL(T, N, min) GPUSHMEMT_REDUCE_KERNEL(T, N, max)
#define GPUSHMEMT_ARITH(T, N) GPUSHMEMT_REDUCE_KERNEL(T, N, sum) GPUSHMEMT_REDUCE_KERNEL(T, N, prod)
GPUSHMEM_DEVICE_REDUCE_BITWISE_TYPES(GPUSHMEMT_BITWISE)
GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(GPUSHMEMT_MINMAX)
GPUSHMEM_DEVICE_REDUCE_ARITH_TYPES(GPUSHMEMT_ARITH)

// The cases, by the same lists.
struct reduce_case {
  const char *type, *op;
  size_t bytes;
  void (*launch)(int, void *, void *, size_t, int, device_report *, long long);
};
#define GPUSHMEMT_CASE(T, N, OP) reduce_case{#N, #OP, sizeof(T), launch_##N##_##OP},
#define GPUSHMEMT_BITWISE_CASES(T, N) GPUSHMEMT_CASE(T, N, and) GPUSHMEMT_CASE(T, N, or) GPUSHMEMT_CASE(T, N, xor)
#define GPUSHMEMT_MINMAX_CASES(T, N) GPUSHMEMT_CASE(T, N, min) GPUSHMEMT_CASE(T, N, max)
#define GPUSHMEMT_ARITH_CASES(T, N) GPUSHMEMT_CASE(T, N, sum) GPUSHMEMT_CASE(T, N, prod)
const reduce_case kCases[] = {GPUSHMEM_DEVICE_REDUCE_BITWISE_TYPES(GPUSHMEMT_BITWISE_CASES)
                                  GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(GPUSHMEMT_MINMAX_CASES)
                                      GPUSHMEM_DEVICE_REDUCE_ARITH_TYPES(GPUSHMEMT_ARITH_CASES)};

constexpr int kStream = kBlock + 1;  // the _on_stream form (which runs the grid form)
constexpr size_t kCounts[] = {1, 37, 1031};
constexpr size_t kLargeCounts[] = {1, 1031, 70000};  // on a stream
constexpr size_t kMaxCount = 70000;

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_reduce_types");
  if (skip != 0) return skip;
  shmem_init();
  if (!device_state_ready("device_reduce_types")) return pe_finish("device_reduce_types");
  void *source = shmem_malloc(kMaxCount * 8);
  void *dest = shmem_malloc(kMaxCount * 8);
  PE_CHECK(source != nullptr && dest != nullptr, "shmem_malloc failed");
  if (source == nullptr || dest == nullptr) return pe_finish("device_reduce_types");
  device_report *report = new_device_report();
  long long round = 0;
  size_t cases = 0;
  for (const reduce_case &c : kCases)
    for (int scope = kThread; scope <= kStream; ++scope)
      for (size_t k = 0; k < 3; ++k)
        for (int in_place = 0; in_place < 2; ++in_place) {
          const size_t n = scope <= kBlock ? kCounts[k] : kLargeCounts[k];
          c.launch(scope, dest, source, n, in_place, report, round++);
          device_sync_barrier();  // every PE checked its dest before any writes the next
          char what[160];
          std::snprintf(what, sizeof what, "shmem%s_%s_%s_reduce%s of %zu elements%s", scope == kThread ? "" : "x",
                        c.type, c.op,
                        scope == kThread  ? ""
                        : scope == kWarp  ? "_warp"
                        : scope == kBlock ? "_block"
                                          : "_on_stream",
                        n, in_place ? " in place" : "");
          check_device_report(report, what);
          ++cases;
        }
  if (shmem_my_pe() == 0)
    std::printf(
        "device_reduce_types: %zu reductions (%zu type and operator pairs x 4 forms (thread, warp, block, "
        "on_stream) x 3 counts x 2)\n",
        cases, sizeof kCases / sizeof kCases[0]);
  CUDA_CHECK(cudaFree(report));
  shmem_free(dest);
  shmem_free(source);
  return pe_finish("device_reduce_types");
}
