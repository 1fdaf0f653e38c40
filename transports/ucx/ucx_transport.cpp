#include "ucx/ucx_transport.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/thread_scratch.hpp"
#include "ucx/ucx_message.hpp"
#include "ucx/ucx_state.hpp"

namespace gpushmem::ucx {

using transport::AmoOp;
using transport::Completion;
using transport::Region;
using transport::RemoteRef;
using transport::Segment;
using transport::SignalOp;
using transport::Token;

namespace {

// UCS_MEMORY_TYPE_* by name (libucs's own table is data of a library loaded at run time, never linked).
std::string memory_type_name(int m) {
  switch (m) {
    case UCS_MEMORY_TYPE_HOST:
      return "host";
    case UCS_MEMORY_TYPE_CUDA:
      return "cuda";
    case UCS_MEMORY_TYPE_CUDA_MANAGED:
      return "cuda-managed";
    case UCS_MEMORY_TYPE_ROCM:
      return "rocm";
    case UCS_MEMORY_TYPE_ROCM_MANAGED:
      return "rocm-managed";
    default:
      return "type " + std::to_string(m);
  }
}

// send_message's per-thread buffers.
struct MessageBuffers {
  std::vector<uint8_t> head;
  std::vector<ucp_dt_iov_t> iov;
  std::vector<uint8_t> inlined;
};

}  // namespace

std::unique_ptr<UcxTransport> UcxTransport::create(const Api *api, const Options &options) {
  std::unique_ptr<UcxTransport> t(new UcxTransport(api, options));
  ucp_config_t *config = nullptr;
  ucs_status_t st = api->ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: reading UCX's configuration (UCX_* variables) failed: %s",
                       api->ucs_status_string(st));
    return nullptr;
  }
  // UCX's new protocol stack (its default from 1.16) selects no protocol for an atomic on an endpoint with
  // peer-failure handling, and cancels it; the classic one has them. So the endpoints' error mode follows
  // the stack in use (whichever the user or UCX's configuration chose).
  t->new_protocols_ = uses_new_protocols(api, config);
  // A quiet is one worker flush: it waits for the completions of what the worker issued (over TCP: the
  // target's acknowledgement of each put, sent once the data is in place), not for an extra flush round
  // trip on every endpoint as well, which is what UCX does by default.
  if (std::getenv("UCX_FLUSH_WORKER_EPS") == nullptr) (void)api->ucp_config_modify(config, "FLUSH_WORKER_EPS", "n");
  // The atomicity rule (design.md §2): node-local PEs update a host-heap word with CPU atomics, so a remote
  // PE's UCX atomic on it must be consistent with the CPU. UCX's "cpu" mode guarantees that (a NIC whose
  // atomics are not CPU-coherent, as InfiniBand's, then falls back to UCX's software atomics, executed by the
  // target's CPU); its default "guess" picks the NIC's. UCX_ATOMIC_MODE set by the user wins.
  t->cpu_atomics_ = std::getenv("UCX_ATOMIC_MODE") == nullptr
                        ? api->ucp_config_modify(config, "ATOMIC_MODE", "cpu") == UCS_OK
                        : std::strcmp(std::getenv("UCX_ATOMIC_MODE"), "cpu") == 0;
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
  // No UCP_FEATURE_WAKEUP: it costs every round trip over TCP (ucx_progress.cpp); the progress thread polls.
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
  params.estimated_num_eps = static_cast<size_t>(options.n_pes);
  params.name = "gpushmem";
  st = api->ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &t->context_);
  api->ucp_config_release(config);
  if (st != UCS_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: ucp_init failed: %s (check the UCX_* variables, e.g. UCX_TLS)",
                       api->ucs_status_string(st));
    return nullptr;
  }
  // Which memory UCX reaches itself: with CUDA device memory among them, GPU heaps could go one-sided (issue 13's
  // GPUDirect mode, not written yet); without (Debian's UCX), they are served by their memory agents.
  ucp_context_attr_t ca{};
  ca.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (api->ucp_context_query(t->context_, &ca) == UCS_OK) {
    t->cuda_memory_ = (ca.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
    std::string names;
    for (int m = 0; m < 64; ++m)  // a newer library than these headers may name more types
      if ((ca.memory_types & (uint64_t{1} << m)) != 0) {
        if (!names.empty()) names += ", ";
        names += memory_type_name(m);
      }
    if (!names.empty()) t->memory_types_ = names;
  }
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // every call is under mu_
  st = api->ucp_worker_create(t->context_, &wp, &t->worker_);
  if (st != UCS_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: ucp_worker_create failed: %s", api->ucs_status_string(st));
    return nullptr;
  }
  ucp_worker_attr_t wa{};
  wa.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  if (api->ucp_worker_query(t->worker_, &wa) == UCS_OK) t->max_am_header_ = wa.max_am_header;
  // The runtime's messages (send_message) arrive at this worker, whichever of the peer's workers sent them.
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = message::kAmId;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = on_message;
  hp.arg = t.get();
  st = api->ucp_worker_set_am_recv_handler(t->worker_, &hp);
  if (st != UCS_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: ucp_worker_set_am_recv_handler failed: %s", api->ucs_status_string(st));
    return nullptr;
  }
  if (t->set_agent_handlers() != Status::ok) return nullptr;
  t->peers_ = std::vector<Peer>(static_cast<size_t>(options.n_pes));
  for (int pe = 0; pe < options.n_pes; ++pe)
    t->error_args_.push_back(std::make_unique<ErrorArg>(ErrorArg{t.get(), pe}));
  return t;
}

UcxTransport::UcxTransport(const Api *api, const Options &options) : api_(api), opt_(options) {}

bool UcxTransport::uses_new_protocols(const Api *api, const ucp_config_t *config) {
  // UCX has no query for it: read UCX_PROTO_ENABLE off the configuration it prints (defaults, ucx.conf and
  // the environment applied). UCX before 1.13 has no such setting: the classic stack.
  char *text = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f == nullptr) return false;
  api->ucp_config_print(config, f, nullptr, UCS_CONFIG_PRINT_CONFIG);
  std::fclose(f);
  bool enabled = false;
  static constexpr char kKey[] = "UCX_PROTO_ENABLE=";
  for (const char *at = text; at != nullptr && (at = std::strstr(at, kKey)) != nullptr; at += sizeof(kKey) - 1) {
    if (at != text && at[-1] != '\n') continue;  // a longer name that ends in this one
    const char v = at[sizeof(kKey) - 1];
    enabled = v == 'y' || v == 'Y' || v == '1' || v == 'o' || v == 'O';  // y, yes, 1, on
    break;
  }
  std::free(text);
  return enabled;
}

UcxTransport::~UcxTransport() {
  finalize();
}

bool UcxTransport::reaches(int pe) const {
  return pe >= 0 && pe < opt_.n_pes && peers_[static_cast<size_t>(pe)].wanted;
}

