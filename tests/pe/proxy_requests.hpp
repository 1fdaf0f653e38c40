// What the pe proxy tests' host threads do in place of device producers: publish one request into a channel laid
// out as a GPU's (the producer protocol of gpushmem/proxy_producer.hpp), wait for the proxy to complete it (failing
// the test with what it waited for instead of hanging), and the proxy service itself.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <thread>

#include "gpushmem/proxy_producer.hpp"
#include "pe_check.h"
#include "proxy/proxy_service.hpp"
#include "proxy/runtime_backend.hpp"
#include "proxy_host_mem.hpp"

namespace gpushmem::test {

// This PE's proxy service on the runtime's backend (the network to the other PEs), draining `channels`.
struct RuntimeProxy {
  proxy_rt::RuntimeBackend backend{{}};
  proxy::Service service;
  RuntimeProxy(std::initializer_list<const gpushmem_proxy_channel_t *> channels, uint64_t watchdog_ns)
      : service(&backend, options(watchdog_ns)) {
    for (const gpushmem_proxy_channel_t *c : channels) service.add_channel(*c);
    service.start();
  }
  static proxy::ServiceOptions options(uint64_t watchdog_ns) {
    proxy::ServiceOptions o;
    o.watchdog_ns = watchdog_ns;
    return o;
  }
};

// Reserves, fills and publishes one request; returns its index.
inline uint64_t issue(const gpushmem_proxy_channel_t &c, const gpushmem_proxy_slot_t &body, uint32_t op, uint32_t flags,
                      int pe) {
  uint64_t index = 0;
  if (proxy::reserve<HostMem>(c, 1, &index, 20000000000ull) != proxy::Room::ok) PE_FAIL("no room in the ring for 20 s");
  proxy::publish<HostMem>(c, index, body, op, flags, static_cast<uint32_t>(pe));
  return index;
}

// Until the channel's requests before `until` are complete, at most limit_s seconds.
inline void wait_completed(const gpushmem_proxy_channel_t &c, uint64_t until, const char *what, double limit_s = 30) {
  const double start = pe_now_s();
  while (!proxy::completed_before<HostMem>(c, until)) {
    if (pe_now_s() - start > limit_s) {
      PE_FAIL("%s: request %llu not complete after %.0f s", what, static_cast<unsigned long long>(until - 1), limit_s);
      return;
    }
    std::this_thread::yield();
  }
}

}  // namespace gpushmem::test
