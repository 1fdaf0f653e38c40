/*
 * Atomic memory operations over P2P: system-scope atomics on the peer's word (NVLink and PCIe peers
 * execute them at the target, so GPU threads of every PE and CPU threads stay mutually atomic). OpenSHMEM
 * orders AMOs only through fence and quiet, so each is relaxed (global_ops.cuh). Thread scope only.
 */
#ifndef GPUSHMEM_DEVICE_AMO_CUH
#define GPUSHMEM_DEVICE_AMO_CUH

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/ordering.cuh"

namespace gpushmem {
namespace device {
namespace {

/* The peer's word, checked (PE, symmetric range, natural alignment with error checks on). */
template <class T>
__device__ __forceinline__ T *amo_target(const char *call, const T *dest, int pe) {
  T *r = remote(call, "dest", const_cast<T *>(dest), sizeof(T), pe);
  if (error_checks()) check_aligned(call, "dest", dest, sizeof(T), pe);
  return r;
}

template <class T>
__device__ __forceinline__ T atomic_fetch(const char *call, const T *source, int pe) {
  return gmem::load_relaxed(amo_target(call, source, pe));
}
template <class T>
__device__ __forceinline__ void atomic_set(const char *call, T *dest, T value, int pe) {
  gmem::store_relaxed(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ T atomic_swap(const char *call, T *dest, T value, int pe) {
  return gmem::exchange(amo_target(call, dest, pe), value);
}
/* Returns the old value: equal to cond exactly when the swap happened. */
template <class T>
__device__ __forceinline__ T atomic_compare_swap(const char *call, T *dest, T cond, T value, int pe) {
  return gmem::compare_exchange(amo_target(call, dest, pe), cond, value);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_add(const char *call, T *dest, T value, int pe) {
  return gmem::fetch_add(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_and(const char *call, T *dest, T value, int pe) {
  return gmem::fetch_and(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_or(const char *call, T *dest, T value, int pe) {
  return gmem::fetch_or(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_xor(const char *call, T *dest, T value, int pe) {
  return gmem::fetch_xor(amo_target(call, dest, pe), value);
}
/* The non-fetching forms (add, inc, and, or, xor): one red instruction, which the thread does not wait on. */
template <class T>
__device__ __forceinline__ void atomic_add(const char *call, T *dest, T value, int pe) {
  gmem::add(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ void atomic_and(const char *call, T *dest, T value, int pe) {
  gmem::bit_and(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ void atomic_or(const char *call, T *dest, T value, int pe) {
  gmem::bit_or(amo_target(call, dest, pe), value);
}
template <class T>
__device__ __forceinline__ void atomic_xor(const char *call, T *dest, T value, int pe) {
  gmem::bit_xor(amo_target(call, dest, pe), value);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_AMO_CUH */
