// What the pe proxy tests' host threads do in place of device producers: publish one request into a channel laid
// out as a GPU's (the producer protocol of gpushmem/proxy_producer.hpp), and wait for the proxy to complete it,
// failing the test with what it waited for instead of hanging.
#pragma once

#include <cstdint>
#include <thread>

#include "gpushmem/proxy_producer.hpp"
#include "pe_check.h"
#include "proxy_host_mem.hpp"

namespace gpushmem::test {

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
