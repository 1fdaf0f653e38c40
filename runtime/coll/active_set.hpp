// The deprecated active-set collectives on sets other than the whole world: synchronised through the
// caller's pSync (so no team slot is needed), reading peers' buffers in place between two barriers.
#pragma once

#include <cstddef>

#include "api/coll_common.hpp"

namespace gpushmem::coll {

// pSync words used: [0, kPsyncRounds) barrier counters, kPsyncCount collect's element count.
constexpr int kPsyncRounds = 32;
constexpr int kPsyncCount = 32;

// Dissemination barrier over the set on pSync counters: each round adds 1 to a peer's counter and subtracts
// the 1 it waited for from its own, so pSync returns to SHMEM_SYNC_VALUE and back-to-back barriers on one
// pSync are safe (an early arrival of the next barrier just stays counted).
void psync_barrier(const char *call, const api::ActiveSet &a, long *pSync);

void set_broadcast(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes, int root,
                   long *pSync);
void set_fcollect(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes, long *pSync);
void set_collect(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes, long *pSync);
void set_alltoalls(const char *call, const api::ActiveSet &a, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem, long *pSync);

}  // namespace gpushmem::coll
