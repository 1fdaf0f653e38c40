/*
 * Ordering and whole-job synchronisation on the device: quiet, fence, sync_all and barrier_all.
 *
 * sync_all is a dissemination barrier over the sync words of every PE's internal area (internal_area.cuh):
 * in round k this PE stores the barrier's number into round word k of PE (me + 2^k) mod n and waits for
 * PE (me - 2^k) mod n to do the same to its own; ceil(log2 n) rounds. Numbers only grow, and a waiter
 * compares with >=, so nothing is ever reset. barrier_all is quiet followed by sync_all (its first
 * arrival needs no release of its own after the quiet's system fence). Each round spins with acquire
 * loads on the word it waits for, and needs no fence.
 *
 * One caller per PE: the collective is called by exactly one thread of each PE (or one warp / block
 * through the shmemx_*_warp / _block forms); two concurrent callers on one PE break the sequence.
 */
#ifndef GPUSHMEM_DEVICE_SYNC_CUH
#define GPUSHMEM_DEVICE_SYNC_CUH

#include <stdint.h>

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/internal_area.cuh"
#include "gpushmem/device/ordering.cuh"
#include "gpushmem/device/scope.cuh"

namespace gpushmem {
namespace device {
namespace {

/* Over P2P a system fence; with proxy channels also a QUIET through each channel used since the last one, and with
   IBGDA peers a wait for their QPs (two constant-bank tests when there are neither). */
__device__ __forceinline__ void quiet() {
  fence_complete_all();
  remote_quiet("shmem_quiet");
}
__device__ __forceinline__ void fence() {
  fence_order_per_pe();
  remote_fence("shmem_fence");
}

/* The rounds, run by the one calling thread. `after_quiet`: the caller has just fenced at system scope. */
__device__ __noinline__ inline void sync_all_rounds(const char *call, bool after_quiet) {
  const gpushmem_device_state_t &s = state();
  if (s.peer_base == nullptr) fail_not_initialized(call);
  internal_area *mine = my_internal_area();
  volatile uint64_t *epoch_word = &mine->sync_epoch.value;
  const uint64_t epoch = *epoch_word + 1;
  *epoch_word = epoch;
  const int me = s.my_pe, n = s.n_pes;
  bool released = after_quiet;
  for (int k = 0, distance = 1; distance < n; ++k, distance <<= 1) {
    const int to = (me + distance) % n;
    internal_area *peer = internal_area_of(to);
    if (peer != nullptr) {
      if (released)
        arrive_after_quiet(&peer->sync_round[k].value, epoch);
      else
        arrive_release(&peer->sync_round[k].value, epoch);
    } else if (remote_reaches(to)) {
      // The same word of the peer's internal area, through the proxy (its slot's release orders what came before).
      remote_signal(call, &mine->sync_round[k].value, epoch, false, to);
    } else {
      fail_unreachable(call, to, nullptr);
    }
    released = false;  // later rounds must pass on what this PE acquired in the earlier ones
    // An acquire spin: the load that sees the epoch makes this round's sender's earlier stores visible,
    // without a system fence on the critical path.
    while (acquire_load(&mine->sync_round[k].value) < epoch) {
    }
  }
}

template <class Scope>
__device__ __forceinline__ void sync_all(const char *call) {
  Scope::sync();
  if (Scope::rank() == 0) sync_all_rounds(call, false);
  Scope::sync();
}

template <class Scope>
__device__ __forceinline__ void barrier_all(const char *call) {
  Scope::sync();
  if (Scope::rank() == 0) {
    quiet();
    sync_all_rounds(call, true);
  }
  Scope::sync();
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_SYNC_CUH */
