// Device wait_until / test families for every T-AMO type.
// 1. Return values on this PE's own words (OpenSHMEM 1.5 and its errata): test, test_all / _any / _some and
//    wait_until_all / _any / _some, with and without a status mask, the _vector forms, the empty sets
//    (nelems == 0 and every element excluded), and fairness of test_any (an element that stays satisfied
//    is eventually reported even when a lower index is satisfied too).
// 2. Waits released by another PE: PE me-1 puts a payload, fences, then updates ivars with AMOs one by
//    one; wait_until, wait_until_all, wait_until_any and wait_until_some must return only then, and the
//    payload must be complete when they do. Both sides run in one kernel (block 0 waits, block 1
//    releases), launched cooperatively so they are co-resident; see exchange_kernel.
// Every kernel runs under a phase_watchdog: a hang ends the program within ~20 s, naming the phase and,
// for the exchange, the step each side reached.
#include "device_api_common.cuh"
#include "phase_watchdog.h"

namespace {

constexpr int kN = 4;
constexpr unsigned int kPayload = 4096;

#define WAIT_OPS(T, N)                                                                                   \
  struct ops_##N {                                                                                       \
    using type = T;                                                                                      \
    static constexpr const char *name = #N;                                                              \
    __device__ static int test(T *v, int c, T x) { return shmem_##N##_test(v, c, x); }                   \
    __device__ static void wait_until(T *v, int c, T x) { shmem_##N##_wait_until(v, c, x); }             \
    __device__ static int test_all(T *v, size_t n, const int *st, int c, T x) {                          \
      return shmem_##N##_test_all(v, n, st, c, x);                                                       \
    }                                                                                                    \
    __device__ static size_t test_any(T *v, size_t n, const int *st, int c, T x) {                       \
      return shmem_##N##_test_any(v, n, st, c, x);                                                       \
    }                                                                                                    \
    __device__ static size_t test_some(T *v, size_t n, size_t *ix, const int *st, int c, T x) {          \
      return shmem_##N##_test_some(v, n, ix, st, c, x);                                                  \
    }                                                                                                    \
    __device__ static void wait_all(T *v, size_t n, const int *st, int c, T x) {                         \
      shmem_##N##_wait_until_all(v, n, st, c, x);                                                        \
    }                                                                                                    \
    __device__ static size_t wait_any(T *v, size_t n, const int *st, int c, T x) {                       \
      return shmem_##N##_wait_until_any(v, n, st, c, x);                                                 \
    }                                                                                                    \
    __device__ static size_t wait_some(T *v, size_t n, size_t *ix, const int *st, int c, T x) {          \
      return shmem_##N##_wait_until_some(v, n, ix, st, c, x);                                            \
    }                                                                                                    \
    __device__ static int test_all_v(T *v, size_t n, const int *st, int c, const T *x) {                 \
      return shmem_##N##_test_all_vector(v, n, st, c, x);                                                \
    }                                                                                                    \
    __device__ static size_t test_any_v(T *v, size_t n, const int *st, int c, const T *x) {              \
      return shmem_##N##_test_any_vector(v, n, st, c, x);                                                \
    }                                                                                                    \
    __device__ static size_t test_some_v(T *v, size_t n, size_t *ix, const int *st, int c, const T *x) { \
      return shmem_##N##_test_some_vector(v, n, ix, st, c, x);                                           \
    }                                                                                                    \
    __device__ static void wait_all_v(T *v, size_t n, const int *st, int c, const T *x) {                \
      shmem_##N##_wait_until_all_vector(v, n, st, c, x);                                                 \
    }                                                                                                    \
    __device__ static size_t wait_any_v(T *v, size_t n, const int *st, int c, const T *x) {              \
      return shmem_##N##_wait_until_any_vector(v, n, st, c, x);                                          \
    }                                                                                                    \
    __device__ static size_t wait_some_v(T *v, size_t n, size_t *ix, const int *st, int c, const T *x) { \
      return shmem_##N##_wait_until_some_vector(v, n, ix, st, c, x);                                     \
    }                                                                                                    \
    __device__ static void set(T *d, T x, int pe) { shmem_##N##_atomic_set(d, x, pe); }                  \
    __device__ static void add(T *d, T x, int pe) { shmem_##N##_atomic_add(d, x, pe); }                  \
  };
GPUSHMEM_AMO_TYPES(WAIT_OPS)
#undef WAIT_OPS

// A check inside the script: `step` numbers it for the report.
#define EXPECT_EQ(step, got, want)                                                            \
  do {                                                                                        \
    const long long got_ = static_cast<long long>(got), want_ = static_cast<long long>(want); \
    if (got_ != want_) report_failure(report, step, __LINE__, want_, got_);                   \
  } while (0)

// The set of indices[0..count) as a bit mask.
__device__ unsigned int index_mask(const size_t *indices, size_t count) {
  unsigned int m = 0;
  for (size_t i = 0; i < count; ++i) m |= 1u << indices[i];
  return m;
}

// ivars (symmetric, kN elements) = {1, 2, 3, 4} on entry.
template <class Ops>
__global__ void local_kernel(typename Ops::type *ivars, device_report *report) {
  using T = typename Ops::type;
  const size_t none = SIZE_MAX;
  const int all_out[kN] = {1, 1, 1, 1};
  const int skip_0[kN] = {1, 0, 0, 0};
  const int skip_3[kN] = {0, 0, 0, 1};
  size_t ix[kN];
  // single
  EXPECT_EQ(1, Ops::test(ivars, SHMEM_CMP_EQ, T(1)), 1);
  EXPECT_EQ(2, Ops::test(ivars, SHMEM_CMP_NE, T(1)), 0);
  EXPECT_EQ(3, Ops::test(ivars + 1, SHMEM_CMP_GT, T(1)), 1);
  EXPECT_EQ(4, Ops::test(ivars + 1, SHMEM_CMP_LE, T(1)), 0);
  EXPECT_EQ(5, Ops::test(ivars + 2, SHMEM_CMP_LT, T(4)), 1);
  EXPECT_EQ(6, Ops::test(ivars + 2, SHMEM_CMP_GE, T(4)), 0);
  Ops::wait_until(ivars + 3, SHMEM_CMP_GE, T(4));  // already satisfied: returns
  // test_all: empty sets give 1 (1.5 erratum)
  EXPECT_EQ(10, Ops::test_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(1)), 1);
  EXPECT_EQ(11, Ops::test_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(2)), 0);
  EXPECT_EQ(12, Ops::test_all(ivars, kN, skip_0, SHMEM_CMP_GE, T(2)), 1);
  EXPECT_EQ(13, Ops::test_all(ivars, 0, nullptr, SHMEM_CMP_EQ, T(9)), 1);
  EXPECT_EQ(14, Ops::test_all(ivars, kN, all_out, SHMEM_CMP_EQ, T(9)), 1);
  // test_any: SIZE_MAX when nothing is satisfied or the set is empty
  const size_t a = Ops::test_any(ivars, kN, nullptr, SHMEM_CMP_GT, T(2));
  EXPECT_EQ(20, a == 2 || a == 3, 1);
  EXPECT_EQ(21, Ops::test_any(ivars, kN, nullptr, SHMEM_CMP_GT, T(10)) == none, 1);
  EXPECT_EQ(22, Ops::test_any(ivars, 0, nullptr, SHMEM_CMP_GE, T(0)) == none, 1);
  EXPECT_EQ(23, Ops::test_any(ivars, kN, all_out, SHMEM_CMP_GE, T(0)) == none, 1);
  EXPECT_EQ(24, Ops::test_any(ivars, kN, skip_3, SHMEM_CMP_GE, T(4)) == none, 1);
  // fairness: every satisfied element is reported by some call
  unsigned int reported = 0;
  for (int call = 0; call < 64; ++call) reported |= 1u << Ops::test_any(ivars, kN, nullptr, SHMEM_CMP_GE, T(1));
  EXPECT_EQ(25, reported, 0xfu);
  // test_some
  EXPECT_EQ(30, Ops::test_some(ivars, kN, ix, nullptr, SHMEM_CMP_GE, T(3)), 2);
  EXPECT_EQ(31, index_mask(ix, 2), 0xcu);
  EXPECT_EQ(32, Ops::test_some(ivars, kN, ix, skip_3, SHMEM_CMP_GE, T(3)), 1);
  EXPECT_EQ(33, ix[0], 2);
  EXPECT_EQ(34, Ops::test_some(ivars, kN, ix, nullptr, SHMEM_CMP_GT, T(10)), 0);
  EXPECT_EQ(35, Ops::test_some(ivars, 0, ix, nullptr, SHMEM_CMP_GE, T(0)), 0);
  EXPECT_EQ(36, Ops::test_some(ivars, kN, ix, all_out, SHMEM_CMP_GE, T(0)), 0);
  // waits on satisfied or empty sets return at once
  Ops::wait_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(1));
  Ops::wait_all(ivars, 0, nullptr, SHMEM_CMP_EQ, T(9));
  Ops::wait_all(ivars, kN, all_out, SHMEM_CMP_EQ, T(9));
  EXPECT_EQ(40, Ops::wait_any(ivars, kN, nullptr, SHMEM_CMP_GE, T(4)), 3);
  EXPECT_EQ(41, Ops::wait_any(ivars, kN, skip_0, SHMEM_CMP_LE, T(2)), 1);
  EXPECT_EQ(42, Ops::wait_any(ivars, 0, nullptr, SHMEM_CMP_EQ, T(9)) == none, 1);
  EXPECT_EQ(43, Ops::wait_any(ivars, kN, all_out, SHMEM_CMP_EQ, T(9)) == none, 1);
  EXPECT_EQ(44, Ops::wait_some(ivars, kN, ix, nullptr, SHMEM_CMP_GE, T(2)), 3);
  EXPECT_EQ(45, index_mask(ix, 3), 0xeu);
  EXPECT_EQ(46, Ops::wait_some(ivars, 0, ix, nullptr, SHMEM_CMP_EQ, T(9)), 0);
  EXPECT_EQ(47, Ops::wait_some(ivars, kN, ix, all_out, SHMEM_CMP_EQ, T(9)), 0);
  // _vector: element i against cmp_values[i]; {1,5,3,0} with EQ satisfies elements 0 and 2
  const T values[kN] = {T(1), T(5), T(3), T(0)};
  EXPECT_EQ(50, Ops::test_all_v(ivars, kN, nullptr, SHMEM_CMP_EQ, values), 0);
  EXPECT_EQ(51, Ops::test_all_v(ivars, kN, skip_3, SHMEM_CMP_NE, values), 0);
  EXPECT_EQ(52, Ops::test_all_v(ivars, kN, all_out, SHMEM_CMP_EQ, values), 1);
  const size_t va = Ops::test_any_v(ivars, kN, nullptr, SHMEM_CMP_EQ, values);
  EXPECT_EQ(53, va == 0 || va == 2, 1);
  EXPECT_EQ(54, Ops::test_some_v(ivars, kN, ix, nullptr, SHMEM_CMP_EQ, values), 2);
  EXPECT_EQ(55, index_mask(ix, 2), 0x5u);
  const int only_1_3[kN] = {1, 0, 1, 0};
  Ops::wait_all_v(ivars, kN, only_1_3, SHMEM_CMP_NE, values);
  const size_t vw = Ops::wait_any_v(ivars, kN, nullptr, SHMEM_CMP_EQ, values);
  EXPECT_EQ(56, vw == 0 || vw == 2, 1);
  EXPECT_EQ(57, Ops::wait_some_v(ivars, kN, ix, nullptr, SHMEM_CMP_EQ, values), 2);
  EXPECT_EQ(58, index_mask(ix, 2), 0x5u);
  EXPECT_EQ(59, Ops::wait_any_v(ivars, 0, nullptr, SHMEM_CMP_EQ, values) == none, 1);
  EXPECT_EQ(60, Ops::test_any_v(ivars, kN, all_out, SHMEM_CMP_EQ, values) == none, 1);
}

// Where each side of exchange_kernel is, in mapped pinned host memory, so a hang report can name the step
// without a CUDA call: waiter = the release it waits for (1-4, 5 = done), releaser = the ack it waits for
// (1-4, 5 = done).
struct exchange_progress {
  int waiter, releaser;
};

__device__ void publish_step(int *word, int step) {
  *static_cast<volatile int *>(word) = step;  // diagnostics only: no ordering needed
}

// The releasing side: payload, fence, then the ivars one step at a time, each after the waiter's ack.
template <class Ops>
__device__ void release_side(typename Ops::type *ivars, unsigned int *payload, const unsigned int *source, int *ack,
                             int to, exchange_progress *progress) {
  using T = typename Ops::type;
  auto step = [&](int k) {  // wait until the waiter is ready for step k (it acks through our *ack)
    publish_step(&progress->releaser, k);
    shmem_int_wait_until(ack, SHMEM_CMP_GE, k);
  };
  // 1: wait_until(ivars[0] == 7), after a 4 KiB payload
  step(1);
  shmem_putmem(payload, source, kPayload * sizeof(unsigned int), to);
  shmem_fence();
  Ops::set(ivars, T(7), to);
  // 2: wait_until_all(ivars[0..3] >= 10): set them one by one
  step(2);
  for (int i = kN - 1; i >= 0; --i) Ops::set(ivars + i, T(10 + i), to);
  // 3: wait_until_any(ivars == 20): element 2
  step(3);
  Ops::set(ivars + 2, T(20), to);
  // 4: wait_until_some(ivars >= 30), masked to {1, 3}: add to reach 30 on both
  step(4);
  Ops::add(ivars + 1, T(30 - 11), to);
  Ops::add(ivars + 3, T(30 - 13), to);
  shmem_quiet();
  publish_step(&progress->releaser, 5);
}

template <class Ops>
__device__ void wait_side(typename Ops::type *ivars, const unsigned int *payload, int *ack, int from,
                          device_report *report, exchange_progress *progress) {
  using T = typename Ops::type;
  size_t ix[kN];
  publish_step(&progress->waiter, 1);
  shmem_int_atomic_set(ack, 1, from);
  Ops::wait_until(ivars, SHMEM_CMP_EQ, T(7));
  for (unsigned int i = 0; i < kPayload; ++i)
    if (payload[i] != 0xC0DE0000u + i) {
      report_failure(report, 100, i, 0xC0DE0000u + i, payload[i]);
      break;
    }
  publish_step(&progress->waiter, 2);
  shmem_int_atomic_set(ack, 2, from);
  Ops::wait_all(ivars, kN, nullptr, SHMEM_CMP_GE, T(10));
  for (int i = 0; i < kN; ++i) EXPECT_EQ(101, ivars[i], 10 + i);
  publish_step(&progress->waiter, 3);
  shmem_int_atomic_set(ack, 3, from);
  EXPECT_EQ(102, Ops::wait_any(ivars, kN, nullptr, SHMEM_CMP_EQ, T(20)), 2);
  publish_step(&progress->waiter, 4);
  shmem_int_atomic_set(ack, 4, from);
  const int only_1_3[kN] = {1, 0, 1, 0};
  unsigned int seen = 0;
  while (seen != 0xau) {
    const size_t count = Ops::wait_some(ivars, kN, ix, only_1_3, SHMEM_CMP_GE, T(30));
    if (count == 0 || count > 2) {
      report_failure(report, 103, -1, 1, static_cast<long long>(count));
      break;
    }
    seen |= index_mask(ix, count);
  }
  EXPECT_EQ(104, seen, 0xau);
  publish_step(&progress->waiter, 5);
}

// Each PE waits on its own words, released by its left neighbour (`from`), and releases its right one
// (`to`): block 0 waits, block 1 releases. The two sides spin on each other (the releaser on the acks its
// waiter sends), so they must run at once: one kernel launched cooperatively (shmemx_collective_launch)
// guarantees both blocks are resident. Two kernels on two streams did not: CUDA promises no concurrency
// between kernels, and with lazy module loading (CUDA's default) the second launch loaded its kernel
// first, which waits for the context to go idle, behind the first kernel spinning for the other PE,
// whose second launch waited the same way (both PEs hung in cudaLaunchKernel, nothing printed).
template <class Ops>
__global__ void __launch_bounds__(1)
    exchange_kernel(typename Ops::type *ivars, unsigned int *payload, const unsigned int *source, int *ack, int from,
                    int to, device_report *report, exchange_progress *progress) {
  if (blockIdx.x == 0)
    wait_side<Ops>(ivars, payload, ack, from, report, progress);
  else
    release_side<Ops>(ivars, payload, source, ack, to, progress);
}

constexpr int kPhaseLimitSeconds = 20;

void print_exchange_progress(std::FILE *out, const void *context) {
  const volatile exchange_progress *p = static_cast<const exchange_progress *>(context);
  std::fprintf(out,
               "waiter at step %d (waits for release k from PE me-1; 5 = done), releaser at step %d (waits for "
               "ack k from PE me+1; 5 = done)",
               p->waiter, p->releaser);
}

// Host-side state shared by every type's run.
struct wait_test {
  device_report *report;
  unsigned int *payload, *source;
  int *ack;
  exchange_progress *progress_host, *progress_device;  // mapped pinned memory
  cudaStream_t stream;
};

template <class Ops>
void run_type(const wait_test &t) {
  using T = typename Ops::type;
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  T *ivars = static_cast<T *>(shmem_malloc(kN * sizeof(T)));
  const T init[kN] = {T(1), T(2), T(3), T(4)};
  char what[256];

  // Loaded now, while no kernel of any PE spins: a lazy load at launch time waits for the context to idle.
  cudaFuncAttributes attributes;
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, local_kernel<Ops>));
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, exchange_kernel<Ops>));

  // cudaMemcpy from pageable memory may return before its DMA lands; device_sync_barrier's
  // cudaDeviceSynchronize orders it before any kernel (ours on a non-blocking stream, or another PE's).
  CUDA_CHECK(cudaMemcpy(ivars, init, sizeof init, cudaMemcpyHostToDevice));
  device_sync_barrier();
  std::snprintf(what, sizeof what, "shmem_%s wait/test on this PE's own words (local_kernel)", Ops::name);
  {
    phase_watchdog dog(me, what, kPhaseLimitSeconds);
    local_kernel<Ops><<<1, 1, 0, t.stream>>>(ivars, t.report);
    CUDA_CHECK(cudaGetLastError());
    dog.await(t.stream);
  }
  device_sync_barrier();
  std::snprintf(what, sizeof what, "shmem_%s wait/test return values (round = step, element = source line)", Ops::name);
  check_device_report(t.report, what);

  CUDA_CHECK(cudaMemcpy(ivars, init, sizeof init, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(t.payload, 0, kPayload * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemset(t.ack, 0, sizeof(int)));
  t.progress_host->waiter = t.progress_host->releaser = 0;
  device_sync_barrier();  // every PE's ivars, payload and ack are reset before any PE's exchange starts
  std::snprintf(what, sizeof what, "shmem_%s waits released by another PE (exchange_kernel)", Ops::name);
  {
    phase_watchdog dog(me, what, kPhaseLimitSeconds, print_exchange_progress, t.progress_host);
    int from = (me + npes - 1) % npes, to = (me + 1) % npes;
    T *ivars_arg = ivars;
    unsigned int *payload_arg = t.payload;
    const unsigned int *source_arg = t.source;
    int *ack_arg = t.ack;
    device_report *report_arg = t.report;
    exchange_progress *progress_arg = t.progress_device;
    void *args[] = {&ivars_arg, &payload_arg, &source_arg, &ack_arg, &from, &to, &report_arg, &progress_arg};
    const int launched = shmemx_collective_launch(reinterpret_cast<const void *>(&exchange_kernel<Ops>), dim3(2),
                                                  dim3(1), args, 0, t.stream);
    if (launched != 0) {
      PE_FAIL("%s: shmemx_collective_launch(exchange_kernel, 2 blocks) returned %d", what, launched);
      shmem_global_exit(1);
    }
    dog.await(t.stream);
  }
  device_sync_barrier();
  std::snprintf(what, sizeof what,
                "shmem_%s waits released by another PE (round 100: payload incomplete after wait_until, 101: "
                "wait_until_all, 102: wait_until_any, 103-104: wait_until_some)",
                Ops::name);
  check_device_report(t.report, what);
  shmem_free(ivars);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_wait");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_wait")) {
    wait_test t{};
    t.report = new_device_report();
    t.payload = static_cast<unsigned int *>(shmem_malloc(kPayload * sizeof(unsigned int)));
    t.source = static_cast<unsigned int *>(shmem_malloc(kPayload * sizeof(unsigned int)));
    t.ack = static_cast<int *>(shmem_malloc(sizeof(int)));
    CUDA_CHECK(cudaHostAlloc(&t.progress_host, sizeof *t.progress_host, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&t.progress_device, t.progress_host, 0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
    static unsigned int host[kPayload];
    for (unsigned int i = 0; i < kPayload; ++i) host[i] = 0xC0DE0000u + i;
    CUDA_CHECK(cudaMemcpy(t.source, host, sizeof host, cudaMemcpyHostToDevice));
    device_sync_barrier();  // the source's DMA has landed
#define RUN_TYPE(T, N) run_type<ops_##N>(t);
    GPUSHMEM_AMO_TYPES(RUN_TYPE)
#undef RUN_TYPE
    CUDA_CHECK(cudaStreamDestroy(t.stream));
    CUDA_CHECK(cudaFreeHost(t.progress_host));
    shmem_free(t.ack);
    shmem_free(t.source);
    shmem_free(t.payload);
    CUDA_CHECK(cudaFree(t.report));
  }
  return pe_finish("device_api_wait");
}