transport::Caps UcxTransport::caps(int pe) const {
  transport::Caps c;
  if (!reaches(pe)) return c;
  c.rma = c.amo32 = c.amo64 = c.fetching_amo = c.remote_ordering = true;
  // UCX over TCP (and any transport without one-sided RMA) executes operations in the target's progress;
  // which one UCX picked is known only per lane, so the runtime assumes the target must progress.
  c.needs_target_progress = true;
  return c;
}

std::string UcxTransport::describe(int pe) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Peer &p = peers_[static_cast<size_t>(pe)];
  if (!p.wanted) return "not reached by ucx";
  auto it = channels_.find(0);
  ucp_ep_h ep = it != channels_.end() ? it->second->ep[static_cast<size_t>(pe)] : nullptr;
  if (ep == nullptr) return "ucx (no endpoint yet)";
  // UCX 1.13 has no query for an endpoint's transports: read them off its printed configuration, whose lane
  // lines name "<transport>/<device>".
  char *text = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f == nullptr) return "ucx";
  api_->ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string lanes;
  for (const char *line = text; line != nullptr && *line != '\0';) {
    const char *end = std::strchr(line, '\n');
    std::string l(line, end != nullptr ? static_cast<size_t>(end - line) : std::strlen(line));
    line = end != nullptr ? end + 1 : nullptr;
    const size_t lane = l.find("lane[");
    if (lane == std::string::npos) continue;
    const size_t colon = l.find(": ", lane);
    if (colon == std::string::npos) continue;
    size_t start = l.find_first_not_of(' ', colon + 1);
    if (start == std::string::npos) continue;
    if (const size_t c2 = l.find(':', start); c2 != std::string::npos && c2 < l.find(' ', start)) start = c2 + 1;
    std::string tl = l.substr(start, l.find(' ', start) - start);
    if (!tl.empty() && lanes.find(tl) == std::string::npos) lanes += (lanes.empty() ? "" : ",") + tl;
  }
  std::free(text);
  std::string notes = new_protocols_ ? " (new protocols" : " (classic protocols";
  notes += cpu_atomics_ ? ", CPU-consistent atomics)"
                        : ", atomics by UCX_ATOMIC_MODE: on a NIC not atomic with node-local PEs' CPU atomics)";
  const uint64_t gpu_one_sided = peers_[static_cast<size_t>(pe)].rma_bytes[static_cast<int>(Region::gpu_heap)];
  if (agent_region(pe, Region::gpu_heap) && gpu_one_sided != 0)
    notes += "; its GPU heap one-sided for puts and gets to its first " + std::to_string(gpu_one_sided >> 20) +
             " MiB (GPU memory UCX reaches), atomics, signals and the rest through its memory agent";
  else if (agent_region(pe, Region::gpu_heap))
    notes +=
        "; its GPU heap through its memory agent (active messages its CPU copies with the GPU's copy "
        "engines: UCX here cannot reach device memory)";
  const uint64_t heap_one_sided = peers_[static_cast<size_t>(pe)].rma_bytes[static_cast<int>(Region::heap)];
  if (agent_region(pe, Region::heap))
    notes += heap_one_sided != 0 ? "; its heap one-sided for puts and gets to its first " +
                                       std::to_string(heap_one_sided) + " bytes, the rest through its memory agent"
                                 : "; its heap through its memory agent";
  return (lanes.empty() ? std::string("ucx") : "ucx " + lanes) + notes;
}

Status UcxTransport::register_region(Region region, void *base, size_t bytes, transport::MemoryAgent *agent,
                                     transport::OneSided one_sided) {
  const int r = static_cast<int>(region);
  region_base_[r] = base;
  region_bytes_[r] = bytes;
  // An agent region: its operations arrive as requests its agent executes, but for its one-sided part.
  if (agent != nullptr) agent_[r] = agent;
  const size_t mapped = agent == nullptr ? bytes : std::min(bytes, one_sided.bytes);
  if (mapped == 0) return Status::ok;
  if (one_sided.device_memory && !cuda_memory_) {
    // An agent region is reached through its agent whatever this says: no one-sided part, then.
    GPUSHMEM_LOG_WARN(log::Subsys::net,
                      "ucx: the %s of PE %d is GPU memory, which this UCX does not reach (its memory types: %s): "
                      "its agent serves all of it",
                      region_name(region), opt_.my_pe, memory_types_.c_str());
    return Status::ok;
  }
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  mp.address = base;
  mp.length = mapped;
  mp.flags = UCP_MEM_MAP_NONBLOCK;  // the heap is sparse: do not populate it to register it
  if (one_sided.device_memory) {
    mp.field_mask |= UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.memory_type = UCS_MEMORY_TYPE_CUDA;
    mp.flags = 0;
  }
  ucs_status_t st = api_->ucp_mem_map(context_, &mp, &memh_[r]);
  if (st != UCS_OK) {
    memh_[r] = nullptr;
    if (agent != nullptr) {
      GPUSHMEM_LOG_WARN(log::Subsys::net,
                        "ucx: registering the first %zu bytes of the %s of PE %d%s for one-sided access failed (%s): "
                        "its agent serves all of it (GPUSHMEM_UCX_GPU_ONE_SIDED=0 skips the attempt)",
                        mapped, region_name(region), opt_.my_pe, one_sided.device_memory ? " (GPU memory)" : "",
                        api_->ucs_status_string(st));
      return Status::ok;
    }
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: registering the %s of PE %d (%zu bytes at %p) failed: %s",
                       region_name(region), opt_.my_pe, mapped, base, api_->ucs_status_string(st));
    return Status::system_error;
  }
  if (agent != nullptr) rma_bytes_[r] = mapped;
  return Status::ok;
}

