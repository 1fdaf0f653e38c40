/*
 * The plain-data part of a team, shared by host and device code (C11, C++, CUDA): a member list given as
 * a world-PE triplet, this PE's place in it, and where the team's synchronisation area lives. The runtime
 * keeps one per team slot (runtime/team/team.hpp); device code can be handed a copy by value.
 *
 * Handles: shmem_team_t is a pointer type, but a team handle is never dereferenced. It encodes the slot
 * (bits 0..7, slot + 1, so 0 is SHMEM_TEAM_INVALID) and the slot's generation (bits 8..), so a handle kept
 * after shmem_team_destroy is recognised even when the slot has been reused.
 */
#ifndef GPUSHMEM_TEAM_STATE_H
#define GPUSHMEM_TEAM_STATE_H

#include <stddef.h>
#include <stdint.h>

#define GPUSHMEM_TEAM_STATE_VERSION 1
/* Teams that may exist at once on a PE, SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included. */
#define GPUSHMEM_MAX_TEAMS 64
/* The predefined teams' slots. */
#define GPUSHMEM_TEAM_SLOT_WORLD 0
#define GPUSHMEM_TEAM_SLOT_SHARED 1

#define GPUSHMEM_TEAM_HANDLE_BITS(slot, generation) \
  ((uintptr_t)(((uint64_t)(generation) << 8) | (uint64_t)((slot) + 1)))
#define GPUSHMEM_TEAM_HANDLE_SLOT(bits) ((int)((uintptr_t)(bits)&0xffu) - 1)
#define GPUSHMEM_TEAM_HANDLE_GENERATION(bits) ((uint32_t)((uintptr_t)(bits) >> 8))

#if defined(__CUDACC__)
#define GPUSHMEMI_TEAM_HD __host__ __device__
#else
#define GPUSHMEMI_TEAM_HD
#endif

typedef struct gpushmem_team_state {
  int32_t start;        /* world PE of member 0 */
  int32_t stride;       /* world-PE distance between consecutive members (any sign; 0 only when size is 1) */
  int32_t size;         /* number of members, >= 1 */
  int32_t my_index;     /* this PE's number in the team; -1: not a member */
  int32_t slot;         /* index in the team table: the same on every member */
  uint32_t generation;  /* how often the slot has been (re)used on this PE */
  uint64_t sync_offset; /* offset of the team's synchronisation area from the start of every member's host heap */
} gpushmem_team_state_t;

#ifdef __cplusplus
static_assert(sizeof(gpushmem_team_state_t) == 32, "team state layout is shared with device code");
static_assert(offsetof(gpushmem_team_state_t, sync_offset) == 24, "team state layout is shared with device code");
#else
_Static_assert(sizeof(gpushmem_team_state_t) == 32, "team state layout is shared with device code");
#endif

/* World PE of team member `index`. */
GPUSHMEMI_TEAM_HD static inline int gpushmem_team_world_pe(const gpushmem_team_state_t *t, int index) {
  return t->start + index * t->stride;
}

/* Team index of world PE `pe`, or -1 when it is not a member. */
GPUSHMEMI_TEAM_HD static inline int gpushmem_team_index_of(const gpushmem_team_state_t *t, int pe) {
  int d = pe - t->start;
  if (t->size == 1) return d == 0 ? 0 : -1;
  if (t->stride == 0 || d % t->stride != 0) return -1;
  int i = d / t->stride;
  return i >= 0 && i < t->size ? i : -1;
}

/* A reduction's split of n elements of `width` bytes (a power of two) among a team of `size`: member `index`
   reduces elements [*first, *last), the index-th of near-equal slices whose boundaries fall on 16 bytes (so a
   member's share starts where 16-byte vectors do). Device code over P2P and the CPU proxy split alike: members that
   take either path never overlap. */
GPUSHMEMI_TEAM_HD static inline void gpushmem_reduce_share(uint64_t n, uint64_t width, int size, int index,
                                                           uint64_t *first, uint64_t *last) {
  const uint64_t granule = width < 16 ? 16 / width : 1;
  uint64_t share = (n + (uint64_t)size - 1) / (uint64_t)size;
  share = (share + granule - 1) / granule * granule;
  uint64_t f = share * (uint64_t)index;
  if (f > n) f = n;
  *first = f;
  *last = n - f < share ? n : f + share;
}

#endif /* GPUSHMEM_TEAM_STATE_H */
