/*
 * Teams on the device: shmem_team_my_pe, shmem_team_n_pes, shmem_team_translate_pe and shmem_team_sync
 * (= shmem_sync(team)) inside kernels. A handle (gpushmem/team_state.h) names a slot of the device team
 * table the runtime keeps (device state `teams`): the team's world-PE triplet and this PE's place in it.
 *
 * shmem_team_sync is a dissemination barrier over the team's members, on this slot's words in every
 * member's internal area (internal_area.cuh): in round k the member stores the sync's number into round
 * word k of the member 2^k places after it and waits, spinning on acquire loads, until the member 2^k
 * places before it has done the same to its own. It publishes the caller's earlier stores (a release
 * arrival) and completes no puts, as the specification says. SHMEM_TEAM_WORLD uses sync_all's words.
 * One caller per PE and team, as for sync_all.
 */
#ifndef GPUSHMEM_DEVICE_TEAM_CUH
#define GPUSHMEM_DEVICE_TEAM_CUH

#include <stdint.h>

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/internal_area.cuh"
#include "gpushmem/device/ordering.cuh"
#include "gpushmem/device/sync.cuh"
#include "gpushmem/team_state.h"

namespace gpushmem {
namespace device {
namespace {

[[noreturn]] __device__ __noinline__ inline void fail_team(const char *call, const void *team, const char *why) {
  const bool printer = error_report_begin();
  if (printer) {
    error_record(GPUSHMEM_DEVICE_ERROR_TEAM, call, -1, team, 0, why, nullptr);
    printf("gpushmem[PE %d] device error in %s: team=%p %s (block %u, thread %u)\n", state().my_pe, call, team, why,
           blockIdx.x, threadIdx.x);
  }
  error_report_end_and_trap(printer);
}

/* The live team behind `team`, or nullptr for SHMEM_TEAM_INVALID and for a handle whose team no longer
   exists (destroyed: the slot's generation moved on, or it is free). */
__device__ __forceinline__ const gpushmem_team_state_t *find_team(const void *team) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(team);
  const int slot = GPUSHMEM_TEAM_HANDLE_SLOT(bits);
  const gpushmem_team_state_t *table = state().teams;
  if (slot < 0 || slot >= GPUSHMEM_MAX_TEAMS || table == nullptr) return nullptr;
  const gpushmem_team_state_t *t = table + slot;
  // The predefined handles carry generation 0; their slots are claimed once per job (generation 1).
  const uint32_t generation = GPUSHMEM_TEAM_HANDLE_GENERATION(bits);
  const bool predefined = slot <= GPUSHMEM_TEAM_SLOT_SHARED && generation == 0;
  if (t->size <= 0 || (!predefined && t->generation != generation)) return nullptr;
  return t;
}

/* As find_team for the routines that need a live team this PE belongs to: anything else is an error. */
__device__ __forceinline__ const gpushmem_team_state_t *member_team(const char *call, const void *team) {
  if (state().teams == nullptr) fail_not_initialized(call);
  const gpushmem_team_state_t *t = find_team(team);
  if (t == nullptr)
    fail_team(call, team,
              "is not a live team (SHMEM_TEAM_INVALID, destroyed, or not a handle from shmem_team_split_*)");
  if (t->my_index < 0) fail_team(call, team, "does not include this PE");
  return t;
}

__device__ __forceinline__ int team_my_pe(const void *team) {
  const gpushmem_team_state_t *t = find_team(team);
  return t == nullptr ? -1 : t->my_index;
}

__device__ __forceinline__ int team_n_pes(const void *team) {
  const gpushmem_team_state_t *t = find_team(team);
  return t == nullptr ? -1 : t->size;
}

__device__ __forceinline__ int team_translate_pe(const void *src_team, int src_pe, const void *dest_team) {
  const gpushmem_team_state_t *from = find_team(src_team), *to = find_team(dest_team);
  if (from == nullptr || to == nullptr || src_pe < 0 || src_pe >= from->size) return -1;
  return gpushmem_team_index_of(to, gpushmem_team_world_pe(from, src_pe));
}

/* The rounds of one team sync, run by the one calling thread of this PE. */
__device__ __noinline__ inline void team_sync_rounds(const char *call, const void *team) {
  const gpushmem_team_state_t *t = member_team(call, team);
  const int n = t->size, me = t->my_index, slot = t->slot;
  team_sync_words *mine = &my_internal_area()->team_sync[slot];
  const uint64_t epoch = mine->epoch + 1;
  mine->epoch = epoch;
  for (int k = 0, distance = 1; distance < n; ++k, distance <<= 1) {
    const int to = gpushmem_team_world_pe(t, (me + distance) % n);
    internal_area *peer = internal_area_of(to);
    // A release: this PE's earlier stores, and what it learned in earlier rounds, go before the arrival.
    if (peer != nullptr)
      arrive_release(&peer->team_sync[slot].round[k], epoch);
    else if (remote_reaches(to))
      remote_signal(call, &mine->round[k], epoch, false, to);  // the same word of the peer's internal area
    else
      fail_unreachable(call, to, nullptr);
    while (acquire_load(&mine->round[k]) < epoch) {
    }
  }
}

/* The sync of any team by its one calling thread: SHMEM_TEAM_WORLD on the world barrier's words (whose first
   arrival may be relaxed right after a quiet), every other team on its slot's words. */
__device__ __forceinline__ void any_team_sync_rounds(const char *call, const void *team, bool after_quiet) {
  if (team == reinterpret_cast<const void *>(GPUSHMEM_TEAM_HANDLE_BITS(GPUSHMEM_TEAM_SLOT_WORLD, 0)))
    sync_all_rounds(call, after_quiet);
  else
    team_sync_rounds(call, team);
}

template <class Scope>
__device__ __forceinline__ void team_sync(const char *call, const void *team) {
  Scope::sync();
  if (Scope::rank() == 0) any_team_sync_rounds(call, team, false);
  Scope::sync();
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TEAM_CUH */