Status UcxTransport::local_blob(std::vector<uint8_t> *out) {
  ucp_address_t *address = nullptr;
  size_t address_bytes = 0;
  ucs_status_t st = api_->ucp_worker_get_address(worker_, &address, &address_bytes);
  if (st != UCS_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: ucp_worker_get_address failed: %s", api_->ucs_status_string(st));
    return Status::system_error;
  }
  void *rkey[transport::kRegions] = {};
  size_t rkey_bytes[transport::kRegions] = {};
  for (int r = 0; r < transport::kRegions; ++r) {
    if (memh_[r] == nullptr) continue;
    st = api_->ucp_rkey_pack(context_, memh_[r], &rkey[r], &rkey_bytes[r]);
    if (st != UCS_OK) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: packing the remote key of the %s failed: %s",
                         region_name(static_cast<Region>(r)), api_->ucs_status_string(st));
      api_->ucp_worker_release_address(worker_, address);
      return Status::system_error;
    }
  }
  BlobHeader h{};
  h.magic = kBlobMagic;
  h.version = kBlobVersion;
  h.pe = static_cast<uint32_t>(opt_.my_pe);
  h.ucx_version = api_->major << 16 | api_->minor << 8 | api_->release;
  h.job_key = opt_.job_key;
  h.address_bytes = static_cast<uint32_t>(address_bytes);
  size_t total = sizeof h + address_bytes;
  for (int r = 0; r < transport::kRegions; ++r) {
    h.base[r] = reinterpret_cast<uintptr_t>(region_base_[r]);
    h.size[r] = region_bytes_[r];
    h.rkey_bytes[r] = static_cast<uint32_t>(rkey_bytes[r]);
    if (agent_[r] != nullptr) h.agent_regions = static_cast<uint16_t>(h.agent_regions | 1u << r);
    h.rma_bytes[r] = rma_bytes_[r];
    total += rkey_bytes[r];
  }
  out->resize(total);
  uint8_t *p = out->data();
  std::memcpy(p, &h, sizeof h);
  p += sizeof h;
  std::memcpy(p, address, address_bytes);
  p += address_bytes;
  for (int r = 0; r < transport::kRegions; ++r) {
    if (rkey[r] == nullptr) continue;
    std::memcpy(p, rkey[r], rkey_bytes[r]);
    p += rkey_bytes[r];
    api_->ucp_rkey_buffer_release(rkey[r]);
  }
  api_->ucp_worker_release_address(worker_, address);
  return Status::ok;
}

Status UcxTransport::connect(const std::vector<std::vector<uint8_t>> &blobs, const std::vector<bool> &peers) {
  for (int pe = 0; pe < opt_.n_pes; ++pe) {
    if (!peers[static_cast<size_t>(pe)]) continue;
    const std::vector<uint8_t> &b = blobs[static_cast<size_t>(pe)];
    BlobHeader h{};
    const char *bad = nullptr;
    if (b.size() < sizeof h) {
      bad = "it is shorter than a ucx endpoint blob";
    } else {
      std::memcpy(&h, b.data(), sizeof h);
      if (h.magic != kBlobMagic)
        bad = "it is not a gpushmem ucx endpoint blob";
      else if (h.version != kBlobVersion)
        bad = "it comes from another version of gpushmem";
      else if (h.job_key != opt_.job_key)
        bad = "it belongs to another job";
      else if (h.pe != static_cast<uint32_t>(pe))
        bad = "it names another PE";
      else if (sizeof h + h.address_bytes + h.rkey_bytes[0] + h.rkey_bytes[1] + h.rkey_bytes[2] != b.size())
        bad = "its lengths do not add up";
      else if ((h.agent_regions >> transport::kRegions) != 0)
        bad = "it names agent regions this version does not know";
      for (int r = 0; bad == nullptr && r < transport::kRegions; ++r)
        if (h.rma_bytes[r] != 0 &&
            ((h.agent_regions >> r & 1u) == 0 || h.rkey_bytes[r] == 0 || h.rma_bytes[r] > h.size[r]))
          bad = "it names a one-sided part of a region that is not an agent region, has no key or is too large";
    }
    if (bad != nullptr) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "shmem_init: the UCX address of PE %d does not match this job: %s", pe, bad);
      return Status::invalid_argument;
    }
    const uint32_t mine = api_->major << 16 | api_->minor << 8 | api_->release;
    if (h.ucx_version >> 8 != mine >> 8)
      GPUSHMEM_LOG_WARN(log::Subsys::net, "shmem_init: PE %d loaded UCX %u.%u.%u, this PE %u.%u.%u", pe,
                        h.ucx_version >> 16, (h.ucx_version >> 8) & 0xff, h.ucx_version & 0xff, api_->major,
                        api_->minor, api_->release);
    Peer &p = peers_[static_cast<size_t>(pe)];
    const uint8_t *q = b.data() + sizeof h;
    p.address.assign(q, q + h.address_bytes);
    q += h.address_bytes;
    for (int r = 0; r < transport::kRegions; ++r) {
      p.base[r] = h.base[r];
      p.size[r] = h.size[r];
      p.rkey[r].assign(q, q + h.rkey_bytes[r]);
      q += h.rkey_bytes[r];
    }
    p.agent_regions = h.agent_regions;
    for (int r = 0; r < transport::kRegions; ++r) p.rma_bytes[r] = h.rma_bytes[r];
    p.wanted = true;
  }
  return Status::ok;
}

Status UcxTransport::wire_up(bool higher) {
  // The default channel's endpoints now, so that wire-up problems show at shmem_init, not at a first put;
  // each flushed, so the connection is up before the other side of the pair creates its own endpoint
  // (two PEs connecting to each other at the same moment trip an assertion of UCX 1.16's TCP transport).
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(0);
  std::vector<std::pair<int, void *>> flushes;
  for (int pe = 0; pe < opt_.n_pes; ++pe) {
    if (!peers_[static_cast<size_t>(pe)].wanted || (pe > opt_.my_pe) != higher) continue;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    if (agent_region(pe, Region::heap))  // no key: its operations travel as agent requests
      GPUSHMEM_CHECK(ep_locked(c, pe, &ep));
    else
      GPUSHMEM_CHECK(endpoint_locked(c, pe, Region::heap, &ep, &rkey));
    ucp_request_param_t param{};
    flushes.emplace_back(pe, api_->ucp_ep_flush_nbx(ep, &param));
  }
  for (auto &[pe, req] : flushes)
    GPUSHMEM_CHECK(wait_request_locked(lock, c.worker, req, "connecting (endpoint flush)", pe));
  return Status::ok;
}

bool UcxTransport::never_used_locked(uint32_t id) const {
  return id != kRuntimeChannel && id != 0 && channels_.find(id) == channels_.end();
}

UcxTransport::Channel &UcxTransport::channel_locked(uint32_t id) {
  if (id == kRuntimeChannel) id = 0;  // the default channel's endpoints, its own bookkeeping (note_written_locked)
  auto it = channels_.find(id);
  if (it != channels_.end()) return *it->second;
  auto c = std::make_unique<Channel>();
  const size_t n = static_cast<size_t>(opt_.n_pes);
  c->ep.assign(n, nullptr);
  for (auto &v : c->rkey) v.assign(n, nullptr);
  c->worker = worker_;
  if (id != 0) {
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // every call is under mu_
    ucp_worker_h w = nullptr;
    ucs_status_t st = api_->ucp_worker_create(context_, &wp, &w);
    if (st == UCS_OK) {
      c->worker = w;
      c->own_worker = true;
    } else {
      // Still correct on the shared worker: its quiet then also waits for the other channels' operations.
      GPUSHMEM_LOG_WARN(log::Subsys::net,
                        "ucx: no worker of its own for context %u (%s): it shares the PE's, and its quiet waits for "
                        "every context's operations",
                        id, api_->ucs_status_string(st));
    }
  }
  Channel &ref = *c;
  channels_.emplace(id, std::move(c));
  return ref;
}

