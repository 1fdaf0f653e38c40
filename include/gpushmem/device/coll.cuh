/*
 * Team collectives on the device over P2P: broadcast, collect, fcollect, alltoall, alltoalls and the
 * reductions, called by one thread, one warp, one block or one cooperatively launched grid per PE (scope.cuh; the
 * grid form is what the collectives on a stream run, runtime/gpu/stream_coll_kernels.cu). OpenSHMEM's contract
 * (openshmem-notes 35): on entry every member's dest is ready and the caller's own source is ready, so a
 * member may write remote dests at once but may read a peer's source only after that peer has entered.
 *
 *   broadcast  the root stores its source into every member's dest (its own included);
 *   fcollect   every member stores its source into block `me` of every member's dest;
 *   collect    the members publish their counts (one team sync), each computes its offset as the sum of
 *              the counts before it, then stores as fcollect does;
 *   alltoall   every member stores block j of its source into block `me` of member j's dest (alltoalls:
 *              the same with element strides);
 *   reduce     one team sync (every source is ready), then member m reduces its share of the elements
 *              (the m-th of `size` near-equal slices, cut on 16 bytes: gpushmem_reduce_share) by loading
 *              them from every member's source, several 16-byte vectors per lane in flight at once, and
 *              stores the result into every member's dest. Shares are disjoint, so a member only ever
 *              writes elements that only it reads: in-place reductions (dest == source) are safe.
 * Each ends with a quiet and a team sync, so on return every member's dest is complete and the next
 * collective on the team may start at once. Return 0.
 *
 * Members on another node (reached through the CPU proxy): the pushes to them are the group's rank 0's nbi
 * puts through the proxy (alltoalls: one request per element, shared by the group's lanes), completed by the
 * final quiet. collect and the reductions, which read other members' memory, hand this PE's part to its proxy
 * when some member is not mapped: the group's rank 0 posts one COLL request (transport/proxy.cuh) and waits for
 * it, and the proxy does what the P2P code does (the same shares, the same team order; runtime/proxy/
 * proxy_coll.cpp), reaching every member with the host API's RMA. Members decide alone: a member that maps
 * every other one runs the P2P code beside members whose proxies run theirs. (Fetching proxied members' data
 * with gets from device code raised a block-scope reduction's registers from 48 to 74, past the 64 a 1024-thread
 * block allows: one out-of-line request costs the P2P path next to nothing. docs/transports.md.)
 */
#ifndef GPUSHMEM_DEVICE_COLL_CUH
#define GPUSHMEM_DEVICE_COLL_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/address.cuh"
#include "gpushmem/device/copy.cuh"
#include "gpushmem/device/ordering.cuh"
#include "gpushmem/device/scope.cuh"
#include "gpushmem/device/sync.cuh"
#include "gpushmem/device/team.cuh"

