// Host producers for the proxy tests (label emu): the memory operations of gpushmem/proxy_producer.hpp for
// host threads (every word is host memory here), and a channel in host memory laid out as the runtime lays
// out a device one.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gpushmem/proxy_channel.h"
#include "proxy/proxy_service.hpp"

namespace gpushmem::test {

// The memory operations of proxy_producer.hpp for host threads: every word is host memory here.
struct HostMem {
  static uint64_t fetch_add(uint64_t *w, uint64_t n) {
    return std::atomic_ref<uint64_t>(*w).fetch_add(n, std::memory_order_relaxed);
  }
  static uint64_t load_relaxed(const uint64_t *w) {
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(w)).load(std::memory_order_relaxed);
  }
  static void raise(uint64_t *w, uint64_t v) {
    std::atomic_ref<uint64_t> a(*w);
    uint64_t seen = a.load(std::memory_order_relaxed);
    while (seen < v && !a.compare_exchange_weak(seen, v, std::memory_order_release, std::memory_order_relaxed)) {
    }
  }
  static uint64_t load_acquire(const uint64_t *w) {
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(w)).load(std::memory_order_acquire);
  }
  static bool try_claim(uint64_t *w) {
    uint64_t expected = 0;
    return std::atomic_ref<uint64_t>(*w).compare_exchange_strong(expected, 1, std::memory_order_acquire,
                                                                 std::memory_order_relaxed);
  }
  static void unclaim(uint64_t *w) { std::atomic_ref<uint64_t>(*w).store(0, std::memory_order_release); }
  static uint64_t load_host(const uint64_t *w) {
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(w)).load(std::memory_order_acquire);
  }
  static void store_host(uint64_t *w, uint64_t v) { std::atomic_ref<uint64_t>(*w).store(v, std::memory_order_relaxed); }
  static void write_body(gpushmem_proxy_slot_t *s, const gpushmem_proxy_slot_t &v) {
    // Word by word, as relaxed atomics: the proxy may read a stale lap's words concurrently (it rejects the
    // slot by its header, but the reads must not be a data race).
    const uint64_t *from = &v.header;
    uint64_t *to = &s->header;
    for (int i = 1; i < 8; ++i) std::atomic_ref<uint64_t>(to[i]).store(from[i], std::memory_order_relaxed);
  }
  static void publish(gpushmem_proxy_slot_t *s, uint64_t header) {
    std::atomic_ref<uint64_t>(s->header).store(header, std::memory_order_release);
  }
  static uint64_t now_ns() { return gpushmem::proxy::Service::now_ns(); }
  static void backoff(uint32_t *ns) {
    if (*ns < 1000) {
      std::this_thread::yield();
    } else {
      timespec t = {0, static_cast<long>(*ns)};
      nanosleep(&t, nullptr);
    }
    *ns = *ns * 2 < 8000 ? *ns * 2 : 8000;
  }
};

// A channel in host memory: ring, control block, device words.
struct HostChannel {
  std::vector<gpushmem_proxy_slot_t> ring;
  gpushmem_proxy_control_t control{};
  gpushmem_proxy_device_words_t words{};
  gpushmem_proxy_channel_t c{};
  explicit HostChannel(uint32_t capacity, uint64_t start = 0) : ring(capacity) {
    std::memset(ring.data(), 0xee, ring.size() * sizeof ring[0]);  // garbage bodies ...
    for (uint32_t p = 0; p < capacity; ++p) ring[p].header = gpushmem_proxy_free_header(start, capacity, p);  // ...
    // ... and headers one lap old: no slot looks published at start
    control.tail = control.completed = words.head = words.tail_cache = start;
    c = {ring.data(), &control, &words, capacity, capacity * 3 / 4, nullptr, nullptr};
  }
};

}  // namespace gpushmem::test
