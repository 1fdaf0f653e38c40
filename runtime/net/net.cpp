#include "net/net.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "agent/cpu_memory_agent.hpp"
#include "api/api_common.hpp"
#include "env/env.hpp"
#include "gpu/gpu.hpp"
#include "gpushmem/config.h"
#include "net/stage_pipeline.hpp"
#if GPUSHMEM_BUILT_WITH_UCX
#include "ucx/ucx_transport.hpp"
#endif

namespace gpushmem::net {

using transport::AmoOp;
using transport::Region;
using transport::RemoteRef;

transport::Transport *detail::g_active = nullptr;  // g_transport once connected

namespace {

// Owned, but never destroyed by a static destructor: a child of fork() that exits must not tear down its
// parent's UCX worker (UCX aborts), and a program that returns without shmem_finalize leaves it to exit.
transport::Transport *g_transport = nullptr;
using detail::g_active;
std::vector<Kind> g_kind;
std::vector<std::string> g_why;  // per PE: why it is reached the way it is
std::string g_reject;            // why this PE could not set up the network (empty: it could)
// GPUSHMEM_TEST_HEAP_AGENT: the CPU agent serving the host heap's network operations (outlives g_transport).
std::unique_ptr<transport::CpuMemoryAgent> g_test_heap_agent;

// GPUSHMEM_TRANSPORTS as a list; empty: the default (p2p, then ucx).
std::vector<std::string> transports_list() {
  std::vector<std::string> out;
  const std::string &text = env::get().GPUSHMEM_TRANSPORTS;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    std::string item = text.substr(i, j - i);
    if (!item.empty()) out.push_back(item);
    i = j + 1;
  }
  return out;
}

// Whether GPUSHMEM_TRANSPORTS names `name` itself.
bool named(const std::vector<std::string> &l, const char *name) {
  for (const std::string &t : l)
    if (t == name) return true;
  return false;
}

// Whether `name` may be used: named, or nothing set (the default).
bool listed(const char *name) {
  const std::vector<std::string> l = transports_list();
  return l.empty() || named(l, name);
}

// Collective: every PE says whether it is fine; returns the lowest PE that is not (-1: all are), so that
// every PE fails at the same step instead of leaving the others in the next collective.
[[maybe_unused]] int first_failed(bool ok) {
  Runtime &r = rt();
  std::vector<uint8_t> all(static_cast<size_t>(r.n_pes));
  uint8_t mine = ok ? 1 : 0;
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  if (b->allgather(b, &mine, all.data(), 1) != GPUSHMEM_BOOTSTRAP_OK) return r.my_pe;
  for (int pe = 0; pe < r.n_pes; ++pe)
    if (all[static_cast<size_t>(pe)] == 0) return pe;
  return -1;
}

std::string pe_list(const std::vector<bool> &which) {
  std::string s;
  int shown = 0;
  for (size_t pe = 0; pe < which.size(); ++pe) {
    if (!which[pe]) continue;
    if (shown == 8) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + std::to_string(pe);
    ++shown;
  }
  return s;
}

// Allgathers variable-length blobs: the lengths first, then every blob padded to the longest.
[[maybe_unused]] Status allgather_blobs(const std::vector<uint8_t> &mine, std::vector<std::vector<uint8_t>> *all) {
  Runtime &r = rt();
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  const size_t n = static_cast<size_t>(r.n_pes);
  uint64_t my_len = mine.size();
  std::vector<uint64_t> lens(n);
  if (b->allgather(b, &my_len, lens.data(), sizeof my_len) != GPUSHMEM_BOOTSTRAP_OK) return Status::bootstrap_error;
  uint64_t longest = 0;
  for (uint64_t l : lens) longest = l > longest ? l : longest;
  std::vector<uint8_t> padded(longest, 0), gathered(longest * n);
  std::memcpy(padded.data(), mine.data(), mine.size());
  if (b->allgather(b, padded.data(), gathered.data(), longest) != GPUSHMEM_BOOTSTRAP_OK) return Status::bootstrap_error;
  all->assign(n, {});
  for (size_t pe = 0; pe < n; ++pe) {
    const uint8_t *p = gathered.data() + pe * longest;
    (*all)[pe].assign(p, p + lens[pe]);
  }
  return Status::ok;
}

// GPUSHMEM_FAULT_INJECT: "" (none) or ucx-endpoint:PE:N, PE a PE of the job and N >= 1.
Status parse_fault(int n_pes, int *pe, uint64_t *after) {
  const std::string &v = env::get().GPUSHMEM_FAULT_INJECT;
  *pe = -1;
  *after = 0;
  if (v.empty()) return Status::ok;
  const std::string kind = "ucx-endpoint:";
  long long p = -1;
  unsigned long long k = 0;
  int used = 0;
  if (v.compare(0, kind.size(), kind) != 0 || std::sscanf(v.c_str() + kind.size(), "%lld:%llu%n", &p, &k, &used) != 2 ||
      v.size() != kind.size() + static_cast<size_t>(used) || v.find('-', kind.size()) != std::string::npos) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "GPUSHMEM_FAULT_INJECT='%s' is not a fault: give ucx-endpoint:PE:N",
                       v.c_str());
    return Status::invalid_argument;
  }
  if (p < 0 || p >= n_pes || k == 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env,
                       "GPUSHMEM_FAULT_INJECT='%s' is out of range: PE from 0 to %d, N (the operation) from 1",
                       v.c_str(), n_pes - 1);
    return Status::invalid_argument;
  }
  *pe = static_cast<int>(p);
  *after = k;
  return Status::ok;
}

