// Operations on agent regions (ucx_agent.hpp): the sender's side (requests, the waits for their replies,
// the acknowledgements a quiet counts) and the target's (the handlers that queue requests, their execution
// through the region's agent after each progress call, the replies).
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>

#include "ucx/ucx_agent.hpp"
#include "ucx/ucx_state.hpp"
#include "ucx/ucx_transport.hpp"

namespace gpushmem::ucx {

using transport::AmoOp;
using transport::Region;
using transport::RemoteRef;

namespace {

constexpr size_t kGetWindow = 4;     // a get's chunks in flight at once
constexpr size_t kServeBatch = 256;  // peers' requests one progress call serves at most

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

bool UcxTransport::agent_region(int pe, Region region) const {
  return (peers_[static_cast<size_t>(pe)].agent_regions >> static_cast<int>(region) & 1u) != 0;
}

bool UcxTransport::agent_data(int pe, RemoteRef ref, size_t bytes) const {
  if (!agent_region(pe, ref.region)) return false;
  const uint64_t one_sided = peers_[static_cast<size_t>(pe)].rma_bytes[static_cast<int>(ref.region)];
  // No one-sided part (no key): everything through the agent, empty transfers included.
  return one_sided == 0 || ref.offset > one_sided || bytes > one_sided - ref.offset;
}

agent::Regions UcxTransport::agent_regions() const {
  agent::Regions g;
  for (int r = 0; r < transport::kRegions; ++r) {
    g.base[r] = static_cast<char *>(region_base_[r]);
    g.bytes[r] = region_bytes_[r];
    g.agent[r] = agent_[r];
  }
  return g;
}

Status UcxTransport::set_agent_handlers() {
  for (const auto &[id, cb] : {std::pair{agent::kRequestAmId, &UcxTransport::on_agent_request},
                               std::pair{agent::kReplyAmId, &UcxTransport::on_agent_reply}}) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = id;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = cb;
    hp.arg = this;
    ucs_status_t st = api_->ucp_worker_set_am_recv_handler(worker_, &hp);
    if (st != UCS_OK) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: ucp_worker_set_am_recv_handler (agent messages) failed: %s",
                         api_->ucs_status_string(st));
      return Status::system_error;
    }
  }
  return Status::ok;
}

unsigned UcxTransport::progress_worker_locked(ucp_worker_h worker) {
  unsigned n = api_->ucp_worker_progress(worker);
  if (worker == worker_ && !agent_work_.empty()) {
    serve_agent_locked();
    ++n;
  }
  return n;
}

// ---- the target's side ----

ucs_status_t UcxTransport::on_agent_request(void *arg, const void *header, size_t header_length, void *data,
                                            size_t length, const ucp_am_recv_param_t *param) {
  auto *self = static_cast<UcxTransport *>(arg);
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  if (header_length != sizeof(agent::Request)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net,
                       "ucx: PE %d received an agent request with a %zu-byte header (want %zu) that it drops",
                       self->opt_.my_pe, header_length, sizeof(agent::Request));
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
  auto w = std::make_unique<AgentWork>();
  w->self = self;
  if (self->opt_.agent_stats) w->arrived_ns = now_ns();
  std::memcpy(&w->request, header, sizeof w->request);
  if (length > kAgentChunkBytes) {
    w->bad = "it carries more data than one message may";
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    self->agent_work_.push_back(std::move(w));
    return UCS_OK;
  }
  if (!rndv) {
    const auto *p = static_cast<const uint8_t *>(data);
    w->data.assign(p, p + length);
    self->agent_work_.push_back(std::move(w));
    return UCS_OK;
  }
  // Rendezvous: the payload comes into the bounce buffer; executed once it is in (on_agent_data).
  w->data.resize(length);
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  rp.cb.recv_am = on_agent_data;
  rp.user_data = w.get();
  rp.datatype = ucp_dt_make_contig(1);
  void *req = self->api_->ucp_am_recv_data_nbx(self->worker_, data, w->data.data(), length, &rp);
  if (req == nullptr) {
    self->agent_work_.push_back(std::move(w));
  } else if (UCS_PTR_IS_ERR(req)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d could not receive a %s of %zu bytes from PE %u: %s",
                       self->opt_.my_pe, agent::kind_name(w->request.kind), length, w->request.from_pe,
                       self->api_->ucs_status_string(UCS_PTR_STATUS(req)));
  } else {
    (void)w.release();  // on_agent_data owns it now
  }
  return UCS_OK;
}