namespace gpushmem {
namespace device {
namespace {

/* The end of every collective: this scope's stores are complete at their targets (quiet by the group's
   one caller after the group sync), then the team sync. */
template <class Scope>
__device__ __forceinline__ void coll_finish(const char *call, const void *team) {
  Scope::sync();
  if (Scope::rank() == 0) {
    quiet();
    any_team_sync_rounds(call, team, true);
  }
  Scope::sync();
}

/* The _grid forms' entry (shmemx_api.cuh): their syncs are grid barriers, undefined in a grid whose blocks need not
   be resident together. Checked whatever error_checks() says: the alternative is a hang. */
__device__ __forceinline__ void require_cooperative_grid(const char *call) {
  if (!grid_scope::launched_cooperatively()) fail_not_cooperative(call);
}

/* `bytes` from `source` to symmetric `dest_sym` of team member `index`: stores over P2P, the group's rank 0's nbi
   put through the proxy otherwise (complete at the collective's final quiet). */
template <class Scope>
__device__ __forceinline__ void member_put(const char *call, const gpushmem_team_state_t *t, int index, char *dest_sym,
                                           const void *source, size_t bytes) {
  const int pe = gpushmem_team_world_pe(t, index);
  if (char *r = reach(call, "dest", dest_sym, bytes, pe))
    copy_data<Scope>(r, source, bytes);
  else if (Scope::rank() == 0)
    (void)remote_putmem(call, dest_sym, source, bytes, pe, true);
}

/* alltoalls to a proxied member: one nbi request per element (elements `elem` bytes, `dst` / `sst` bytes apart),
   the group's lanes (rank of size) sharing them. Out of line, as collect_offset. */
__device__ __noinline__ inline void proxy_put_strided(const char *call, char *dest_sym, ptrdiff_t dst,
                                                      const char *source, ptrdiff_t sst, size_t elem, size_t nelems,
                                                      int pe, unsigned rank, unsigned size) {
  for (size_t i = rank; i < nelems; i += size)
    (void)remote_putmem(call, dest_sym + dst * static_cast<ptrdiff_t>(i), source + sst * static_cast<ptrdiff_t>(i),
                        elem, pe, true);
}

/* Whether this PE maps every member's heap (else the proxy does this PE's part of collect and the reductions). */
__device__ __forceinline__ bool team_mapped(const gpushmem_team_state_t *t) {
  for (int i = 0; i < t->size; ++i)
    if (peer_heap(gpushmem_team_world_pe(t, i)) == nullptr) return false;
  return true;
}

/* Where symmetric `sym` of team member `index` is reached from here. */
template <class T>
__device__ __forceinline__ T *member_addr(const char *call, const char *arg, const gpushmem_team_state_t *t, int index,
                                          T *sym, size_t bytes) {
  return remote(call, arg, sym, bytes, gpushmem_team_world_pe(t, index));
}

template <class Scope>
__device__ __forceinline__ int broadcastmem(const char *call, const void *team, void *dest, const void *source,
                                            size_t bytes, int root) {
  const gpushmem_team_state_t *t = member_team(call, team);
  if (error_checks() && (root < 0 || root >= t->size))
    fail_argument(call, "PE_root", root, "the root is a PE number in the team (0 .. team size - 1)");
  if (t->my_index == root && bytes != 0)
    for (int i = 0; i < t->size; ++i) member_put<Scope>(call, t, i, static_cast<char *>(dest), source, bytes);
  coll_finish<Scope>(call, team);
  return 0;
}

template <class Scope>
__device__ __forceinline__ int fcollectmem(const char *call, const void *team, void *dest, const void *source,
                                           size_t bytes) {
  const gpushmem_team_state_t *t = member_team(call, team);
  if (bytes != 0) {
    char *block = static_cast<char *>(dest) + static_cast<size_t>(t->my_index) * bytes;
    for (int k = 1; k <= t->size; ++k) {  // start with the next member, so members do not all hit one PE first
      const int i = (t->my_index + k) % t->size;
      member_put<Scope>(call, t, i, block, source, bytes);
    }
  }
  coll_finish<Scope>(call, team);
  return 0;
}

template <class Scope>
__device__ __forceinline__ int collectmem(const char *call, const void *team, void *dest, const void *source,
                                          size_t bytes) {
  const gpushmem_team_state_t *t = member_team(call, team);
  team_sync_words *mine = &my_internal_area()->team_sync[t->slot];
  if (Scope::rank() == 0) mine->count = bytes;
  coll_finish<Scope>(call, team);  // (nothing to quiet yet) every member's count is published
  if (!team_mapped(t)) {
    if (Scope::rank() == 0) proxy_coll(call, t, GPUSHMEM_PROXY_COLL_COLLECT, dest, source, bytes, &mine->count);
  } else {
    size_t offset = 0;
    for (int i = 0; i < t->my_index; ++i)
      offset += static_cast<size_t>(internal_area_of(gpushmem_team_world_pe(t, i))->team_sync[t->slot].count);
    if (bytes != 0)
      for (int k = 1; k <= t->size; ++k) {
        const int i = (t->my_index + k) % t->size;
        copy_data<Scope>(member_addr(call, "dest", t, i, static_cast<char *>(dest) + offset, bytes), source, bytes);
      }
  }
  coll_finish<Scope>(call, team);
  return 0;
}

template <class Scope>
__device__ __forceinline__ int alltoallmem(const char *call, const void *team, void *dest, const void *source,
                                           size_t bytes) {
  const gpushmem_team_state_t *t = member_team(call, team);
  if (bytes != 0) {
    const size_t mine = static_cast<size_t>(t->my_index) * bytes;
    for (int k = 1; k <= t->size; ++k) {
      const int j = (t->my_index + k) % t->size;
      member_put<Scope>(call, t, j, static_cast<char *>(dest) + mine,
                        static_cast<const char *>(source) + static_cast<size_t>(j) * bytes, bytes);
    }
  }
  coll_finish<Scope>(call, team);
  return 0;
}

template <class Scope, class E>
__device__ __forceinline__ int alltoalls(const char *call, const void *team, E *dest, const E *source, ptrdiff_t dst,
                                         ptrdiff_t sst, size_t nelems) {
  if (error_checks()) {
    check_stride(call, "dst", dst);
    check_stride(call, "sst", sst);
  }
  const gpushmem_team_state_t *t = member_team(call, team);
  if (nelems != 0) {
    const ptrdiff_t n = static_cast<ptrdiff_t>(nelems), me = t->my_index;
    const size_t span = (static_cast<size_t>(t->size) * nelems - 1) * static_cast<size_t>(dst) + 1;
    for (int k = 1; k <= t->size; ++k) {
      const int j = (t->my_index + k) % t->size;
      const int pe = gpushmem_team_world_pe(t, j);
      const E *from = source + sst * static_cast<ptrdiff_t>(j) * n;
      if (E *r = reach(call, "dest", dest, span * sizeof(E), pe)) {
        copy_strided<Scope>(r + dst * me * n, dst, from, sst, nelems);
      } else {
        // Through the proxy: one nbi request per element, the group's lanes sharing them.
        proxy_put_strided(call, reinterpret_cast<char *>(dest + dst * me * n), dst * static_cast<ptrdiff_t>(sizeof(E)),
                          reinterpret_cast<const char *>(from), sst * static_cast<ptrdiff_t>(sizeof(E)), sizeof(E),
                          nelems, pe, Scope::rank(), Scope::size());
      }
    }
  }
  coll_finish<Scope>(call, team);
  return 0;
}

/* The reduction operators, by the specification's names. */
struct op_and {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_AND;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a & b;
  }
};
struct op_or {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_OR;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a | b;
  }
};
struct op_xor {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_XOR;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a ^ b;
  }
};
struct op_min {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_MIN;
  template <class T>
  __device__ static T apply(T a, T b) {
    return b < a ? b : a;
  }
};
struct op_max {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_MAX;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a < b ? b : a;
  }
};
struct op_sum {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_SUM;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a + b;
  }
};
struct op_prod {
  static constexpr uint32_t code = GPUSHMEM_PROXY_REDUCE_PROD;
  template <class T>
  __device__ static T apply(T a, T b) {
    return a * b;
  }
};

