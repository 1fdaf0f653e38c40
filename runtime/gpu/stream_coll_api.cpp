// The team collectives on a stream (include/gpushmem/stream.h): the host API's checks of the team, the root, the
// strides and every buffer (in the GPU symmetric heap for the bytes the collective touches, every member reachable),
// then a cooperative launch of the device collective's grid form (stream_coll_kernels.cu) on the caller's stream.
// The grid grows with the bytes this PE moves, about one block per 64 KiB, up to one block per SM (shared among the
// PEs on this GPU): a small collective stays one block (one grid barrier is then a block barrier), a large one uses
// the whole GPU.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "api/coll_common.hpp"
#include "gpu/session.hpp"
#include "gpu/stream_checks.hpp"
#include "gpu/stream_coll.hpp"
#include "gpu/stream_ops.hpp"
#include "gpushmem/stream.h"
#include "shmem.h"

namespace gpushmem::gpu::stream_coll {
namespace {

constexpr unsigned kThreadsPerBlock = 512;
constexpr size_t kBytesPerBlock = size_t{64} << 10;

// The most blocks one collective may use: this GPU's SMs, shared among the PEs of this node on it. Their collectives
// run at the same time (under MPS, or time-sliced) and each waits for the others, so every grid must stay resident
// beside theirs; the kernels' launch bounds guarantee two blocks per SM. Worked out once per session.
unsigned max_blocks(const Session &s) {
  static std::atomic<const Session *> for_session{nullptr};
  static std::atomic<unsigned> cached{1};
  if (for_session.load(std::memory_order_acquire) == &s) return cached.load(std::memory_order_relaxed);
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s.device.ordinal) != cudaSuccess || sms < 1) {
    (void)cudaGetLastError();
    sms = 1;
  }
  unsigned sharers = 1;
  for (Link l : rt().gpu.link) sharers += l == Link::same_gpu ? 1u : 0u;
  const unsigned most = static_cast<unsigned>(sms) / sharers;
  cached.store(most > 0 ? most : 1u, std::memory_order_relaxed);
  for_session.store(&s, std::memory_order_release);
  return cached.load(std::memory_order_relaxed);
}

// The grid for a collective in which this PE moves `bytes` (loads plus stores, counted once).
Grid grid_for(const Session &s, size_t bytes) {
  const unsigned most = max_blocks(s);
  const size_t wanted = bytes / kBytesPerBlock + 1;
  return Grid{wanted < most ? static_cast<unsigned>(wanted) : most, kThreadsPerBlock};
}

// A collective's dest and source: in this PE's GPU symmetric heap for the bytes it touches (hence on every member),
// not overlapping (same_ok: or the same buffer), and every member of team `t` reachable from this GPU (mapped, or
// through the CPU proxy).
void buffers(const char *call, const team::Team &t, const void *dest, size_t dest_bytes, const void *source,
             size_t source_bytes, bool same_ok) {
  const int me = rt().my_pe;
  (void)peer_address(call, "dest", dest, dest_bytes, me);
  (void)peer_address(call, "source", source, source_bytes, me);
  api::coll_disjoint(call, dest, dest_bytes, source, source_bytes, same_ok);
  for (int i = 0; i < t.n(); ++i) (void)peer_address(call, "dest", dest, 0, gpushmem_team_world_pe(&t.s, i), true);
}

int launched(const char *call, const Session &s, cudaError_t e, const char *kernel, cudaStream_t stream) {
  check_launch(call, s, e, kernel, stream);
  return 0;
}

int broadcast(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, int root,
              cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  if (root < 0 || root >= t.n())
    api::fail(call, "PE_root=%d is out of range: the team has %d PEs (0..%d)", root, t.n(), t.n() - 1);
  buffers(call, t, dest, bytes, source, bytes, false);
  ContextScope in_pe_context;
  const size_t moved = t.me() == root ? bytes * size_t(t.n()) : 0;
  return launched(call, s, launch_broadcastmem(grid_for(s, moved), stream, team, dest, source, bytes, root),
                  "broadcast", stream);
}

int fcollect(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  const size_t all = bytes * size_t(t.n());
  buffers(call, t, dest, all, source, bytes, false);
  ContextScope in_pe_context;
  return launched(call, s, launch_fcollectmem(grid_for(s, all), stream, team, dest, source, bytes), "fcollect", stream);
}

