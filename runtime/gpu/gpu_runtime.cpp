// GPU mode's life cycle: the job-wide host/GPU decision at shmem_init, the heap's collective growth, the
// device state every CUDA translation unit receives, and the tear-down at shmem_finalize.
#include <algorithm>
#include <memory>

#include "env/env.hpp"
#include "gpu/device_error.hpp"
#include "gpu/session.hpp"
#include "gpu/state_registry.hpp"
#include "state.hpp"
#include "transport.hpp"

namespace gpushmem::gpu {
namespace {

static_assert(GPUSHMEM_DEVICE_INTERNAL_BYTES == heap::kInternalAreaBytes,
              "the GPU heap's runtime area and the host heap's have the same size, so user offsets agree");

std::atomic<Session *> g_session{nullptr};

// What every PE tells every other at shmem_init.
struct PeGpu {
  uint8_t uuid[16];      // its GPU
  uint64_t granularity;  // the allocation granularity there
  int32_t usable;        // 1: it can hold a GPU heap
  int32_t ordinal;       // its device number (in its own numbering; for messages)
};
static_assert(sizeof(PeGpu) == 32, "exchanged between PEs as bytes");

uint64_t round_up(uint64_t v, uint64_t to) {
  return (v + to - 1) / to * to;
}

// Whether every PE kept its part of the newest chunk. A PE that did not logged why; every PE then drops
// the chunk alike, so the heaps (and the allocators that follow them) stay identical everywhere.
Status agree(const char *call, Session &s, Status mine) {
  Runtime &r = rt();
  const int32_t code = mine == Status::ok ? 0 : mine == Status::out_of_memory ? 1 : 2;
  std::vector<int32_t> all(static_cast<size_t>(r.n_pes));
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  int rc = b->allgather(b, &code, all.data(), sizeof code);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "%s: the %s bootstrap's allgather failed (code %d) while the PEs agreed on a GPU heap chunk",
                       call, b->name, rc);
    s.heap.drop_last_chunk(call);
    return Status::bootstrap_error;
  }
  int32_t worst = 0;
  int first_failed = -1;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    if (all[pe] == 0) continue;
    worst = std::max(worst, all[pe]);
    if (first_failed < 0) first_failed = pe;
  }
  if (worst == 0) return Status::ok;
  if (first_failed != r.my_pe)
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "%s: PE %d could not add its part of the GPU symmetric heap (its own message says why); "
                       "every PE undoes this growth step",
                       call, first_failed);
  s.heap.drop_last_chunk(call);
  return worst == 1 ? Status::out_of_memory : Status::system_error;
}

// One collective growth step of `bytes` for every local heap.
Status step(const char *call, Session &s, uint64_t bytes) {
  Status mine = s.heap.add_chunk(call, rt().channel, s.reach, bytes);
  GPUSHMEM_CHECK(agree(call, s, mine));
  rt().gpu.mapped.store(s.heap.mapped(), std::memory_order_release);
  return Status::ok;
}

gpushmem_device_state_t device_state(const Session &s) {
  const Runtime &r = rt();
  gpushmem_device_state_t st{};
  st.version = GPUSHMEM_DEVICE_STATE_VERSION;
  st.struct_size = sizeof st;
  st.my_pe = r.my_pe;
  st.n_pes = r.n_pes;
  st.heap_size = s.heap.mapped();
  st.heap_base = s.heap.slot(r.topology.local_rank);
  st.peer_base = s.d_peer_base;
  st.peer_transport = s.d_peer_transport;
  st.teams = s.d_teams;
  st.error_checks = r.error_checks ? 1 : 0;
  st.proxy_channels = s.d_proxy_channels;
  st.proxy_channel_count = s.proxy_channel_count;
  st.ibgda = s.d_ibgda;
  st.proxy_region_gpu_heap = static_cast<uint32_t>(transport::Region::gpu_heap);
  st.device_error = s.d_device_error;
  st.device_timeout_ns =
      static_cast<uint64_t>(std::max<int64_t>(env::get().GPUSHMEM_DEVICE_TIMEOUT, 0)) * 1000000000ull;
  // The fast path holds when the node's PEs are consecutive world PEs, each mapped at its slot.
  const std::vector<int> &local = r.topology.local_pes;
  bool fast = !local.empty();
  for (size_t i = 0; fast && i < local.size(); ++i)
    fast = local[i] == local.front() + static_cast<int>(i) &&
           r.gpu.peer_base[local[i]] == s.heap.slot(static_cast<int>(i));
  st.slot0 = s.heap.slot(0);
  st.slot_stride = static_cast<uint64_t>(s.heap.slot(local.size() > 1 ? 1 : 0) - s.heap.slot(0));
  st.first_local_pe = local.empty() ? 0 : local.front();
  st.local_fast_count = fast && (local.size() == 1 || st.slot_stride != 0) ? static_cast<int32_t>(local.size()) : 0;
  return st;
}

