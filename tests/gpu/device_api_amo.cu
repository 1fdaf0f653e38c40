// Device AMOs under contention, for every type of their tables. All words live on PE 0 and every thread of
// every PE hammers them, so PE 0 runs local atomics while the others go over P2P:
//   T-AMO:  fetch_add / fetch_inc (+ _nbi) on one counter: nothing lost, and the old values they return
//           are exactly 0 .. total-1 (each once); add / inc (typed and generic) on another: the total;
//           a compare_swap increment loop: the total;
//   T-AMOX: swap of unique ids into one word: the old values plus the final one are the initial value and
//           every id, each once; set / fetch (+ _nbi) of one word per PE;
//   T-AMOB: each thread owns one bit: fetch_or / fetch_and / fetch_xor (+ _nbi) never see their own bit
//           changed by anyone else, and or / and / xor give the full masks.
#include <algorithm>
#include <vector>

#include "device_api_common.cuh"

namespace {

constexpr unsigned int kBlocks = 8, kThreads = 256, kIters = 8;
constexpr unsigned int kPerPe = kBlocks * kThreads;  // threads per PE
constexpr unsigned int kCasThreads = 64, kCasIters = 4;
constexpr int kTarget = 0;
enum word {
  kCounter,
  kAdds,
  kCas,
  kSwap,
  kOr,
  kAnd,
  kXor,
  kOrNbi,
  kAndNbi,
  kXorNbi,
  kOrPlain,
  kAndPlain,
  kXorPlain,
  kSetBase,
  kWords = kSetBase + 64
};

#define AMO_OPS(T, N)                                                                                                \
  struct amo_ops_##N {                                                                                               \
    using type = T;                                                                                                  \
    static constexpr const char *name = #N;                                                                          \
    __device__ static T fetch_add(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_add(d, v, pe); }              \
    __device__ static void fetch_add_nbi(T *f, T *d, T v, int pe) { shmem_##N##_atomic_fetch_add_nbi(f, d, v, pe); } \
    __device__ static T fetch_inc(T *d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); }                      \
    __device__ static void fetch_inc_nbi(T *f, T *d, int pe) { shmem_##N##_atomic_fetch_inc_nbi(f, d, pe); }         \
    __device__ static void add(T *d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }                              \
    __device__ static void inc(T *d, int pe) { shmem_atomic_inc(d, pe); }                                            \
    __device__ static T fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }                        \
    __device__ static T cswap(T *d, T c, T v, int pe) { return shmem_##N##_atomic_compare_swap(d, c, v, pe); }       \
    __device__ static void cswap_nbi(T *f, T *d, T c, T v, int pe) {                                                 \
      shmem_##N##_atomic_compare_swap_nbi(f, d, c, v, pe);                                                           \
    }                                                                                                                \
  };
GPUSHMEM_AMO_TYPES(AMO_OPS)
#undef AMO_OPS

#define AMOX_OPS(T, N)                                                                                     \
  struct amox_ops_##N {                                                                                    \
    using type = T;                                                                                        \
    static constexpr const char *name = #N;                                                                \
    __device__ static T fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }              \
    __device__ static void fetch_nbi(T *f, const T *s, int pe) { shmem_##N##_atomic_fetch_nbi(f, s, pe); } \
    __device__ static void set(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }                    \
    __device__ static T swap(T *d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); }              \
    __device__ static void swap_nbi(T *f, T *d, T v, int pe) { shmem_##N##_atomic_swap_nbi(f, d, v, pe); } \
  };
GPUSHMEM_AMOX_TYPES(AMOX_OPS)
#undef AMOX_OPS

