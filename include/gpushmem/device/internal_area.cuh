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

struct internal_area {
  /* Device barriers and syncs this PE has completed (barrier_all and sync_all share one sequence). Read
     and written only by this PE's single caller of the collective. */
  internal_line sync_epoch;
  /* Round k of barrier number e: PE (me - 2^k) mod n stores e here. Never reset: a waiter compares with
     >=, so a peer already in the next barrier (e + 1) still releases it. */
  internal_line sync_round[kMaxSyncRounds];
};

static_assert(sizeof(internal_line) == 128, "one word per 128-byte line");
static_assert(offsetof(internal_area, sync_round) == 128, "internal area layout");
static_assert(sizeof(internal_area) <= GPUSHMEM_DEVICE_INTERNAL_BYTES,
              "the device internal area outgrew GPUSHMEM_DEVICE_INTERNAL_BYTES");

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_INTERNAL_AREA_CUH */
