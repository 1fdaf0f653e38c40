// The progress thread: over UCX's TCP transport (and any other that emulates RMA or atomics with
// messages), an operation aimed at this PE lands only when this PE's worker progresses. The thread keeps
// it progressing while the application computes, and sleeps on the worker's event descriptor
// (ucp_worker_arm + epoll) when nothing arrives, so an idle PE costs no CPU.
#include <sys/epoll.h>
#include <unistd.h>

#include <sched.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "ucx/ucx_transport.hpp"

namespace gpushmem::ucx {

Status UcxTransport::start_progress_thread() {
  int fd = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ucs_status_t st = api_->ucp_worker_get_efd(worker_, &fd);
    if (st != UCS_OK) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: the worker has no event descriptor for the progress thread: %s",
                         api_->ucs_status_string(st));
      return Status::not_supported;
    }
  }
  event_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (event_fd_ < 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: epoll_create1 for the progress thread failed: %s", std::strerror(errno));
    return Status::system_error;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  if (epoll_ctl(event_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "ucx: epoll_ctl for the progress thread failed: %s", std::strerror(errno));
    close(event_fd_);
    event_fd_ = -1;
    return Status::system_error;
  }
  progress_thread_ = std::thread([this] { progress_loop(); });
  return Status::ok;
}

void UcxTransport::stop_progress_thread() {
  if (!progress_thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    (void)api_->ucp_worker_signal(worker_);
  }
  progress_thread_.join();
  stop_.store(false, std::memory_order_release);
}

void UcxTransport::progress_loop() {
  using clock = std::chrono::steady_clock;
  const auto spin = std::chrono::microseconds(opt_.spin_us);
  auto last_event = clock::now();
  while (!stop_.load(std::memory_order_acquire)) {
    // An application thread is progressing the worker itself (a wait, a blocking operation): stepping back
    // leaves it the core; look again shortly.
    if (waiters_.load(std::memory_order_relaxed) > 0) {
      timespec nap = {0, 200 * 1000};
      nanosleep(&nap, nullptr);
      last_event = clock::now();
      continue;
    }
    unsigned events = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (worker_ == nullptr) return;
      for (unsigned n; (n = api_->ucp_worker_progress(worker_)) != 0;) events += n;
    }
    const auto now = clock::now();
    if (events != 0) {
      last_event = now;
      continue;
    }
    // Poll a while after the last event: requests that come in a stream (a peer's gets, atomics) are served
    // without a wake-up each (two thread hops: UCX's async thread, then this one).
    if (now - last_event < spin) {
      sched_yield();
      continue;
    }
    bool armed = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (worker_ == nullptr) return;
      // UCS_OK: armed, nothing pending: sleep until the descriptor fires. BUSY: events arrived meanwhile.
      armed = api_->ucp_worker_arm(worker_) == UCS_OK;
    }
    if (!armed) continue;
    epoll_event ev{};
    // A bounded sleep: the stop flag is looked at every 100 ms at the latest.
    (void)epoll_wait(event_fd_, &ev, 1, 100);
    last_event = clock::now();
  }
}

}  // namespace gpushmem::ucx
