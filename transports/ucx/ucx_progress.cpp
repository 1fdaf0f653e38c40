// The progress thread: over UCX's TCP transport (and any other that emulates RMA or atomics with
// messages), an operation aimed at this PE lands only when this PE's worker progresses. The thread keeps
// it progressing while the application computes, or makes only calls that do not progress the network
// (local operations, quiets with nothing to flush), for a while: 200 us to 10 naps.
//
// It polls: after an event it keeps polling for spin_us, then naps, each nap twice as long as the one
// before up to nap_max_us, and polls again. It does not sleep on UCX's event descriptor
// (UCP_FEATURE_WAKEUP): with that feature and the thread, an 8-byte get over TCP took 25.2 us, without
// either 18.1 us (2-core VM, UCX 1.13, same run).
#include <sched.h>
#include <time.h>

#include <chrono>

#include "ucx/ucx_transport.hpp"

namespace gpushmem::ucx {

namespace {

void nap(long ns) {
  timespec t = {ns / 1000000000L, ns % 1000000000L};
  nanosleep(&t, nullptr);
}

}  // namespace

Status UcxTransport::start_progress_thread() {
  if (progress_thread_.joinable()) return Status::ok;
  stop_.store(false, std::memory_order_release);
  progress_thread_ = std::thread([this] { progress_loop(); });
  return Status::ok;
}

void UcxTransport::stop_progress_thread() {
  if (!progress_thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  progress_thread_.join();  // it looks at the flag at least every nap_max_us
  stop_.store(false, std::memory_order_release);
}

void UcxTransport::progress_loop() {
  using clock = std::chrono::steady_clock;
  const auto spin = std::chrono::microseconds(opt_.spin_us);
  const long nap_max_ns = static_cast<long>(opt_.nap_max_us) * 1000;
  auto last_event = clock::now();
  long nap_ns = 1000;
  // While the application calls in, the thread only looks every so often whether it went away: from 200 us
  // doubling up to ten naps. Each look costs a busy core a preemption (on the 2-core VM, looks every
  // <= 1 ms made an 8-byte get 23.7 us against 20.2 us without the thread; every <= 10 ms, 20.6 us).
  constexpr long kStepBackMinNs = 200 * 1000;
  const long step_back_max_ns = nap_max_ns * 10;
  long step_back_ns = kStepBackMinNs;
  uint64_t progress_seen = app_progress_.load(std::memory_order_relaxed);
  while (!stop_.load(std::memory_order_acquire)) {
    // The application drives the worker itself while it progresses it (waits, every host wait's progress
    // call, every 16th issue): stepping back leaves it the worker and the core, without a lock hand-over per
    // event. The thread takes over once the application has not progressed it for a whole nap (computing,
    // or calling only routines that stay on this node).
    const uint64_t seen = app_progress_.load(std::memory_order_relaxed);
    if (waiters_.load(std::memory_order_relaxed) > 0 || seen != progress_seen) {
      progress_seen = seen;
      // Each wake-up costs a busy core a preemption: the longer the application stays, the rarer they get.
      nap(step_back_ns);
      step_back_ns = step_back_ns * 2 < step_back_max_ns ? step_back_ns * 2 : step_back_max_ns;
      last_event = clock::now();
      nap_ns = 1000;
      continue;
    }
    step_back_ns = kStepBackMinNs;
    unsigned events = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (worker_ == nullptr) return;
      for (unsigned n; (n = progress_worker_locked(worker_)) != 0;) events += n;
    }
    const auto now = clock::now();
    if (events != 0) {
      last_event = now;
      nap_ns = 1000;
      continue;
    }
    // Poll a while after the last event: requests that come in a stream (a peer's gets, atomics) are served
    // without a nap between them.
    if (now - last_event < spin) {
      sched_yield();
      continue;
    }
    nap(nap_ns);
    nap_ns = nap_ns * 2 < nap_max_ns ? nap_ns * 2 : nap_max_ns;
  }
}

}  // namespace gpushmem::ucx
