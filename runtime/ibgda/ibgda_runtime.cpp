// IBGDA's life cycle in the runtime (ibgda_runtime.hpp). GPU mode only: this file is built with CUDA
// (ibgda_none.cpp otherwise).
//
// The emulated provisioner's memory (transports/ibgda/emu/emu_provisioner.hpp): the queues (send queue, collapsed
// CQ entry, doorbell record and word) in pinned host memory mapped into the GPU at the same address (UVA), which
// the device posts into and the emulator thread reads; the producers' words, bounce memory and tables in device
// memory, which the emulator reaches through CUDA copies (as the GPU heap); each peer's heap named by a key of the
// emulator's wire (TransportTarget over ucx/), which executes a work request's remote half as the host API's
// operation on that PE's GPU heap (its memory agent, without GPUDirect).
#include "ibgda/ibgda_runtime.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/log.hpp"
#include "env/env.hpp"
#include "gpu/cuda_loader.hpp"
#include "gpu/gpu.hpp"
#include "gpu/session.hpp"
#include "ibgda/emu/emu_faults.hpp"
#include "ibgda/emu/emu_provisioner.hpp"
#include "ibgda/emu/transport_target.hpp"
#include "ibgda/mlx5/mlx5_gpu_ops.hpp"
#include "ibgda/mlx5/mlx5_probe.hpp"
#include "ibgda/mlx5/mlx5_provisioner.hpp"
#include "net/net.hpp"
#include "state.hpp"

namespace gpushmem::ibgda_rt {
namespace {

namespace emu = ibgda::emu;

// Where the emulator's wire names a peer's GPU heap: any base works (the key maps it to the PE's heap offset); a
// recognisable one makes traces readable.
constexpr uint64_t kRemoteBase = 0x7e0000000000ull;

const char *const kAdvice = "GPUSHMEM_TRANSPORTS without ibgda reaches the network's PEs through the CPU proxy";

// The emulator's way into device memory (the GPU heap, the bounce memory): copies on a stream of its own, each
// waited for, in the PE's context.
class CudaCopier final : public emu::Copier {
 public:
  ~CudaCopier() override {
    if (stream_ != nullptr) {
      gpu::ContextScope in_pe_context;
      (void)cudaStreamDestroy(stream_);
    }
  }
  Status create(const char *call) {
    cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    if (e != cudaSuccess)
      return gpu::rt_failed(e, call, kAdvice, "cudaStreamCreateWithFlags for the NIC emulator's copies");
    return Status::ok;
  }
  bool to_host(void *dst, const void *region_src, uint64_t bytes) override { return copy(dst, region_src, bytes); }
  bool from_host(void *region_dst, const void *src, uint64_t bytes) override { return copy(region_dst, src, bytes); }

 private:
  bool copy(void *dst, const void *src, uint64_t bytes) {
    gpu::ContextScope in_pe_context;
    cudaError_t e = gpu::copy_beside_kernels(dst, src, bytes, stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "NIC emulator: a copy of %llu bytes %p -> %p failed: %s",
                         static_cast<unsigned long long>(bytes), src, dst, cudaGetErrorString(e));
      return false;
    }
    return true;
  }
  cudaStream_t stream_ = nullptr;
};

struct Ibgda {
  std::vector<int> pes;  // the PEs device code reaches through it
  CudaCopier copier;
  std::unique_ptr<emu::TransportTarget> wire;
  std::unique_ptr<emu::EmuProvisioner> provisioner;
  std::unique_ptr<ibgda::mlx5nic::Mlx5Provisioner> nic;  // a real mlx5 NIC's QPs instead of the emulator's
  uint32_t qps_per_peer = 0;
};

std::unique_ptr<Ibgda> g_ibgda;
std::unique_ptr<Ibgda> g_nic_to_release;  // a real NIC's objects between stop and release

Status check_knobs(const char *call, const env::Values &v) {
  if (v.GPUSHMEM_IBGDA_QPS_PER_PEER < 1 || v.GPUSHMEM_IBGDA_QPS_PER_PEER > 64) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "%s: GPUSHMEM_IBGDA_QPS_PER_PEER=%lld is not between 1 and 64", call,
                       static_cast<long long>(v.GPUSHMEM_IBGDA_QPS_PER_PEER));
    return Status::invalid_argument;
  }
  const int64_t blocks = v.GPUSHMEM_IBGDA_SQ_BLOCKS;
  if (blocks < 64 || blocks > 32768 || (blocks & (blocks - 1)) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "%s: GPUSHMEM_IBGDA_SQ_BLOCKS=%lld is not a power of two from 64 to 32768",
                       call, static_cast<long long>(blocks));
    return Status::invalid_argument;
  }
  if (v.GPUSHMEM_IBGDA_BATCH < 1 || v.GPUSHMEM_IBGDA_BATCH > blocks) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "%s: GPUSHMEM_IBGDA_BATCH=%lld is not between 1 and GPUSHMEM_IBGDA_SQ_BLOCKS",
                       call, static_cast<long long>(v.GPUSHMEM_IBGDA_BATCH));
    return Status::invalid_argument;
  }
  return Status::ok;
}