void UcxTransport::on_agent_data(void *request, ucs_status_t status, size_t, void *user_data) {
  std::unique_ptr<AgentWork> w(static_cast<AgentWork *>(user_data));
  UcxTransport *self = w->self;
  self->api_->ucp_request_free(request);
  if (status != UCS_OK) {
    // The sender's side fails too (its endpoint reports the lost peer): nothing to answer.
    if (!self->closing_.load(std::memory_order_acquire))
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d lost a %s of %zu bytes from PE %u on the way: %s",
                         self->opt_.my_pe, agent::kind_name(w->request.kind), w->data.size(), w->request.from_pe,
                         self->api_->ucs_status_string(status));
    return;
  }
  if (self->opt_.agent_stats) w->arrived_ns = now_ns();  // its data is in only now
  self->agent_work_.push_back(std::move(w));
}

void UcxTransport::serve_agent_locked() {
  // Executing may not progress the worker (the sends below do not), so no request joins meanwhile. At most
  // kServeBatch per call, in arrival order: the caller (a wait, the proxy thread between its polls) gets back to its
  // own work, and the rest waits for the next progress call.
  const size_t n = agent_work_.size() < kServeBatch ? agent_work_.size() : kServeBatch;
  std::vector<std::unique_ptr<AgentWork>> work(
      std::make_move_iterator(agent_work_.begin()),
      std::make_move_iterator(agent_work_.begin() + static_cast<std::ptrdiff_t>(n)));
  agent_work_.erase(agent_work_.begin(), agent_work_.begin() + static_cast<std::ptrdiff_t>(n));
  const agent::Regions regions = agent_regions();
  // Plain puts to an agent region are only posted (a GPU agent's copies then share one stream sync); the posted
  // ones are completed before any other request of the batch executes (it may read what they wrote) and before
  // any reply goes out, so an acknowledgement still means "applied".
  std::vector<size_t> posted;  // indices in `work` of the puts posted since the last completion
  auto complete_posted = [&] {
    if (posted.empty()) return;
    bool ok = true;
    const uint64_t start = opt_.agent_stats ? now_ns() : 0;
    for (int r = 0; r < transport::kRegions; ++r)
      if (regions.agent[r] != nullptr && regions.agent[r]->complete_writes() != Status::ok) ok = false;
    if (opt_.agent_stats) {
      const uint64_t took = now_ns() - start;
      ++complete_stats_.count;
      complete_stats_.served_ns += took;
      if (took > complete_stats_.served_max_ns) complete_stats_.served_max_ns = took;
    }
    if (!ok) {
      for (size_t k : posted) work[k]->reply.outcome = static_cast<uint8_t>(agent::Outcome::failed);
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d's memory agent could not complete %zu puts from its peers",
                         opt_.my_pe, posted.size());
    }
    posted.clear();
  };
  for (size_t k = 0; k < work.size(); ++k) {
    AgentWork &w = *work[k];
    const agent::Request &r = w.request;
    const char *bad = w.bad;
    if (bad == nullptr) {
      const bool plain_put = r.kind == static_cast<uint8_t>(agent::Kind::put);
      if (!plain_put) complete_posted();
      const uint64_t start = opt_.agent_stats ? now_ns() : 0;
      bool was_posted = false;
      bad = agent::execute(regions, r, w.data.data(), w.data.size(), &w.reply, &w.reply_data, plain_put, &was_posted);
      if (was_posted && bad == nullptr) posted.push_back(k);
      if (opt_.agent_stats && r.kind < sizeof agent_stats_ / sizeof agent_stats_[0]) {
        AgentStats &st = agent_stats_[r.kind];
        const uint64_t queued = start - w.arrived_ns, served = now_ns() - start;
        ++st.count;
        st.queued_ns += queued;
        st.served_ns += served;
        if (queued > st.queued_max_ns) st.queued_max_ns = queued;
        if (served > st.served_max_ns) st.served_max_ns = served;
      }
    } else {
      w.reply = agent::Reply{};
      w.reply.magic = agent::kReplyMagic;
      w.reply.channel = r.channel;
      w.reply.kind = r.kind;
      w.reply.id = r.id;
      w.reply.outcome = static_cast<uint8_t>(agent::Outcome::refused);
    }
    w.reply.from_pe = static_cast<uint32_t>(opt_.my_pe);
    if (bad != nullptr)
      GPUSHMEM_LOG_ERROR(
          log::Subsys::net, "ucx: PE %d refuses a %s of %llu bytes at offset %llu of its %s from PE %d: %s", opt_.my_pe,
          agent::kind_name(r.kind), static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.offset),
          r.region < transport::kRegions ? region_name(static_cast<Region>(r.region)) : "region", r.from_pe, bad);
  }
  complete_posted();
  for (std::unique_ptr<AgentWork> &w : work) {
    const agent::Request &r = w->request;
    const int from = static_cast<int>(r.from_pe);
    w->data.clear();
    w->data.shrink_to_fit();  // the bounce buffer goes now, the reply may stay a while
    if (from < 0 || from >= opt_.n_pes || !peers_[static_cast<size_t>(from)].wanted) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d cannot answer an agent request from unknown PE %d", opt_.my_pe,
                         from);
      continue;
    }
    ucp_ep_h ep = nullptr;
    if (ep_locked(channel_locked(0), from, &ep) != Status::ok) continue;  // the peer is lost: logged
    ucp_request_param_t p{};
    p.op_attr_mask =
        UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.flags = w->reply_data.size() > opt_.rndv_bytes ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
    p.datatype = ucp_dt_make_contig(1);
    p.cb.send = on_agent_reply_sent;
    p.user_data = w.get();
    void *req = api_->ucp_am_send_nbx(ep, agent::kReplyAmId, &w->reply, sizeof w->reply, w->reply_data.data(),
                                      w->reply_data.size(), &p);
    if (UCS_PTR_IS_ERR(req)) {
      if (!closing_.load(std::memory_order_acquire))
        GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d could not answer a %s from PE %d: %s", opt_.my_pe,
                           agent::kind_name(r.kind), from, api_->ucs_status_string(UCS_PTR_STATUS(req)));
    } else if (req != nullptr) {
      (void)w.release();  // on_agent_reply_sent frees it
    }
  }
}