/* A reduction's element type for the proxy (gpushmem_proxy_elem_class << 2 | log2 of its size). */
template <class T>
__device__ constexpr uint32_t proxy_elem() {
  return (static_cast<T>(1) / static_cast<T>(2) != static_cast<T>(0) ? uint32_t{GPUSHMEM_PROXY_ELEM_FLOAT}
          : static_cast<T>(-1) < static_cast<T>(0)                   ? uint32_t{GPUSHMEM_PROXY_ELEM_SIGNED}
                                                                     : uint32_t{GPUSHMEM_PROXY_ELEM_UNSIGNED})
             << 2 |
         (sizeof(T) == 1   ? 0u
          : sizeof(T) == 2 ? 1u
          : sizeof(T) == 4 ? 2u
                           : 3u);
}

/* How many units (16-byte vectors, or single elements where the buffers are not 16-byte aligned) one lane keeps
   in flight from each member in a reduction: two where a thread alone reduces its whole share (each round costs a
   NVLink latency per member), one in a warp or a block. Every call must fit the 64 registers of a 1024-thread block
   (register_budget_coll.cu, nvcc 13 sm_90): int sum at thread scope takes 60 at depth 2 (70 at 3, 80 at 4, measured
   before the addresses were checked outside the loops); double max at warp scope 56 at 1 (74 at 2). */
template <class Scope>
struct reduce_depth {
  static constexpr int value = 2;
};
template <>
struct reduce_depth<warp_scope> {
  static constexpr int value = 1;
};
template <>
struct reduce_depth<block_scope> {
  static constexpr int value = 1;
};
template <>
struct reduce_depth<grid_scope> {
  static constexpr int value = 1;
};

/* A reduction's unit: 16 bytes of T (its elements combined one by one), or one T. */
template <class T>
union reduce_vector {
  uint4 raw;
  T e[16 / sizeof(T)];
};
template <class T, bool Vector>
struct reduce_unit {
  using type = reduce_vector<T>;
  static constexpr size_t elements = 16 / sizeof(T);
  template <class Op>
  __device__ static void combine(type &acc, const type &in) {
#pragma unroll
    for (size_t j = 0; j < elements; ++j) acc.e[j] = Op::apply(acc.e[j], in.e[j]);
  }
};
template <class T>
struct reduce_unit<T, false> {
  using type = T;
  static constexpr size_t elements = 1;
  template <class Op>
  __device__ static void combine(type &acc, const type &in) {
    acc = Op::apply(acc, in);
  }
};

