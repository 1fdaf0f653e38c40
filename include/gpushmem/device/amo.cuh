/*
 * Atomic memory operations. Over P2P: system-scope atomics on the peer's word (NVLink and PCIe peers
 * execute them at the target, so GPU threads of every PE and CPU threads stay mutually atomic). OpenSHMEM
 * orders AMOs only through fence and quiet, so each is relaxed (global_ops.cuh). Thread scope only.
 */
#ifndef GPUSHMEM_DEVICE_AMO_CUH
#define GPUSHMEM_DEVICE_AMO_CUH

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/ordering.cuh"
#include "gpushmem/device/transport/remote.cuh"

#include <string.h>

namespace gpushmem {
namespace device {
namespace {

/* The peer's word, checked (PE, symmetric range, natural alignment with error checks on), or NULL when the
   CPU proxy reaches the peer: the atomic then travels as a request and its target's memory agent applies it
   with system-scope atomics, so it stays atomic with the target's device atomics. */
template <class T>
__device__ __forceinline__ T *amo_target(const char *call, const T *dest, int pe) {
  T *r = reach(call, "dest", const_cast<T *>(dest), sizeof(T), pe);
  if (error_checks()) check_aligned(call, "dest", dest, sizeof(T), pe);
  return r;
}

template <class T>
__device__ __forceinline__ uint64_t amo_bits(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
__device__ __forceinline__ T amo_value(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}
/* The network's forms (IBGDA or the CPU proxy): a fetching atomic waits for the old value; the others are issued and
   not waited for. */
template <class T>
__device__ __forceinline__ T remote_fetching(const char *call, const T *dest, uint32_t amo, T value, T compare,
                                             int pe) {
  return amo_value<T>(remote_amo_fetch(call, dest, amo, sizeof(T), amo_bits(value), amo_bits(compare), pe));
}

template <class T>
__device__ __forceinline__ T atomic_fetch(const char *call, const T *source, int pe) {
  if (T *r = amo_target(call, source, pe)) return gmem::load_relaxed(r);
  return remote_fetching(call, source, GPUSHMEM_PROXY_AMO_LOAD, T{}, T{}, pe);
}
template <class T>
__device__ __forceinline__ void atomic_set(const char *call, T *dest, T value, int pe) {
  if (T *r = amo_target(call, dest, pe))
    gmem::store_relaxed(r, value);
  else
    remote_amo(call, dest, GPUSHMEM_PROXY_AMO_STORE, sizeof(T), amo_bits(value), pe);
}
template <class T>
__device__ __forceinline__ T atomic_swap(const char *call, T *dest, T value, int pe) {
  if (T *r = amo_target(call, dest, pe)) return gmem::exchange(r, value);
  return remote_fetching(call, dest, GPUSHMEM_PROXY_AMO_SWAP, value, T{}, pe);
}
/* Returns the old value: equal to cond exactly when the swap happened. */
template <class T>
__device__ __forceinline__ T atomic_compare_swap(const char *call, T *dest, T cond, T value, int pe) {
  if (T *r = amo_target(call, dest, pe)) return gmem::compare_exchange(r, cond, value);
  return remote_fetching(call, dest, GPUSHMEM_PROXY_AMO_CSWAP, value, cond, pe);
}

/* The fetching read-modify-writes, and their non-fetching forms (add, inc, and, or, xor: over P2P one red
   instruction, which the thread does not wait on). */
#define GPUSHMEMI_DEVICE_RMW(FETCH_NAME, NAME, FETCH_OP, RED_OP, PROXY_AMO)             \
  template <class T>                                                                    \
  __device__ __forceinline__ T FETCH_NAME(const char *call, T *dest, T value, int pe) { \
    if (T *r = amo_target(call, dest, pe)) return gmem::FETCH_OP(r, value);             \
    return remote_fetching(call, dest, PROXY_AMO, value, T{}, pe);                      \
  }                                                                                     \
  template <class T>                                                                    \
  __device__ __forceinline__ void NAME(const char *call, T *dest, T value, int pe) {    \
    if (T *r = amo_target(call, dest, pe))                                              \
      gmem::RED_OP(r, value);                                                           \
    else                                                                                \
      remote_amo(call, dest, PROXY_AMO, sizeof(T), amo_bits(value), pe);                \
  }
/* Whole names: C++ reserves and, or and xor as operator names, which cannot be pasted. */
GPUSHMEMI_DEVICE_RMW(atomic_fetch_add, atomic_add, fetch_add, add, GPUSHMEM_PROXY_AMO_ADD)
GPUSHMEMI_DEVICE_RMW(atomic_fetch_and, atomic_and, fetch_and, bit_and, GPUSHMEM_PROXY_AMO_AND)
GPUSHMEMI_DEVICE_RMW(atomic_fetch_or, atomic_or, fetch_or, bit_or, GPUSHMEM_PROXY_AMO_OR)
GPUSHMEMI_DEVICE_RMW(atomic_fetch_xor, atomic_xor, fetch_xor, bit_xor, GPUSHMEM_PROXY_AMO_XOR)
#undef GPUSHMEMI_DEVICE_RMW

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_AMO_CUH */