std::vector<std::string> UcxTransport::agent_stats_report() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> lines;
  for (size_t k = 0; k < sizeof agent_stats_ / sizeof agent_stats_[0]; ++k) {
    const AgentStats &st = agent_stats_[k];
    if (st.count == 0) continue;
    char line[240];
    std::snprintf(line, sizeof line,
                  "%s: %llu requests served; %.1f us mean and %.1f us max from arrival to service, %.1f us mean "
                  "and %.1f us max in the memory agent",
                  agent::kind_name(static_cast<uint8_t>(k)), static_cast<unsigned long long>(st.count),
                  static_cast<double>(st.queued_ns) / 1e3 / static_cast<double>(st.count),
                  static_cast<double>(st.queued_max_ns) / 1e3,
                  static_cast<double>(st.served_ns) / 1e3 / static_cast<double>(st.count),
                  static_cast<double>(st.served_max_ns) / 1e3);
    lines.push_back(line);
  }
  if (complete_stats_.count != 0) {
    char line[240];
    std::snprintf(line, sizeof line, "posted puts completed in %llu batches: %.1f us mean and %.1f us max a batch",
                  static_cast<unsigned long long>(complete_stats_.count),
                  static_cast<double>(complete_stats_.served_ns) / 1e3 / static_cast<double>(complete_stats_.count),
                  static_cast<double>(complete_stats_.served_max_ns) / 1e3);
    lines.push_back(line);
  }
  return lines;
}

void UcxTransport::on_agent_reply_sent(void *request, ucs_status_t, void *user_data) {
  std::unique_ptr<AgentWork> w(static_cast<AgentWork *>(user_data));
  w->self->api_->ucp_request_free(request);
}

// ---- the sender's side ----

