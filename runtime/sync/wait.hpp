// Spin-waiting that never hangs silently: it backs off from pause to yield (or to sleeping, with
// GPUSHMEM_WAIT_POLICY=sleep), logs what it waits for every GPUSHMEM_HANG_WARN seconds, and gives up when the
// PE it waits for has left the job.
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "env/env.hpp"
#include "net/net.hpp"
#include "state.hpp"

namespace gpushmem::sync {

// GPUSHMEM_WAIT_POLICY: what a wait does once its short spin has not seen the event.
enum class WaitPolicy : int {
  automatic,  // pause-spin a while, then sched_yield (at once on an oversubscribed node)
  yield,      // sched_yield at once
  sleep,      // nanosleep, 1 us doubling to kMaxNapNs: leaves the core to other work
};
constexpr long kMaxNapNs = 100 * 1000;
// Longer than this between two looks at the clock of one wait (normally well under a second, 1024 polls):
// the PE was not running.
constexpr std::chrono::seconds kNotRunningGap{5};
extern WaitPolicy wait_policy;  // set by configure_waits at shmem_init; read by every wait
// Parses GPUSHMEM_WAIT_POLICY (auto, yield, sleep); logs and returns invalid_argument for anything else.
[[nodiscard]] Status configure_waits(const std::string &policy);
// Sleeps `ns` nanoseconds (the sleep policy's step).
void nap(long ns);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Reports a wait that has gone on for `waited_s` seconds; `more` (may be empty) is appended to what it waits
// for (who else is late, when the waiter can tell).
void report_long_wait(const char *call, int pe, const char *what, double waited_s, const std::string &more);
// True when PE `pe` can no longer act (it finalized, exited or crashed).
bool peer_gone(int pe);
// Ends the job naming what became of `pe`.
[[noreturn]] void fail_peer_gone(const char *call, int pe, const char *what);

// One wait's watch over the PEs of this node: a PE that stays stopped (SIGSTOP, a debugger) for longer than
// GPUSHMEM_BOOTSTRAP_TIMEOUT ends the job, named, instead of holding up every PE that waits for it. Looks
// at most once a second, from the wait's slow path.
class StoppedPeers {
 public:
  void look(const char *call, const char *what, std::chrono::steady_clock::time_point now);

 private:
  std::chrono::steady_clock::time_point next_look_{};
  std::vector<std::chrono::steady_clock::time_point> since_;  // by local index; epoch: not seen stopped
};

// Serves what the network holds for this PE (waiting for other threads inside it) until ready() or nothing
// arrives for a short grace (a departed peer's last messages may still be on their way).
template <class Ready>
bool drain_network(transport::Transport *t, Ready &ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  do {
    while (t->progress(false))
      if (ready()) return true;
    if (ready()) return true;
    sched_yield();
  } while (std::chrono::steady_clock::now() < until);
  return ready();
}

// Spins until ready() is true. `call` and `what` name the wait in messages; `pe` is the PE whose action
// ends it (-1: unknown). explain() (called only for a report) may add who else is late.
template <class Ready, class Explain>
void wait_until_explained(Ready ready, const char *call, int pe, const char *what, Explain explain) {
  // A short spin catches the common case (the peer is already on its way) without a system call. Not when
  // the event comes through the network: it lands only when this thread progresses it (below).
  transport::Transport *const net_active = net::active();
  const bool through_network = net_active != nullptr && (pe < 0 || rt().p2p.heap_base(pe) == nullptr);
  for (int i = through_network ? 256 : 0; i < 256; ++i) {
    if (ready()) return;
    cpu_relax();
  }
  // With more PEs than cores the awaited PE may need this core: yield at once instead of spinning on. The
  // yield and sleep policies leave the core at once too.
  const WaitPolicy policy = wait_policy;
  const unsigned spin_limit = rt().oversubscribed || policy != WaitPolicy::automatic ? 0u : 1u << 14;
  long nap_ns = 1000;
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  const int64_t warn_s = env::get().GPUSHMEM_HANG_WARN;
  // This thread progresses the network itself from here on: the progress thread steps back.
  net::WaitScope driving;
  auto next_report = start + std::chrono::seconds(warn_s > 0 ? warn_s : 0);
  auto last_look = start;
  StoppedPeers stopped;
  for (unsigned spins = 0;; ++spins) {
    if (ready()) return;
    // Operations aimed at this PE over the network land when its worker progresses (UCX over TCP): the
    // waiting thread drives it itself rather than wait for the progress thread's wake-up.
    if (net_active != nullptr) [[unlikely]]
      net_active->progress(true);
    // Stay responsive for the first spins, then leave the core to others (oversubscribed nodes).
    if (spins < spin_limit) {
      cpu_relax();
    } else if (policy == WaitPolicy::sleep) {
      nap(nap_ns);
      nap_ns = nap_ns * 2 < kMaxNapNs ? nap_ns * 2 : kMaxNapNs;
    } else {
      sched_yield();
    }
    if ((spins & 1023u) == 0) {
      // Re-check readiness: the peer may have acted and then left between our two looks, and what it sent
      // through the network before it left may still wait here to be served.
      if (pe >= 0 && peer_gone(pe) && !ready() && !(net_active != nullptr && drain_network(net_active, ready)))
        fail_peer_gone(call, pe, what);
      auto now = clock::now();
      // This PE did not run for a while (stopped with SIGSTOP, its machine suspended): it did not wait
      // then, so the gap is left out of what it reports (a resumed PE would blame the PE it waits for).
      if (now - last_look > kNotRunningGap) {
        start += now - last_look;
        next_report += now - last_look;
      }
      last_look = now;
      stopped.look(call, what, now);
      if (warn_s > 0 && now >= next_report) {
        report_long_wait(call, pe, what, std::chrono::duration<double>(now - start).count(), explain());
        next_report = now + std::chrono::seconds(warn_s);
      }
    }
  }
}

// For a dissemination barrier's hang report: "not arrived yet: PE a, PE b" for the members p of n whose first
// arrival (the word round0(q) of the next member q = p + 1, nullptr where this PE cannot read it) is below
// `epoch`, world_pe(p) naming each; empty when every readable member arrived. *unseen (when not nullptr)
// counts the members whose word could not be read.
template <class Round0, class WorldPe>
std::string not_arrived(int n, uint64_t epoch, Round0 round0, WorldPe world_pe, int *unseen = nullptr) {
  std::string names;
  for (int p = 0; p < n; ++p) {
    const uint64_t *word = round0((p + 1) % n);
    if (word == nullptr) {
      if (unseen != nullptr) ++*unseen;
      continue;
    }
    if (std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(word)).load(std::memory_order_acquire) < epoch)
      names += (names.empty() ? "not arrived yet: PE " : ", PE ") + std::to_string(world_pe(p));
  }
  return names;
}

template <class Ready>
void wait_until(Ready ready, const char *call, int pe, const char *what) {
  wait_until_explained(ready, call, pe, what, [] { return std::string(); });
}

}  // namespace gpushmem::sync