// The emulated provisioner's memory, as emu_provisioner.hpp asks for it.
emu::EmuMemory cuda_memory(emu::Copier *copier) {
  emu::EmuMemory m;
  m.shared = [](size_t bytes) -> void * {
    void *p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) return nullptr;
    void *d = nullptr;
    // The device code and the emulator use one address for the queues: UVA maps pinned memory at its host address.
    if (cudaHostGetDevicePointer(&d, p, 0) != cudaSuccess || d != p) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net,
                         "emulated IBGDA: pinned memory at %p is mapped into the GPU at %p, not at the same address "
                         "(no unified addressing): the emulator and the device cannot share its queues",
                         p, d);
      (void)cudaFreeHost(p);
      return nullptr;
    }
    std::memset(p, 0, bytes);
    return p;
  };
  m.free_shared = [](void *p) { (void)cudaFreeHost(p); };
  m.producer = [](size_t bytes) -> void * {
    void *p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    if (cudaMemset(p, 0, bytes) != cudaSuccess) {
      (void)cudaFree(p);
      return nullptr;
    }
    return p;
  };
  m.free_producer = [](void *p) { (void)cudaFree(p); };
  m.to_producer = [](void *dst, const void *src, size_t bytes) {
    return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  };
  m.copier = copier;
  return m;
}

// What the emulator's and the real NIC's layouts share: the peers reached, the knobs, the heap's base, the timeout.
template <class Layout>
void fill_layout(const Ibgda &g, Layout *l) {
  const env::Values &v = env::get();
  const Runtime &r = rt();
  l->n_pes = r.n_pes;
  l->peers.assign(static_cast<size_t>(r.n_pes), false);
  for (int pe : g.pes) l->peers[static_cast<size_t>(pe)] = true;
  l->qps_per_peer = static_cast<uint32_t>(v.GPUSHMEM_IBGDA_QPS_PER_PEER);
  l->wqebbs = static_cast<uint32_t>(v.GPUSHMEM_IBGDA_SQ_BLOCKS);
  l->batch = static_cast<uint32_t>(v.GPUSHMEM_IBGDA_BATCH);
  l->heap_base = r.gpu.base;
  l->timeout_ns = static_cast<uint64_t>(std::max<int64_t>(v.GPUSHMEM_DEVICE_TIMEOUT, 0)) * 1000000000ull;
}

