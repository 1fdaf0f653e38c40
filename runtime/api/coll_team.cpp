// Team collectives other than reductions: broadcast, collect, fcollect, alltoall, alltoalls (typed, stamped
// from the type table, and the mem forms). Buffers in the GPU heap go through coll/rma_coll.hpp.
#include "api/coll_common.hpp"
#include "coll/rma_coll.hpp"
#include "shmem.h"

using namespace gpushmem;

namespace {

int broadcast(const char *call, shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem,
              int root) {
  team::Team &t = api::coll_team(call, team);
  if (root < 0 || root >= t.n())
    api::fail(call, "PE_root=%d is out of range: the team has %d PEs (0..%d)", root, t.n(), t.n() - 1);
  const size_t bytes = nelems * elem;
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, bytes);
  const bool gpu_source = api::coll_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes, source, bytes, false);
  if (api::coll_via_rma(gpu_dest, gpu_source)) [[unlikely]] {
    coll::rma_coll::broadcast(t, call, dest, source, bytes, root);
    return 0;
  }
  coll::Call c(t, call);
  coll::broadcast(c, dest, source, bytes, root, true);
  return 0;
}

int fcollect(const char *call, shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem) {
  team::Team &t = api::coll_team(call, team);
  const size_t bytes = nelems * elem;
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, bytes * size_t(t.n()));
  const bool gpu_source = api::coll_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes * size_t(t.n()), source, bytes, false);
  if (api::coll_via_rma(gpu_dest, gpu_source)) [[unlikely]] {
    coll::rma_coll::fcollect(t, call, dest, source, bytes);
    return 0;
  }
  coll::Call c(t, call);
  coll::fcollect(c, dest, source, bytes);
  return 0;
}

int collect(const char *call, shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem) {
  team::Team &t = api::coll_team(call, team);
  const size_t bytes = nelems * elem;
  const bool gpu_source = api::coll_buffer(call, "source", source, bytes);
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, bytes);  // its full size is known only inside the call
  api::coll_disjoint(call, dest, bytes, source, bytes, false);
  // The path follows dest alone: members bring different counts, and one with none may pass any source.
  if (gpu_source && !gpu_dest) [[unlikely]]
    api::fail(call, "source=%p is in the GPU symmetric heap and dest=%p is not: a collect takes both from one", source,
              dest);
  if (api::coll_via_rma(gpu_dest, false)) [[unlikely]] {
    coll::rma_coll::collect(t, call, dest, source, bytes);
    return 0;
  }
  coll::Call c(t, call);
  coll::collect(c, dest, source, bytes);
  return 0;
}

int alltoall(const char *call, shmem_team_t team, void *dest, const void *source, size_t nelems, size_t elem) {
  team::Team &t = api::coll_team(call, team);
  const size_t bytes = nelems * elem, all = bytes * size_t(t.n());
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, all);
  const bool gpu_source = api::coll_buffer(call, "source", source, all);
  api::coll_disjoint(call, dest, all, source, all, false);
  if (api::coll_via_rma(gpu_dest, gpu_source)) [[unlikely]] {
    coll::rma_coll::alltoall(t, call, dest, source, bytes);
    return 0;
  }
  coll::Call c(t, call);
  coll::alltoall(c, dest, source, bytes);
  return 0;
}

int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
              size_t nelems, size_t elem) {
  team::Team &t = api::coll_team(call, team);
  if (dst < 1 || sst < 1)
    api::fail(call, "%s=%td must be at least 1 (strides count elements)", dst < 1 ? "dst" : "sst", dst < 1 ? dst : sst);
  const size_t count = nelems * size_t(t.n());
  const size_t dspan = count == 0 ? 0 : ((count - 1) * size_t(dst) + 1) * elem;
  const size_t sspan = count == 0 ? 0 : ((count - 1) * size_t(sst) + 1) * elem;
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, dspan);
  const bool gpu_source = api::coll_buffer(call, "source", source, sspan);
  api::coll_disjoint(call, dest, dspan, source, sspan, false);
  if (api::coll_via_rma(gpu_dest, gpu_source)) [[unlikely]] {
    coll::rma_coll::alltoalls(t, call, dest, source, dst, sst, nelems, elem);
    return 0;
  }
  coll::Call c(t, call);
  coll::alltoalls(c, dest, source, dst, sst, nelems, elem);
  return 0;
}

}  // namespace

#define GPUSHMEM_DEFINE_TEAM_COLL(T, N)                                                                                \
  GPUSHMEM_EXPORT int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) { \
    return broadcast("shmem_" #N "_broadcast", team, dest, source, nelems, sizeof(T), PE_root);                        \
  }                                                                                                                    \
  GPUSHMEM_EXPORT int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {                \
    return collect("shmem_" #N "_collect", team, dest, source, nelems, sizeof(T));                                     \
  }                                                                                                                    \
  GPUSHMEM_EXPORT int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {               \
    return fcollect("shmem_" #N "_fcollect", team, dest, source, nelems, sizeof(T));                                   \
  }                                                                                                                    \
  GPUSHMEM_EXPORT int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {               \
    return alltoall("shmem_" #N "_alltoall", team, dest, source, nelems, sizeof(T));                                   \
  }                                                                                                                    \
  GPUSHMEM_EXPORT int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                            size_t nelems) {                                                           \
    return alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems, sizeof(T));                       \
  }
GPUSHMEM_RMA_TYPES(GPUSHMEM_DEFINE_TEAM_COLL)
#undef GPUSHMEM_DEFINE_TEAM_COLL

GPUSHMEM_EXPORT int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
  return broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}
GPUSHMEM_EXPORT int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return collect("shmem_collectmem", team, dest, source, nelems, 1);
}
GPUSHMEM_EXPORT int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}
GPUSHMEM_EXPORT int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}
GPUSHMEM_EXPORT int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                       size_t nelems) {
  return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