#define AMOB_OPS(T, N)                                                                                               \
  struct amob_ops_##N {                                                                                              \
    using type = T;                                                                                                  \
    static constexpr const char *name = #N;                                                                          \
    __device__ static T fetch_or(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_or(d, v, pe); }                \
    __device__ static T fetch_and(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_and(d, v, pe); }              \
    __device__ static T fetch_xor(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_xor(d, v, pe); }              \
    __device__ static void fetch_or_nbi(T *f, T *d, T v, int pe) { shmem_##N##_atomic_fetch_or_nbi(f, d, v, pe); }   \
    __device__ static void fetch_and_nbi(T *f, T *d, T v, int pe) { shmem_##N##_atomic_fetch_and_nbi(f, d, v, pe); } \
    __device__ static void fetch_xor_nbi(T *f, T *d, T v, int pe) { shmem_##N##_atomic_fetch_xor_nbi(f, d, v, pe); } \
    __device__ static void or_(T *d, T v, int pe) { shmem_##N##_atomic_or(d, v, pe); }                               \
    __device__ static void and_(T *d, T v, int pe) { shmem_atomic_and(d, v, pe); }                                   \
    __device__ static void xor_(T *d, T v, int pe) { shmem_##N##_atomic_xor(d, v, pe); }                             \
  };
GPUSHMEM_AMOB_TYPES(AMOB_OPS)
#undef AMOB_OPS

// ---- T-AMO ----------------------------------------------------------------------------------------------
template <class Ops>
__global__ void counter_kernel(typename Ops::type *words, typename Ops::type *fetched) {
  using T = typename Ops::type;
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int it = 0; it < kIters; ++it) {
    T *slot = fetched + it * kPerPe + t;
    switch (it % 4) {
      case 0:
        *slot = Ops::fetch_add(&words[kCounter], T(1), kTarget);
        break;
      case 1:
        *slot = Ops::fetch_inc(&words[kCounter], kTarget);
        break;
      case 2:
        Ops::fetch_add_nbi(slot, &words[kCounter], T(1), kTarget);
        break;
      default:
        Ops::fetch_inc_nbi(slot, &words[kCounter], kTarget);
    }
    if (it % 2 == 0)
      Ops::add(&words[kAdds], T(1), kTarget);
    else
      Ops::inc(&words[kAdds], kTarget);
  }
  shmem_quiet();
}

// An increment by compare_swap: retry with the value seen until the swap happens.
template <class Ops>
__global__ void cas_kernel(typename Ops::type *words, device_report *report) {
  using T = typename Ops::type;
  for (unsigned int it = 0; it < kCasIters; ++it) {
    T cur = Ops::fetch(&words[kCas], kTarget);
    for (unsigned long long tries = 0;; ++tries) {
      T seen;
      if (tries % 2 == 0)
        seen = Ops::cswap(&words[kCas], cur, T(cur + T(1)), kTarget);
      else
        Ops::cswap_nbi(&seen, &words[kCas], cur, T(cur + T(1)), kTarget);
      if (seen == cur) break;
      if (tries > (1ull << 20)) {  // a lost update would retry forever
        report_failure(report, it, threadIdx.x, static_cast<long long>(cur), static_cast<long long>(seen));
        return;
      }
      cur = seen;
    }
  }
  shmem_quiet();
}

// Every PE's `count` elements at symmetric `src`, one after the other in local `all`.
template <class T>
__global__ void gather_kernel(T *all, const T *src, size_t count, int npes) {
  for (int pe = 0; pe < npes; ++pe) shmemx_getmem_block(all + pe * count, src, count * sizeof(T), pe);
}

template <class T>
std::vector<long long> gather_all(const T *sym, size_t count) {
  const int npes = shmem_n_pes();
  T *all = nullptr;
  CUDA_CHECK(cudaMalloc(&all, npes * count * sizeof(T)));
  gather_kernel<<<1, 256>>>(all, sym, count, npes);
  CUDA_CHECK(cudaGetLastError());
  // The kernel's gets from another node wait for this PE's CPU proxy (or NIC emulator), whose copies need CUDA's
  // context lock: a cudaMemcpy into pageable memory queued behind the kernel holds that lock until the kernel ends,
  // so the kernel must be finished first (device/README.md, "blocking CUDA calls"; the H200 run of 2026-12-07).
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> host(npes * count);
  CUDA_CHECK(cudaMemcpy(host.data(), all, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(all));
  return std::vector<long long>(host.begin(), host.end());
}

// `values` sorted must be first, first+1, ..., first+n-1.
void check_permutation(std::vector<long long> values, long long first, const char *what, const char *type) {
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != first + static_cast<long long>(i)) {
      PE_FAIL("shmem_%s_%s: the values returned are not each of %lld..%lld once: sorted element %zu is %lld", type,
              what, first, first + static_cast<long long>(values.size()) - 1, i, values[i]);
      return;
    }
}

template <class T>
T read_word(const T *words, int w) {
  T v;
  CUDA_CHECK(cudaMemcpy(&v, words + w, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

template <class Ops>
void run_amo(device_report *report) {
  using T = typename Ops::type;
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  T *words = static_cast<T *>(shmem_calloc(kWords, sizeof(T)));
  T *fetched = static_cast<T *>(shmem_malloc(kIters * kPerPe * sizeof(T)));
  device_sync_barrier();
  counter_kernel<Ops><<<kBlocks, kThreads>>>(words, fetched);
  cas_kernel<Ops><<<1, kCasThreads>>>(words, report);
  device_sync_barrier();
  check_device_report(report, "compare_swap loop");
  const long long total = static_cast<long long>(npes) * kPerPe * kIters;
  if (me == kTarget) {
    const long long counter = static_cast<long long>(read_word(words, kCounter));
    const long long adds = static_cast<long long>(read_word(words, kAdds));
    const long long cas = static_cast<long long>(read_word(words, kCas));
    PE_CHECK(counter == total,
             "shmem_%s_atomic_fetch_add/fetch_inc (+ _nbi) from %d PEs x %u threads x %u: counter %lld, expected %lld",
             Ops::name, npes, kPerPe, kIters, counter, total);
    PE_CHECK(adds == total,
             "shmem_%s_atomic_add / shmem_atomic_inc from %d PEs x %u threads x %u: counter %lld, expected %lld",
             Ops::name, npes, kPerPe, kIters, adds, total);
    PE_CHECK(cas == static_cast<long long>(npes) * kCasThreads * kCasIters,
             "shmem_%s_atomic_compare_swap increments: counter %lld, expected %lld", Ops::name, cas,
             static_cast<long long>(npes) * kCasThreads * kCasIters);
    check_permutation(gather_all(fetched, kIters * kPerPe), 0, "atomic_fetch_add/fetch_inc", Ops::name);
  }
  shmem_barrier_all();
  shmem_free(fetched);
  shmem_free(words);
}

// ---- T-AMOX ---------------------------------------------------------------------------------------------
template <class Ops>
__global__ void swap_set_kernel(typename Ops::type *words, typename Ops::type *old, int me) {
  using T = typename Ops::type;
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T id = T(1 + me * kPerPe + t);  // 0 is the word's initial value
  if (t % 2 == 0)
    old[t] = Ops::swap(&words[kSwap], id, kTarget);
  else
    Ops::swap_nbi(&old[t], &words[kSwap], id, kTarget);
  if (t == 0) Ops::set(&words[kSetBase + me], T(3 * (me + 1)), kTarget);
  shmem_quiet();
}

template <class Ops>
__global__ void fetch_kernel(const typename Ops::type *words, int npes, device_report *report) {
  using T = typename Ops::type;
  for (int pe = 0; pe < npes; ++pe) {
    const T want = T(3 * (pe + 1));
    const T a = Ops::fetch(&words[kSetBase + pe], kTarget);
    T b;
    Ops::fetch_nbi(&b, &words[kSetBase + pe], kTarget);
    shmem_quiet();
    if (a != want) report_failure(report, 0, pe, static_cast<long long>(want), static_cast<long long>(a));
    if (b != want) report_failure(report, 1, pe, static_cast<long long>(want), static_cast<long long>(b));
  }
}

template <class Ops>
void run_amox(device_report *report) {
  using T = typename Ops::type;
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  T *words = static_cast<T *>(shmem_calloc(kWords, sizeof(T)));
  T *old = static_cast<T *>(shmem_malloc(kPerPe * sizeof(T)));
  device_sync_barrier();
  swap_set_kernel<Ops><<<kBlocks, kThreads>>>(words, old, me);
  device_sync_barrier();
  fetch_kernel<Ops><<<1, 1>>>(words, npes, report);
  device_sync_barrier();
  check_device_report(report, "atomic_set then atomic_fetch (+ _nbi) of each PE's word (round 0: blocking, 1: nbi)");
  if (me == kTarget) {
    std::vector<long long> seen = gather_all(old, kPerPe);
    seen.push_back(static_cast<long long>(read_word(words, kSwap)));
    check_permutation(seen, 0, "atomic_swap (+ _nbi)", Ops::name);
  }
  shmem_barrier_all();
  shmem_free(old);
  shmem_free(words);
}

// ---- T-AMOB ---------------------------------------------------------------------------------------------
template <class Ops>
__global__ void bits_kernel(typename Ops::type *words, int me, unsigned int per_pe, device_report *report) {
  using T = typename Ops::type;
  const unsigned int bit_index = me * per_pe + threadIdx.x;
  const T bit = T(1ull << bit_index);  // unsigned shift: bit 31 of an int
  T f;
  f = Ops::fetch_or(&words[kOr], bit, kTarget);
  if ((f & bit) != 0) report_failure(report, 0, bit_index, 0, 1);
  f = Ops::fetch_and(&words[kAnd], T(~bit), kTarget);
  if ((f & bit) == 0) report_failure(report, 1, bit_index, 1, 0);
  f = Ops::fetch_xor(&words[kXor], bit, kTarget);
  if ((f & bit) != 0) report_failure(report, 2, bit_index, 0, 1);
  Ops::fetch_or_nbi(&f, &words[kOrNbi], bit, kTarget);
  shmem_quiet();
  if ((f & bit) != 0) report_failure(report, 3, bit_index, 0, 1);
  Ops::fetch_and_nbi(&f, &words[kAndNbi], T(~bit), kTarget);
  shmem_quiet();
  if ((f & bit) == 0) report_failure(report, 4, bit_index, 1, 0);
  Ops::fetch_xor_nbi(&f, &words[kXorNbi], bit, kTarget);
  shmem_quiet();
  if ((f & bit) != 0) report_failure(report, 5, bit_index, 0, 1);
  Ops::or_(&words[kOrPlain], bit, kTarget);
  Ops::and_(&words[kAndPlain], T(~bit), kTarget);
  Ops::xor_(&words[kXorPlain], bit, kTarget);
  Ops::xor_(&words[kXorPlain], bit, kTarget);
  shmem_quiet();
}

template <class Ops>
void run_amob(device_report *report) {
  using T = typename Ops::type;
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const unsigned int bits = 8 * sizeof(T), per_pe = bits / static_cast<unsigned int>(npes);
  if (per_pe == 0) return;
  T *words = static_cast<T *>(shmem_calloc(kWords, sizeof(T)));
  const T ones = T(~T(0));
  if (me == kTarget) {
    CUDA_CHECK(cudaMemcpy(words + kAnd, &ones, sizeof ones, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(words + kAndNbi, &ones, sizeof ones, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(words + kAndPlain, &ones, sizeof ones, cudaMemcpyHostToDevice));
  }
  device_sync_barrier();
  bits_kernel<Ops><<<1, per_pe>>>(words, me, per_pe, report);
  device_sync_barrier();
  check_device_report(report,
                      "bitwise AMOs: a thread saw its own bit changed by someone else (round = 0 fetch_or, "
                      "1 fetch_and, 2 fetch_xor, 3..5 their _nbi forms; element = bit)");
  if (me == kTarget) {
    T mask = 0;
    for (unsigned int b = 0; b < per_pe * static_cast<unsigned int>(npes); ++b) mask = T(mask | T(1ull << b));
    const struct {
      int w;
      T want;
      const char *what;
    } finals[] = {
        {kOr, mask, "fetch_or"},        {kAnd, T(~mask), "fetch_and"},        {kXor, mask, "fetch_xor"},
        {kOrNbi, mask, "fetch_or_nbi"}, {kAndNbi, T(~mask), "fetch_and_nbi"}, {kXorNbi, mask, "fetch_xor_nbi"},
        {kOrPlain, mask, "or"},         {kAndPlain, T(~mask), "and"},         {kXorPlain, T(0), "xor (twice)"}};
    for (const auto &f : finals) {
      const T got = read_word(words, f.w);
      PE_CHECK(got == f.want, "shmem_%s_atomic_%s: final word 0x%llx, expected 0x%llx", Ops::name, f.what,
               static_cast<unsigned long long>(got), static_cast<unsigned long long>(f.want));
    }
  }
  shmem_barrier_all();
  shmem_free(words);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_amo");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_amo")) {
    device_report *report = new_device_report();
#define RUN_AMO(T, N) run_amo<amo_ops_##N>(report);
    GPUSHMEM_AMO_TYPES(RUN_AMO)
#undef RUN_AMO
#define RUN_AMOX(T, N) run_amox<amox_ops_##N>(report);
    GPUSHMEM_AMOX_TYPES(RUN_AMOX)
#undef RUN_AMOX
#define RUN_AMOB(T, N) run_amob<amob_ops_##N>(report);
    GPUSHMEM_AMOB_TYPES(RUN_AMOB)
#undef RUN_AMOB
    CUDA_CHECK(cudaFree(report));
  }
  return pe_finish("device_api_amo");
}
