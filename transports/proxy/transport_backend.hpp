// Executes proxy requests through a transport (ucx/ for the network; p2p in tests), synchronously: each
// request is complete when execute() returns, in the sense of `completed` in gpushmem/proxy_channel.h: a
// put's source read (reusable) and the data on its way in the channel's order; a get's data and a fetched
// value delivered to `local`; a quiet's earlier operations complete at their targets; a fence's earlier
// operations ordered before the later ones.
//
// Proxy channel c issues on transport channel `channels[c]` (the context its requests came from; 0, the
// default context, where not given), so a QUIET waits only for its own context's operations.
//
// A request that cannot be executed (an unknown op, region or AMO, a size that does not fit, a transport
// failure, a local buffer in GPU memory, which needs the staging path) is reported once with its channel,
// index and description, counted in failures(), and completed all the same, so that no producer waits for
// it; the first failure stays readable (first_failure()) for the runtime to turn into the device's sticky
// error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proxy/proxy_backend.hpp"
#include "transport.hpp"

namespace gpushmem::proxy {

class TransportBackend final : public Backend {
 public:
  TransportBackend(transport::Transport *t, std::vector<uint32_t> channels = {});

  bool execute(uint32_t channel, const Request &r) override;
  void progress(const std::function<void(uint32_t, uint64_t)> &) override {}

  uint64_t failures() const { return failures_; }
  const std::string &first_failure() const { return first_failure_; }

 private:
  Status run(uint32_t tchannel, const gpushmem_proxy_slot_t &s, const char **why);
  void fail(uint32_t channel, const Request &r, const char *why);

  transport::Transport *t_;
  std::vector<uint32_t> channels_;
  uint64_t failures_ = 0;
  std::string first_failure_;
};

}  // namespace gpushmem::proxy