Status UcxTransport::endpoint_locked(Channel &c, int pe, Region region, ucp_ep_h *ep, ucp_rkey_h *rkey) {
  GPUSHMEM_CHECK(ep_locked(c, pe, ep));
  const size_t i = static_cast<size_t>(pe);
  Peer &p = peers_[i];
  const int r = static_cast<int>(region);
  if (c.rkey[r][i] == nullptr) {
    if (p.rkey[r].empty()) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d registered no %s", pe, region_name(region));
      return Status::invalid_argument;
    }
    ucs_status_t st = api_->ucp_ep_rkey_unpack(c.ep[i], p.rkey[r].data(), &c.rkey[r][i]);
    if (st != UCS_OK) {
      c.rkey[r][i] = nullptr;
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: cannot unpack the remote key of PE %d's %s: %s", pe,
                         region_name(region), api_->ucs_status_string(st));
      return Status::system_error;
    }
  }
  *rkey = c.rkey[r][i];
  return Status::ok;
}

Status UcxTransport::ep_locked(Channel &c, int pe, ucp_ep_h *ep) {
  const size_t i = static_cast<size_t>(pe);
  Peer &p = peers_[i];
  if (pe == opt_.fault_pe && ++fault_ops_ == opt_.fault_after) [[unlikely]]
    lose_peer_locked(pe, std::string("its endpoint failed: ") + api_->ucs_status_string(UCS_ERR_CONNECTION_RESET) +
                             " (injected by GPUSHMEM_FAULT_INJECT at operation " + std::to_string(fault_ops_) + ")");
  if (p.error.load(std::memory_order_relaxed) != 0) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d cannot be reached any more: %s", pe, p.error_text.c_str());
    return Status::system_error;
  }
  if (c.ep[i] == nullptr) {
    ucp_ep_params_t ep_params{};
    ep_params.field_mask =
        UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.address = reinterpret_cast<const ucp_address_t *>(p.address.data());
    // A peer that dies (its connection closes) calls on_endpoint_error, and UCX fails our requests to it
    // instead of hanging them, in either mode. PEER adds UCX's keepalive (a peer that stops answering), but
    // the new protocol stack has no atomics on such endpoints: there the waits' hang reports (naming the
    // peer) cover a silent peer.
    ep_params.err_mode = new_protocols_ ? UCP_ERR_HANDLING_MODE_NONE : UCP_ERR_HANDLING_MODE_PEER;
    ep_params.err_handler.cb = on_endpoint_error;
    ep_params.err_handler.arg = error_args_[i].get();
    ucs_status_t st = api_->ucp_ep_create(c.worker, &ep_params, &c.ep[i]);
    if (st != UCS_OK) {
      c.ep[i] = nullptr;
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: cannot create an endpoint to PE %d: %s", pe,
                         api_->ucs_status_string(st));
      return Status::system_error;
    }
  }
  *ep = c.ep[i];
  return Status::ok;
}

Status UcxTransport::check_range(const char *op, int pe, RemoteRef ref, size_t bytes) const {
  const Peer &p = peers_[static_cast<size_t>(pe)];
  const int r = static_cast<int>(ref.region);
  if (ref.offset > p.size[r] || bytes > p.size[r] - ref.offset) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: %s of %zu bytes at offset %llu of PE %d's %s is outside it (%llu bytes): the PEs' "
                       "heaps or executables differ",
                       op, bytes, static_cast<unsigned long long>(ref.offset), pe, region_name(ref.region),
                       static_cast<unsigned long long>(p.size[r]));
    return Status::invalid_argument;
  }
  return Status::ok;
}

Status UcxTransport::fail_op(const char *what, int pe, ucs_status_t status) {
  // An operation of several PEs (a quiet): the lost one is the likely cause.
  if (pe < 0) pe = first_lost_peer();
  if (pe < 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: %s failed: %s", what, api_->ucs_status_string(status));
    return Status::system_error;
  }
  {
    Peer &p = peers_[static_cast<size_t>(pe)];
    if (p.error.load(std::memory_order_relaxed) != 0) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: %s to PE %d failed: PE %d was lost (%s)", what, pe, pe,
                         p.error_text.c_str());
      return Status::system_error;
    }
  }
  GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: %s to PE %d failed: %s", what, pe, api_->ucs_status_string(status));
  return Status::system_error;
}

void UcxTransport::on_endpoint_error(void *arg, ucp_ep_h, ucs_status_t status) {
  auto *a = static_cast<ErrorArg *>(arg);
  // Runs inside ucp_worker_progress, so mu_ is held by whoever progressed.
  a->self->lose_peer_locked(a->pe, std::string("its endpoint failed: ") + a->self->api_->ucs_status_string(status));
}

void UcxTransport::lose_peer_locked(int pe, const std::string &why) {
  Peer &p = peers_[static_cast<size_t>(pe)];
  if (p.error.load(std::memory_order_relaxed) != 0) return;
  p.error_text = why;
  // Release: the text is complete before another thread sees the error word.
  p.error.store(1, std::memory_order_release);
  if (!closing_.load(std::memory_order_acquire))
    GPUSHMEM_LOG_INFO(log::Subsys::net, "ucx: PE %d is lost: %s", pe, p.error_text.c_str());
}

Status UcxTransport::wait_request_locked(std::unique_lock<std::mutex> &lock, ucp_worker_h worker, void *request,
                                         const char *what, int pe) {
  if (request == nullptr) return Status::ok;
  if (UCS_PTR_IS_ERR(request)) return fail_op(what, pe, UCS_PTR_STATUS(request));
  note_app_progress();  // the progress thread stays away between this PE's blocking operations too
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto next_report = start + std::chrono::seconds(opt_.hang_warn_s);
  // This thread drives the worker until the request completes: the progress thread steps back.
  struct Driving {
    std::atomic<int> &n;
    explicit Driving(std::atomic<int> &w) : n(w) { n.fetch_add(1, std::memory_order_relaxed); }
    ~Driving() { n.fetch_sub(1, std::memory_order_relaxed); }
  } driving(waiters_);
  for (unsigned spins = 1;; ++spins) {
    progress_worker_locked(worker);
    // Peers' requests arrive at the PE's worker: serve them too while waiting on a context's.
    if (worker != worker_) progress_worker_locked(worker_);
    ucs_status_t st = api_->ucp_request_check_status(request);
    if (st != UCS_INPROGRESS) {
      api_->ucp_request_free(request);
      return st == UCS_OK ? Status::ok : fail_op(what, pe, st);
    }
    if ((spins & 15u) == 0) {
      // Contexts' workers answer peers' wire-up and flushes that this wait may depend on.
      for (auto &kv : channels_)
        if (kv.second->worker != worker && kv.second->worker != worker_ && kv.second->worker != nullptr)
          progress_worker_locked(kv.second->worker);
      // Let other threads (and the progress thread) in between our progress calls.
      lock.unlock();
      sched_yield();
      lock.lock();
      if ((spins & 1023u) == 0) {
        // A lost peer may leave a flush of several PEs pending: fail it naming that peer. (UCX releases the
        // request once it completes.)
        if (pe < 0 && !closing_.load(std::memory_order_acquire))
          if (const int lost = first_lost_peer(); lost >= 0) {
            api_->ucp_request_free(request);
            return fail_op(what, lost, UCS_ERR_ENDPOINT_TIMEOUT);
          }
        const auto now = clock::now();
        if (opt_.hang_warn_s > 0 && now >= next_report) {
          if (pe >= 0)
            GPUSHMEM_LOG_WARN(log::Subsys::net, "ucx: %s: still waiting after %.0f s for PE %d to complete it", what,
                              std::chrono::duration<double>(now - start).count(), pe);
          else
            GPUSHMEM_LOG_WARN(log::Subsys::net, "ucx: %s: still waiting after %.0f s for the PEs it wrote to", what,
                              std::chrono::duration<double>(now - start).count());
          next_report = now + std::chrono::seconds(opt_.hang_warn_s);
        }
      }
    }
  }
}

