/*
 * Atomic memory operations over P2P: system-scope atomics on the peer's word (NVLink and PCIe peers
 * execute them at the target, so GPU threads of every PE and CPU threads stay mutually atomic). OpenSHMEM
 * orders AMOs only through fence and quiet, so each is relaxed. Thread scope only.
 */
#ifndef GPUSHMEM_DEVICE_AMO_CUH
#define GPUSHMEM_DEVICE_AMO_CUH

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/ordering.cuh"

namespace gpushmem {
namespace device {
namespace {

template <class T>
__device__ __forceinline__ system_atomic<T> amo_target(const char *call, const T *dest, int pe) {
  T *r = remote(call, "dest", const_cast<T *>(dest), sizeof(T), pe);
  if (error_checks()) check_aligned(call, "dest", dest, sizeof(T), pe);
  return system_atomic<T>(*r);
}

constexpr cuda::memory_order kAmoOrder = cuda::memory_order_relaxed;

template <class T>
__device__ __forceinline__ T atomic_fetch(const char *call, const T *source, int pe) {
  return amo_target(call, source, pe).load(kAmoOrder);
}
template <class T>
__device__ __forceinline__ void atomic_set(const char *call, T *dest, T value, int pe) {
  amo_target(call, dest, pe).store(value, kAmoOrder);
}
template <class T>
__device__ __forceinline__ T atomic_swap(const char *call, T *dest, T value, int pe) {
  return amo_target(call, dest, pe).exchange(value, kAmoOrder);
}
template <class T>
__device__ __forceinline__ T atomic_compare_swap(const char *call, T *dest, T cond, T value, int pe) {
  T seen = cond;
  amo_target(call, dest, pe).compare_exchange_strong(seen, value, kAmoOrder, kAmoOrder);
  return seen;  // the old value: equal to cond exactly when the swap happened
}
template <class T>
__device__ __forceinline__ T atomic_fetch_add(const char *call, T *dest, T value, int pe) {
  return amo_target(call, dest, pe).fetch_add(value, kAmoOrder);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_and(const char *call, T *dest, T value, int pe) {
  return amo_target(call, dest, pe).fetch_and(value, kAmoOrder);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_or(const char *call, T *dest, T value, int pe) {
  return amo_target(call, dest, pe).fetch_or(value, kAmoOrder);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_xor(const char *call, T *dest, T value, int pe) {
  return amo_target(call, dest, pe).fetch_xor(value, kAmoOrder);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_AMO_CUH */