// The per-PE tables kernels index (their contents never change: slots do not move as the heap grows).
Status upload_peer_tables(const char *call, Session &s) {
  const Runtime &r = rt();
  const size_t n = static_cast<size_t>(r.n_pes);
  std::vector<uint8_t> transport(n);
  for (size_t pe = 0; pe < n; ++pe)
    transport[pe] = static_cast<uint8_t>(is_p2p(r.gpu.link[pe]) ? GPUSHMEM_PEER_P2P : GPUSHMEM_PEER_UNREACHABLE);
  const char *advice = "the GPU is out of memory; free device memory or run fewer PEs per GPU";
  cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&s.d_peer_base), n * sizeof(char *));
  if (e != cudaSuccess) return rt_failed(e, call, advice, "cudaMalloc(%zu bytes) for the peer-base table", n * 8);
  e = cudaMalloc(reinterpret_cast<void **>(&s.d_peer_transport), n);
  if (e != cudaSuccess) return rt_failed(e, call, advice, "cudaMalloc(%zu bytes) for the peer-transport table", n);
  e = cudaMemcpyAsync(s.d_peer_base, r.gpu.peer_base.data(), n * sizeof(char *), cudaMemcpyHostToDevice, s.stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(s.d_peer_transport, transport.data(), n, cudaMemcpyHostToDevice, s.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
  if (e != cudaSuccess)
    return rt_failed(e, call, "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cudaMemcpyAsync of the peer tables (%zu PEs) to the device", n);
  return Status::ok;
}

// This PE's answer to "can you hold a GPU heap?". Non-ok only for errors that must end start-up.
Status probe_self(const char *call, Device *dev, const Driver **d, PeGpu *mine) {
  const env::Values &e = env::get();
  if (e.GPUSHMEM_DISABLE_CUDA) {
    GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: GPUSHMEM_DISABLE_CUDA is set: no GPU is used", call);
    return Status::ok;
  }
  const std::string &placement = e.GPUSHMEM_SYMMETRIC_HEAP;
  if (placement != "auto" && placement != "gpu" && placement != "host") {
    GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: GPUSHMEM_SYMMETRIC_HEAP='%s' is not one of auto, gpu, host", call,
                       placement.c_str());
    return Status::invalid_argument;
  }
  if (placement == "host") {
    GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: GPUSHMEM_SYMMETRIC_HEAP=host: the symmetric heap is in host memory",
                      call);
    return Status::ok;
  }
  if (placement == "auto" && application_registrations() == 0) {
    GPUSHMEM_LOG_INFO(log::Subsys::init,
                      "%s: no CUDA file of this program includes <shmem.h>: the symmetric heap is in host memory "
                      "(GPUSHMEM_SYMMETRIC_HEAP=gpu puts it on the GPU)",
                      call);
    return Status::ok;
  }
  int count = 0;
  std::string why;
  bool expected = true;
  if (!cuda_usable(&count, &why, &expected)) {
    if (placement == "gpu") {
      GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: GPUSHMEM_SYMMETRIC_HEAP=gpu but no GPU is usable: %s", call,
                         why.c_str());
      return Status::not_supported;
    }
    if (expected)
      GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: no GPU is used: %s", call, why.c_str());
    else
      GPUSHMEM_LOG_WARN(log::Subsys::init, "%s: no GPU is used (shmem_malloc returns host memory): %s", call,
                        why.c_str());
    return Status::ok;
  }
  if ((*d = driver()) == nullptr) return Status::ok;  // driver() said which entry point is missing
  Status st = choose_device(call, **d, rt().topology.local_rank, count, dev);
  if (st == Status::not_supported) return Status::ok;
  GPUSHMEM_CHECK(st);
  std::copy(std::begin(dev->uuid), std::end(dev->uuid), std::begin(mine->uuid));
  mine->granularity = dev->granularity;
  mine->ordinal = dev->ordinal;
  mine->usable = 1;
  return Status::ok;
}