Status UcxTransport::target_locked(Channel &c, int pe, RemoteRef ref, Target *out) {
  GPUSHMEM_CHECK(endpoint_locked(c, pe, ref.region, &out->ep, &out->rkey));
  out->raddr = peers_[static_cast<size_t>(pe)].base[static_cast<int>(ref.region)] + ref.offset;
  return Status::ok;
}

void UcxTransport::note_written_locked(Channel &c, uint32_t channel) {
  if (channel == kRuntimeChannel) {
    c.runtime_written = true;
    return;
  }
  c.written = true;
  ++c.issued;
}

void UcxTransport::issued_locked(Channel &c) {
  // An application that only issues (a loop of puts) still serves its peers' requests now and then: the
  // progress thread stays out of the way while the application progresses the worker.
  if ((++issued_since_progress_ & 15u) == 0) {
    note_app_progress();
    progress_worker_locked(c.worker);
    if (c.worker != worker_) progress_worker_locked(worker_);
  }
}

Status UcxTransport::finish_locked(std::unique_lock<std::mutex> &lock, Channel &c, void *request, bool wait,
                                   const char *what, int pe) {
  issued_locked(c);
  if (wait) return wait_request_locked(lock, c.worker, request, what, pe);
  if (UCS_PTR_IS_ERR(request)) return fail_op(what, pe, UCS_PTR_STATUS(request));
  if (request != nullptr) api_->ucp_request_free(request);  // completes in the background; quiet's flush waits
  return Status::ok;
}

Status UcxTransport::put(uint32_t channel, int pe, RemoteRef dst, const void *src, size_t bytes, Completion completion,
                         Token *token) {
  GPUSHMEM_CHECK(check_range("put", pe, dst, bytes));
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(channel);
  if (agent_data(pe, dst, bytes)) [[unlikely]] {
    // Sources are read before it returns: complete locally whatever `completion` asks.
    GPUSHMEM_CHECK(agent_put_locked(lock, c, channel, pe, dst, src, bytes));
    if (token != nullptr) *token = Token{channel, c.issued};
    return Status::ok;
  }
  Target t;
  GPUSHMEM_CHECK(target_locked(c, pe, dst, &t));
  ucp_request_param_t param{};
  void *req = api_->ucp_put_nbx(t.ep, src, bytes, t.raddr, t.rkey, &param);
  note_written_locked(c, channel);
  c.rma_unflushed = true;
  if (token != nullptr) *token = Token{channel, c.issued};
  return finish_locked(lock, c, req, completion == Completion::local, "put", pe);
}

Status UcxTransport::get(uint32_t channel, int pe, void *dst, RemoteRef src, size_t bytes) {
  GPUSHMEM_CHECK(check_range("get", pe, src, bytes));
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(channel);
  if (agent_data(pe, src, bytes)) [[unlikely]]
    return agent_get_locked(lock, c, channel, pe, dst, src, bytes);
  Target t;
  GPUSHMEM_CHECK(target_locked(c, pe, src, &t));
  ucp_request_param_t param{};
  void *req = api_->ucp_get_nbx(t.ep, dst, bytes, t.raddr, t.rkey, &param);
  return finish_locked(lock, c, req, true, "get", pe);
}

Status UcxTransport::issue_amo_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                      RemoteRef dst, ucp_atomic_op_t op, size_t width, uint64_t operand, void *reply,
                                      bool wait, const char *what) {
  Target t;
  GPUSHMEM_CHECK(target_locked(c, pe, dst, &t));
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig(width);
  if (reply != nullptr) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = reply;
  }
  uint32_t operand32 = static_cast<uint32_t>(operand);
  const void *buffer = width == 4 ? static_cast<const void *>(&operand32) : static_cast<const void *>(&operand);
  void *req = api_->ucp_atomic_op_nbx(t.ep, op, buffer, 1, t.raddr, t.rkey, &param);
  // Not offered by the lanes UCX chose (bitwise fetching atomics on some NICs): the caller emulates it.
  if (UCS_PTR_IS_ERR(req) && UCS_PTR_STATUS(req) == UCS_ERR_UNSUPPORTED) return Status::not_supported;
  // A fetching one is complete at its target when its reply is here: only posted ones wait for a quiet.
  if (!wait) {
    note_written_locked(c, channel);
    c.rma_unflushed = true;
  }
  return finish_locked(lock, c, req, wait, what, pe);
}