[[noreturn]] void fail_transport(const char *call, int pe, const char *what) {
  if (pe >= 0 && g_active != nullptr && g_active->peer_error(pe) != 0)
    api::fail(call, "%s PE %d failed: PE %d was lost (%s)", what, pe, pe, g_active->peer_error_text(pe).c_str());
  api::fail(call, "%s PE %d through the network failed (the cause is above)", what, pe);
}

}  // namespace

bool p2p_allowed() {
  return listed("p2p");
}

bool ibgda_listed() {
  return named(transports_list(), "ibgda");
}

Status init(const char *call, bool globals_everywhere) {
  Runtime &r = rt();
  for (const std::string &t : transports_list())
    if (t != "p2p" && t != "ucx" && t != "ibgda") {
      GPUSHMEM_LOG_ERROR(log::Subsys::env,
                         "GPUSHMEM_TRANSPORTS='%s' names '%s', which is not a transport: list p2p, ucx and/or ibgda",
                         env::get().GPUSHMEM_TRANSPORTS.c_str(), t.c_str());
      return Status::invalid_argument;
    }
  [[maybe_unused]] int fault_pe = -1;
  [[maybe_unused]] uint64_t fault_after = 0;
  GPUSHMEM_CHECK(parse_fault(r.n_pes, &fault_pe, &fault_after));
  const size_t n = static_cast<size_t>(r.n_pes);
  g_kind.assign(n, Kind::unreachable);
  g_why.assign(n, "");
  std::vector<bool> need(n, false);
  bool any_need = false;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    const size_t i = static_cast<size_t>(pe);
    if (pe == r.my_pe) {
      g_kind[i] = Kind::self;
      g_why[i] = "this PE";
    } else if (r.p2p.reaches(pe)) {
      g_kind[i] = Kind::p2p;
      g_why[i] = r.p2p.describe(pe) + ", same node";
    } else {
      need[i] = any_need = true;
      const bool same_node = r.topology.node_of[i] == r.topology.node_of[static_cast<size_t>(r.my_pe)];
      g_why[i] = same_node
                     ? "same node, but GPUSHMEM_TRANSPORTS='" + env::get().GPUSHMEM_TRANSPORTS + "' leaves out p2p"
                     : "another node (" + r.topology.node_names[static_cast<size_t>(r.topology.node_of[i])] + ")";
    }
  }

  // Whether anybody needs the network, and whether everybody can offer it: one allgather of two bits.
  std::string why_not;
  bool can = listed("ucx") || ibgda_listed();  // IBGDA's host side and the emulator's wire are ucx/
  if (!can) why_not = "GPUSHMEM_TRANSPORTS='" + env::get().GPUSHMEM_TRANSPORTS + "' leaves out ucx";
#if GPUSHMEM_BUILT_WITH_UCX
  const ucx::Api *api = nullptr;
  if (can && any_need) {
    api = ucx::load(env::get().GPUSHMEM_UCX_LIBRARY, &why_not);
    can = api != nullptr;
  }
