// The proxy's channels in memory the GPU and the proxy thread share, and the proxy's life cycle
// (proxy_runtime.hpp). GPU mode only: this file is built with CUDA (proxy_none.cpp otherwise).
#include "proxy/proxy_runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/log.hpp"
#include "env/env.hpp"
#include "gpu/cuda_loader.hpp"
#include "gpu/device_error.hpp"
#include "gpu/gpu.hpp"
#include "gpu/session.hpp"
#include "ibgda/ibgda_runtime.hpp"
#include "net/net.hpp"
#include "proxy/proxy_cpus.hpp"
#include "proxy/proxy_service.hpp"
#include "proxy/runtime_backend.hpp"
#include "state.hpp"

namespace gpushmem::proxy_rt {
namespace {

constexpr int kMaxChannels = 64;  // device/transport/proxy.cuh: GPUSHMEMI_PROXY_MAX_CHANNELS

// One channel's memory: the host views the proxy uses and the device views the producers use.
struct ChannelMemory {
  gpushmem_proxy_slot_t *ring = nullptr;           // pinned, mapped
  gpushmem_proxy_control_t *control = nullptr;     // pinned, mapped
  uint8_t *bounce = nullptr;                       // pinned, mapped
  gpushmem_proxy_device_words_t *words = nullptr;  // device memory
  uint64_t *owner = nullptr;                       // device memory
  gpushmem_proxy_channel_t host{}, device{};
};

struct Proxy {
  std::vector<ChannelMemory> channels;
  gpushmem_proxy_channel_t *d_table = nullptr;
  std::vector<int> pes;  // the PEs device code reaches through it
  std::unique_ptr<RuntimeBackend> backend;
  std::unique_ptr<proxy::Service> service;
  std::string where;  // where its thread runs, and why
};

std::unique_ptr<Proxy> g_proxy;

const char *const kAdvice = "GPUSHMEM_PROXY_CAPACITY / GPUSHMEM_PROXY_CHANNELS smaller need less pinned memory";

void free_channel(ChannelMemory &c) {
  if (c.ring != nullptr) (void)cudaFreeHost(c.ring);
  if (c.control != nullptr) (void)cudaFreeHost(c.control);
  if (c.bounce != nullptr) (void)cudaFreeHost(c.bounce);
  if (c.words != nullptr) (void)cudaFree(c.words);
  if (c.owner != nullptr) (void)cudaFree(c.owner);
  c = ChannelMemory{};
}

template <class T>
Status host_alloc(const char *call, T **host, T **device, size_t bytes, const char *what) {
  cudaError_t e = cudaHostAlloc(reinterpret_cast<void **>(host), bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess)
    return gpu::rt_failed(e, call, kAdvice, "cudaHostAlloc(%zu bytes) for the proxy's %s", bytes, what);
  std::memset(*host, 0, bytes);
  e = cudaHostGetDevicePointer(reinterpret_cast<void **>(device), *host, 0);
  if (e != cudaSuccess) return gpu::rt_failed(e, call, kAdvice, "cudaHostGetDevicePointer for the proxy's %s", what);
  return Status::ok;
}

Status make_channel(const char *call, uint32_t capacity, ChannelMemory *c) {
  gpushmem_proxy_slot_t *ring_dev = nullptr;
  gpushmem_proxy_control_t *control_dev = nullptr;
  uint8_t *bounce_dev = nullptr;
  GPUSHMEM_CHECK(host_alloc(call, &c->ring, &ring_dev, sizeof(gpushmem_proxy_slot_t) * capacity, "ring"));
  GPUSHMEM_CHECK(host_alloc(call, &c->control, &control_dev, sizeof(gpushmem_proxy_control_t), "control words"));
  GPUSHMEM_CHECK(
      host_alloc(call, &c->bounce, &bounce_dev, size_t{GPUSHMEM_PROXY_BOUNCE_BYTES} * capacity, "bounce memory"));
  // Headers one lap old: no slot looks published before its producer writes it.
  for (uint32_t p = 0; p < capacity; ++p) c->ring[p].header = gpushmem_proxy_free_header(0, capacity, p);
  cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&c->words), sizeof *c->words);
  if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void **>(&c->owner), sizeof(uint64_t) * capacity);
  if (e == cudaSuccess) e = cudaMemset(c->words, 0, sizeof *c->words);
  if (e == cudaSuccess) e = cudaMemset(c->owner, 0, sizeof(uint64_t) * capacity);
  if (e != cudaSuccess)
    return gpu::rt_failed(e, call, kAdvice, "cudaMalloc/cudaMemset of the proxy's device words (%u slots)", capacity);
  const uint32_t high_water = capacity / 4 * 3;
  c->host = {c->ring, c->control, c->words, capacity, high_water, c->bounce, c->owner};
  c->device = {ring_dev, control_dev, c->words, capacity, high_water, bounce_dev, c->owner};
  return Status::ok;
}

