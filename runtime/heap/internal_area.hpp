// The runtime's own symmetric words, at offset 0 of every heap, before the user's allocations.
#pragma once

#include "gpushmem/team_state.h"

#include <cstddef>
#include <cstdint>

namespace gpushmem::heap {

constexpr int kMaxBarrierRounds = 32;  // dissemination rounds: enough for 2^32 PEs

struct alignas(64) PaddedCounter {
  uint64_t value;
  char pad[56];
};

struct InternalArea {
  // Barrier arrivals, one monotonically increasing counter per dissemination round (never reset: the
  // barrier compares against its own epoch, so back-to-back barriers need no clean-up).
  PaddedCounter barrier_round[kMaxBarrierRounds];
  // The arguments of this PE's latest symmetric-memory call (shmem_malloc, _align, _free, _realloc) and how
  // many it made: PE 0's are what every PE compares its own with (api/memory.cpp).
  alignas(64) uint64_t memory_call[4];
  // A host collect on buffers the collective engine cannot reach (the GPU heap, coll/rma_coll.cpp): this PE's
  // count, by team slot, read by the other members.
  alignas(64) uint64_t collect_count[GPUSHMEM_MAX_TEAMS];
};

// The user part of the heap starts here (page aligned so user data never shares a page with runtime words).
constexpr uint64_t kInternalAreaBytes = 64 * 1024;
static_assert(sizeof(InternalArea) <= kInternalAreaBytes, "runtime area outgrew its reservation");
static_assert(sizeof(PaddedCounter) == 64, "one counter per cache line");

}  // namespace gpushmem::heap