#else
  if (can) {
    can = false;
    why_not = "this gpushmem was built without UCX (install libucx-dev and rebuild)";
  }
#endif
  struct Say {
    uint8_t need, can;
  };
  Say mine{static_cast<uint8_t>(any_need), static_cast<uint8_t>(can)};
  std::vector<Say> says(n);
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  if (b->allgather(b, &mine, says.data(), sizeof mine) != GPUSHMEM_BOOTSTRAP_OK) return Status::bootstrap_error;
  bool anybody = false;
  for (const Say &s : says) anybody = anybody || s.need != 0;
  if (!anybody) return Status::ok;
  // Every PE must offer the network once anybody uses it (a PE whose own peers are all mapped still serves
  // the others), so the first PE that cannot fails every PE alike. It says why first; the barrier keeps the
  // others from ending the job (and it) before it has.
  int bad = -1;
  for (int pe = 0; pe < r.n_pes && bad < 0; ++pe)
    if (says[static_cast<size_t>(pe)].can == 0) bad = pe;
  if (bad >= 0) {
    if (bad == r.my_pe && any_need) {
      const std::string pes = pe_list(need);
      const size_t first = static_cast<size_t>(std::find(need.begin(), need.end(), true) - need.begin());
      GPUSHMEM_LOG_ERROR(log::Subsys::net,
                         "%s: PE %d can reach PE%s %s (%s) only through the network, and the network transport is "
                         "not available: %s",
                         call, r.my_pe, pes.find(',') != std::string::npos ? "s" : "", pes.c_str(),
                         g_why[first].c_str(), why_not.c_str());
    } else if (bad == r.my_pe) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net,
                         "%s: other PEs reach PE %d only through the network, and the network transport is not "
                         "available here: %s",
                         call, r.my_pe, why_not.c_str());
    }
    (void)b->barrier(b);
    if (bad != r.my_pe)
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: PE %d cannot use the network transport (its log says why)", call, bad);
    return Status::not_supported;
  }

