#include "proxy/thread_stack.hpp"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace gpushmem::proxy {
namespace {

constexpr int kSignal = SIGURG;
constexpr int kFrames = 64;

std::mutex g_mu;                    // one report at a time
std::atomic<pthread_t> g_target{};  // the thread asked now
char g_title[256];                  // what the asked thread writes before its stack
std::atomic<bool> g_asking{false};  // a report is under way
std::atomic<bool> g_done{false};
struct sigaction g_previous {};
std::once_flag g_installed;

void write_all(const char *s, size_t n) {
  while (n != 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void on_signal(int sig, siginfo_t *info, void *context) {
  if (!g_asking.load(std::memory_order_acquire) ||
      !pthread_equal(pthread_self(), g_target.load(std::memory_order_relaxed))) {
    // Not ours: whoever handled it before.
    if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr)
      g_previous.sa_sigaction(sig, info, context);
    else if (g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != nullptr)
      g_previous.sa_handler(sig);
    return;
  }
  void *frames[kFrames];
  const int n = backtrace(frames, kFrames);
  write_all(g_title, strlen(g_title));
  write_all("\n", 1);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  g_done.store(true, std::memory_order_release);
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(kSignal, &sa, &g_previous);
}

}  // namespace

void prepare_stack_report() {
  std::call_once(g_installed, install);
  void *frames[2];
  (void)backtrace(frames, 2);  // the first call loads libgcc's unwinder (it allocates): not in the handler
}

bool report_thread_stack(pthread_t thread, const char *title) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_target.store(thread, std::memory_order_relaxed);
  g_done.store(false, std::memory_order_relaxed);
  strncpy(g_title, title, sizeof g_title - 1);
  g_title[sizeof g_title - 1] = '\0';
  g_asking.store(true, std::memory_order_release);
  bool done = false;
  if (pthread_kill(thread, kSignal) == 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!(done = g_done.load(std::memory_order_acquire)) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  g_asking.store(false, std::memory_order_release);  // a late signal writes nothing
  return done;
}

}  // namespace gpushmem::proxy
