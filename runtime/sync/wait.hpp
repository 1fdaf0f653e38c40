// Spin-waiting that never hangs silently: it backs off from pause to yield, logs what it waits for every
// GPUSHMEM_HANG_WARN seconds, and gives up when the PE it waits for has left the job.
#pragma once

#include <sched.h>

#include <chrono>

#include "env/env.hpp"
#include "state.hpp"

namespace gpushmem::sync {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Reports a wait that has gone on for `waited_s` seconds; ends the job if `pe` left without finalize.
void report_long_wait(const char *call, int pe, const char *what, double waited_s);
// True when PE `pe` can no longer act (it finalized, exited or crashed).
bool peer_gone(int pe);
// Ends the job naming what became of `pe`.
[[noreturn]] void fail_peer_gone(const char *call, int pe, const char *what);

// Spins until ready() is true. `call` and `what` name the wait in messages; `pe` is the PE whose action
// ends it (-1: unknown).
template <class Ready>
void wait_until(Ready ready, const char *call, int pe, const char *what) {
  // A short spin catches the common case (the peer is already on its way) without a system call.
  for (int i = 0; i < 256; ++i) {
    if (ready()) return;
    cpu_relax();
  }
  // With more PEs than cores the awaited PE may need this core: yield at once instead of spinning on.
  const unsigned spin_limit = rt().oversubscribed ? 0u : 1u << 14;
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int64_t warn_s = env::get().GPUSHMEM_HANG_WARN;
  auto next_report = start + std::chrono::seconds(warn_s > 0 ? warn_s : 0);
  for (unsigned spins = 0;; ++spins) {
    if (ready()) return;
    // Stay responsive for the first spins, then leave the core to others (oversubscribed nodes).
    if (spins < spin_limit)
      cpu_relax();
    else
      sched_yield();
    if ((spins & 1023u) == 0) {
      // Re-check readiness: the peer may have acted and then left between our two looks.
      if (pe >= 0 && peer_gone(pe) && !ready()) fail_peer_gone(call, pe, what);
      auto now = clock::now();
      if (warn_s > 0 && now >= next_report) {
        report_long_wait(call, pe, what, std::chrono::duration<double>(now - start).count());
        next_report = now + std::chrono::seconds(warn_s);
      }
    }
  }
}

}  // namespace gpushmem::sync