#if GPUSHMEM_BUILT_WITH_UCX
  if (api == nullptr && (api = ucx::load(env::get().GPUSHMEM_UCX_LIBRARY, &why_not)) == nullptr)
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "%s: other PEs reach PE %d only through the network, and the network transport is not "
                       "available here: %s",
                       call, r.my_pe, why_not.c_str());
  // The job key: a blob from another job (or a stale address) is refused by name.
  uint64_t job_key = 0;
  if (r.my_pe == 0) job_key = std::random_device{}() | static_cast<uint64_t>(std::random_device{}()) << 32;
  if (b->bcast(b, &job_key, sizeof job_key, 0) != GPUSHMEM_BOOTSTRAP_OK) return Status::bootstrap_error;
  ucx::Options opt;
  opt.my_pe = r.my_pe;
  opt.n_pes = r.n_pes;
  opt.job_key = job_key;
  opt.hang_warn_s = static_cast<int>(env::get().GPUSHMEM_HANG_WARN);
  opt.spin_us = env::get().GPUSHMEM_PROGRESS_SPIN_US;
  if (opt.spin_us < 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "GPUSHMEM_PROGRESS_SPIN_US=%lld is negative: give microseconds, 0 or more",
                       static_cast<long long>(opt.spin_us));
    return Status::invalid_argument;
  }
  opt.nap_max_us = env::get().GPUSHMEM_PROGRESS_NAP_US;
  opt.rndv_bytes = env::get().GPUSHMEM_UCX_RNDV_BYTES;
  opt.agent_stats = env::get().GPUSHMEM_PROXY_STATS;
  opt.fault_pe = fault_pe;
  opt.fault_after = fault_after;
  if (opt.nap_max_us < 1 || opt.nap_max_us > 999999) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env,
                       "GPUSHMEM_PROGRESS_NAP_US=%lld is out of range: give microseconds from 1 to 999999",
                       static_cast<long long>(opt.nap_max_us));
    return Status::invalid_argument;
  }
  std::unique_ptr<ucx::UcxTransport> t = api != nullptr ? ucx::UcxTransport::create(api, opt) : nullptr;
  bool ok = t != nullptr;
  if (ok) {
    // GPUSHMEM_TEST_HEAP_AGENT: the host heap through a CPU memory agent, as a GPU heap is served (emu tests).
    // GPUSHMEM_TEST_HEAP_ONE_SIDED: its first bytes one-sided too, as a GPU heap with a UCX that reaches it.
    transport::MemoryAgent *heap_agent = nullptr;
    transport::OneSided heap_one_sided;
    if (env::get().GPUSHMEM_TEST_HEAP_AGENT) {
      g_test_heap_agent = std::make_unique<transport::CpuMemoryAgent>(r.heap.base(), r.heap.mapped_bytes());
      heap_agent = g_test_heap_agent.get();
      heap_one_sided.bytes = env::get().GPUSHMEM_TEST_HEAP_ONE_SIDED;
    }
    ok = t->register_region(Region::heap, r.heap.base(), r.heap.mapped_bytes(), heap_agent, heap_one_sided) ==
         Status::ok;
  }
  if (ok && globals_everywhere && r.data.size() != 0)
    ok = t->register_region(Region::globals, r.data.start(), r.data.size()) == Status::ok;
  // GPU mode: the GPU heap, served by this PE's agent: its whole reserved range, of which the agent accepts what
  // is mapped when an operation arrives. Where UCX reaches GPU memory, the part mapped now is one-sided for puts
  // and gets too (GPUSHMEM_UCX_GPU_ONE_SIDED); atomics and signals stay with the agent, atomic with the device's.
  if (ok && r.gpu.base != nullptr) {
    transport::OneSided gpu_one_sided;
    if (t->reaches_gpu_memory() && env::get().GPUSHMEM_UCX_GPU_ONE_SIDED) {
      gpu_one_sided.bytes = r.gpu.mapped.load();
      gpu_one_sided.device_memory = true;
    }
    ok =
        t->register_region(Region::gpu_heap, r.gpu.base, r.gpu.limit, gpu::heap_agent(), gpu_one_sided) == Status::ok &&
        gpu::prepare_network_buffers(call) == Status::ok;
  }
  std::vector<uint8_t> blob;
  if (ok) ok = t->local_blob(&blob) == Status::ok;
  if (int bad = first_failed(ok); bad >= 0) {
    if (bad != r.my_pe)
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: PE %d could not set up UCX (its log says why)", call, bad);
    return Status::system_error;
  }
  std::vector<std::vector<uint8_t>> blobs;
  GPUSHMEM_CHECK(allgather_blobs(blob, &blobs));
  const std::string &policy = env::get().GPUSHMEM_PROGRESS_THREAD;
  if (policy != "auto" && policy != "on" && policy != "off") {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "GPUSHMEM_PROGRESS_THREAD='%s' is not a policy: use auto, on or off",
                       policy.c_str());
    return Status::invalid_argument;
  }
  ok = t->connect(blobs, need) == Status::ok;
  // The progress thread serves the peers' wire-up below; auto: on, since every PE is a target of the network
  // once anybody uses it. Off: only for the wire-up.
  if (ok) ok = t->start_progress_thread() == Status::ok;
  if (ok) ok = t->wire_up(true) == Status::ok;
  if (b->barrier(b) != GPUSHMEM_BOOTSTRAP_OK) return Status::bootstrap_error;
  if (ok) ok = t->wire_up(false) == Status::ok;
  if (int bad = first_failed(ok); bad >= 0) {
    if (bad != r.my_pe)
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s: PE %d could not connect to its peers over UCX (its log says why)", call,
                         bad);
    return Status::system_error;
  }
  if (policy == "off") t->stop_progress_thread();
  for (int pe = 0; pe < r.n_pes; ++pe)
    if (need[static_cast<size_t>(pe)]) g_kind[static_cast<size_t>(pe)] = Kind::network;
  g_transport = t.release();
  g_active = g_transport;
  GPUSHMEM_LOG_INFO(log::Subsys::net, "%s: PE %d reaches %s through UCX %u.%u.%u (%s), progress thread %s", call,
                    r.my_pe, any_need ? ("PEs " + pe_list(need)).c_str() : "no PE", api->major, api->minor,
                    api->release, api->path.c_str(), policy == "off" ? "off" : "on");
  return Status::ok;
#else
  return Status::not_supported;
#endif
}

void prepare_finalize() {
#if GPUSHMEM_BUILT_WITH_UCX
  if (g_transport != nullptr) static_cast<ucx::UcxTransport *>(g_transport)->set_closing();
#endif
}