Status UcxTransport::amo(uint32_t channel, int pe, RemoteRef dst, AmoOp op, size_t width, uint64_t operand,
                         uint64_t compare, void *fetch) {
  GPUSHMEM_CHECK(check_range(transport::amo_op_name(op), pe, dst, width));
  const char *what = transport::amo_op_name(op);
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(channel);
  if (agent_region(pe, dst.region)) [[unlikely]]
    return agent_amo_locked(lock, c, channel, pe, dst, op, width, operand, compare, fetch);
  switch (op) {
    case AmoOp::load: {
      // A fetch-add of 0: the one fetching atomic every UCX transport offers.
      return issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_ADD, width, 0, fetch, true, what);
    }
    case AmoOp::store: {
      // A swap whose old value nobody reads: posted, its reply lands in the channel's discard slots.
      void *reply = &c.discard[c.next_discard++ % kDiscardSlots];
      return issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_SWAP, width, operand, reply, false, what);
    }
    case AmoOp::swap:
      return issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_SWAP, width, operand, fetch, true, what);
    case AmoOp::cswap: {
      // UCX's CSWAP: the buffer holds the expected value, the reply buffer the new value in and the old out.
      uint64_t inout = operand;
      uint32_t inout32 = static_cast<uint32_t>(operand);
      void *reply = width == 4 ? static_cast<void *>(&inout32) : static_cast<void *>(&inout);
      GPUSHMEM_CHECK(
          issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_CSWAP, width, compare, reply, true, what));
      if (width == 4)
        std::memcpy(fetch, &inout32, 4);
      else
        std::memcpy(fetch, &inout, 8);
      return Status::ok;
    }
    case AmoOp::add:
    case AmoOp::and_:
    case AmoOp::or_:
    case AmoOp::xor_: {
      const ucp_atomic_op_t uop = op == AmoOp::add    ? UCP_ATOMIC_OP_ADD
                                  : op == AmoOp::and_ ? UCP_ATOMIC_OP_AND
                                  : op == AmoOp::or_  ? UCP_ATOMIC_OP_OR
                                                      : UCP_ATOMIC_OP_XOR;
      Status st = issue_amo_locked(lock, c, channel, pe, dst, uop, width, operand, fetch, fetch != nullptr, what);
      if (st != Status::not_supported || op == AmoOp::add) return st;
      return emulate_bitwise_locked(lock, c, channel, pe, dst, op, width, operand, fetch);
    }
  }
  return Status::internal_error;
}

Status UcxTransport::emulate_bitwise_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                            RemoteRef dst, AmoOp op, size_t width, uint64_t operand, void *fetch) {
  // A compare-and-swap loop (what OSSS-UCX does where UCX lacks the operation): read, combine, swap in if
  // nobody changed the word meanwhile; atomic against every other atomic on the word.
  const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
  uint64_t old = 0;
  GPUSHMEM_CHECK(issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_ADD, width, 0, &old, true, "atomic fetch"));
  for (;;) {
    old &= mask;
    const uint64_t desired = (op == AmoOp::and_  ? old & operand
                              : op == AmoOp::or_ ? old | operand
                                                 : old ^ operand) &
                             mask;
    uint64_t inout = desired;
    GPUSHMEM_CHECK(issue_amo_locked(lock, c, channel, pe, dst, UCP_ATOMIC_OP_CSWAP, width, old, &inout, true,
                                    "atomic compare-swap"));
    inout &= mask;
    if (inout == old) break;
    old = inout;
  }
  if (fetch != nullptr) std::memcpy(fetch, &old, width);  // little-endian: the low `width` bytes
  return Status::ok;
}

Status UcxTransport::put_signal(uint32_t channel, int pe, RemoteRef dst, const void *src, size_t bytes,
                                RemoteRef signal, uint64_t value, bool add) {
  GPUSHMEM_CHECK(check_range("put_signal", pe, dst, bytes));
  GPUSHMEM_CHECK(check_range("put_signal's signal", pe, signal, sizeof(uint64_t)));
  // Either end through an agent: payload and signal travel whole as one agent request (the signal atomic with the
  // memory's own atomics), after the channel's one-sided RMA (agent_put_signal_locked). A one-sided payload with
  // a fence before an agent signal drained every posted agent request of the channel, the other threads' too, and
  // under ASan one such drain waited for ever on a peer busy in its own (pe.one_sided.proxy_coll, 4 PEs).
  if (agent_data(pe, dst, bytes) || agent_region(pe, signal.region)) [[unlikely]] {
    std::unique_lock<std::mutex> lock(mu_);
    return agent_put_signal_locked(lock, channel_locked(channel), channel, pe, dst, src, bytes, signal, value, add);
  }
  if (bytes != 0) GPUSHMEM_CHECK(put(channel, pe, dst, src, bytes, Completion::local, nullptr));
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(channel);
  // The payload lands before the signal: UCX may carry the two on different lanes.
  GPUSHMEM_CHECK(fence_locked(lock, c, "put_signal's fence", pe));
  if (add)
    return issue_amo_locked(lock, c, channel, pe, signal, UCP_ATOMIC_OP_ADD, 8, value, nullptr, false, "put_signal");
  void *reply = &c.discard[c.next_discard++ % kDiscardSlots];
  return issue_amo_locked(lock, c, channel, pe, signal, UCP_ATOMIC_OP_SWAP, 8, value, reply, false, "put_signal");
}

