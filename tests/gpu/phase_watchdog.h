// A bounded wait for test kernels that wait on another PE: a hang ends the program with a line naming the
// phase (and whatever progress the kernel published) instead of a silent job timeout.
//
//   {
//     phase_watchdog dog(me, "shmem_int waits released by another PE", 20, print_progress);
//     launch the kernel on `stream`;
//     dog.await(stream);  // polls cudaStreamQuery until the kernel is done or the deadline passes
//   }
//
// Two guards, because a hang can block the host in two places:
//   - await() polls cudaStreamQuery (never a blocking synchronise) until its deadline;
//   - a thread, armed by the constructor and disarmed by the destructor, fires a few seconds after that
//     deadline: it catches a CUDA call that itself blocks (a lazily loaded kernel waiting for the context to
//     go idle behind a spinning kernel), where await() would never run. It touches no CUDA, only stderr and
//     the caller's progress printer, which must read plain host memory (e.g. mapped pinned memory).
// On expiry: "PE <me>: HANG in <phase>: ..." on stderr and std::_Exit(1) (no atexit handlers, which could
// block on the hung context; the launcher then ends the other PEs).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

class phase_watchdog {
 public:
  using progress_printer = void (*)(std::FILE *out, const void *context);

  phase_watchdog(int me, const char *phase, int seconds, progress_printer progress = nullptr,
                 const void *context = nullptr)
      : me_(me),
        phase_(phase),
        seconds_(seconds),
        progress_(progress),
        context_(context),
        deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(seconds)),
        thread_([this] { guard(); }) {}

  ~phase_watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      disarmed_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  phase_watchdog(const phase_watchdog &) = delete;
  phase_watchdog &operator=(const phase_watchdog &) = delete;

  // Returns once `stream` is idle; its error, if any, is left for the caller's next CUDA check.
  void await(cudaStream_t stream) {
    for (;;) {
      const cudaError_t state = cudaStreamQuery(stream);
      if (state != cudaErrorNotReady) return;
      if (std::chrono::steady_clock::now() >= deadline_) expire("its kernel is still running");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  // The thread's own deadline is later than await()'s, so a hung kernel is reported by await() when it can.
  static constexpr int kThreadGraceSeconds = 5;

  void guard() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wake_.wait_until(lock, deadline_ + std::chrono::seconds(kThreadGraceSeconds), [this] { return disarmed_; }))
      expire("the host is blocked inside a CUDA call (launch, query or copy)");
  }

  [[noreturn]] void expire(const char *state) const {
    std::fprintf(stderr, "PE %d: HANG in %s: not done after %d s; %s", me_, phase_, seconds_, state);
    if (progress_ != nullptr) {
      std::fprintf(stderr, "; ");
      progress_(stderr, context_);
    }
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::_Exit(1);
  }

  const int me_;
  const char *const phase_;
  const int seconds_;
  const progress_printer progress_;
  const void *const context_;
  const std::chrono::steady_clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool disarmed_ = false;
  std::thread thread_;  // last: started once every member above is initialised
};
