#include "sync/wait.hpp"

#include "api/api_common.hpp"

namespace gpushmem::sync {

void report_long_wait(const char *call, int pe, const char *what, double waited_s) {
  if (pe >= 0)
    GPUSHMEM_LOG_WARN(log::Subsys::sync, "%s: still waiting after %.0f s for PE %d (%s)", call, waited_s, pe, what);
  else
    GPUSHMEM_LOG_WARN(log::Subsys::sync, "%s: still waiting after %.0f s (%s)", call, waited_s, what);
}

bool peer_gone(int pe) {
  return rt().channel.state_of(pe) != node::PeerState::connected;
}

void fail_peer_gone(const char *call, int pe, const char *what) {
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