void log_links(const char *call, const std::vector<PeGpu> &all) {
  const Runtime &r = rt();
  int remote = 0;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    if (pe == r.my_pe) continue;
    if (r.topology.local_index_of[pe] < 0) {
      ++remote;
      continue;
    }
    const Link l = r.gpu.link[pe];
    if (l == Link::unreachable)
      GPUSHMEM_LOG_WARN(log::Subsys::init,
                        "%s: PE %d (GPU %d in its numbering) cannot map PE %d's GPU heap: the two GPUs have no peer "
                        "access (cudaDeviceCanAccessPeer), or that GPU is hidden from this process "
                        "(CUDA_VISIBLE_DEVICES); shmem_pe_accessible(%d) is 0 and nothing reaches it yet",
                        call, r.my_pe, all[r.my_pe].ordinal, pe, pe);
    else
      GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: PE %d -> PE %d (GPU %d in its numbering): %s", call, r.my_pe, pe,
                        all[pe].ordinal, link_name(l));
  }
  if (remote > 0)
    GPUSHMEM_LOG_INFO(log::Subsys::init,
                      "%s: %d PE(s) on other nodes: the host API reaches their GPU heaps through "
                      "the network (each served by its owner's memory agent); device code does not reach them yet",
                      call, remote);
}

}  // namespace

Session *session() {
  return g_session.load(std::memory_order_acquire);
}

