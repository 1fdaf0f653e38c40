// Communication contexts (shmem_ctx_t): a table of slots that handles name by index and generation.
//
// A handle is not a pointer: bit 63 (a tag no user-space address carries), a 31-bit generation in bits
// 32..62 and the slot index in bits 0..31. SHMEM_CTX_DEFAULT is slot 0, generation 1, live forever;
// SHMEM_CTX_INVALID is 0. A slot's generation is odd while its context lives and is bumped at create and at
// destroy, so a handle kept past shmem_ctx_destroy no longer matches (even after the slot is reused) and is
// reported by name instead of silently reaching another context. Slots live in chunks allocated on demand and
// never freed, so lookups need no lock, and memory is bounded by the most contexts alive at once.
//
// Threads: create and destroy take a mutex; lookups are lock-free. Using a context while another thread
// destroys it is the program's error (the specification's undefined behaviour); the check catches what it can.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "api/api_common.hpp"
#include "gpushmem/config.h"
#include "shmem.h"

namespace gpushmem::ctx {

inline constexpr uint64_t kTag = uint64_t{1} << 63;
inline constexpr uint32_t kSlotsPerChunk = 256;
inline constexpr uint32_t kMaxChunks = 256;                             // at most 65536 contexts alive at once
inline constexpr uint64_t kDefaultHandle = kTag | (uint64_t{1} << 32);  // slot 0, generation 1

// The team a context belongs to: its PE numbers are the ones point-to-point calls on the context take. Teams
// are world-PE triplets, copied here so a translation needs no team lookup.
struct Team {
  shmem_team_t handle = nullptr;  // nullptr: the world team (numbers are world PE numbers)
  int start = 0;                  // world PE of team member 0
  int stride = 1;                 // world-PE distance between consecutive members
  int size = 0;                   // members
};

// What a context is.
struct Slot {
  std::atomic<uint32_t> generation{0};  // odd: alive
  long options = 0;                     // SHMEM_CTX_* bits given at creation
  Team team;
  pthread_t owner{};  // creating thread (checked for SHMEM_CTX_PRIVATE)
};

struct Chunk {
  Slot slots[kSlotsPerChunk];
};

// Lock-free part of the table (the rest lives in ctx_table.cpp).
extern std::atomic<Chunk *> g_chunks[kMaxChunks];
extern Slot g_default_slot;  // SHMEM_CTX_DEFAULT: world team, no options

// Makes a context of `team` with `options` (already checked); 0 and *out set, or nonzero with
// *out = SHMEM_CTX_INVALID when the table is full (logged). Thread safe.
int create(const char *call, long options, const Team &team, shmem_ctx_t *out);
// Frees the slot of a live context other than SHMEM_CTX_DEFAULT (the caller checked and quieted it).
void destroy(shmem_ctx_t ctx);
// shmem_team_destroy: destroys every context of `team` (quieted first), as the specification says for
// shareable contexts (private ones should already be gone; they are destroyed too). Returns how many.
int destroy_team_contexts(shmem_team_t team);

// Ends the job naming `call` and why `ctx` is not a usable context.
[[noreturn]] void fail_handle(const char *call, shmem_ctx_t ctx);
[[noreturn]] void fail_private(const char *call, shmem_ctx_t ctx);
[[noreturn]] void fail_team_pe(const char *call, shmem_ctx_t ctx, int pe, int team_size);

inline uint64_t bits(shmem_ctx_t ctx) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ctx));
}

// The live slot `ctx` names, or nullptr (SHMEM_CTX_INVALID, destroyed, or not a handle).
inline Slot *find(shmem_ctx_t ctx) {
  const uint64_t h = bits(ctx);
  if (h == kDefaultHandle) return &g_default_slot;
  if ((h & kTag) == 0) return nullptr;
  const uint32_t index = static_cast<uint32_t>(h);
  const uint32_t generation = static_cast<uint32_t>((h & ~kTag) >> 32);
  if (index >= kSlotsPerChunk * kMaxChunks) return nullptr;
  Chunk *chunk = g_chunks[index / kSlotsPerChunk].load(std::memory_order_acquire);
  if (chunk == nullptr) return nullptr;
  Slot &slot = chunk->slots[index % kSlotsPerChunk];
  return slot.generation.load(std::memory_order_acquire) == generation ? &slot : nullptr;
}

// The slot of a context an RMA / AMO / signal call was given, checked when error checks are on: a destroyed,
// invalid or foreign handle, or a SHMEM_CTX_PRIVATE context used by another thread, ends the job.
inline Slot &use(const char *call, shmem_ctx_t ctx) {
  api::require_running(call);
  Slot *slot = find(ctx);
  if (slot == nullptr) [[unlikely]]
    fail_handle(call, ctx);
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if ((slot->options & SHMEM_CTX_PRIVATE) != 0 && rt().error_checks && !pthread_equal(slot->owner, pthread_self()))
        [[unlikely]]
      fail_private(call, ctx);
  }
  return *slot;
}

// The world PE number of `pe` in the context's team (team-relative numbering), range-checked against the
// team when error checks are on. World contexts pass pe through (api::remote_addr checks it).
// The network channel of a context (its ordering and quiet domain in transports/): the slot index, 0 for
// SHMEM_CTX_DEFAULT. Only meaningful for a handle world_pe or use accepted.
inline uint32_t chan(shmem_ctx_t ctx) {
  return static_cast<uint32_t>(bits(ctx));
}

inline int world_pe(const char *call, shmem_ctx_t ctx, int pe) {
  if (bits(ctx) == kDefaultHandle) {
    api::require_running(call);
    return pe;
  }
  const Team &team = use(call, ctx).team;
  if (team.handle == nullptr) return pe;
  if (pe < 0 || pe >= team.size) [[unlikely]]  // always checked: outside the team, the triplet names other PEs
    fail_team_pe(call, ctx, pe, team.size);
  return team.start + pe * team.stride;
}

// shmem_finalize: every context still alive is destroyed (shareable ones by the specification's rule;
// private ones should already be gone), so no handle outlives the library.
void finalize();

}  // namespace gpushmem::ctx
