/*
 * From a symmetric address and a PE to the address this thread loads and stores: the peer's heap is
 * mapped here at peer_base[pe] (P2P over NVLink or PCIe, or this PE's own heap), at the same offset as
 * in this PE's heap. A peer reached through the CPU proxy (peer_transport[pe]) gets NULL from reach(), P2P
 * first; IBGDA will dispatch here too.
 */
#ifndef GPUSHMEM_DEVICE_ADDRESS_CUH
#define GPUSHMEM_DEVICE_ADDRESS_CUH

#include <stddef.h>

#include "gpushmem/device/checks.cuh"
#include "gpushmem/device/internal_area.cuh"
#include "gpushmem/device/state.cuh"
#include "gpushmem/device/transport/remote.cuh"

namespace gpushmem {
namespace device {
namespace {

/* Base of PE pe's heap as mapped here, or NULL: arithmetic on constant-bank fields for node-local peers
   (no dependent global load, which a system-scope fence may have evicted from L1), else the table. */
__device__ __forceinline__ char *peer_heap(int pe) {
  const gpushmem_device_state_t &s = state();
  const unsigned rel = static_cast<unsigned>(pe - s.first_local_pe);
  if (rel < static_cast<unsigned>(s.local_fast_count)) return s.slot0 + static_cast<uint64_t>(rel) * s.slot_stride;
  return s.peer_base == nullptr ? nullptr : s.peer_base[pe];
}

/* Where `bytes` bytes at symmetric `sym` on PE `pe` are reached from here, or NULL when the peer's heap is
   not mapped and the CPU proxy reaches it (the caller then takes the proxy path, out of line). `arg` names
   the argument in error reports. The two unconditional tests read uniform constant memory and cost next to
   nothing; they turn a use before init and an unreachable peer into a message instead of a fault. */
template <class T>
__device__ __forceinline__ T *reach(const char *call, const char *arg, T *sym, size_t bytes, int pe) {
  if (error_checks()) {
    check_pe(call, pe, sym);
    check_symmetric(call, arg, sym, bytes, pe);
  }
  const gpushmem_device_state_t &s = state();
  const ptrdiff_t offset = reinterpret_cast<const char *>(sym) - s.heap_base;
  // Node-local peers: the address is arithmetic on constant-bank fields, no dependent global load.
  const unsigned rel = static_cast<unsigned>(pe - s.first_local_pe);
  if (rel < static_cast<unsigned>(s.local_fast_count))
    return reinterpret_cast<T *>(s.slot0 + static_cast<uint64_t>(rel) * s.slot_stride + offset);
  char *const *peer_base = s.peer_base;
  if (peer_base == nullptr) fail_not_initialized(call);
  char *base = peer_base[pe];
  if (base == nullptr) {
    if (remote_reaches(pe)) return nullptr;
    fail_unreachable(call, pe, sym);
  }
  return reinterpret_cast<T *>(base + offset);
}

/* The same for the operations that need the peer's memory mapped (they have no proxy path yet). */
template <class T>
__device__ __forceinline__ T *remote(const char *call, const char *arg, T *sym, size_t bytes, int pe) {
  T *r = reach(call, arg, sym, bytes, pe);
  if (r == nullptr) fail_proxy_unsupported(call, pe, sym);
  return r;
}

/* A symmetric word this PE waits on or reads itself (ivars, signal words). */
template <class T>
__device__ __forceinline__ T *local(const char *call, const char *arg, T *sym, size_t bytes) {
  if (error_checks()) check_symmetric(call, arg, sym, bytes, state().my_pe);
  return sym;
}

/* The runtime's words at the start of PE `pe`'s heap, as reached from here (NULL when not mapped). */
__device__ __forceinline__ internal_area *internal_area_of(int pe) {
  return reinterpret_cast<internal_area *>(peer_heap(pe));
}
__device__ __forceinline__ internal_area *my_internal_area() {
  return reinterpret_cast<internal_area *>(state().heap_base);
}

/* shmem_ptr: never an error, NULL when there is no load/store path (as on the host). */
__device__ __forceinline__ void *pointer_to(const void *sym, int pe) {
  const gpushmem_device_state_t &s = state();
  if (s.peer_base == nullptr || pe < 0 || pe >= s.n_pes) return nullptr;
  const char *p = static_cast<const char *>(sym);
  if (p < s.heap_base + GPUSHMEM_DEVICE_INTERNAL_BYTES || p >= s.heap_base + s.heap_size) return nullptr;
  char *base = peer_heap(pe);
  return base == nullptr ? nullptr : base + (p - s.heap_base);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_ADDRESS_CUH */