void finalize() {
#if GPUSHMEM_BUILT_WITH_UCX
  if (g_transport != nullptr && env::get().GPUSHMEM_PROXY_STATS)
    for (const std::string &line : static_cast<ucx::UcxTransport *>(g_transport)->agent_stats_report())
      std::fprintf(stderr, "gpushmem[PE %d] memory agent: %s\n", rt().my_pe, line.c_str());
#endif
  if (g_transport != nullptr) g_transport->finalize();
  g_active = nullptr;
  delete g_transport;
  g_transport = nullptr;
  g_test_heap_agent.reset();
  g_kind.clear();
  g_why.clear();
}

Kind kind(int pe) {
  return pe >= 0 && static_cast<size_t>(pe) < g_kind.size() ? g_kind[static_cast<size_t>(pe)] : Kind::unreachable;
}

std::string describe(int pe) {
  if (pe < 0 || static_cast<size_t>(pe) >= g_kind.size()) return "unknown PE";
  const size_t i = static_cast<size_t>(pe);
  switch (g_kind[i]) {
    case Kind::self:
      return "self";
    case Kind::p2p:
      return g_why[i];
    case Kind::network:
      return (g_active != nullptr ? g_active->describe(pe) : std::string("network")) + ": " + g_why[i];
    case Kind::unreachable:
      return "unreachable: " + g_why[i];
  }
  return "?";
}

std::string host_of(int pe) {
  const node::Topology &t = rt().topology;
  if (pe < 0 || static_cast<size_t>(pe) >= t.node_of.size()) return "?";
  return t.node_names[static_cast<size_t>(t.node_of[static_cast<size_t>(pe)])];
}

RemoteRef ref(const void *sym) {
  const Runtime &r = rt();
  const char *p = static_cast<const char *>(sym);
  if (const char *g = r.gpu.base; g != nullptr && p >= g && p < g + r.gpu.limit)
    return {Region::gpu_heap, static_cast<uint64_t>(p - g)};
  if (r.data.contains(p, 1)) return {Region::globals, static_cast<uint64_t>(p - r.data.start())};
  return {Region::heap, static_cast<uint64_t>(p - r.heap.base())};
}

namespace {

// A local buffer in device memory (GPU mode: the host API's buffers may be shmem_malloc'd or cudaMalloc'd, and the
// proxy's requests name the GPU thread's buffers) travels through two pinned host buffers of a borrowed stage,
// chunk by chunk: the copy engine moves one chunk while the network moves the other (stage_pipeline.hpp).
bool staged(const void *local) {
  return rt().gpu.base != nullptr && gpu::device_memory(local);
}

// The stage of one transfer, returned when it ends (also when a step fails: api::fail does not return).
struct StageLease {
  const char *call_;
  gpu::Stage st;
  explicit StageLease(const char *call) : call_(call) {
    if (gpu::borrow_stage(call, &st) != Status::ok)
      api::fail(call, "staging the device buffer through host memory failed (the cause is above)");
  }
  ~StageLease() { gpu::return_stage(st); }
  auto start() {
    return [this, c = call_](void *dst, const void *src, size_t n) {
      return gpu::stage_copy_start(c, st, dst, src, n) == Status::ok;
    };
  }
  auto wait() {
    return [this, c = call_] { return gpu::stage_copy_wait(c, st) == Status::ok; };
  }
};

// Sends `bytes` from device buffer `src` to `dst` on pe, chunk by chunk (each complete locally).
void put_staged(const char *call, uint32_t chan, int pe, RemoteRef dst, const void *src, size_t bytes) {
  StageLease lease(call);
  bool sent = true;
  const bool ok = stage_out(static_cast<const char *>(src), bytes, gpu::kStageChunkBytes, lease.st.buf, lease.start(),
                            lease.wait(), [&](size_t off, const void *from, size_t n) {
                              sent = g_active->put(chan, pe, RemoteRef{dst.region, dst.offset + off}, from, n,
                                                   transport::Completion::local, nullptr) == Status::ok;
                              return sent;
                            });
  if (!sent) fail_transport(call, pe, "the put to");
  if (!ok) api::fail(call, "staging the device buffer through host memory failed (the CUDA error is above)");
}

}  // namespace

