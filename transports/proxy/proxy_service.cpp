#include "proxy/proxy_service.hpp"

#include <sched.h>
#include <time.h>

#include <chrono>
#include <cstdio>

#include "core/cuda_call_watch.hpp"
#include "core/log.hpp"
#include "proxy/proxy_cpus.hpp"
#include "proxy/thread_stack.hpp"

namespace gpushmem::proxy {

namespace {

void nap(uint64_t ns) {
  timespec t = {static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&t, nullptr);
}

}  // namespace

const char *op_name(uint32_t op) {
  static const char *const names[GPUSHMEM_PROXY_OP_COUNT] = {"nop", "put",       "get",   "put_signal", "signal",
                                                             "amo", "amo_fetch", "fence", "quiet",      "coll"};
  return op < GPUSHMEM_PROXY_OP_COUNT ? names[op] : "unknown op";
}

std::string describe(const gpushmem_proxy_slot_t &s) {
  const uint32_t op = gpushmem_proxy_header_op(s.header);
  const uint32_t pe = gpushmem_proxy_header_pe(s.header);
  const auto size = static_cast<uint32_t>(s.size_event);
  const auto smid = static_cast<uint32_t>(s.cookie & 0xff), warp = static_cast<uint32_t>((s.cookie >> 8) & 0xff);
  const auto cta = static_cast<uint32_t>((s.cookie >> 16) & 0xffff);
  char text[160];
  const char *to = op == GPUSHMEM_PROXY_OP_GET || op == GPUSHMEM_PROXY_OP_AMO_FETCH ? "from" : "to";
  if (op == GPUSHMEM_PROXY_OP_COLL) {
    const bool reduce = gpushmem_proxy_coll_kind(s.signal) == GPUSHMEM_PROXY_COLL_REDUCE;
    std::snprintf(text, sizeof text, "coll (%s of %llu %s, member %d of a team of %d) (CTA %u, warp %u, SM %u)",
                  reduce ? "reduce" : "collect", static_cast<unsigned long long>(s.size_event),
                  reduce ? "elements" : "bytes", gpushmem_proxy_pair_high(s.compare),
                  gpushmem_proxy_pair_low(s.compare), cta, warp, smid);
  } else if (op == GPUSHMEM_PROXY_OP_FENCE || op == GPUSHMEM_PROXY_OP_QUIET || op == GPUSHMEM_PROXY_OP_NOP ||
             op >= GPUSHMEM_PROXY_OP_COUNT)
    std::snprintf(text, sizeof text, "%s (CTA %u, warp %u, SM %u)", op_name(op), cta, warp, smid);
  else
    std::snprintf(text, sizeof text, "%s of %u bytes %s PE %u (CTA %u, warp %u, SM %u)", op_name(op), size, to, pe, cta,
                  warp, smid);
  return text;
}

uint64_t Service::now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

Service::Service(Backend *backend, ServiceOptions options) : backend_(backend), opt_(std::move(options)) {
  if (opt_.batch == 0) opt_.batch = 1;
  batch_.resize(opt_.batch);
  if (!opt_.report)
    opt_.report = [](const std::string &line) { GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s", line.c_str()); };
}

Service::~Service() {
  stop();
}

uint32_t Service::add_channel(const gpushmem_proxy_channel_t &channel) {
  channels_.push_back(std::make_unique<ChannelConsumer>(channel));
  watch_.emplace_back();
  return static_cast<uint32_t>(channels_.size() - 1);
}

size_t Service::poll_once() {
  size_t taken = 0;
  const uint64_t now = now_ns();
  for (uint32_t id = 0; id < channels_.size(); ++id) {
    ChannelConsumer &c = *channels_[id];
    // A channel whose producers wait for room is drained until it is below their mark (several batches).
    do {
      const size_t n = c.drain(batch_.data(), batch_.size(), now);
      for (size_t i = 0; i < n; ++i) {
        if (execute(id, batch_[i]))
          c.complete(batch_[i].index);
        else
          c.keep(batch_[i]);
      }
      taken += n;
      if (n < batch_.size()) break;
    } while (c.help_wanted());
  }
  // What this batch completed goes to the producers first: the progress call below may take long (it serves
  // peers' operations on this PE's GPU heap), and producers waiting for room must not wait for it.
  for (auto &c : channels_) c->publish_completed();
  if (opt_.watchdog_ns != 0) progress_calls_.fetch_add(1, std::memory_order_relaxed);
  backend_->progress([this](uint32_t id, uint64_t index) { channels_[id]->complete(index); });
  if (opt_.watchdog_ns != 0) progress_calls_.fetch_add(1, std::memory_order_relaxed);
  for (auto &c : channels_) c->publish_completed();
  taken_.fetch_add(taken, std::memory_order_relaxed);
  std::atomic<uint64_t> &rounds = taken == 0 ? empty_rounds_ : busy_rounds_;
  rounds.store(rounds.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return taken;
}

void Service::set_executing(uint32_t id, const Request *r) {
  Executing &e = executing_;
  const uint64_t g = e.gen.load(std::memory_order_relaxed);
  e.gen.store(g + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);  // odd before the fields change (seqlock writer)
  if (r != nullptr) {
    const uint64_t *w = reinterpret_cast<const uint64_t *>(&r->slot);
    for (int i = 0; i < 8; ++i) e.words[i].store(w[i], std::memory_order_relaxed);
    e.channel.store(id, std::memory_order_relaxed);
  }
  e.index_plus_1.store(r != nullptr ? r->index + 1 : 0, std::memory_order_relaxed);
  e.gen.store(g + 2, std::memory_order_release);  // the fields before the even count
}

bool Service::read_executing(ExecutingView *out) const {
  const Executing &e = executing_;
  const uint64_t g1 = e.gen.load(std::memory_order_acquire);
  if (g1 & 1u) return false;
  const uint64_t plus_1 = e.index_plus_1.load(std::memory_order_relaxed);
  out->channel = e.channel.load(std::memory_order_relaxed);
  uint64_t *w = reinterpret_cast<uint64_t *>(&out->slot);
  for (int i = 0; i < 8; ++i) w[i] = e.words[i].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);  // the fields before the second look (seqlock reader)
  if (e.gen.load(std::memory_order_relaxed) != g1) return false;
  out->active = plus_1 != 0;
  out->index = plus_1 - 1;
  return true;
}

bool Service::execute(uint32_t id, const Request &r) {
  const bool watched = opt_.watchdog_ns != 0;
  const uint64_t start = opt_.stats ? now_ns() : 0;
  if (watched) set_executing(id, &r);
  const bool done = backend_->execute(id, r);
  if (watched) set_executing(id, nullptr);
  if (opt_.stats) {
    const uint64_t took = now_ns() - start;
    const uint32_t op = gpushmem_proxy_header_op(r.slot.header);
    OpStats &s = stats_[op < GPUSHMEM_PROXY_OP_COUNT ? op : static_cast<uint32_t>(GPUSHMEM_PROXY_OP_COUNT)];
    ++s.count;
    s.total_ns += took;
    if (took > s.max_ns) s.max_ns = took;
  }
  return done;
}

std::vector<std::string> Service::stats_report() const {
  std::vector<std::string> lines;
  char line[160];
  for (uint32_t op = 0; op <= GPUSHMEM_PROXY_OP_COUNT; ++op) {
    const OpStats &s = stats_[op];
    if (s.count == 0) continue;
    std::snprintf(line, sizeof line, "%s: %llu requests, %.1f us mean and %.1f us max in the backend", op_name(op),
                  static_cast<unsigned long long>(s.count), static_cast<double>(s.total_ns) / 1e3 / s.count,
                  static_cast<double>(s.max_ns) / 1e3);
    lines.push_back(line);
  }
  std::snprintf(line, sizeof line, "%llu requests taken, %llu rounds found none",
                static_cast<unsigned long long>(taken_.load(std::memory_order_relaxed)),
                static_cast<unsigned long long>(empty_rounds()));
  lines.push_back(line);
  return lines;
}

void Service::loop() {
  if (opt_.watchdog_ns != 0 && opt_.stacks) prepare_stack_report();
  cuda_watch::watch_this_thread(&cuda_calls_);
  if (!pin_this_thread(opt_.cpus))
    GPUSHMEM_LOG_WARN(log::Subsys::net, "proxy: could not pin its thread to CPUs %s; it runs where the system puts it",
                      format_cpu_list(opt_.cpus).c_str());
  uint64_t last_work = now_ns(), nap_ns = 1000;
  while (!stop_.load(std::memory_order_acquire)) {
    if (poll_once() != 0) {
      last_work = now_ns();
      nap_ns = 1000;
      continue;
    }
    bool help = false;
    for (auto &c : channels_) help = help || c->help_wanted();
    if (help || now_ns() - last_work < opt_.spin_ns) continue;
    nap(nap_ns);
    nap_ns = nap_ns * 2 < opt_.nap_max_ns ? nap_ns * 2 : opt_.nap_max_ns;
  }
  cuda_watch::watch_this_thread(nullptr);
}

int Service::check_stuck(uint64_t now) {
  int reports = 0;
  char line[640];
  // Inside one CUDA call since the watchdog's look that first saw it: waiting for CUDA's context lock.
  const uint64_t cuda = cuda_calls_.load(std::memory_order_relaxed);
  if ((cuda & 1u) != 0 && cuda != seen_cuda_) {
    seen_cuda_ = cuda;
    seen_cuda_ns_ = now;
  }
  const bool in_cuda = (cuda & 1u) != 0 && cuda == seen_cuda_ && now - seen_cuda_ns_ > opt_.watchdog_ns;
  static const char kInCuda[] =
      "the proxy thread is inside a CUDA call: another thread of this process holds CUDA's context lock while it "
      "waits for the GPU (a synchronous copy queued behind a kernel that waits on this proxy, or a kernel's first "
      "launch under lazy loading; device/README.md)";
  // The request the proxy thread is inside: a synchronous backend waits there for the peer or the network.
  ExecutingView ex;
  const bool executing = read_executing(&ex) && ex.active;
  if (executing && (ex.channel != seen_executing_channel_ || ex.index + 1 != seen_executing_)) {
    seen_executing_channel_ = ex.channel;  // first seen now: timed from here
    seen_executing_ = ex.index + 1;
    seen_executing_ns_ = now;
  }
  const bool inside = executing && now - seen_executing_ns_ > opt_.watchdog_ns;
  if (inside && (reported_executing_ != ex.index || reported_executing_channel_ != ex.channel)) {
    reported_executing_ = ex.index;  // indices are per channel: the pair names a request
    reported_executing_channel_ = ex.channel;
    const uint32_t op = gpushmem_proxy_header_op(ex.slot.header);
    char who[320];
    if (in_cuda)
      std::snprintf(who, sizeof who, "%s", kInCuda);
    else if (op == GPUSHMEM_PROXY_OP_QUIET || op == GPUSHMEM_PROXY_OP_FENCE)
      std::snprintf(who, sizeof who, "a PE this proxy wrote to, or the network, is stalled");
    else
      std::snprintf(who, sizeof who, "PE %u or the network is stalled", gpushmem_proxy_header_pe(ex.slot.header));
    std::snprintf(line, sizeof line,
                  "proxy channel %u: request %llu (ring slot %llu, seq %u): %s, in the network layer for %.1f s: %s "
                  "(the proxy thread waits in it)",
                  ex.channel, static_cast<unsigned long long>(ex.index),
                  static_cast<unsigned long long>(ex.index & (channels_[ex.channel]->channel().capacity - 1)),
                  gpushmem_proxy_header_seq(ex.slot.header), describe(ex.slot).c_str(),
                  static_cast<double>(now - seen_executing_ns_) * 1e-9, who);
    opt_.report(line);
    ++reports;
    report_stack();
  }
  // Outside every request, in the backend's progress: serving what peers sent this PE (their operations on its
  // GPU heap go through the memory agent there), or the network itself.
  const uint64_t calls = progress_calls_.load(std::memory_order_relaxed);
  if ((calls & 1u) != 0 && calls != seen_progress_) {
    seen_progress_ = calls;  // first seen inside this call now: timed from here
    seen_progress_ns_ = now;
  }
  const bool in_progress = (calls & 1u) != 0 && calls == seen_progress_ && now - seen_progress_ns_ > opt_.watchdog_ns;
  if (in_progress && reported_progress_ != calls) {
    reported_progress_ = calls;
    std::snprintf(line, sizeof line,
                  "proxy: the proxy thread has been in the network layer's progress for %.1f s, outside every "
                  "request: %s",
                  static_cast<double>(now - seen_progress_ns_) * 1e-9,
                  in_cuda ? kInCuda
                          : "serving a peer's operation on this PE's memory (its GPU heap's agent: a copy or an "
                            "atomic kernel that does not finish) or the network itself is stalled");
    opt_.report(line);
    ++reports;
    report_stack();
  }
  for (uint32_t id = 0; id < channels_.size(); ++id) {
    const ChannelConsumer &c = *channels_[id];
    Watch &w = watch_[id];
    // Published and not taken: the proxy thread is stalled (or blocked in its backend).
    const uint64_t next = c.next();
    if (next != w.seen_next) {
      w.seen_next = next;
      w.since_ns = now;
    }
    const uint64_t h = c.unconsumed_header();
    if (gpushmem_proxy_header_seq(h) == static_cast<uint32_t>(next) && now - w.since_ns > opt_.watchdog_ns &&
        w.reported_unconsumed != next) {
      w.reported_unconsumed = next;
      gpushmem_proxy_slot_t s{};
      gpushmem_proxy_slot_t &slot = c.channel().ring[next & (c.channel().capacity - 1)];
      s.header = h;
      // Published (the header's seq is next), so the producer leaves the slot alone until the proxy takes it.
      s.size_event = std::atomic_ref<uint64_t>(slot.size_event).load(std::memory_order_relaxed);
      s.cookie = std::atomic_ref<uint64_t>(slot.cookie).load(std::memory_order_relaxed);
      std::snprintf(line, sizeof line,
                    "proxy channel %u: request %llu (ring slot %llu, seq %u): %s, written but not taken by the "
                    "proxy for %.1f s: %s",
                    id, static_cast<unsigned long long>(next),
                    static_cast<unsigned long long>(next & (c.channel().capacity - 1)), gpushmem_proxy_header_seq(h),
                    describe(s).c_str(), static_cast<double>(now - w.since_ns) * 1e-9,
                    inside        ? "the proxy thread is waiting in the request named above"
                    : in_progress ? "the proxy thread is in the network layer's progress (named above)"
                                  : "the proxy thread is stalled");
      opt_.report(line);
      ++reports;
    }
    // Taken and not complete: the network or the peer is stalled.
    Pending p{};
    if (c.oldest_pending(&p) && now > p.consumed_ns && now - p.consumed_ns > opt_.watchdog_ns &&
        w.reported_pending != p.index) {
      w.reported_pending = p.index;
      const uint32_t pe = gpushmem_proxy_header_pe(p.slot.header);
      std::snprintf(line, sizeof line,
                    "proxy channel %u: request %llu (ring slot %llu, seq %u): %s, handed to the network %.1f s ago "
                    "and not complete: PE %u or the network is stalled",
                    id, static_cast<unsigned long long>(p.index),
                    static_cast<unsigned long long>(p.index & (c.channel().capacity - 1)),
                    gpushmem_proxy_header_seq(p.slot.header), describe(p.slot).c_str(),
                    static_cast<double>(now - p.consumed_ns) * 1e-9, pe);
      opt_.report(line);
      ++reports;
    }
  }
  return reports;
}

void Service::report_stack() {
  if (!opt_.stacks || !thread_.joinable()) return;
  if (!report_thread_stack(thread_.native_handle(),
                           "gpushmem proxy: where the proxy thread waits (addr2line -f -C -e <library> <offset> names "
                           "a frame of gpushmem):"))
    opt_.report("proxy: the proxy thread did not answer the request for its stack");
}

void Service::watchdog_loop() {
  uint64_t period = opt_.watchdog_period_ns;
  if (period == 0) period = opt_.watchdog_ns / 4 < 1000000000ull ? opt_.watchdog_ns / 4 : 1000000000ull;
  if (period == 0) period = 1000000;
  // Naps of at most 10 ms, so that stop() does not wait a whole period.
  uint64_t next_look = now_ns() + period;
  while (!stop_.load(std::memory_order_acquire)) {
    const uint64_t now = now_ns();
    if (now >= next_look) {
      check_stuck(now);
      if (opt_.on_look) opt_.on_look();
      next_look = now + period;
      continue;
    }
    nap(next_look - now < 10000000ull ? next_look - now : 10000000ull);
  }
}

void Service::start() {
  if (thread_.joinable()) return;
  stop_.store(false, std::memory_order_release);
  thread_ = std::thread([this] { loop(); });
  if (opt_.watchdog_ns != 0) watchdog_ = std::thread([this] { watchdog_loop(); });
}

void Service::stop() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace gpushmem::proxy
