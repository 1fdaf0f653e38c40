/*
 * Every memory fence and ordered access the device API uses, named by what it orders. P2P peers are
 * other GPUs (or other processes on this GPU) reading this PE's stores through NVLink/PCIe mappings, and
 * CPU threads, so everything is at system scope. Fences are costly on this path (a system fence waits
 * for every earlier store to be acknowledged), so each operation uses exactly the ones listed here.
 */
#ifndef GPUSHMEM_DEVICE_ORDERING_CUH
#define GPUSHMEM_DEVICE_ORDERING_CUH

#include <cuda/atomic>

namespace gpushmem {
namespace device {

template <class T>
using system_atomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

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
  system_atomic<uint64_t>(*signal_word).store(value, cuda::memory_order_release);
}
__device__ __forceinline__ void signal_add_after_payload(uint64_t *signal_word, uint64_t value) {
  system_atomic<uint64_t>(*signal_word).fetch_add(value, cuda::memory_order_release);
}

/* Barrier arrival: a release at system scope, publishing this PE's earlier stores (sync_all's contract)
   and what it learned in earlier rounds. After a quiet the system fence already did that, and a relaxed
   store suffices. */
__device__ __forceinline__ void arrive_release(uint64_t *round_word, uint64_t epoch) {
  system_atomic<uint64_t>(*round_word).store(epoch, cuda::memory_order_release);
}
__device__ __forceinline__ void arrive_after_quiet(uint64_t *round_word, uint64_t epoch) {
  system_atomic<uint64_t>(*round_word).store(epoch, cuda::memory_order_relaxed);
}

/* Polling a word that other PEs update with stores or atomics: a relaxed system-scope load, which
   always reaches memory (never a stale L1 line) and is atomic with respect to the AMOs on that word. */
template <class T>
__device__ __forceinline__ T poll_load(const T *word) {
  return system_atomic<T>(*const_cast<T *>(word)).load(cuda::memory_order_relaxed);
}

/* The load that ends a wait: an acquire at system scope, so the data delivered before the value it reads
   (a signal's payload, the puts before a barrier arrival) is visible to this thread's later loads. A spin
   polls with poll_load and confirms with this once the condition holds: an ld.acquire only keeps later
   loads from using stale L1 lines, where acquire_after_wait's fence also drains every earlier store of
   this thread to the system (a membar per wait on the round trip's critical path). */
template <class T>
__device__ __forceinline__ T acquire_load(const T *word) {
  return system_atomic<T>(*const_cast<T *>(word)).load(cuda::memory_order_acquire);
}

/* After a wait or test saw the value it waited for: the data delivered before that update (a signal's
   payload, the puts before a barrier) is visible to this thread's later loads. */
__device__ __forceinline__ void acquire_after_wait() {
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
}

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_ORDERING_CUH */