Status build(const char *call, Ibgda &g) {
  const env::Values &v = env::get();
  const Runtime &r = rt();
  GPUSHMEM_CHECK(check_knobs(call, v));
  GPUSHMEM_CHECK(g.copier.create(call));
  g.wire = std::make_unique<emu::TransportTarget>(net::active(), 0);
  emu::EmulatorOptions o;
  if (v.GPUSHMEM_IBGDA_TRACE) {
    const int me = r.my_pe;
    o.trace = [me](const std::string &line) { std::fprintf(stderr, "gpushmem[PE %d] %s\n", me, line.c_str()); };
  }
  // No CPU proxy thread serves the network when every network peer is reached through IBGDA: the emulator's thread
  // does, between its polls, or a peer's work request on this PE's heap would wait for the transport's progress
  // thread, which naps up to 10 ms while other threads of this PE progress the network (a device barrier round over
  // the emulator took about 6 ms on an H200).
  o.serve = [] {
    gpu::ContextScope in_pe_context;  // a peer's put to the GPU heap is a copy on this PE's device
    net::poll();
  };
  g.provisioner = std::make_unique<emu::EmuProvisioner>(cuda_memory(&g.copier), std::move(o));

  emu::EmuLayout l;
  fill_layout(g, &l);
  l.heap_bytes = r.gpu.limit;  // the whole slot: the heap grows into it
  l.heap_copier = &g.copier;
  g.qps_per_peer = l.qps_per_peer;
  std::string why;
  emu::TransportTarget *wire = g.wire.get();
  const uint64_t limit = r.gpu.limit;
  const Status st = g.provisioner->create(
      l,
      [wire, limit](int pe) {
        const uint32_t rkey = wire->add_key(pe, transport::Region::gpu_heap, kRemoteBase, limit, emu::kAllAccess);
        return emu::EmuPeer{wire, rkey, kRemoteBase};
      },
      &why);
  if (st != Status::ok) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: cannot create the emulated IBGDA queue pairs: %s", call, why.c_str());
    return st;
  }
  const uint32_t n_qps = static_cast<uint32_t>(r.n_pes) * l.qps_per_peer;
  std::vector<emu::EmuFault> faults;
  if (!emu::parse_faults(v.GPUSHMEM_IBGDA_EMU_FAULTS, n_qps, &faults, &why)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "%s: GPUSHMEM_IBGDA_EMU_FAULTS='%s': %s", call,
                       v.GPUSHMEM_IBGDA_EMU_FAULTS.c_str(), why.c_str());
    return Status::invalid_argument;
  }
  std::vector<uint32_t> qpn_of;
  for (const gpushmem_ibgda_qp_t &q : g.provisioner->qps()) qpn_of.push_back(q.qpn);
  if (emu::apply_faults(faults, qpn_of, g.provisioner->emulator(), &why) != 0)
    GPUSHMEM_LOG_INFO(log::Subsys::net,
                      "%s: GPUSHMEM_IBGDA_EMU_FAULTS: %s name queue pairs to PEs this PE does not reach through IBGDA "
                      "(another PE's faults): not applied here",
                      call, why.c_str());
  return Status::ok;
}

// Without the emulator: the queue pairs of a real mlx5 NIC (transports/ibgda/mlx5). Collective: every PE that gets
// here takes part in the provisioner's exchange, also one whose NIC check already says no (it refuses there, so
// all refuse alike). False, with the reason logged, keeps the CPU proxy for the network's PEs.
bool build_nic(const char *call, Ibgda &g) {
  namespace nic = ibgda::mlx5nic;
  const env::Values &v = env::get();
  Runtime &r = rt();
  nic::Mlx5Layout l;
  l.local_ok = check_knobs(call, v) == Status::ok;  // an invalid knob was logged; the PEs then refuse together
  l.local_why = "an IBGDA setting of this PE is invalid (logged above)";
  const nic::Probe probe = nic::probe(v.GPUSHMEM_HCA, nic::cuda_dma_buf_supported());
  for (const nic::Check &c : probe.checks)
    if (l.local_ok && c.result == nic::Result::no) {
      l.local_ok = false;
      l.local_why = probe.verdict;
    }
  l.my_pe = r.my_pe;
  fill_layout(g, &l);
  l.heap_bytes = r.gpu.mapped.load();  // what is mapped now: the NIC registers mapped memory only
  l.hca = v.GPUSHMEM_HCA;
  l.gpu_bus_id = nic::cuda_pci_bus_id();
  l.gid_index = static_cast<int>(v.GPUSHMEM_IBGDA_GID_INDEX);
  g.qps_per_peer = l.qps_per_peer;
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  const nic::Allgather allgather = [b](const void *mine, void *all, size_t bytes) {
    return b->allgather(b, mine, all, bytes) == GPUSHMEM_BOOTSTRAP_OK;
  };
  g.nic = std::make_unique<nic::Mlx5Provisioner>(nic::cuda_gpu_ops());
  std::string why;
  if (g.nic->create(l, allgather, &why) != Status::ok) {
    GPUSHMEM_LOG_WARN(log::Subsys::net,
                      "%s: GPUSHMEM_TRANSPORTS lists ibgda, but no mlx5 queue pairs could be made, so device code "
                      "reaches the network's PEs through the CPU proxy (GPUSHMEM_IBGDA_EMULATE=1 runs the IBGDA device "
                      "path against the NIC emulator): %s",
                      call, why.c_str());
    g.nic.reset();
    return false;
  }
  return true;
}

}  // namespace

