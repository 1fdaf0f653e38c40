// Executes the device's proxy requests with the host API's network path (runtime/net): the same calls a host
// thread makes for a PE on another node, so a GPU-heap address is served by the target's memory agent and a
// local buffer in device memory is staged through host memory (net.cpp). Each request is complete when
// execute() returns (proxy/transport_backend.hpp says what that means per op).
//
// A request the transport cannot carry ends the job through net's reporting (naming the call and the PE), and
// so does a malformed one (an op, region or atomic outside the enums, a size that does not fit), named with
// its channel, index and description: its producer would otherwise go on with data that never came.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proxy/proxy_backend.hpp"

namespace gpushmem::proxy_rt {

// Where the device's view of a channel's bounce memory lies in the proxy's (they differ without UVA).
struct BounceView {
  uint64_t device = 0;  // the address producers put in a slot's local word
  uint8_t *host = nullptr;
  uint64_t bytes = 0;
};

class RuntimeBackend final : public proxy::Backend {
 public:
  // `serve_network`: progress() serves the network (false where another thread does: IBGDA's emulator).
  explicit RuntimeBackend(std::vector<BounceView> bounce, bool serve_network = true)
      : bounce_(std::move(bounce)), serve_network_(serve_network) {}

  bool execute(uint32_t channel, const proxy::Request &r) override;
  // Every request is complete when execute() returns, so nothing completes here. The proxy thread serves the
  // network instead, at most every kServeEveryNs: what peers send this PE (their puts, gets and atomics on its
  // GPU heap, their acknowledgements) waits for a progress call, and a GPU program's own thread usually sits in
  // cudaStreamSynchronize while the progress thread naps up to GPUSHMEM_PROGRESS_NAP_US once idle.
  void progress(const std::function<void(uint32_t, uint64_t)> &) override;

  static constexpr uint64_t kServeEveryNs = 5000;

 private:
  void *local(uint32_t channel, uint64_t device_address) const;
  const char *run(uint32_t channel, const gpushmem_proxy_slot_t &s);

  std::vector<BounceView> bounce_;
  bool serve_network_;
  uint64_t last_serve_ns_ = 0;  // the proxy thread's alone
};

}  // namespace gpushmem::proxy_rt
