// What the proxy service executes requests with: ucx/ for the network (and the staging path), a backend
// that does nothing for the drain benchmark and the emu tests.
#pragma once

#include <cstdint>
#include <functional>

#include "proxy/channel_consumer.hpp"

namespace gpushmem::proxy {

class Backend {
 public:
  virtual ~Backend() = default;
  // Starts request r of channel `channel`. True when it is complete already; otherwise the backend reports
  // its completion later, from progress().
  virtual bool execute(uint32_t channel, const Request &r) = 0;
  // Drives the requests in flight; calls done(channel, index) once for each that completed.
  virtual void progress(const std::function<void(uint32_t, uint64_t)> &done) = 0;
};

// Completes every request at once and does nothing else: the ring's own cost.
class NullBackend final : public Backend {
 public:
  bool execute(uint32_t, const Request &) override { return true; }
  void progress(const std::function<void(uint32_t, uint64_t)> &) override {}
};

// The name of an op in reports ("put", "amo_fetch", ...); "unknown op" for a value outside the enum.
const char *op_name(uint32_t op);

}  // namespace gpushmem::proxy