// dest's whole size is known only inside the collective (the members' counts): its start is checked here, its
// extent by the device code (with GPUSHMEM_ERROR_CHECKS on).
int collect(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  buffers(call, t, dest, bytes, source, bytes, false);
  ContextScope in_pe_context;
  return launched(call, s, launch_collectmem(grid_for(s, bytes * size_t(t.n())), stream, team, dest, source, bytes),
                  "collect", stream);
}

int alltoall(const char *call, shmem_team_t team, void *dest, const void *source, size_t bytes, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  const size_t all = bytes * size_t(t.n());
  buffers(call, t, dest, all, source, all, false);
  ContextScope in_pe_context;
  return launched(call, s, launch_alltoallmem(grid_for(s, all), stream, team, dest, source, bytes), "alltoall", stream);
}

template <class E>
int alltoalls(const char *call, shmem_team_t team, E *dest, const E *source, ptrdiff_t dst, ptrdiff_t sst,
              size_t nelems, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  if (dst < 1 || sst < 1)
    api::fail(call, "%s=%td must be at least 1 (strides count elements)", dst < 1 ? "dst" : "sst", dst < 1 ? dst : sst);
  const size_t count = nelems * size_t(t.n());
  const size_t dspan = count == 0 ? 0 : ((count - 1) * size_t(dst) + 1) * sizeof(E);
  const size_t sspan = count == 0 ? 0 : ((count - 1) * size_t(sst) + 1) * sizeof(E);
  buffers(call, t, dest, dspan, source, sspan, false);
  ContextScope in_pe_context;
  return launched(
      call, s,
      launch_alltoalls(grid_for(s, count * sizeof(E)), stream, team, dest, source, dst, sst, nelems, sizeof(E)),
      "alltoalls", stream);
}

template <class T>
int reduce(const char *call, cudaError_t (*launch)(Grid, cudaStream_t, shmem_team_t, T *, const T *, size_t),
           shmem_team_t team, T *dest, const T *source, size_t nreduce, cudaStream_t stream) {
  const Session &s = gpu_mode(call);
  team::Team &t = api::coll_team(call, team);
  const size_t bytes = api::element_bytes(call, nreduce, sizeof(T));
  buffers(call, t, dest, bytes, source, bytes, true);
  ContextScope in_pe_context;
  // This PE loads its share from every member and stores it into every member: about `bytes` each way.
  return launched(call, s, launch(grid_for(s, bytes), stream, team, dest, source, nreduce), "reduction", stream);
}

}  // namespace
}  // namespace gpushmem::gpu::stream_coll

namespace sc = gpushmem::gpu::stream_coll;

GPUSHMEM_EXPORT int shmemx_team_sync_on_stream(shmem_team_t team, cudaStream_t stream) {
  const char *call = "shmemx_team_sync_on_stream";
  const gpushmem::gpu::Session &s = gpushmem::gpu::gpu_mode(call);
  (void)gpushmem::api::coll_team(call, team);
  gpushmem::gpu::ContextScope in_pe_context;
  gpushmem::gpu::check_launch(call, s, gpushmem::gpu::stream::launch_team_sync(team, stream), "team sync", stream);
  return 0;
}

// Every collective of the device API's list (gpushmem/device/coll_names.cuh), by the template its device form uses.
#define GPUSHMEMI_STREAM_ENTRY_broadcastmem(BASE, IMPL_ARGS) \
  sc::broadcast("shmemx_" #BASE "_on_stream", GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_STREAM_ENTRY_fcollectmem(BASE, IMPL_ARGS) \
  sc::fcollect("shmemx_" #BASE "_on_stream", GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_STREAM_ENTRY_collectmem(BASE, IMPL_ARGS) \
  sc::collect("shmemx_" #BASE "_on_stream", GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_STREAM_ENTRY_alltoallmem(BASE, IMPL_ARGS) \
  sc::alltoall("shmemx_" #BASE "_on_stream", GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_STREAM_ENTRY_alltoalls(BASE, IMPL_ARGS) \
  sc::alltoalls("shmemx_" #BASE "_on_stream", GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_STREAM_ENTRY_reduce(BASE, IMPL_ARGS) \
  sc::reduce("shmemx_" #BASE "_on_stream", &sc::launch_##BASE, GPUSHMEMI_STREAM_UNPAREN IMPL_ARGS, stream)
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS)                                      \
  GPUSHMEM_EXPORT int shmemx_##BASE##_on_stream(GPUSHMEMI_STREAM_UNPAREN PARAMS, cudaStream_t stream) { \
    return GPUSHMEMI_STREAM_ENTRY_##IMPL(BASE, IMPL_ARGS);                                              \
  }
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL
