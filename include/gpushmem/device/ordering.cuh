/*
 * Every memory fence and ordered access the device API uses, named by what it orders. P2P peers are
 * other GPUs (or other processes on this GPU) reading this PE's stores through NVLink/PCIe mappings, and
 * CPU threads, so everything is at system scope. Fences are costly on this path (a system fence waits
 * for every earlier store to be acknowledged), so each operation uses exactly the ones listed here.
 */
#ifndef GPUSHMEM_DEVICE_ORDERING_CUH
#define GPUSHMEM_DEVICE_ORDERING_CUH

#include "gpushmem/device/global_ops.cuh"

namespace gpushmem {
namespace device {

/* quiet: every store and atomic this thread issued before (and, after a block or warp sync, its
   group's) is performed at its target, for every PE and the CPU, before anything later. */
__device__ __forceinline__ void fence_complete_all() {
  __threadfence_system();
}

/* fence: earlier stores and atomics to a PE arrive before later ones to that PE. P2P gives no cheaper
   per-target ordering than the system fence. */
__device__ __forceinline__ void fence_order_per_pe() {
  __threadfence_system();
}

/* The signal of a put-with-signal: a release at system scope, so the payload this thread (and, after a
   group sync, its group) stored before it is visible to whoever sees the signal. One release instead of
   a full fence plus a plain store. */
__device__ __forceinline__ void signal_set_after_payload(uint64_t *signal_word, uint64_t value) {
  gmem::store_release(signal_word, value);
}
__device__ __forceinline__ void signal_add_after_payload(uint64_t *signal_word, uint64_t value) {
  gmem::word<8>::add_release(signal_word, value);
}

/* Barrier arrival: a release at system scope, publishing this PE's earlier stores (sync_all's contract)
   and what it learned in earlier rounds. After a quiet the system fence already did that, and a relaxed
   store suffices. */
__device__ __forceinline__ void arrive_release(uint64_t *round_word, uint64_t epoch) {
  gmem::store_release(round_word, epoch);
}
__device__ __forceinline__ void arrive_after_quiet(uint64_t *round_word, uint64_t epoch) {
  gmem::store_relaxed(round_word, epoch);
}

/* The load a wait spins on: an acquire at system scope, so once it reads the value waited for, the data
   delivered before that value (a signal's payload, the puts before a barrier arrival) is visible to this
   thread's later loads. On sm_90 an ld.acquire costs what a relaxed poll costs, so waits spin on it
   directly: the load that sees the value is the one that orders, with no second load and no fence (a
   relaxed spin confirmed by an acquire re-read measured 0.17 us more per hop over NVLink, a relaxed spin
   followed by an acquire fence 0.5 us more). */
template <class T>
__device__ __forceinline__ T acquire_load(const T *word) {
  return gmem::load_acquire(word);
}

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_ORDERING_CUH */