Status init(const char *call, uint64_t symmetric_size) {
  Runtime &r = rt();
  Device dev;
  const Driver *d = nullptr;
  PeGpu mine{};
  GPUSHMEM_CHECK(probe_self(call, &dev, &d, &mine));

  // Host or GPU mode is the job's decision: symmetric addresses must mean the same kind of memory on every PE.
  std::vector<PeGpu> all(static_cast<size_t>(r.n_pes));
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  int rc = b->allgather(b, &mine, all.data(), sizeof mine);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: the %s bootstrap's allgather of the PEs' GPUs failed (code %d)", call,
                       b->name, rc);
    return Status::bootstrap_error;
  }
  int without = 0, first_without = -1;
  uint64_t granularity = 0;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    granularity = std::max(granularity, all[pe].granularity);
    if (all[pe].usable) continue;
    ++without;
    if (first_without < 0) first_without = pe;
  }
  if (without > 0) {
    if (mine.usable)
      GPUSHMEM_LOG_WARN(log::Subsys::init,
                        "%s: %d of %d PEs (PE %d first) use no GPU (GPUSHMEM_DISABLE_CUDA, or no usable GPU: "
                        "GPUSHMEM_DEBUG=INFO says why): every PE uses host memory for shmem_malloc",
                        call, without, r.n_pes, first_without);
    return Status::ok;
  }

  auto s = std::make_unique<Session>();
  s->d = d;
  s->device = dev;
  s->symmetric_size = symmetric_size;
  s->granularity = granularity;
  const uint64_t slot_bytes = round_up(heap::kInternalAreaBytes + symmetric_size, granularity);
  s->chunk_bytes = std::max(round_up(env::get().GPUSHMEM_GPU_HEAP_CHUNK, granularity), granularity);

  const node::Topology &topo = r.topology;
  std::vector<Link> link(static_cast<size_t>(r.n_pes), Link::unreachable);
  for (int pe = 0; pe < r.n_pes; ++pe) {
    if (pe == r.my_pe) {
      link[pe] = Link::self;
    } else if (topo.local_index_of[pe] >= 0) {
      int theirs = ordinal_of(all[pe].uuid);
      link[pe] = theirs < 0 ? Link::unreachable : link_between(dev.ordinal, theirs);
    }
  }
  s->reach.assign(static_cast<size_t>(topo.local_size), false);
  for (int i = 0; i < topo.local_size; ++i) s->reach[i] = is_p2p(link[topo.local_pes[i]]);

  GPUSHMEM_CHECK(s->heap.reserve(call, d, dev.cu, topo.local_rank, topo.local_size, slot_bytes));
  cudaError_t e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess)
    return rt_failed(e, call, "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cudaStreamCreateWithFlags(cudaStreamNonBlocking)");
  GPUSHMEM_CHECK(step(call, *s, std::min(s->chunk_bytes, slot_bytes)));

  // The runtime's words (device barrier counters, ...) start from zero; no peer touches them before the
  // barrier that ends shmem_init.
  char *base = s->heap.slot(topo.local_rank);
  e = cudaMemsetAsync(base, 0, GPUSHMEM_DEVICE_INTERNAL_BYTES, s->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return rt_failed(e, call, "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cudaMemsetAsync(ptr=%p, 0, %u) of the GPU heap's runtime area", static_cast<void *>(base),
                     GPUSHMEM_DEVICE_INTERNAL_BYTES);

  r.gpu.limit = slot_bytes;
  r.gpu.link = link;
  r.gpu.peer_base.assign(static_cast<size_t>(r.n_pes), nullptr);
  for (int pe = 0; pe < r.n_pes; ++pe)
    if (is_p2p(link[pe])) r.gpu.peer_base[pe] = s->heap.slot(topo.local_index_of[pe]);
  GPUSHMEM_CHECK(upload_peer_tables(call, *s));
  GPUSHMEM_CHECK(create_team_table(call, *s));
  GPUSHMEM_CHECK(create_device_error(call, *s));
  r.gpu.mapped.store(s->heap.mapped(), std::memory_order_relaxed);
  r.gpu.base = base;

  Session *live = s.release();
  g_session.store(live, std::memory_order_release);
  publish(device_state(*live));
  GPUSHMEM_LOG_INFO(log::Subsys::init,
                    "%s: GPU symmetric heap at %p: %llu of %llu bytes mapped (internal area included), growing "
                    "in steps of %llu",
                    call, static_cast<void *>(base), static_cast<unsigned long long>(live->heap.mapped()),
                    static_cast<unsigned long long>(slot_bytes), static_cast<unsigned long long>(live->chunk_bytes));
  log_links(call, all);
  return Status::ok;
}

uint64_t user_bytes_mapped() {
  Session *s = session();
  if (s == nullptr || s->heap.mapped() < heap::kInternalAreaBytes) return 0;
  return std::min(s->heap.mapped() - heap::kInternalAreaBytes, s->symmetric_size);
}

Status grow(const char *call, uint64_t min_user_bytes, uint64_t *added_user_bytes) {
  *added_user_bytes = 0;
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  const uint64_t before = user_bytes_mapped();
  // Beyond SHMEM_SYMMETRIC_SIZE: report exhaustion without mapping memory that cannot help.
  if (min_user_bytes > s->symmetric_size - before) return Status::ok;
  const uint64_t room = s->heap.slot_bytes() - s->heap.mapped();
  const uint64_t bytes = std::min(std::max(s->chunk_bytes, round_up(min_user_bytes, s->granularity)), room);
  ContextScope in_pe_context;
  GPUSHMEM_CHECK(step(call, *s, bytes));
  publish(device_state(*s));
  *added_user_bytes = user_bytes_mapped() - before;
  GPUSHMEM_LOG_DEBUG(log::Subsys::heap, "%s: GPU symmetric heap grew by %llu bytes to %llu", call,
                     static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(s->heap.mapped()));
  return Status::ok;
}