Status start(const char *call) {
  const Runtime &r = rt();
  if (r.gpu.base == nullptr || net::active() == nullptr || !net::ibgda_listed()) return Status::ok;
  auto g = std::make_unique<Ibgda>();
  for (int pe = 0; pe < r.n_pes; ++pe)
    if (net::kind(pe) == net::Kind::network) g->pes.push_back(pe);
  if (!env::get().GPUSHMEM_IBGDA_EMULATE) {
    // The provisioner's exchange is collective: a PE whose peers are all mapped (so none is on the network) takes
    // part too, with no queue pairs, or the others would wait in it for ever.
    gpu::ContextScope in_pe_context;
    if (!build_nic(call, *g)) return Status::ok;
    if (g->pes.empty()) return Status::ok;  // nothing to attach; what the exchange made is released with g
    const Status st = gpu::attach_ibgda(call, g->pes, g->nic->device_state());
    if (st != Status::ok) {
      g.reset();
      return st;
    }
    g_ibgda = std::move(g);
    GPUSHMEM_LOG_INFO(log::Subsys::net, "%s: device code reaches %zu PE(s) through IBGDA on %s", call,
                      g_ibgda->pes.size(), g_ibgda->nic->summary().c_str());
    return Status::ok;
  }
  if (g->pes.empty()) return Status::ok;
  gpu::ContextScope in_pe_context;
  Status st = build(call, *g);
  if (st == Status::ok) st = gpu::attach_ibgda(call, g->pes, g->provisioner->device_state());
  if (st != Status::ok) {
    g.reset();  // frees what was made, in the PE's context
    return st;
  }
  g->provisioner->start();
  g_ibgda = std::move(g);
  GPUSHMEM_LOG_INFO(log::Subsys::net,
                    "%s: device code reaches %zu PE(s) through emulated IBGDA (%u queue pairs each, %lld blocks a "
                    "send queue, a NIC emulator thread executing them through ucx/)",
                    call, g_ibgda->pes.size(), g_ibgda->qps_per_peer,
                    static_cast<long long>(env::get().GPUSHMEM_IBGDA_SQ_BLOCKS));
  return Status::ok;
}

void stop(const char *call) {
  if (!g_ibgda) return;
  Ibgda &g = *g_ibgda;
  gpu::ContextScope in_pe_context;
  if (g.nic) {  // the kernels are done: the NIC owes them nothing the device still waits for
    (void)gpu::attach_ibgda(call, g.pes, nullptr);
    g_nic_to_release = std::move(g_ibgda);  // the peers' requests may still land in this PE's heap: see release
    return;
  }
  // The kernels are done: what their doorbell records publish is all there is. Execute it before the thread stops.
  g.provisioner->stop();
  // Late doorbells and stalled queue pairs (GPUSHMEM_IBGDA_EMU_FAULTS) would hide published work from the drain.
  emu::NicEmulator &nic = g.provisioner->emulator();
  nic.set_doorbell_delay(0);
  nic.set_cqe_delay(0);
  for (const gpushmem_ibgda_qp_t &q : g.provisioner->qps())
    if (q.qpn != 0) nic.stall(q.qpn, false);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (nic.poll_once() != 0)
    if (std::chrono::steady_clock::now() > until) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: the NIC emulator still finds work after 10 s; stopping it anyway",
                         call);
      break;
    }
  const emu::EmulatorCounters c = nic.counters();
  GPUSHMEM_LOG_INFO(log::Subsys::net,
                    "%s: NIC emulator: %llu work requests executed, %llu completions, %llu errors, %llu flushed, %llu "
                    "doorbells",
                    call, static_cast<unsigned long long>(c.wqes), static_cast<unsigned long long>(c.cqes),
                    static_cast<unsigned long long>(c.errors), static_cast<unsigned long long>(c.flushed),
                    static_cast<unsigned long long>(c.doorbells));
  (void)gpu::attach_ibgda(call, g.pes, nullptr);
  g_ibgda.reset();
}

void release() {
  if (!g_nic_to_release) return;
  gpu::ContextScope in_pe_context;
  g_nic_to_release.reset();
}

bool running() {
  return g_ibgda != nullptr;
}

bool reaches(int pe) {
  return g_ibgda && std::find(g_ibgda->pes.begin(), g_ibgda->pes.end(), pe) != g_ibgda->pes.end();
}

bool serves_network() {
  return g_ibgda && !g_ibgda->nic;
}

std::string device_path(int pe) {
  if (!reaches(pe)) return "";
  if (g_ibgda->nic)
    return "; device code: through IBGDA, " + std::to_string(g_ibgda->qps_per_peer) + " queue pairs on " +
           g_ibgda->nic->device();
  return "; device code: through emulated IBGDA, " + std::to_string(g_ibgda->qps_per_peer) +
         " queue pairs served by this PE's NIC emulator over ucx/";
}

}  // namespace gpushmem::ibgda_rt