ucs_status_t UcxTransport::on_agent_reply(void *arg, const void *header, size_t header_length, void *data,
                                          size_t length, const ucp_am_recv_param_t *param) {
  auto *self = static_cast<UcxTransport *>(arg);
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  agent::Reply r{};
  if (header_length == sizeof r) std::memcpy(&r, header, sizeof r);
  if (header_length != sizeof r || r.magic != agent::kReplyMagic) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d received a malformed agent reply (%zu-byte header): dropped",
                       self->opt_.my_pe, header_length);
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
  const bool ok = r.outcome == static_cast<uint8_t>(agent::Outcome::done);
  if (r.id == 0) {  // the acknowledgement of a posted request of channel r.channel
    auto it = self->channels_.find(r.channel);
    if (it != self->channels_.end()) {
      Channel &c = *it->second;
      if (c.agent_outstanding > 0) --c.agent_outstanding;
      if (!ok && c.agent_error.empty())
        c.agent_error = std::string("PE ") + std::to_string(r.from_pe) + " could not apply a " +
                        agent::kind_name(r.kind) + " (" + (r.outcome == 1 ? "refused" : "its memory agent failed") +
                        "; its log says why)";
    }
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
  auto it = self->agent_waits_.find(r.id);
  if (it == self->agent_waits_.end()) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d received a reply from PE %u that nobody waits for: dropped",
                       self->opt_.my_pe, r.from_pe);
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
  AgentWait *w = it->second;
  self->agent_waits_.erase(it);
  w->outcome = r.outcome;
  w->value = r.value;
  if (!ok || length == 0) {
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    w->done = true;
    return UCS_OK;
  }
  if (length != w->bytes) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: PE %d received %zu bytes from PE %u for a get of %zu", self->opt_.my_pe,
                       length, r.from_pe, w->bytes);
    if (rndv) self->api_->ucp_am_data_release(self->worker_, data);
    w->outcome = static_cast<uint8_t>(agent::Outcome::failed);
    w->done = true;
    return UCS_OK;
  }
  if (!rndv) {
    std::memcpy(w->dst, data, length);
    w->done = true;
    return UCS_OK;
  }
  // A large get: straight into its destination.
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  rp.cb.recv_am = on_agent_reply_data;
  rp.user_data = w;
  rp.datatype = ucp_dt_make_contig(1);
  w->receiving = true;
  void *req = self->api_->ucp_am_recv_data_nbx(self->worker_, data, w->dst, length, &rp);
  if (req == nullptr) {
    w->receiving = false;
    w->done = true;
  } else if (UCS_PTR_IS_ERR(req)) {
    w->receiving = false;
    w->outcome = static_cast<uint8_t>(agent::Outcome::failed);
    w->done = true;
  }
  return UCS_OK;
}

void UcxTransport::on_agent_reply_data(void *request, ucs_status_t status, size_t, void *user_data) {
  auto *w = static_cast<AgentWait *>(user_data);
  if (status != UCS_OK) w->outcome = static_cast<uint8_t>(agent::Outcome::failed);
  w->receiving = false;
  w->done = true;
  w->self->api_->ucp_request_free(request);
}

template <typename Done>
Status UcxTransport::agent_wait_locked(std::unique_lock<std::mutex> &lock, Channel &c, Done done, const char *what,
                                       int pe) {
  if (done()) return Status::ok;
  note_app_progress();
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto next_report = start + std::chrono::seconds(opt_.hang_warn_s);
  struct Driving {
    std::atomic<int> &n;
    explicit Driving(std::atomic<int> &w) : n(w) { n.fetch_add(1, std::memory_order_relaxed); }
    ~Driving() { n.fetch_sub(1, std::memory_order_relaxed); }
  } driving(waiters_);
  for (unsigned spins = 1;; ++spins) {
    progress_worker_locked(c.worker);
    if (c.worker != worker_) progress_worker_locked(worker_);
    if (done()) return Status::ok;
    if ((spins & 15u) == 0) {
      lock.unlock();
      sched_yield();
      lock.lock();
      if (done()) return Status::ok;
      if ((spins & 1023u) == 0) {
        const int lost = pe >= 0 ? (peer_error(pe) != 0 ? pe : -1) : first_lost_peer();
        if (lost >= 0 && !closing_.load(std::memory_order_acquire))
          return fail_op(what, lost, UCS_ERR_CONNECTION_RESET);
        const auto now = clock::now();
        if (opt_.hang_warn_s > 0 && now >= next_report) {
          if (pe >= 0)
            GPUSHMEM_LOG_WARN(log::Subsys::net,
                              "ucx: %s: still waiting after %.0f s for PE %d's memory agent to answer", what,
                              std::chrono::duration<double>(now - start).count(), pe);
          else
            GPUSHMEM_LOG_WARN(log::Subsys::net,
                              "ucx: %s: still waiting after %.0f s for the memory agents of the PEs it wrote to", what,
                              std::chrono::duration<double>(now - start).count());
          next_report = now + std::chrono::seconds(opt_.hang_warn_s);
        }
      }
    }
  }
}