Status UcxTransport::send_message(uint32_t channel, int pe, const Segment *segments, size_t n, RemoteRef signal,
                                  uint64_t value, SignalOp op) {
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    GPUSHMEM_CHECK(check_range("message", pe, segments[i].dst, segments[i].bytes));
    total += segments[i].bytes;
  }
  GPUSHMEM_CHECK(check_range("message's signal", pe, signal, sizeof(uint64_t)));
  bool via_agent = agent_region(pe, signal.region);
  for (size_t i = 0; i < n && !via_agent; ++i) via_agent = agent_region(pe, segments[i].dst.region);
  // The runtime's messages live in the host regions; one into an agent region takes the puts and the
  // put-with-signal of the interface's default, each served by the target's agent.
  if (via_agent) [[unlikely]]
    return Transport::send_message(channel, pe, segments, n, signal, value, op);
  std::unique_lock<std::mutex> lock(mu_);
  Channel &c = channel_locked(channel);
  Target t;
  GPUSHMEM_CHECK(target_locked(c, pe, signal, &t));
  // This thread's buffers: UCX reads them until the send completes, which this thread waits for (another
  // thread may send on the channel meanwhile, while the lock is dropped between progress calls). Valid
  // while the process exits, when a finalize still sends (core/thread_scratch.hpp).
  MessageBuffers &buffers = core::thread_scratch<MessageBuffers>();
  std::vector<uint8_t> &head = buffers.head;
  std::vector<ucp_dt_iov_t> &iov = buffers.iov;
  std::vector<uint8_t> &inlined = buffers.inlined;  // by segment: rides in a rendezvous message's header
  size_t header_bytes = sizeof(message::Header) + n * sizeof(message::SegmentHeader);
  const bool rendezvous = total > opt_.rndv_bytes && n <= 0xffff && header_bytes <= max_am_header_;
  if (rendezvous) {
    // The small segments (a collective's header line) go in the header, so that the bulk is one
    // contiguous buffer where it can be.
    inlined.assign(n, 0);
    size_t bulk = total;
    for (size_t i = 0; i < n; ++i) {
      const size_t b = segments[i].bytes;
      if (b == 0 || b > message::kInlineMaxBytes || header_bytes + b > max_am_header_ || bulk == b) continue;
      inlined[i] = 1;
      header_bytes += b;
      bulk -= b;
    }
  }
  if (total > opt_.rndv_bytes && !rendezvous) {
    // A head too long for a rendezvous header (thousands of segments): the segments as puts, complete at
    // the target (flushed) before the signal leaves as a message of its own, so every signal word still
    // changes the one way.
    for (size_t i = 0; i < n; ++i) {
      if (segments[i].bytes == 0) continue;
      Target d;
      GPUSHMEM_CHECK(target_locked(c, pe, segments[i].dst, &d));
      ucp_request_param_t param{};
      void *req = api_->ucp_put_nbx(d.ep, segments[i].src, segments[i].bytes, d.raddr, d.rkey, &param);
      if (UCS_PTR_IS_ERR(req)) return fail_op("message (put)", pe, UCS_PTR_STATUS(req));
      if (req != nullptr) api_->ucp_request_free(req);
    }
    ucp_request_param_t param{};
    GPUSHMEM_CHECK(
        wait_request_locked(lock, c.worker, api_->ucp_ep_flush_nbx(t.ep, &param), "message (endpoint flush)", pe));
    n = 0;
    total = 0;
  }
  message::encode_head(opt_.my_pe, segments, n, signal, value, op, &head, rendezvous ? inlined.data() : nullptr);
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE;
  void *req;
  if (rendezvous) {
    // The head and the inline segments as the header, the other payloads as the data: the target receives
    // them in place.
    param.flags = UCP_AM_SEND_FLAG_RNDV;
    iov.clear();
    for (size_t i = 0; i < n; ++i)
      if (segments[i].bytes != 0 && inlined[i] == 0)
        iov.push_back(ucp_dt_iov_t{const_cast<void *>(segments[i].src), segments[i].bytes});
    const bool contig = iov.size() == 1;
    param.datatype = contig ? ucp_dt_make_contig(1) : ucp_dt_make_iov();
    req = api_->ucp_am_send_nbx(t.ep, message::kAmId, head.data(), head.size(),
                                contig ? iov[0].buffer : static_cast<void *>(iov.data()),
                                contig ? iov[0].length : iov.size(), &param);
    note_written_locked(c, channel);
    // Complete once the target has received the data (it drives its side in its progress).
    return finish_locked(lock, c, req, true, "message (rendezvous)", pe);
  }
  // Eager: the target's handler gets the whole message at once (no rendezvous to drive).
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  if (head.size() + total <= kMessageCopyBytes) {
    // Small: one contiguous buffer. Fast completion: UCX copies it out at once (otherwise UCX 1.16 sends
    // eager messages over TCP zero-copy, and this call would wait for the send's completion event, one more
    // progress round and system call per message).
    param.op_attr_mask |= UCP_OP_ATTR_FLAG_FAST_CMPL;
    for (size_t i = 0; i < n; ++i) {
      const auto *src = static_cast<const uint8_t *>(segments[i].src);
      head.insert(head.end(), src, src + segments[i].bytes);
    }
    param.datatype = ucp_dt_make_contig(1);
    req = api_->ucp_am_send_nbx(t.ep, message::kAmId, nullptr, 0, head.data(), head.size(), &param);
  } else {
    iov.clear();
    iov.push_back(ucp_dt_iov_t{head.data(), head.size()});
    for (size_t i = 0; i < n; ++i)
      if (segments[i].bytes != 0) iov.push_back(ucp_dt_iov_t{const_cast<void *>(segments[i].src), segments[i].bytes});
    param.datatype = ucp_dt_make_iov();
    req = api_->ucp_am_send_nbx(t.ep, message::kAmId, nullptr, 0, iov.data(), iov.size(), &param);
  }
  note_written_locked(c, channel);
  // Waits for local completion only (the head and the sources are ours again), usually at once.
  return finish_locked(lock, c, req, true, "message", pe);
}

ucs_status_t UcxTransport::on_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                      const ucp_am_recv_param_t *param) {
  auto *self = static_cast<UcxTransport *>(arg);
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    self->receive_rendezvous(header, header_length, data, length);
    return UCS_OK;  // the receive has started (or the message was dropped and UCX told its sender)
  }
  const message::Regions regions = self->regions();
  int from = -1;
  if (const char *bad = message::apply(data, length, regions, &from); bad != nullptr)
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: PE %d received a runtime message of %zu bytes from PE %d that it drops: %s",
                       self->opt_.my_pe, length, from, bad);
  return UCS_OK;
}

struct UcxTransport::Receive {
  UcxTransport *self;
  message::Plan plan;
  std::vector<ucp_dt_iov_t> iov;
};

message::Regions UcxTransport::regions() const {
  message::Regions r;
  for (int i = 0; i < transport::kRegions; ++i) {
    r.base[i] = static_cast<char *>(region_base_[i]);
    r.bytes[i] = region_bytes_[i];
  }
  return r;
}

void UcxTransport::receive_rendezvous(const void *header, size_t header_length, void *data, size_t length) {
  auto r = std::make_unique<Receive>();
  r->self = this;
  const char *bad = message::parse(header, header_length, regions(), &r->plan);
  if (bad == nullptr && header_length != r->plan.head_bytes + r->plan.inline_bytes)
    bad = "its header's length does not match its segment list";
  if (bad == nullptr && length != r->plan.payload_bytes) bad = "its length does not match its segments";
  if (bad == nullptr && r->plan.places.empty()) bad = "it carries no data to receive";
  if (bad != nullptr) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: PE %d received a runtime message (rendezvous) of %zu bytes from PE %d that it drops: %s",
                       opt_.my_pe, length, r->plan.from_pe, bad);
    api_->ucp_am_data_release(worker_, data);  // completes the sender's request
    return;
  }
  // The inline segments now (the signal, which makes them visible, waits for the bulk).
  const char *from = static_cast<const char *>(header) + r->plan.head_bytes;
  for (const message::Place &p : r->plan.inlined) {
    std::memcpy(p.dst, from, p.bytes);
    from += p.bytes;
  }
  for (const message::Place &p : r->plan.places) r->iov.push_back(ucp_dt_iov_t{p.dst, p.bytes});
  const bool contig = r->iov.size() == 1;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  param.cb.recv_am = on_received;
  param.user_data = r.get();
  param.datatype = contig ? ucp_dt_make_contig(1) : ucp_dt_make_iov();
  void *req = api_->ucp_am_recv_data_nbx(worker_, data, contig ? r->iov[0].buffer : static_cast<void *>(r->iov.data()),
                                         contig ? r->iov[0].length : r->iov.size(), &param);
  if (req == nullptr) {  // received at once: no callback comes
    message::apply_signal(r->plan);
    return;
  }
  if (UCS_PTR_IS_ERR(req)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: PE %d could not receive a runtime message (rendezvous) of %zu bytes from PE %d: %s",
                       opt_.my_pe, length, r->plan.from_pe, api_->ucs_status_string(UCS_PTR_STATUS(req)));
    return;
  }
  (void)r.release();  // on_received owns it now
}

