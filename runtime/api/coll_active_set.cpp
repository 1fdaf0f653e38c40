// The deprecated active-set collectives: barrier, sync, broadcast / collect / fcollect / alltoall / alltoalls
// on 32- and 64-bit elements, and the shmem_TYPE_OP_to_all reductions. An active set that is the whole world
// runs on the world team's engine (the fast algorithms; pSync is not touched); any other set synchronises
// through pSync and reads peers' buffers in place between two barriers (runtime/coll/active_set.cpp).
#include <atomic>
#include <vector>

#include "api/coll_common.hpp"
#include "coll/active_set.hpp"
#include "coll/reduce.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"

using namespace gpushmem;

namespace gpushmem::api {

ActiveSet active_set(const char *call, int PE_start, int logPE_stride, int PE_size, const long *pSync,
                     size_t psync_longs) {
  require_running(call);
  const Runtime &r = rt();
  if (PE_size < 1) fail(call, "PE_size=%d must be at least 1", PE_size);
  if (logPE_stride < 0 || logPE_stride > 30) fail(call, "logPE_stride=%d must be in 0..30", logPE_stride);
  if (PE_start < 0 || PE_start >= r.n_pes)
    fail(call, "PE_start=%d is out of range: the job has %d PEs (0..%d)", PE_start, r.n_pes, r.n_pes - 1);
  const int64_t last = int64_t(PE_start) + (int64_t(PE_size - 1) << logPE_stride);
  if (last >= r.n_pes)
    fail(call,
         "the active set (PE_start=%d, logPE_stride=%d, PE_size=%d) reaches PE %lld, but the job has %d PEs "
         "(0..%d)",
         PE_start, logPE_stride, PE_size, static_cast<long long>(last), r.n_pes, r.n_pes - 1);
  ActiveSet a;
  a.start = PE_start;
  a.log_stride = logPE_stride;
  a.size = PE_size;
  const int d = r.my_pe - PE_start;
  if (d >= 0 && (d & ((1 << logPE_stride) - 1)) == 0 && (d >> logPE_stride) < PE_size) a.me = d >> logPE_stride;
  if (a.me < 0) {
    GPUSHMEM_LOG_DEBUG(log::Subsys::sync,
                       "%s: PE %d is not in the active set (PE_start=%d, logPE_stride=%d, PE_size=%d): returns at once",
                       call, r.my_pe, PE_start, logPE_stride, PE_size);
    return a;
  }
  if (!a.is_world()) {
    if (pSync == nullptr) fail(call, "pSync is NULL");
    coll_host_buffer(call, "pSync", pSync, psync_longs * sizeof(long));
  }
  return a;
}

}  // namespace gpushmem::api

namespace {

team::Team &world() {
  return *team::find(SHMEM_TEAM_WORLD);
}

void barrier_or_sync(const char *call, int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync, SHMEM_BARRIER_SYNC_SIZE);
  if (a.me < 0) return;
  if (a.is_world()) {
    sync::barrier_all(call);  // its leading full fence completes this PE's puts (the barrier's quiet)
    return;
  }
  coll::psync_barrier(call, a, pSync);
}

void broadcast(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int root, int PE_start,
               int logPE_stride, int PE_size, long *pSync) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync, SHMEM_BCAST_SYNC_SIZE);
  if (a.me < 0) return;
  if (root < 0 || root >= a.size)
    api::fail(call, "PE_root=%d is out of range: the active set has %d PEs (0..%d)", root, a.size, a.size - 1);
  const size_t bytes = nelems * elem;
  api::coll_host_buffer(call, "dest", dest, bytes);
  api::coll_host_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes, source, bytes, false);
  if (a.is_world()) {
    coll::Call c(world(), call);
    coll::broadcast(c, dest, source, bytes, root, false);
  } else {
    coll::set_broadcast(call, a, dest, source, bytes, root, pSync);
  }
}