agent::Request UcxTransport::agent_request(agent::Kind kind, uint32_t channel, RemoteRef ref) const {
  agent::Request r{};
  r.magic = agent::kRequestMagic;
  r.from_pe = static_cast<uint32_t>(opt_.my_pe);
  r.kind = static_cast<uint8_t>(kind);
  r.region = static_cast<uint8_t>(ref.region);
  r.offset = ref.offset;
  // The runtime's channel shares channel 0's endpoints and bookkeeping (channel_locked).
  r.channel = channel == kRuntimeChannel ? 0 : channel;
  return r;
}

Status UcxTransport::agent_send_locked(std::unique_lock<std::mutex> &lock, Channel &c, int pe, agent::Request &r,
                                       const void *data, size_t bytes) {
  if (c.flush_before_agent) {
    // RMA before a fence lands before this request (another lane).
    c.flush_before_agent = false;
    ucp_request_param_t fp{};
    GPUSHMEM_CHECK(
        wait_request_locked(lock, c.worker, api_->ucp_worker_flush_nbx(c.worker, &fp), "fence (worker flush)", pe));
    c.rma_unflushed = false;
  }
  ucp_ep_h ep = nullptr;
  GPUSHMEM_CHECK(ep_locked(c, pe, &ep));
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE;
  p.flags = bytes > opt_.rndv_bytes ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
  if (bytes + sizeof r <= kMessageCopyBytes) p.op_attr_mask |= UCP_OP_ATTR_FLAG_FAST_CMPL;
  p.datatype = ucp_dt_make_contig(1);
  void *req = api_->ucp_am_send_nbx(ep, agent::kRequestAmId, &r, sizeof r, data, bytes, &p);
  if (r.id == 0) {
    ++c.agent_outstanding;
    note_written_locked(c, r.channel);
  }
  // The header and the data are the caller's: wait until UCX is done with them (usually at once).
  return finish_locked(lock, c, req, true, agent::kind_name(r.kind), pe);
}

Status UcxTransport::agent_drain_locked(std::unique_lock<std::mutex> &lock, Channel &c, const char *what) {
  if (c.agent_outstanding != 0)
    GPUSHMEM_CHECK(agent_wait_locked(
        lock, c, [&c] { return c.agent_outstanding == 0; }, what, -1));
  if (c.agent_error.empty()) return Status::ok;
  GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: %s: %s", what, c.agent_error.c_str());
  c.agent_error.clear();
  return Status::system_error;
}

Status UcxTransport::agent_put_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                      RemoteRef dst, const void *src, size_t bytes) {
  const auto *p = static_cast<const uint8_t *>(src);
  for (size_t off = 0; off < bytes; off += kAgentChunkBytes) {
    const size_t n = bytes - off < kAgentChunkBytes ? bytes - off : kAgentChunkBytes;
    agent::Request r = agent_request(agent::Kind::put, channel, RemoteRef{dst.region, dst.offset + off});
    r.bytes = n;
    GPUSHMEM_CHECK(agent_send_locked(lock, c, pe, r, p + off, n));
  }
  return Status::ok;
}