namespace {

Status mark_peers(const char *call, Session &s, const std::vector<int> &pes, uint8_t kind) {
  for (int pe : pes) {
    cudaError_t e = cudaMemcpyAsync(s.d_peer_transport + pe, &kind, 1, cudaMemcpyHostToDevice, s.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
    if (e != cudaSuccess)
      return rt_failed(e, call, "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                       "cudaMemcpyAsync of PE %d's entry of the peer-transport table", pe);
  }
  return Status::ok;
}

}  // namespace

Status attach_proxy(const char *call, const std::vector<int> &pes, const gpushmem_proxy_channel_t *table,
                    uint32_t count) {
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  ContextScope in_pe_context;
  GPUSHMEM_CHECK(mark_peers(call, *s, pes, table != nullptr ? GPUSHMEM_PEER_PROXY : GPUSHMEM_PEER_UNREACHABLE));
  s->d_proxy_channels = table;
  s->proxy_channel_count = table != nullptr ? count : 0;
  publish(device_state(*s));
  return Status::ok;
}

Status attach_ibgda(const char *call, const std::vector<int> &pes, const gpushmem_ibgda_state_t *state) {
  Session *s = session();
  if (s == nullptr) return Status::not_supported;
  ContextScope in_pe_context;
  GPUSHMEM_CHECK(mark_peers(call, *s, pes, state != nullptr ? GPUSHMEM_PEER_IBGDA : GPUSHMEM_PEER_UNREACHABLE));
  s->d_ibgda = state;
  publish(device_state(*s));
  return Status::ok;
}

void drain(const char *call) {
  Session *s = session();
  if (s == nullptr) return;
  ContextScope in_pe_context;
  cudaError_t e = cudaDeviceSynchronize();
  (void)report_device_error("at shmem_finalize");
  if (e != cudaSuccess)
    (void)rt_failed(e, call, "a kernel or copy of this PE failed earlier; finalizing anyway",
                    "cudaDeviceSynchronize() on GPU %d", s->device.ordinal);
}

void finalize() {
  Session *s = session();
  if (s == nullptr) return;
  const char *call = "shmem_finalize";
  Runtime &r = rt();
  {
    ContextScope in_pe_context;
    retract();
    r.gpu.base = nullptr;
    r.gpu.mapped.store(0, std::memory_order_relaxed);
    r.gpu.limit = 0;
    r.gpu.peer_base.clear();
    r.gpu.link.clear();
    if (s->d_peer_base != nullptr) (void)cudaFree(s->d_peer_base);
    if (s->d_peer_transport != nullptr) (void)cudaFree(s->d_peer_transport);
    free_team_table(*s);
    (void)report_device_error("at shmem_finalize");
    free_device_error(*s);
    release_heap_agent();
    release_stages();
    if (s->stream != nullptr) (void)cudaStreamDestroy(s->stream);
    (void)cudaGetLastError();
    s->heap.destroy(call);
    g_session.store(nullptr, std::memory_order_release);
  }
  delete s;
}

ContextScope::ContextScope() {
  Session *s = session();
  if (s == nullptr) return;
  CUcontext current = nullptr;
  if (s->d->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == s->device.ctx) return;
  if (s->d->cuCtxSetCurrent(s->device.ctx) == CUDA_SUCCESS) {
    previous_ = current;
    switched_ = true;
  }
}

ContextScope::~ContextScope() {
  if (!switched_) return;
  // The driver table outlives every session.
  if (const Driver *d = driver()) (void)d->cuCtxSetCurrent(static_cast<CUcontext>(previous_));
}

}  // namespace gpushmem::gpu