Status build(const char *call, Proxy &p) {
  const env::Values &v = env::get();
  const int64_t channels = v.GPUSHMEM_PROXY_CHANNELS, capacity = v.GPUSHMEM_PROXY_CAPACITY;
  if (channels < 1 || channels > kMaxChannels) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: GPUSHMEM_PROXY_CHANNELS=%lld is not between 1 and %d", call,
                       static_cast<long long>(channels), kMaxChannels);
    return Status::invalid_argument;
  }
  if (capacity < 64 || capacity > (1 << 20) || (capacity & (capacity - 1)) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: GPUSHMEM_PROXY_CAPACITY=%lld is not a power of two from 64 to 1048576",
                       call, static_cast<long long>(capacity));
    return Status::invalid_argument;
  }
  p.channels.resize(static_cast<size_t>(channels));
  std::vector<gpushmem_proxy_channel_t> table;
  std::vector<BounceView> bounce;
  for (ChannelMemory &c : p.channels) {
    GPUSHMEM_CHECK(make_channel(call, static_cast<uint32_t>(capacity), &c));
    table.push_back(c.device);
    bounce.push_back({reinterpret_cast<uint64_t>(c.device.bounce), c.bounce,
                      uint64_t{GPUSHMEM_PROXY_BOUNCE_BYTES} * static_cast<uint64_t>(capacity)});
  }
  const size_t bytes = sizeof(gpushmem_proxy_channel_t) * table.size();
  cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&p.d_table), bytes);
  if (e == cudaSuccess) e = cudaMemcpy(p.d_table, table.data(), bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return gpu::rt_failed(e, call, kAdvice, "cudaMalloc/cudaMemcpy of the proxy's channel table");

  // With no PE of its own and the NIC emulator's thread serving the network, it leaves that to the emulator.
  p.backend = std::make_unique<RuntimeBackend>(std::move(bounce), !p.pes.empty() || !ibgda_rt::serves_network());
  proxy::ServiceOptions o;
  o.watchdog_ns = static_cast<uint64_t>(std::max<int64_t>(v.GPUSHMEM_PROXY_TIMEOUT, 0)) * 1000000000ull;
  o.stats = v.GPUSHMEM_PROXY_STATS;
  o.on_look = [] { (void)gpu::report_device_error("by the proxy's watchdog"); };
  std::string error;
  proxy::CpuChoice where;
  const std::vector<int> allowed = proxy::allowed_cpus();
  if (!proxy::choose_cpus(v.GPUSHMEM_PROXY_CPUS, gpu::session()->device.bus_id, "/sys", allowed, &where, &error)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: %s", call, error.c_str());
    return Status::invalid_argument;
  }
  if (const std::string crowded = proxy::crowded_warning(allowed); !crowded.empty())
    GPUSHMEM_LOG_WARN(log::Subsys::net, "%s: %s", call, crowded.c_str());
  o.cpus = where.cpus;
  p.where = where.why;
  p.service = std::make_unique<proxy::Service>(p.backend.get(), o);
  for (const ChannelMemory &c : p.channels) p.service->add_channel(c.host);
  return Status::ok;
}

void destroy(Proxy &p) {
  if (p.service) p.service->stop();
  p.service.reset();
  p.backend.reset();
  if (p.d_table != nullptr) (void)cudaFree(p.d_table);
  p.d_table = nullptr;
  for (ChannelMemory &c : p.channels) free_channel(c);
  p.channels.clear();
}

}  // namespace