void put(const char *call, uint32_t chan, int pe, const void *sym_dest, const void *src, size_t bytes, bool nbi) {
  const RemoteRef dst = ref(sym_dest);
  if (bytes != 0 && staged(src)) [[unlikely]] {
    put_staged(call, chan, pe, dst, src, bytes);
    return;
  }
  if (g_active->put(chan, pe, dst, src, bytes, nbi ? transport::Completion::none : transport::Completion::local,
                    nullptr) != Status::ok)
    fail_transport(call, pe, "the put to");
}

void get(const char *call, uint32_t chan, int pe, void *dest, const void *sym_src, size_t bytes) {
  const RemoteRef src = ref(sym_src);
  if (bytes != 0 && staged(dest)) [[unlikely]] {
    StageLease lease(call);
    bool received = true;
    const bool ok = stage_in(
        static_cast<char *>(dest), bytes, gpu::kStageChunkBytes, lease.st.buf,
        [&](size_t off, void *into, size_t n) {
          received = g_active->get(chan, pe, into, RemoteRef{src.region, src.offset + off}, n) == Status::ok;
          return received;
        },
        lease.start(), lease.wait());
    if (!received) fail_transport(call, pe, "the get from");
    if (!ok) api::fail(call, "staging the device buffer through host memory failed (the CUDA error is above)");
    return;
  }
  if (g_active->get(chan, pe, dest, src, bytes) != Status::ok) fail_transport(call, pe, "the get from");
}

void amo(const char *call, uint32_t chan, int pe, const void *sym, AmoOp op, size_t width, uint64_t operand,
         uint64_t compare, void *fetch) {
  if (g_active->amo(chan, pe, ref(sym), op, width, operand, compare, fetch) != Status::ok)
    fail_transport(call, pe, "the atomic on");
}

void put_signal(const char *call, uint32_t chan, int pe, const void *sym_dest, const void *src, size_t bytes,
                const uint64_t *sym_sig, uint64_t value, bool add) {
  if (bytes != 0 && staged(src)) [[unlikely]] {
    // Every piece but the last as a put, a fence, then the last with the signal: the signal still lands
    // after the whole payload.
    const size_t last = (bytes - 1) / gpu::kStageChunkBytes * gpu::kStageChunkBytes;
    const RemoteRef dst = ref(sym_dest);
    if (last != 0) {
      put_staged(call, chan, pe, dst, src, last);
      if (g_active->fence(chan) != Status::ok) fail_transport(call, pe, "the put-with-signal to");
    }
    StageLease lease(call);
    if (gpu::stage_copy_start(call, lease.st, lease.st.buf[0], static_cast<const char *>(src) + last, bytes - last) !=
            Status::ok ||
        gpu::stage_copy_wait(call, lease.st) != Status::ok)
      api::fail(call, "staging the device buffer through host memory failed (the CUDA error is above)");
    if (g_active->put_signal(chan, pe, RemoteRef{dst.region, dst.offset + last}, lease.st.buf[0], bytes - last,
                             ref(sym_sig), value, add) != Status::ok)
      fail_transport(call, pe, "the put-with-signal to");
    return;
  }
  if (g_active->put_signal(chan, pe, ref(sym_dest), src, bytes, ref(sym_sig), value, add) != Status::ok)
    fail_transport(call, pe, "the put-with-signal to");
}

void send_message(const char *call, uint32_t chan, int pe, const transport::Segment *segments, size_t n,
                  const uint64_t *sym_sig, uint64_t value, transport::SignalOp op) {
  if (g_active->send_message(chan, pe, segments, n, ref(sym_sig), value, op) != Status::ok)
    fail_transport(call, pe, "the signal to");
}

void quiet(const char *call, uint32_t chan) {
  if (g_active == nullptr) return;
  if (g_active->quiet(chan) != Status::ok)
    api::fail(call, "completing the network operations failed (the cause is above)");
}

void fence(const char *call, uint32_t chan) {
  if (g_active == nullptr) return;
  if (g_active->fence(chan) != Status::ok)
    api::fail(call, "ordering the network operations failed (the cause is above)");
}

void poll() {
  if (g_active != nullptr) g_active->progress(true);
}

bool peer_lost(int pe) {
  return g_active != nullptr && pe >= 0 && pe < rt().n_pes && g_active->peer_error(pe) != 0;
}

std::string peer_lost_text(int pe) {
  return g_active != nullptr ? g_active->peer_error_text(pe) : std::string();
}

}  // namespace gpushmem::net
