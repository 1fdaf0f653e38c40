// The proxy service: a thread that drains a PE's proxy channels in batches and executes the requests
// through a backend, and a watchdog that names a request stuck longer than GPUSHMEM_PROXY_TIMEOUT and says
// who is stalled: the proxy (a published slot it has not taken) or the network / the peer (a request the
// backend has not completed).
//
// The service thread polls every channel; after the last request it keeps polling for spin_ns, then naps,
// each nap twice as long as the one before up to nap_max_ns. A channel whose producers asked for help (the
// ring above its high-water mark) is drained without naps until it is below again.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "proxy/channel_consumer.hpp"
#include "proxy/proxy_backend.hpp"

namespace gpushmem::proxy {

struct ServiceOptions {
  uint32_t batch = 32;              // slots taken from one channel per round
  uint64_t spin_ns = 100000;        // polling after the last request before the first nap
  uint64_t nap_max_ns = 50000;      // the longest nap while nothing arrives
  uint64_t watchdog_ns = 0;         // GPUSHMEM_PROXY_TIMEOUT in ns; 0: no watchdog thread
  uint64_t watchdog_period_ns = 0;  // how often the watchdog looks (0: a quarter of watchdog_ns, <= 1 s)
  bool stats = false;               // GPUSHMEM_PROXY_STATS: time every request in the backend (stats_report)
  std::vector<int> cpus;            // the proxy thread pins itself to these (proxy_cpus.hpp); empty: anywhere
  bool stacks = true;               // a report of a proxy thread stuck in a request or the progress adds its stack
  // Where the watchdog's reports go (default: the log, as errors).
  std::function<void(const std::string &)> report;
  // Called at each watchdog look too (the runtime reports a failed kernel's sticky device error from here).
  std::function<void()> on_look;
};

class Service {
 public:
  Service(Backend *backend, ServiceOptions options);
  ~Service();
  Service(const Service &) = delete;
  Service &operator=(const Service &) = delete;

  // Adds a channel (before start); returns its number, the one the backend sees.
  uint32_t add_channel(const gpushmem_proxy_channel_t &channel);
  ChannelConsumer &channel(uint32_t id) { return *channels_[id]; }
  size_t channels() const { return channels_.size(); }

  void start();
  void stop();  // drains nothing more; requests in flight stay with the backend
  bool running() const { return thread_.joinable(); }

  // One round over every channel: drain, execute, progress the backend, publish completed counts. Returns
  // the requests taken. The thread's body; tests drive it directly.
  size_t poll_once();
  // One watchdog look at `now_ns` (steady clock): reports every request stuck longer than watchdog_ns (once
  // each) and returns how many it reported.
  int check_stuck(uint64_t now_ns);

  uint64_t requests_taken() const { return taken_.load(std::memory_order_relaxed); }
  // Polls that found requests, and polls that found none (a drain that is mostly empty polls waits for its
  // producers; one that never finds the ring empty is limited by the proxy thread).
  uint64_t busy_rounds() const { return busy_rounds_.load(std::memory_order_relaxed); }
  uint64_t empty_rounds() const { return empty_rounds_.load(std::memory_order_relaxed); }

  // With options.stats, after stop() (or between poll_once calls): one line per kind of request executed, "put:
  // 1000 requests, 2.1 us mean and 40.3 us max in the backend", and the rounds that found nothing.
  std::vector<std::string> stats_report() const;

  static uint64_t now_ns();

 private:
  struct Watch {
    uint64_t seen_next = ~0ull;  // the channel's next index at the watchdog's last look
    uint64_t since_ns = 0;       // since when it has not moved
    uint64_t reported_unconsumed = ~0ull;
    uint64_t reported_pending = ~0ull;
  };
  struct OpStats {
    uint64_t count = 0, total_ns = 0, max_ns = 0;
  };
  // The request the proxy thread is executing, for the watchdog (a synchronous backend blocks in a quiet that
  // waits for a peer): written by the proxy thread, read by the watchdog under a sequence count (odd: being
  // written). Kept only when the watchdog runs. No clock reads on the proxy thread (one per request halved the
  // drain rate): the watchdog times a request from the first look that found it executing.
  struct Executing {
    std::atomic<uint64_t> gen{0};
    std::atomic<uint64_t> index_plus_1{0};  // 0: none
    std::atomic<uint32_t> channel{0};
    std::atomic<uint64_t> words[8] = {};  // the slot
  };
  struct ExecutingView {
    bool active = false;
    uint32_t channel = 0;
    uint64_t index = 0;
    gpushmem_proxy_slot_t slot{};
  };
  void set_executing(uint32_t id, const Request *r);  // r nullptr: none
  bool read_executing(ExecutingView *out) const;
  void loop();
  void watchdog_loop();
  // Asks the proxy thread for its stack (ServiceOptions::stacks), after a report that it is stuck.
  void report_stack();
  bool execute(uint32_t id, const Request &r);

  Backend *backend_;
  ServiceOptions opt_;
  std::vector<std::unique_ptr<ChannelConsumer>> channels_;
  std::vector<Watch> watch_;
  std::vector<Request> batch_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> taken_{0};
  OpStats stats_[GPUSHMEM_PROXY_OP_COUNT + 1];  // the last: ops outside gpushmem_proxy_op
  Executing executing_;
  uint64_t reported_executing_ = ~0ull;  // the watchdog's: the last request it named inside the backend
  uint32_t reported_executing_channel_ = ~0u;
  // The backend's progress calls (serving what peers sent this PE), counted on entry and on exit: odd while the
  // proxy thread is inside one.
  std::atomic<uint64_t> progress_calls_{0};
  // The watchdog's own: when it first found the request (channel, index + 1) executing, and the progress call
  // (its count) the thread was in; what it named last.
  uint32_t seen_executing_channel_ = ~0u;
  uint64_t seen_executing_ = 0, seen_executing_ns_ = 0;
  uint64_t seen_progress_ = 0, seen_progress_ns_ = 0, reported_progress_ = 0;
  // The proxy thread's CUDA calls (core/cuda_call_watch.hpp: odd while inside one) and the watchdog's view of them.
  std::atomic<uint64_t> cuda_calls_{0};
  uint64_t seen_cuda_ = 0, seen_cuda_ns_ = 0;
  std::atomic<uint64_t> empty_rounds_{0}, busy_rounds_{0};  // written by the proxy thread only
  std::thread thread_;
  std::thread watchdog_;
};

// The watchdog's sentence for a request: "put of 1024 bytes to PE 1 (CTA 5, warp 2, SM 17)".
std::string describe(const gpushmem_proxy_slot_t &slot);

}  // namespace gpushmem::proxy
