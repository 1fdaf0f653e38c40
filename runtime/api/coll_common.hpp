// Argument checks shared by the collective entry points (team and active-set forms).
#pragma once

#include <cstddef>
#include <cstdint>

#include "api/api_common.hpp"
#include "coll/engine.hpp"
#include "team/team.hpp"

namespace gpushmem::api {

// A collective's symmetric buffer of `bytes` bytes: with error checks on, inside this PE's symmetric heap (or, for a
// global, in globals the node's PEs share). True when it is in the GPU heap: the collective engine reads and writes
// host buffers with loads and stores, so the team collectives take such a buffer through coll/rma_coll.hpp.
inline bool coll_buffer(const char *call, const char *arg, const void *p, size_t bytes) {
  const Runtime &r = rt();
  const char *c = static_cast<const char *>(p);
  // Classified even when empty: a collect's members bring different counts, and every member must take one path.
  const bool on_gpu = r.gpu.base != nullptr && c >= r.gpu.base && c < r.gpu.base + r.gpu.limit;
  if (bytes == 0) return on_gpu;
  if (r.data.contains(c, 1) && !r.data_shared && r.n_pes > 1) [[unlikely]]
    fail(call,
         "%s=%p is a global or static variable, and the PEs of this node do not share their globals (they run "
         "different executables, or GPUSHMEM_SYMMETRIC_DATA=0 on some of them): use shmem_malloc",
         arg, p);
  if (r.error_checks) (void)remote_addr(call, arg, p, bytes, r.my_pe);
  return on_gpu;
}

// The team collectives' way for dest and source: through RMA (coll/rma_coll.hpp) when either is in the GPU heap,
// or under GPUSHMEM_TEST_COLL_RMA (that path on host buffers, for tests without a GPU).
inline bool coll_via_rma(bool dest_on_gpu, bool source_on_gpu) {
  return dest_on_gpu || source_on_gpu || rt().test_coll_rma;
}

// A buffer of a deprecated active-set collective: as coll_buffer, but the GPU heap is refused.
inline void coll_host_buffer(const char *call, const char *arg, const void *p, size_t bytes) {
  if (coll_buffer(call, arg, p, bytes) && bytes != 0) [[unlikely]]
    fail(call,
         "%s=%p is in the GPU symmetric heap: the deprecated active-set collectives do not support GPU memory (the "
         "team forms, e.g. shmem_broadcastmem with SHMEM_TEAM_WORLD, do)",
         arg, p);
}

// With error checks on: [a, a + abytes) and [b, b + bbytes) must not overlap (same_ok: or be the same start).
inline void coll_disjoint(const char *call, const void *dest, size_t dbytes, const void *source, size_t sbytes,
                          bool same_ok) {
  if (!rt().error_checks || dbytes == 0 || sbytes == 0) return;
  const uintptr_t d = reinterpret_cast<uintptr_t>(dest), s = reinterpret_cast<uintptr_t>(source);
  if (same_ok && d == s && dbytes == sbytes) return;
  if (d < s + sbytes && s < d + dbytes)
    fail(call, "dest=%p (%zu bytes) and source=%p (%zu bytes) overlap%s", dest, dbytes, source, sbytes,
         same_ok ? ": they must be the same buffer or not overlap at all" : ": they must not overlap");
}

// The team of a team collective (a destroyed or invalid handle ends the job naming the call).
inline team::Team &coll_team(const char *call, shmem_team_t team) {
  require_running(call);
  return team::get(call, "team", team);
}

// A deprecated active set: PE_start + i * 2^logPE_stride for i < PE_size.
struct ActiveSet {
  int start = 0;
  int log_stride = 0;
  int size = 1;
  int me = -1;  // this PE's ordinal; -1: this PE is not in the set (the call returns at once)
  int pe(int i) const { return start + (i << log_stride); }
  // The whole world in order: the world team's engine serves it (pSync stays untouched).
  bool is_world() const { return start == 0 && size == rt().n_pes && (log_stride == 0 || size == 1); }
};

// Checks the triplet (always: a wrong one would hang) and pSync (symmetric, with error checks on). A PE
// outside the set gets me == -1, and the call returns at once without touching anything: classic programs
// loop over active sets on every PE (OSHMEM and SOS behave so; the specification leaves it undefined).
ActiveSet active_set(const char *call, int PE_start, int logPE_stride, int PE_size, const long *pSync,
                     size_t psync_longs);

}  // namespace gpushmem::api