Status UcxTransport::agent_get_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                      void *dst, RemoteRef src, size_t bytes) {
  auto *p = static_cast<uint8_t *>(dst);
  std::deque<std::pair<uint64_t, std::unique_ptr<AgentWait>>> inflight;
  // A wait whose data may still arrive after a failure is left to UCX (never freed): the request that
  // writes it holds its pointer.
  auto abandon = [&] {
    for (auto &[id, w] : inflight) {
      agent_waits_.erase(id);
      if (w->receiving) (void)w.release();
    }
  };
  size_t off = 0;
  while (off < bytes || !inflight.empty()) {
    while (off < bytes && inflight.size() < kGetWindow) {
      const size_t n = bytes - off < kAgentChunkBytes ? bytes - off : kAgentChunkBytes;
      auto w = std::make_unique<AgentWait>();
      w->self = this;
      w->dst = p + off;
      w->bytes = n;
      agent::Request r = agent_request(agent::Kind::get, channel, RemoteRef{src.region, src.offset + off});
      r.bytes = n;
      r.id = next_agent_id_++;
      agent_waits_[r.id] = w.get();
      inflight.emplace_back(r.id, std::move(w));
      if (Status s = agent_send_locked(lock, c, pe, r, nullptr, 0); s != Status::ok) {
        abandon();
        return s;
      }
      off += n;
    }
    AgentWait &front = *inflight.front().second;
    if (Status s = agent_wait_locked(
            lock, c, [&front] { return front.done; }, "get", pe);
        s != Status::ok) {
      abandon();
      return s;
    }
    if (front.outcome != static_cast<uint8_t>(agent::Outcome::done)) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: get of %zu bytes from PE %d's %s failed there (its log says why)",
                         front.bytes, pe, region_name(src.region));
      inflight.pop_front();
      abandon();
      return Status::system_error;
    }
    inflight.pop_front();
  }
  return Status::ok;
}

Status UcxTransport::agent_amo_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                      RemoteRef dst, AmoOp op, size_t width, uint64_t operand, uint64_t compare,
                                      void *fetch) {
  agent::Request r = agent_request(agent::Kind::amo, channel, dst);
  r.op = static_cast<uint8_t>(op);
  r.width = static_cast<uint8_t>(width);
  r.operand = operand;
  r.compare = compare;
  if (fetch == nullptr) return agent_send_locked(lock, c, pe, r, nullptr, 0);  // posted: acknowledged
  AgentWait w;
  r.id = next_agent_id_++;
  agent_waits_[r.id] = &w;
  Status s = agent_send_locked(lock, c, pe, r, nullptr, 0);
  if (s == Status::ok)
    s = agent_wait_locked(
        lock, c, [&w] { return w.done; }, transport::amo_op_name(op), pe);
  if (s != Status::ok) {
    agent_waits_.erase(r.id);
    return s;
  }
  if (w.outcome != static_cast<uint8_t>(agent::Outcome::done)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: %s on PE %d's %s failed there (its log says why)",
                       transport::amo_op_name(op), pe, region_name(dst.region));
    return Status::system_error;
  }
  std::memcpy(fetch, &w.value, width);  // little-endian: the low `width` bytes
  return Status::ok;
}

Status UcxTransport::agent_put_signal_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                             RemoteRef dst, const void *src, size_t bytes, RemoteRef signal,
                                             uint64_t value, bool add) {
  // One-sided RMA issued before it lands first (Channel::rma_unflushed): the runtime's messages and a one-sided
  // put_signal rely on a signal applied after the channel's earlier operations to the PE.
  if (c.rma_unflushed) c.flush_before_agent = true;
  // Every chunk but the last as a put, all acknowledged before the last one goes with the signal: the
  // target may execute a rendezvous chunk after a later request.
  const size_t last = bytes > kAgentChunkBytes ? (bytes - 1) / kAgentChunkBytes * kAgentChunkBytes : 0;
  if (last != 0) {
    GPUSHMEM_CHECK(agent_put_locked(lock, c, channel, pe, dst, src, last));
    GPUSHMEM_CHECK(agent_drain_locked(lock, c, "put_signal"));
  }
  agent::Request r = agent_request(agent::Kind::put_signal, channel, RemoteRef{dst.region, dst.offset + last});
  r.bytes = bytes - last;
  r.signal_region = static_cast<uint8_t>(signal.region);
  r.signal_add = add ? 1 : 0;
  r.operand = value;
  r.compare = signal.offset;
  return agent_send_locked(lock, c, pe, r, static_cast<const uint8_t *>(src) + last, bytes - last);
}

}  // namespace gpushmem::ucx