void fcollect(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int PE_start,
              int logPE_stride, int PE_size, long *pSync) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync, SHMEM_COLLECT_SYNC_SIZE);
  if (a.me < 0) return;
  const size_t bytes = nelems * elem;
  api::coll_host_buffer(call, "dest", dest, bytes * size_t(a.size));
  api::coll_host_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes * size_t(a.size), source, bytes, false);
  if (a.is_world()) {
    coll::Call c(world(), call);
    coll::fcollect(c, dest, source, bytes);
  } else {
    coll::set_fcollect(call, a, dest, source, bytes, pSync);
  }
}

void collect(const char *call, void *dest, const void *source, size_t nelems, size_t elem, int PE_start,
             int logPE_stride, int PE_size, long *pSync) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync, SHMEM_COLLECT_SYNC_SIZE);
  if (a.me < 0) return;
  const size_t bytes = nelems * elem;
  api::coll_host_buffer(call, "dest", dest, bytes);
  api::coll_host_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes, source, bytes, false);
  if (a.is_world()) {
    coll::Call c(world(), call);
    coll::collect(c, dest, source, bytes);
  } else {
    coll::set_collect(call, a, dest, source, bytes, pSync);
  }
}

void alltoalls(const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
               size_t elem, int PE_start, int logPE_stride, int PE_size, long *pSync, bool strided) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync,
                                           strided ? SHMEM_ALLTOALLS_SYNC_SIZE : SHMEM_ALLTOALL_SYNC_SIZE);
  if (a.me < 0) return;
  if (dst < 1 || sst < 1)
    api::fail(call, "%s=%td must be at least 1 (strides count elements)", dst < 1 ? "dst" : "sst", dst < 1 ? dst : sst);
  const size_t count = nelems * size_t(a.size);
  const size_t dspan = count == 0 ? 0 : ((count - 1) * size_t(dst) + 1) * elem;
  const size_t sspan = count == 0 ? 0 : ((count - 1) * size_t(sst) + 1) * elem;
  api::coll_host_buffer(call, "dest", dest, dspan);
  api::coll_host_buffer(call, "source", source, sspan);
  api::coll_disjoint(call, dest, dspan, source, sspan, false);
  if (a.is_world()) {
    coll::Call c(world(), call);
    if (strided)
      coll::alltoalls(c, dest, source, dst, sst, nelems, elem);
    else
      coll::alltoall(c, dest, source, nelems * elem);
  } else {
    coll::set_alltoalls(call, a, dest, source, dst, sst, nelems, elem, pSync);
  }
}

constexpr uint64_t routine_id(const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (; *name != '\0'; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ull;
  return h;
}

template <class T, class Op>
void to_all(const char *call, uint64_t id, T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,
            int PE_size, long *pSync) {
  const api::ActiveSet a = api::active_set(call, PE_start, logPE_stride, PE_size, pSync, SHMEM_REDUCE_SYNC_SIZE);
  if (a.me < 0) return;
  if (nreduce < 0) api::fail(call, "nreduce=%d is negative", nreduce);
  const size_t count = size_t(nreduce), bytes = count * sizeof(T);
  api::coll_host_buffer(call, "dest", dest, bytes);
  api::coll_host_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes, source, bytes, true);
  if (a.is_world()) {
    coll::Call c(world(), call);
    coll::reduce<T, Op>(c, dest, source, count, id);
    return;
  }
  // Combine every member's source in set order into a private buffer between two barriers, then write dest
  // (which may be the source the others were reading).
  std::vector<T> result(count);
  std::vector<const T *> in(size_t(a.size));
  coll::psync_barrier(call, a, pSync);
  std::vector<std::vector<char>> fetched(size_t(a.size));
  for (int j = 0; j < a.size; ++j)
    in[size_t(j)] =
        j == a.me ? source : reinterpret_cast<const T *>(coll::read_view(source, bytes, a.pe(j), &fetched[size_t(j)]));
  if (count != 0) coll::combine<T, Op>(result.data(), in.data(), a.size, count);
  coll::psync_barrier(call, a, pSync);
  if (count != 0) std::memcpy(static_cast<void *>(dest), result.data(), bytes);
}

}  // namespace