Status start(const char *call) {
  const Runtime &r = rt();
  if (r.gpu.base == nullptr || net::active() == nullptr) return Status::ok;
  auto p = std::make_unique<Proxy>();
  bool network = false;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    network = network || net::kind(pe) == net::Kind::network;
    if (net::kind(pe) == net::Kind::network && !ibgda_rt::reaches(pe)) p->pes.push_back(pe);
  }
  // With every network PE reached through IBGDA the proxy still executes device collect and reductions for teams
  // with such members (COLL requests, proxy_coll.cpp).
  if (!network) return Status::ok;
  gpu::ContextScope in_pe_context;
  Status st = build(call, *p);
  if (st == Status::ok) st = gpu::attach_proxy(call, p->pes, p->d_table, static_cast<uint32_t>(p->channels.size()));
  if (st != Status::ok) {
    destroy(*p);
    return st;
  }
  p->service->start();
  g_proxy = std::move(p);
  GPUSHMEM_LOG_INFO(log::Subsys::net,
                    "%s: device code reaches %zu PE(s) through the CPU proxy (%zu channels of %u slots; it executes "
                    "device collect and reductions for teams with network members), its thread %s",
                    call, g_proxy->pes.size(), g_proxy->channels.size(), g_proxy->channels.front().host.capacity,
                    g_proxy->where.c_str());
  return Status::ok;
}

void stop(const char *call) {
  if (!g_proxy) return;
  Proxy &p = *g_proxy;
  gpu::ContextScope in_pe_context;
  // The kernels are done: every request they reserved is published. Execute them all before the thread stops.
  for (uint32_t i = 0; i < p.channels.size(); ++i) {
    uint64_t head = 0;
    if (cudaMemcpy(&head, &p.channels[i].words->head, sizeof head, cudaMemcpyDeviceToHost) != cudaSuccess) {
      GPUSHMEM_LOG_WARN(log::Subsys::net, "%s: cannot read proxy channel %u's head; its last requests may be lost",
                        call, i);
      continue;
    }
    const uint64_t start = proxy::Service::now_ns();
    while (p.service->channel(i).frontier() < head) {
      if (proxy::Service::now_ns() - start > 10000000000ull) {
        GPUSHMEM_LOG_ERROR(log::Subsys::net,
                           "%s: proxy channel %u still holds %llu unexecuted requests after 10 s (the watchdog's "
                           "reports above name them); stopping the proxy anyway",
                           call, i, static_cast<unsigned long long>(head - p.service->channel(i).frontier()));
        break;
      }
      std::this_thread::yield();
    }
  }
  p.service->stop();
  if (env::get().GPUSHMEM_PROXY_STATS)
    for (const std::string &line : p.service->stats_report())
      std::fprintf(stderr, "gpushmem[PE %d] proxy: %s\n", rt().my_pe, line.c_str());
  (void)gpu::attach_proxy(call, p.pes, nullptr, 0);
  destroy(p);
  g_proxy.reset();
}

bool running() {
  return g_proxy != nullptr;
}

std::string describe() {
  if (!g_proxy) return "no CPU proxy";
  std::string s = g_proxy->pes.empty() ? "CPU proxy for device collect and reductions only (IBGDA reaches every "
                                         "network PE)"
                                       : "CPU proxy for PE(s)";
  for (int pe : g_proxy->pes) s += " " + std::to_string(pe);
  s += ", " + std::to_string(g_proxy->channels.size()) + " channels, its thread " + g_proxy->where;
  return s;
}

bool reaches(int pe) {
  return g_proxy && std::find(g_proxy->pes.begin(), g_proxy->pes.end(), pe) != g_proxy->pes.end();
}

std::string device_path(int pe) {
  if (!reaches(pe)) return "";
  const transport::Transport *t = net::active();
  const std::string why = t != nullptr && t->reaches_gpu_memory()
                              ? "this UCX reaches GPU memory (" + t->memory_types() +
                                    (env::get().GPUSHMEM_UCX_GPU_ONE_SIDED
                                         ? "): peers' GPU heaps one-sided as the line above says, this PE's GPU "
                                           "buffers still staged"
                                         : "), but GPUSHMEM_UCX_GPU_ONE_SIDED=0 sends everything through the agents")
                              : "this UCX does not reach GPU memory: its memory types are " +
                                    (t != nullptr ? t->memory_types() : std::string("host"));
  return "; device code: through the CPU proxy, channel " +
         std::to_string(pe % static_cast<int>(g_proxy->channels.size())) +
         ", GPU buffers staged through host memory (" + why + ")";
}

}  // namespace gpushmem::proxy_rt
