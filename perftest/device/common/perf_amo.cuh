/*
 * Every device atomic on a uint64_t word, for shmem_atomic_latency and shmem_atomic_bw: the library call,
 * the raw CUDA system-scope atomic used as the reference, and what the k-th operation on a word must
 * fetch and leave behind, so both programs check every fetched value and every word's final value.
 * Non-fetching operations are followed by shmem_quiet in the latency program (the raw form by
 * __threadfence_system), so each iteration is a completed remote update.
 */
#ifndef GPUSHMEM_PERF_AMO_CUH
#define GPUSHMEM_PERF_AMO_CUH

#include "perf_shmem.h"

#include <cstdint>
#include <type_traits>

namespace perf_amo {

enum Op {
  kFetchAdd,
  kFetchInc,
  kFetch,
  kSwap,
  kCompareSwap,
  kFetchAnd,
  kFetchOr,
  kFetchXor,
  kAdd,
  kInc,
  kSet,
  kAnd,
  kOr,
  kXor,
  kCount
};
/* -a values (kCount: "all"). */
const char *const kNames[] = {"fetch_add", "fetch_inc", "fetch", "swap", "compare_swap", "fetch_and",
                              "fetch_or",  "fetch_xor", "add",   "inc",  "set",          "and",
                              "or",        "xor",       "all",   nullptr};
const char *const kCalls[] = {
    "shmem_uint64_atomic_fetch_add", "shmem_uint64_atomic_fetch_inc",    "shmem_uint64_atomic_fetch",
    "shmem_uint64_atomic_swap",      "shmem_uint64_atomic_compare_swap", "shmem_uint64_atomic_fetch_and",
    "shmem_uint64_atomic_fetch_or",  "shmem_uint64_atomic_fetch_xor",    "shmem_uint64_atomic_add",
    "shmem_uint64_atomic_inc",       "shmem_uint64_atomic_set",          "shmem_uint64_atomic_and",
    "shmem_uint64_atomic_or",        "shmem_uint64_atomic_xor"};
constexpr const char *kHelp =
    "  -a: fetch_add fetch_inc fetch swap compare_swap fetch_and fetch_or fetch_xor add inc set and or xor, or all";
constexpr uint64_t kFixed = 0x0123456789abcdefull; /* fetch: the word's value; xor: the operand */

__host__ __device__ constexpr bool fetches(int op) {
  return op < kAdd;
}

/* The word's value before any operation. */
__host__ __device__ inline uint64_t start(int op) {
  return op == kFetch ? kFixed : (op == kFetchAnd || op == kAnd) ? ~0ull : 0;
}

/* The word's value after k operations (k >= 0). Operation k uses the operand of operand(op, k). */
__host__ __device__ inline uint64_t after(int op, uint64_t k) {
  switch (op) {
    case kFetchAdd:
    case kFetchInc:
    case kAdd:
    case kInc:
    case kSwap:
    case kCompareSwap:
    case kSet:
      return k; /* +1 each, or set / swap to k + 1 on operation k */
    case kFetch:
      return kFixed;
    case kFetchAnd:
    case kAnd:
      return k >= 64 ? 0 : ~0ull << k; /* operation k clears bit k % 64 */
    case kFetchOr:
    case kOr:
      return k >= 64 ? ~0ull : (1ull << k) - 1; /* operation k sets bit k % 64 */
    default:
      return (k & 1) ? kFixed : 0; /* xor with kFixed */
  }
}

/* Operation k on `dest` of PE `pe` through the library; returns the fetched value (0 if none). */
template <int O>
__device__ inline uint64_t call(uint64_t *dest, uint64_t k, int pe) {
  const uint64_t bit = 1ull << (k % 64);
  if constexpr (O == kFetchAdd) return nvshmem_uint64_atomic_fetch_add(dest, 1, pe);
  if constexpr (O == kFetchInc) return nvshmem_uint64_atomic_fetch_inc(dest, pe);
  if constexpr (O == kFetch) return nvshmem_uint64_atomic_fetch(dest, pe);
  if constexpr (O == kSwap) return nvshmem_uint64_atomic_swap(dest, k + 1, pe);
  if constexpr (O == kCompareSwap) return nvshmem_uint64_atomic_compare_swap(dest, k, k + 1, pe);
  if constexpr (O == kFetchAnd) return nvshmem_uint64_atomic_fetch_and(dest, ~bit, pe);
  if constexpr (O == kFetchOr) return nvshmem_uint64_atomic_fetch_or(dest, bit, pe);
  if constexpr (O == kFetchXor) return nvshmem_uint64_atomic_fetch_xor(dest, kFixed, pe);
  if constexpr (O == kAdd) nvshmem_uint64_atomic_add(dest, 1, pe);
  if constexpr (O == kInc) nvshmem_uint64_atomic_inc(dest, pe);
  if constexpr (O == kSet) nvshmem_uint64_atomic_set(dest, k + 1, pe);
  if constexpr (O == kAnd) nvshmem_uint64_atomic_and(dest, ~bit, pe);
  if constexpr (O == kOr) nvshmem_uint64_atomic_or(dest, bit, pe);
  if constexpr (O == kXor) nvshmem_uint64_atomic_xor(dest, kFixed, pe);
  return 0;
}

/* The same operation with CUDA's system-scope atomics on the peer mapping of the word. */
template <int O>
__device__ inline uint64_t raw(uint64_t *peer_word, uint64_t k) {
  auto *w = reinterpret_cast<unsigned long long *>(peer_word);
  const unsigned long long bit = 1ull << (k % 64), u = k;
  if constexpr (O == kFetchAdd || O == kFetchInc || O == kAdd || O == kInc) return atomicAdd_system(w, 1ull);
  if constexpr (O == kFetch) return *reinterpret_cast<volatile unsigned long long *>(w);
  if constexpr (O == kSwap || O == kSet) return atomicExch_system(w, u + 1);
  if constexpr (O == kCompareSwap) return atomicCAS_system(w, u, u + 1);
  if constexpr (O == kFetchAnd || O == kAnd) return atomicAnd_system(w, ~bit);
  if constexpr (O == kFetchOr || O == kOr) return atomicOr_system(w, bit);
  if constexpr (O == kFetchXor || O == kXor) return atomicXor_system(w, static_cast<unsigned long long>(kFixed));
  return 0;
}

/* Calls f(std::integral_constant<int, O>{}) for the run-time op (a switch over the compile-time ones);
   f is a generic lambda that reads O as decltype(c)::value. */
template <class F>
inline void dispatch(int op, F &&f) {
  switch (op) {
    case kFetchAdd:
      f(std::integral_constant<int, kFetchAdd>{});
      break;
    case kFetchInc:
      f(std::integral_constant<int, kFetchInc>{});
      break;
    case kFetch:
      f(std::integral_constant<int, kFetch>{});
      break;
    case kSwap:
      f(std::integral_constant<int, kSwap>{});
      break;
    case kCompareSwap:
      f(std::integral_constant<int, kCompareSwap>{});
      break;
    case kFetchAnd:
      f(std::integral_constant<int, kFetchAnd>{});
      break;
    case kFetchOr:
      f(std::integral_constant<int, kFetchOr>{});
      break;
    case kFetchXor:
      f(std::integral_constant<int, kFetchXor>{});
      break;
    case kAdd:
      f(std::integral_constant<int, kAdd>{});
      break;
    case kInc:
      f(std::integral_constant<int, kInc>{});
      break;
    case kSet:
      f(std::integral_constant<int, kSet>{});
      break;
    case kAnd:
      f(std::integral_constant<int, kAnd>{});
      break;
    case kOr:
      f(std::integral_constant<int, kOr>{});
      break;
    default:
      f(std::integral_constant<int, kXor>{});
      break;
  }
}

}  // namespace perf_amo

#endif /* GPUSHMEM_PERF_AMO_CUH */