GPUSHMEM_EXPORT void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  barrier_or_sync("shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
}

GPUSHMEM_EXPORT void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  barrier_or_sync("shmem_sync", PE_start, logPE_stride, PE_size, pSync);
}

#define GPUSHMEM_DEFINE_ACTIVE_SET_COLL(S)                                                                             \
  GPUSHMEM_EXPORT void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,    \
                                          int logPE_stride, int PE_size, long *pSync) {                                \
    broadcast("shmem_broadcast" #S, dest, source, nelems, S / 8, PE_root, PE_start, logPE_stride, PE_size, pSync);     \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                                        int PE_size, long *pSync) {                                                    \
    collect("shmem_collect" #S, dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size, pSync);                  \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,                  \
                                         int logPE_stride, int PE_size, long *pSync) {                                 \
    fcollect("shmem_fcollect" #S, dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size, pSync);                \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,                  \
                                         int logPE_stride, int PE_size, long *pSync) {                                 \
    alltoalls("shmem_alltoall" #S, dest, source, 1, 1, nelems, S / 8, PE_start, logPE_stride, PE_size, pSync, false);  \
  }                                                                                                                    \
  GPUSHMEM_EXPORT void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                          int PE_start, int logPE_stride, int PE_size, long *pSync) {                  \
    alltoalls("shmem_alltoalls" #S, dest, source, dst, sst, nelems, S / 8, PE_start, logPE_stride, PE_size, pSync,     \
              true);                                                                                                   \
  }
GPUSHMEM_DEFINE_ACTIVE_SET_COLL(32)
GPUSHMEM_DEFINE_ACTIVE_SET_COLL(64)
#undef GPUSHMEM_DEFINE_ACTIVE_SET_COLL

#define GPUSHMEM_DEFINE_TO_ALL(T, N, OP, OPCLASS)                                                                    \
  GPUSHMEM_EXPORT void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,                \
                                                 int logPE_stride, int PE_size, T *pWrk, long *pSync) {              \
    static constexpr const char *call = "shmem_" #N "_" #OP "_to_all";                                               \
    to_all<T, coll::OPCLASS>(call, routine_id(call), dest, source, nreduce, PE_start, logPE_stride, PE_size, pSync); \
  }
#define GPUSHMEM_DEFINE_TO_ALL_BITWISE(T, N) \
  GPUSHMEM_DEFINE_TO_ALL(T, N, and, OpAnd)   \
  GPUSHMEM_DEFINE_TO_ALL(T, N, or, OpOr) GPUSHMEM_DEFINE_TO_ALL(T, N, xor, OpXor)
#define GPUSHMEM_DEFINE_TO_ALL_ARITH(T, N) \
  GPUSHMEM_DEFINE_TO_ALL(T, N, min, OpMin) \
  GPUSHMEM_DEFINE_TO_ALL(T, N, max, OpMax) \
  GPUSHMEM_DEFINE_TO_ALL(T, N, sum, OpSum) GPUSHMEM_DEFINE_TO_ALL(T, N, prod, OpProd)
#define GPUSHMEM_DEFINE_TO_ALL_COMPLEX(T, N) \
  GPUSHMEM_DEFINE_TO_ALL(T, N, sum, OpSum) GPUSHMEM_DEFINE_TO_ALL(T, N, prod, OpProd)
GPUSHMEM_TO_ALL_BITWISE_TYPES(GPUSHMEM_DEFINE_TO_ALL_BITWISE)
GPUSHMEM_TO_ALL_ARITH_TYPES(GPUSHMEM_DEFINE_TO_ALL_ARITH)
GPUSHMEM_REDUCE_COMPLEX_TYPES(GPUSHMEM_DEFINE_TO_ALL_COMPLEX)