/* Where this PE's symmetric `sym` is on team member `index`, for a team this PE maps whole (team_mapped) and
   addresses reduce() checked before its loops. */
template <class T>
__device__ __forceinline__ T *mapped_member(const gpushmem_team_state_t *t, int index, T *sym) {
  return reinterpret_cast<T *>(peer_heap(gpushmem_team_world_pe(t, index)) +
                               (reinterpret_cast<const char *>(sym) - state().heap_base));
}

/* Units [0, count) from element `begin` of `source` (every member's, at this PE's symmetric address) reduced in team
   order into every member's `dest`. A lane takes units rank, rank + size, ... (size: the group's), reduce_depth of
   them per round: it loads all of a round's units from one member before combining any, so that many loads are in
   flight at once. Nothing it stores is a later load's address (the shares are disjoint), so a round's loads never
   wait for the stores of the round before. */
template <class Scope, class Op, class T, bool Vector>
__device__ __forceinline__ void reduce_units(const gpushmem_team_state_t *t, T *dest, const T *source, size_t begin,
                                             size_t count) {
  using unit = reduce_unit<T, Vector>;
  using U = typename unit::type;
  constexpr int depth = reduce_depth<Scope>::value;
  const size_t step = Scope::size();
  const int size = t->size;
  for (size_t base = Scope::rank(); base < count; base += step * depth) {
    U acc[depth];
    const U *from = reinterpret_cast<const U *>(mapped_member(t, 0, source) + begin);
#pragma unroll
    for (int d = 0; d < depth; ++d)
      if (base + d * step < count) acc[d] = from[base + d * step];
    for (int i = 1; i < size; ++i) {
      from = reinterpret_cast<const U *>(mapped_member(t, i, source) + begin);
      U in[depth];
#pragma unroll
      for (int d = 0; d < depth; ++d)
        if (base + d * step < count) in[d] = from[base + d * step];
#pragma unroll
      for (int d = 0; d < depth; ++d)
        if (base + d * step < count) unit::template combine<Op>(acc[d], in[d]);
    }
    for (int i = 0; i < size; ++i) {
      U *to = reinterpret_cast<U *>(mapped_member(t, i, dest) + begin);
#pragma unroll
      for (int d = 0; d < depth; ++d)
        if (base + d * step < count) to[base + d * step] = acc[d];
    }
  }
}

/* Every member reduces its share (gpushmem_reduce_share: 16-byte aligned slices, the CPU proxy's split too) and
   stores it into every member's dest: as 16-byte vectors where source and dest are 16-byte aligned (every member's
   heap starts 16-byte aligned, so this PE's addresses tell for all), element by element for the rest. */
template <class Scope, class Op, class T>
__device__ __forceinline__ int reduce(const char *call, const void *team, T *dest, const T *source, size_t nreduce) {
  const gpushmem_team_state_t *t = member_team(call, team);
  const size_t bytes = nreduce * sizeof(T);
  // Entry: every member's source is ready (no puts of this PE to complete yet).
  team_sync<Scope>(call, team);
  if (nreduce != 0 && !team_mapped(t)) {
    if (Scope::rank() == 0)
      proxy_coll(call, t, GPUSHMEM_PROXY_COLL_REDUCE | proxy_elem<T>() << 4 | Op::code << 8, dest, source, nreduce,
                 nullptr);
  } else if (nreduce != 0) {
    if (error_checks())
      for (int i = 0; i < t->size; ++i) {
        (void)member_addr(call, "source", t, i, const_cast<T *>(source), bytes);
        (void)member_addr(call, "dest", t, i, dest, bytes);
      }
    uint64_t first = 0, last = 0;
    gpushmem_reduce_share(nreduce, sizeof(T), t->size, t->my_index, &first, &last);
    size_t at = static_cast<size_t>(first);
    constexpr size_t per_vector = reduce_unit<T, true>::elements;
    if (((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) & 15u) == 0) {
      const size_t vectors = (static_cast<size_t>(last) - at) / per_vector;
      reduce_units<Scope, Op, T, true>(t, dest, source, at, vectors);
      at += vectors * per_vector;
    }
    if (at < last) reduce_units<Scope, Op, T, false>(t, dest, source, at, static_cast<size_t>(last) - at);
  }
  coll_finish<Scope>(call, team);
  return 0;
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_COLL_CUH */
