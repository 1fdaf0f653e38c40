#include "sync/wait.hpp"

#include <time.h>

#include "api/api_common.hpp"
#include "net/net.hpp"

namespace gpushmem::sync {

WaitPolicy wait_policy = WaitPolicy::automatic;

Status configure_waits(const std::string &policy) {
  if (policy == "auto" || policy.empty())
    wait_policy = WaitPolicy::automatic;
  else if (policy == "yield")
    wait_policy = WaitPolicy::yield;
  else if (policy == "sleep")
    wait_policy = WaitPolicy::sleep;
  else {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "GPUSHMEM_WAIT_POLICY='%s' is not a wait policy: use auto, yield or sleep",
                       policy.c_str());
    return Status::invalid_argument;
  }
  return Status::ok;
}

void nap(long ns) {
  struct timespec ts = {0, ns};
  nanosleep(&ts, nullptr);
}

void report_long_wait(const char *call, int pe, const char *what, double waited_s, const std::string &more) {
  const char *sep = more.empty() ? "" : "; ";
  if (pe >= 0)
    GPUSHMEM_LOG_WARN(log::Subsys::sync, "%s: still waiting after %.0f s for PE %d (%s%s%s)", call, waited_s, pe, what,
                      sep, more.c_str());
  else
    GPUSHMEM_LOG_WARN(log::Subsys::sync, "%s: still waiting after %.0f s (%s%s%s)", call, waited_s, what, sep,
                      more.c_str());
}

void StoppedPeers::look(const char *call, const char *what, std::chrono::steady_clock::time_point now) {
  if (now < next_look_) return;
  next_look_ = now + std::chrono::seconds(1);
  const node::PeerChannel &ch = rt().channel;
  const std::vector<int> &pes = ch.local_pes();
  if (since_.size() != pes.size()) since_.assign(pes.size(), {});
  const auto limit = std::chrono::seconds(env::get().GPUSHMEM_BOOTSTRAP_TIMEOUT);
  for (size_t i = 0; i < pes.size(); ++i) {
    int pid = 0;
    if (pes[i] == rt().my_pe || !ch.is_stopped(pes[i], &pid)) {
      since_[i] = {};
      continue;
    }
    if (since_[i] == std::chrono::steady_clock::time_point{}) since_[i] = now;
    if (now - since_[i] > limit)
      api::fail(call,
                "PE %d (pid %d, on this node) has been stopped (SIGSTOP, or a debugger) for more than "
                "GPUSHMEM_BOOTSTRAP_TIMEOUT=%lld s while this PE waits (%s): giving up on it",
                pes[i], pid, static_cast<long long>(env::get().GPUSHMEM_BOOTSTRAP_TIMEOUT), what);
  }
}

bool peer_gone(int pe) {
  return rt().channel.state_of(pe) != node::PeerState::connected || net::peer_lost(pe);
}

void fail_peer_gone(const char *call, int pe, const char *what) {
  if (net::peer_lost(pe))
    api::fail(call, "PE %d was lost while this PE waits for it (%s): %s", pe, what, net::peer_lost_text(pe).c_str());
  switch (rt().channel.state_of(pe)) {
    case node::PeerState::connected:
      break;
    case node::PeerState::finalized:
      api::fail(call,
                "PE %d called shmem_finalize while this PE waits for it (%s): the PEs disagree on the "
                "sequence of collective calls",
                pe, what);
    case node::PeerState::exited_without_finalize:
      api::fail(call, "PE %d exited without shmem_finalize while this PE waits for it (%s)", pe, what);
    case node::PeerState::crashed:
      api::fail(call, "PE %d crashed while this PE waits for it (%s)", pe, what);
  }
  api::fail(call, "PE %d left while this PE waits for it (%s)", pe, what);
}

}  // namespace gpushmem::sync
