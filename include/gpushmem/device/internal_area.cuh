/*
 * The first GPUSHMEM_DEVICE_INTERNAL_BYTES of every PE's GPU heap: the words the device API itself keeps
 * in symmetric memory. The runtime zeroes them at shmem_init and never touches them again; user
 * allocations start after them. Plain types, so host code may include this header to check sizes.
 */
#ifndef GPUSHMEM_DEVICE_INTERNAL_AREA_CUH
#define GPUSHMEM_DEVICE_INTERNAL_AREA_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device_state.h"
#include "gpushmem/team_state.h"

namespace gpushmem {
namespace device {

/* Dissemination rounds: ceil(log2(n_pes)) <= 32 for any int PE count. */
inline constexpr int kMaxSyncRounds = 32;

/* One word per 128-byte line: words that different PEs write must not share a line (NVLink and L2 work
   in 128-byte lines, and a line bouncing between writers costs a round trip per write). */
struct alignas(128) internal_line {
  uint64_t value;
  unsigned char pad[120];
};

/* A team's device words on one PE (team slot s uses team_sync[s]). The runtime zeroes this PE's words of
   a slot when a team takes it (before the creating split's final synchronisation), so members start
   counting together. The epoch is this PE's own; round k is written by the member 2^k places before it;
   count is this PE's contribution to a running collect, read by the other members. Rounds share lines: a
   team sync is rarer than the world barrier, and 64 teams of padded words would not fit. */
struct team_sync_words {
  uint64_t epoch;
  uint64_t count;
  uint64_t round[kMaxSyncRounds - 2];
};

struct internal_area {
  /* Device barriers and syncs this PE has completed (barrier_all and sync_all share one sequence). Read
     and written only by this PE's single caller of the collective. */
  internal_line sync_epoch;
  /* Round k of barrier number e: PE (me - 2^k) mod n stores e here. Never reset: a waiter compares with
     >=, so a peer already in the next barrier (e + 1) still releases it. */
  internal_line sync_round[kMaxSyncRounds];
  /* Team syncs (shmem_team_sync on the device), by team slot. */
  team_sync_words team_sync[GPUSHMEM_MAX_TEAMS];
};

static_assert(sizeof(internal_line) == 128, "one word per 128-byte line");
static_assert(offsetof(internal_area, sync_round) == 128, "internal area layout");
static_assert(sizeof(team_sync_words) == 256, "team sync words layout");
static_assert(offsetof(internal_area, team_sync) == 128 * (1 + kMaxSyncRounds), "internal area layout");
static_assert(sizeof(internal_area) <= GPUSHMEM_DEVICE_INTERNAL_BYTES,
              "the device internal area outgrew GPUSHMEM_DEVICE_INTERNAL_BYTES");

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_INTERNAL_AREA_CUH */