void UcxTransport::on_received(void *request, ucs_status_t status, size_t, void *user_data) {
  std::unique_ptr<Receive> r(static_cast<Receive *>(user_data));
  UcxTransport *self = r->self;
  if (status == UCS_OK) {
    message::apply_signal(r->plan);
  } else if (!self->closing_.load(std::memory_order_acquire)) {
    // The sender's side fails too (its endpoint reports the lost peer); the signal is not applied.
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: PE %d lost a runtime message (rendezvous) of %zu bytes from PE %d on the way: %s",
                       self->opt_.my_pe, r->plan.payload_bytes, r->plan.from_pe, self->api_->ucs_status_string(status));
  }
  self->api_->ucp_request_free(request);
}

Status UcxTransport::wait(const Token &token) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (channel_locked(token.channel).completed >= token.index) return Status::ok;
  }
  return quiet(token.channel);
}

Status UcxTransport::quiet(uint32_t channel) {
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<uint32_t> ids;
  if (channel == kAllChannels) {
    for (auto &kv : channels_) ids.push_back(kv.first);
  } else {
    ids.push_back(channel);
  }
  // No note_app_progress here: a quiet with nothing to flush progresses nothing, and a PE that only calls
  // such quiets (a loop of shmem_set_lock / shmem_clear_lock on a lock it holds the home copy of) must leave
  // the worker to the progress thread, or its peers' atomics on that lock wait for ever.
  const bool runtime = channel == kRuntimeChannel;
  for (uint32_t id : ids) {
    if (never_used_locked(id)) continue;  // shmem_ctx_destroy of a context that issued nothing
    Channel &c = channel_locked(id);
    if (!c.written && !(runtime && c.runtime_written)) continue;
    GPUSHMEM_CHECK(agent_drain_locked(lock, c, "quiet"));
    const uint64_t issued = c.issued;
    const bool was_runtime = c.runtime_written;
    // The flush covers everything the worker issued, the runtime's operations too.
    c.written = c.runtime_written = false;
    c.rma_unflushed = false;
    // Every operation the channel's worker issued, complete at its target (PE -1: any PE the channel wrote).
    ucp_request_param_t param{};
    void *req = api_->ucp_worker_flush_nbx(c.worker, &param);
    Status s = wait_request_locked(lock, c.worker, req, "quiet (worker flush)", -1);
    if (s != Status::ok) {
      c.written = true;
      c.runtime_written = was_runtime;
      return s;
    }
    if (c.completed < issued) c.completed = issued;
  }
  return Status::ok;
}

Status UcxTransport::fence(uint32_t channel) {
  std::unique_lock<std::mutex> lock(mu_);
  if (never_used_locked(channel)) return Status::ok;  // nothing issued on it yet: nothing to order
  return fence_locked(lock, channel_locked(channel), "fence", -1);
}

Status UcxTransport::fence_locked(std::unique_lock<std::mutex> &lock, Channel &c, const char *what, int pe) {
  // Agent requests are complete once acknowledged: a fence waits for them. RMA issued before it must land
  // before the next agent request, which travels as a message on another lane: that request flushes first.
  GPUSHMEM_CHECK(agent_drain_locked(lock, c, what));
  if (c.written || c.runtime_written) c.flush_before_agent = true;
  if (!new_protocols_) {
    // The classic stack's fence only orders (its lanes keep order): no wait.
    ucs_status_t st = api_->ucp_worker_fence(c.worker);
    return st == UCS_OK ? Status::ok : fail_op(what, pe, st);
  }
  // The new stack's fence is a flush of the worker that UCX drives itself, progressing that worker only. A
  // peer's context worker that connected to this worker must answer too (its endpoint's wire-up), and it
  // waits in its own fence: two PEs fencing at once waited on each other for ever (pe.ctx, UCX 1.16 over
  // TCP). The same flush, waited for here, drives every worker of this PE.
  if (!c.written && !c.runtime_written) return Status::ok;
  ucp_request_param_t param{};
  GPUSHMEM_CHECK(wait_request_locked(lock, c.worker, api_->ucp_worker_flush_nbx(c.worker, &param), what, pe));
  c.rma_unflushed = false;
  c.flush_before_agent = false;  // flushed just now
  return Status::ok;
}

bool UcxTransport::progress(bool try_only) {
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  if (try_only) {
    if (!lock.try_lock()) return false;
  } else {
    lock.lock();
  }
  if (worker_ == nullptr) return false;
  note_app_progress();
  // Once: a caller that waits looks at its condition after each event (each call over TCP is a system call).
  return progress_worker_locked(worker_) != 0;
}

int UcxTransport::first_lost_peer() const {
  for (int q = 0; q < opt_.n_pes; ++q)
    if (peer_error(q) != 0) return q;
  return -1;
}

int UcxTransport::peer_error(int pe) const {
  return peers_[static_cast<size_t>(pe)].error.load(std::memory_order_acquire);
}

std::string UcxTransport::peer_error_text(int pe) const {
  if (peer_error(pe) == 0) return {};
  std::lock_guard<std::mutex> lock(mu_);
  return peers_[static_cast<size_t>(pe)].error_text;
}

void UcxTransport::release_locked() {
  for (auto &kv : channels_) {
    Channel &c = *kv.second;
    for (auto &keys : c.rkey)
      for (ucp_rkey_h &k : keys)
        if (k != nullptr) {
          api_->ucp_rkey_destroy(k);
          k = nullptr;
        }
    for (size_t i = 0; i < c.ep.size(); ++i) {
      if (c.ep[i] == nullptr) continue;
      ucp_request_param_t param{};
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = UCP_EP_CLOSE_FLAG_FORCE;  // peers may already be gone; nothing is outstanding
      void *req = api_->ucp_ep_close_nbx(c.ep[i], &param);
      if (req != nullptr && !UCS_PTR_IS_ERR(req)) {
        for (int spins = 0; spins < 100000 && api_->ucp_request_check_status(req) == UCS_INPROGRESS; ++spins)
          api_->ucp_worker_progress(c.worker);
        api_->ucp_request_free(req);
      }
      c.ep[i] = nullptr;
    }
    if (c.own_worker) api_->ucp_worker_destroy(c.worker);
    c.worker = nullptr;
  }
  channels_.clear();
  agent_work_.clear();
  agent_waits_.clear();
  for (int r = 0; r < transport::kRegions; ++r)
    if (memh_[r] != nullptr) {
      api_->ucp_mem_unmap(context_, memh_[r]);
      memh_[r] = nullptr;
    }
  if (worker_ != nullptr) {
    api_->ucp_worker_destroy(worker_);
    worker_ = nullptr;
  }
  if (context_ != nullptr) {
    api_->ucp_cleanup(context_);
    context_ = nullptr;
  }
}

void UcxTransport::finalize() {
  set_closing();
  stop_progress_thread();
  std::lock_guard<std::mutex> lock(mu_);
  release_locked();
}

}  // namespace gpushmem::ucx
