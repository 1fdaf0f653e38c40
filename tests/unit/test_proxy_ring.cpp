// The proxy ring protocol driven by host producer threads through the same header and the same producer
// code device kernels use (gpushmem/proxy_producer.hpp with a std::atomic_ref memory policy), against the
// proxy service with a backend that records what it executes: order and content per channel, sequence
// wrap-around past 2^32, back-pressure on a ring of 8 slots (10^6 requests from many threads: nothing lost,
// no deadlock), the completed counter under out-of-order completion, and the watchdog's reports for a
// stalled proxy and a stalled network. Label emu.
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "core/cuda_call_watch.hpp"
#include "gpushmem/proxy_producer.hpp"
#include "proxy/proxy_cpus.hpp"
#include "proxy/proxy_service.hpp"
#include "proxy_host_mem.hpp"

namespace proxy = gpushmem::proxy;
using gpushmem::test::HostChannel;
using gpushmem::test::HostMem;

namespace {

// Records what it executes; completes at once, or (hold) keeps every request until release().
struct RecordingBackend final : proxy::Backend {
  std::mutex mu;
  std::vector<std::vector<proxy::Request>> seen;
  bool hold = false;
  std::vector<std::pair<uint32_t, uint64_t>> held, to_complete;
  explicit RecordingBackend(size_t channels) : seen(channels) {}
  bool execute(uint32_t channel, const proxy::Request &r) override {
    std::lock_guard<std::mutex> lock(mu);
    seen[channel].push_back(r);
    if (hold) held.emplace_back(channel, r.index);
    return !hold;
  }
  void progress(const std::function<void(uint32_t, uint64_t)> &done) override {
    std::vector<std::pair<uint32_t, uint64_t>> now;
    {
      std::lock_guard<std::mutex> lock(mu);
      now.swap(to_complete);
    }
    for (auto &[ch, idx] : now) done(ch, idx);
  }
  // Completes the held requests, in the order given.
  void release(std::vector<std::pair<uint32_t, uint64_t>> order) {
    std::lock_guard<std::mutex> lock(mu);
    to_complete.insert(to_complete.end(), order.begin(), order.end());
  }
};

gpushmem_proxy_slot_t body_for(uint32_t producer, uint64_t k) {
  gpushmem_proxy_slot_t b{};
  b.remote = gpushmem_proxy_remote(k * 8, 1);
  b.local = 0x1000 + k;
  b.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(k % 4096), producer);
  b.value = (uint64_t(producer) << 40) | k;
  b.compare = ~k;
  b.cookie = gpushmem_proxy_cookie(producer % 256, 0, producer, 0);
  return b;
}

// Produces `count` requests on channel c (one slot each, or `group` at a time as a warp would). False when a
// reservation failed (no Catch2 assertion here: producers run on threads of their own).
bool produce(const gpushmem_proxy_channel_t &c, uint32_t producer, uint64_t count, uint32_t group = 1) {
  for (uint64_t k = 0; k < count; k += group) {
    uint64_t first = 0;
    const uint32_t n = static_cast<uint32_t>(count - k < group ? count - k : group);
    if (proxy::reserve<HostMem>(c, n, &first, 0) != proxy::Room::ok) return false;
    for (uint32_t i = 0; i < n; ++i)
      proxy::publish<HostMem>(c, first + i, body_for(producer, k + i), GPUSHMEM_PROXY_OP_PUT, 0, producer % 4);
  }
  return true;
}

}  // namespace

TEST_CASE("proxy ring: one producer's requests arrive in order with their contents", "[proxy][emu]") {
  HostChannel ch(16);
  RecordingBackend be(1);
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  REQUIRE(produce(ch.c, 7, 10));
  CHECK(svc.poll_once() == 10);
  REQUIRE(be.seen[0].size() == 10);
  for (uint64_t k = 0; k < 10; ++k) {
    const proxy::Request &r = be.seen[0][k];
    CHECK(r.index == k);
    CHECK(gpushmem_proxy_header_seq(r.slot.header) == k);
    CHECK(gpushmem_proxy_header_op(r.slot.header) == GPUSHMEM_PROXY_OP_PUT);
    CHECK(gpushmem_proxy_header_state(r.slot.header) == GPUSHMEM_PROXY_WRITTEN);
    CHECK(gpushmem_proxy_header_pe(r.slot.header) == 3);
    CHECK(r.slot.value == ((uint64_t(7) << 40) | k));
    CHECK(r.slot.local == 0x1000 + k);
    CHECK(r.slot.compare == ~k);
  }
  CHECK(ch.control.tail == 10);
  CHECK(ch.control.completed == 10);
  CHECK(svc.poll_once() == 0);  // nothing more published
}

TEST_CASE("proxy stats: requests counted and timed per kind, empty rounds counted", "[proxy][emu]") {
  HostChannel ch(16);
  RecordingBackend be(1);
  proxy::ServiceOptions o;
  o.stats = true;
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  REQUIRE(produce(ch.c, 1, 3));  // three puts
  uint64_t first = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &first, 0) == proxy::Room::ok);
  proxy::publish<HostMem>(ch.c, first, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_QUIET, 0, 0);
  CHECK(svc.poll_once() == 4);
  CHECK(svc.poll_once() == 0);
  CHECK(svc.poll_once() == 0);
  const std::vector<std::string> lines = svc.stats_report();
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("put: 3 requests, ", 0) == 0);
  CHECK(lines[0].find("mean and") != std::string::npos);
  CHECK(lines[1].rfind("quiet: 1 requests, ", 0) == 0);
  CHECK(lines[2] == "4 requests taken, 2 rounds found none");
}

TEST_CASE("proxy stats: off by default, the report then counts nothing per kind", "[proxy][emu]") {
  HostChannel ch(16);
  RecordingBackend be(1);
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  REQUIRE(produce(ch.c, 1, 2));
  CHECK(svc.poll_once() == 2);
  const std::vector<std::string> lines = svc.stats_report();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "2 requests taken, 0 rounds found none");
}

TEST_CASE("proxy ring: a reserved slot not yet published holds back the ones after it", "[proxy][emu]") {
  HostChannel ch(8);
  RecordingBackend be(1);
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  uint64_t a = 0, b = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &a, 0) == proxy::Room::ok);
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &b, 0) == proxy::Room::ok);
  proxy::publish<HostMem>(ch.c, b, body_for(1, 1), GPUSHMEM_PROXY_OP_PUT, 0, 1);
  CHECK(svc.poll_once() == 0);
  proxy::publish<HostMem>(ch.c, a, body_for(1, 0), GPUSHMEM_PROXY_OP_GET, 0, 1);
  CHECK(svc.poll_once() == 2);
  REQUIRE(be.seen[0].size() == 2);
  CHECK(gpushmem_proxy_header_op(be.seen[0][0].slot.header) == GPUSHMEM_PROXY_OP_GET);
  CHECK(gpushmem_proxy_header_op(be.seen[0][1].slot.header) == GPUSHMEM_PROXY_OP_PUT);
}

TEST_CASE("proxy ring: the sequence wraps past 2^32 and a stale lap is never taken", "[proxy][emu]") {
  const uint64_t start = (1ull << 32) - 5;  // the 32-bit seq wraps five slots in
  HostChannel ch(8, start);
  RecordingBackend be(1);
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  // A stale header whose seq matches the low bits of an index one 2^32 lap later must not be taken either:
  // the slot's header is exactly what was published for index start - 8 (same ring position, earlier lap).
  ch.ring[start & 7].header = gpushmem_proxy_header(start - 8, GPUSHMEM_PROXY_OP_PUT, 0, 0);
  CHECK(svc.poll_once() == 0);
  // Five laps of the 8-slot ring, each produced and then drained (producer and proxy share this thread).
  for (uint64_t lap = 0; lap < 5; ++lap) {
    for (uint64_t k = 0; k < 8; ++k) {
      uint64_t first = 0;
      REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &first, 0) == proxy::Room::ok);
      proxy::publish<HostMem>(ch.c, first, body_for(2, lap * 8 + k), GPUSHMEM_PROXY_OP_PUT, 0, 0);
    }
    CHECK(svc.poll_once() == 8);
  }
  REQUIRE(be.seen[0].size() == 40);
  for (uint64_t k = 0; k < 40; ++k) {
    CHECK(be.seen[0][k].index == start + k);
    CHECK(gpushmem_proxy_header_seq(be.seen[0][k].slot.header) == static_cast<uint32_t>(start + k));
    CHECK(be.seen[0][k].slot.value == ((uint64_t(2) << 40) | k));
  }
  CHECK(ch.control.completed == start + 40);
}

TEST_CASE("proxy ring: completed advances in slot order when the backend completes out of order", "[proxy][emu]") {
  HostChannel ch(8);
  RecordingBackend be(1);
  be.hold = true;
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  REQUIRE(produce(ch.c, 0, 4));
  CHECK(svc.poll_once() == 4);
  CHECK(ch.control.completed == 0);
  CHECK(ch.control.tail == 4);  // slots reusable once copied out, whatever the backend does
  be.release({{0, 2}, {0, 1}});
  svc.poll_once();
  CHECK(ch.control.completed == 0);  // request 0 is still in flight
  be.release({{0, 0}});
  svc.poll_once();
  CHECK(ch.control.completed == 3);
  be.release({{0, 3}});
  svc.poll_once();
  CHECK(ch.control.completed == 4);
  CHECK(proxy::completed_before<HostMem>(ch.c, 4));
  CHECK_FALSE(proxy::completed_before<HostMem>(ch.c, 5));
}

TEST_CASE("proxy ring: a full in-flight table back-pressures the ring", "[proxy][emu]") {
  HostChannel ch(8);
  RecordingBackend be(1);
  be.hold = true;
  proxy::Service svc(&be, {});
  svc.add_channel(ch.c);
  REQUIRE(produce(ch.c, 0, 8));
  CHECK(svc.poll_once() == 8);
  // The ring is free again (tail 8) but 8 requests are in flight: the next 8 wait in the ring.
  REQUIRE(produce(ch.c, 0, 8));
  CHECK(svc.poll_once() == 0);
  uint64_t first = 0;
  CHECK(proxy::reserve<HostMem>(ch.c, 1, &first, 2000000) == proxy::Room::timed_out);  // 2 ms: truly full
  CHECK(ch.control.help == 17);  // the producer asked for help up to the end of its reservation
  std::vector<std::pair<uint32_t, uint64_t>> all;
  for (uint64_t i = 0; i < 8; ++i) all.emplace_back(0, i);
  be.release(all);
  svc.poll_once();
  CHECK(ch.control.completed == 8);
  CHECK(svc.poll_once() == 8);  // the second eight
}

TEST_CASE("proxy ring: 10^6 requests from 4 threads through 8-slot rings, nothing lost", "[proxy][emu]") {
  constexpr int kThreads = 4, kChannels = 2;
  constexpr uint64_t kEach = 1000000 / kThreads;
  std::vector<std::unique_ptr<HostChannel>> chs;
  RecordingBackend be(kChannels);
  proxy::ServiceOptions o;
  o.batch = 4;
  proxy::Service svc(&be, o);
  for (int c = 0; c < kChannels; ++c) {
    chs.push_back(std::make_unique<HostChannel>(8));
    svc.add_channel(chs.back()->c);
  }
  svc.start();
  std::vector<std::thread> producers;
  std::atomic<int> failed{0};
  for (int t = 0; t < kThreads; ++t)
    producers.emplace_back([&, t] {
      if (!produce(chs[t % kChannels]->c, t, kEach, t % 3 == 0 ? 3 : 1)) failed.fetch_add(1);
    });
  for (auto &p : producers) p.join();
  CHECK(failed.load() == 0);
  const uint64_t start = proxy::Service::now_ns();
  while (svc.requests_taken() < kEach * kThreads && proxy::Service::now_ns() - start < 20000000000ull)
    std::this_thread::yield();
  svc.stop();
  REQUIRE(svc.requests_taken() == kEach * kThreads);
  // Per channel: indices dense and in order; per producer: its requests in the order it made them.
  for (int c = 0; c < kChannels; ++c) {
    const auto &seen = be.seen[c];
    REQUIRE(seen.size() == kEach * (kThreads / kChannels));
    std::vector<uint64_t> next(kThreads, 0);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < seen.size(); ++i) {
      if (seen[i].index != i) ++bad;
      const auto producer = static_cast<uint32_t>(seen[i].slot.size_event >> 32);
      const uint64_t k = seen[i].slot.value & ((1ull << 40) - 1);
      if (producer >= kThreads || (seen[i].slot.value >> 40) != producer || k != next[producer]) ++bad;
      if (producer < kThreads) next[producer] = k + 1;
    }
    CHECK(bad == 0);
    CHECK(chs[c]->control.completed == seen.size());
  }
}

// A watchdog of watchdog_ns (looking every period_ns; 0: its default) whose reports go to `reports`, under `mu`.
proxy::ServiceOptions watched(uint64_t watchdog_ns, uint64_t period_ns, std::mutex &mu,
                              std::vector<std::string> &reports) {
  proxy::ServiceOptions o;
  o.watchdog_ns = watchdog_ns;
  o.watchdog_period_ns = period_ns;
  o.report = [&mu, &reports](const std::string &line) {
    std::lock_guard<std::mutex> lock(mu);
    reports.push_back(line);
  };
  return o;
}

// Blocks in execute() until released, as the runtime's synchronous backend blocks in a quiet whose peer is gone; with
// in_cuda_call, inside a marked CUDA call, as a staging copy waits for CUDA's context lock while the application's
// thread holds it (a synchronous cudaMemcpy behind the kernel that waits on this proxy).
struct BlockingBackend final : proxy::Backend {
  std::atomic<int> inside{0};
  std::atomic<bool> release{false};
  bool in_cuda_call = false;
  bool execute(uint32_t, const proxy::Request &) override {
    std::optional<gpushmem::cuda_watch::InCudaCall> outer, nested;  // only the outermost counts
    if (in_cuda_call) {
      outer.emplace();
      nested.emplace();
    }
    inside.fetch_add(1);
    while (!release.load()) std::this_thread::yield();
    return true;
  }
  void progress(const std::function<void(uint32_t, uint64_t)> &) override {}
};

TEST_CASE("proxy watchdog: names the request the backend blocks in, and blames it for the ones behind it",
          "[proxy][emu]") {
  HostChannel ch(8);
  BlockingBackend be;
  std::mutex mu;
  std::vector<std::string> reports;
  // 1 s; the test looks itself (check_stuck)
  proxy::ServiceOptions o = watched(1000000000ull, 3600000000000ull, mu, reports);
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  uint64_t first = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 2, &first, 0) == proxy::Room::ok);
  gpushmem_proxy_slot_t quiet{};
  quiet.cookie = gpushmem_proxy_cookie(3, 1, 9, 0);
  proxy::publish<HostMem>(ch.c, first, quiet, GPUSHMEM_PROXY_OP_QUIET, 0, 0);
  const uint64_t t0 = proxy::Service::now_ns();
  svc.start();
  while (be.inside.load() == 0) std::this_thread::yield();
  // A put published while the proxy thread waits in the quiet.
  proxy::publish<HostMem>(ch.c, first + 1, body_for(5, 1), GPUSHMEM_PROXY_OP_PUT, 0, 1);
  CHECK(svc.check_stuck(t0 + 500000000ull) == 0);   // 0.5 s: not yet
  CHECK(svc.check_stuck(t0 + 2000000000ull) == 2);  // the quiet it waits in, and the put not taken behind it
  CHECK(svc.check_stuck(t0 + 5000000000ull) == 0);  // each named once
  be.release.store(true);
  svc.stop();
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].find("proxy channel 0: request 0 (ring slot 0, seq 0): quiet (CTA 9, warp 1, SM 3), in the "
                        "network layer for ") != std::string::npos);
  CHECK(reports[0].find("a PE this proxy wrote to, or the network, is stalled (the proxy thread waits in it)") !=
        std::string::npos);
  CHECK(reports[1].find("proxy channel 0: request 1 (ring slot 1, seq 1): put of 1 bytes to PE 1") !=
        std::string::npos);
  CHECK(reports[1].find("written but not taken by the proxy for") != std::string::npos);
  CHECK(reports[1].find("the proxy thread is waiting in the request named above") != std::string::npos);
}

TEST_CASE("proxy watchdog: a request stuck inside a CUDA call is blamed on CUDA's context lock, not on the peer",
          "[proxy][emu]") {
  HostChannel ch(8);
  BlockingBackend be;
  be.in_cuda_call = true;
  std::mutex mu;
  std::vector<std::string> reports;
  proxy::ServiceOptions o = watched(1000000000ull, 3600000000000ull, mu, reports);  // 1 s; the test looks itself
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  uint64_t first = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &first, 0) == proxy::Room::ok);
  gpushmem_proxy_slot_t b = body_for(5, 0);
  b.size_event = gpushmem_proxy_size_event(65536, 0);
  proxy::publish<HostMem>(ch.c, first, b, GPUSHMEM_PROXY_OP_GET, 0, 1);
  const uint64_t t0 = proxy::Service::now_ns();
  svc.start();
  while (be.inside.load() == 0) std::this_thread::yield();
  CHECK(svc.check_stuck(t0 + 500000000ull) == 0);   // first seen
  CHECK(svc.check_stuck(t0 + 2000000000ull) == 1);  // inside the request, and inside the CUDA call
  be.release.store(true);
  svc.stop();
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].find("get of 65536 bytes from PE 1") != std::string::npos);
  CHECK(reports[0].find("the proxy thread is inside a CUDA call: another thread of this process holds CUDA's "
                        "context lock") != std::string::npos);
  CHECK(reports[0].find("or the network is stalled") == std::string::npos);
}

// Executes at once, then blocks in progress() until released: a peer's operation on this PE's GPU heap whose copy
// does not finish.
struct BlockingProgressBackend final : proxy::Backend {
  std::atomic<int> executed{0};
  std::atomic<bool> in_progress{false}, release{false};
  bool execute(uint32_t, const proxy::Request &) override {
    executed.fetch_add(1);
    return true;
  }
  void progress(const std::function<void(uint32_t, uint64_t)> &) override {
    if (executed.load() == 0) return;
    in_progress.store(true);
    while (!release.load()) std::this_thread::yield();
  }
};

TEST_CASE(
    "proxy: a batch's completions reach the producers before a progress call that blocks, which the "
    "watchdog names",
    "[proxy][emu]") {
  HostChannel ch(8);
  BlockingProgressBackend be;
  std::mutex mu;
  std::vector<std::string> reports;
  // 1 s; the test looks itself (check_stuck)
  proxy::ServiceOptions o = watched(1000000000ull, 3600000000000ull, mu, reports);
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  uint64_t first = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &first, 0) == proxy::Room::ok);
  proxy::publish<HostMem>(ch.c, first, body_for(5, 1), GPUSHMEM_PROXY_OP_PUT, 0, 1);
  svc.start();
  while (!be.in_progress.load()) std::this_thread::yield();
  // The put is complete for its producer although the proxy thread sits in progress().
  CHECK(std::atomic_ref<uint64_t>(ch.control.completed).load() == 1);
  const uint64_t now = proxy::Service::now_ns();
  CHECK(svc.check_stuck(now) == 0);
  CHECK(svc.check_stuck(now + 2000000000ull) == 1);
  CHECK(svc.check_stuck(now + 3000000000ull) == 0);  // named once
  be.release.store(true);
  svc.stop();
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].find("proxy: the proxy thread has been in the network layer's progress for ") != std::string::npos);
  CHECK(reports[0].find("outside every request") != std::string::npos);
}

TEST_CASE("proxy watchdog: names a request the proxy has not taken, and one the network has not completed",
          "[proxy][emu]") {
  HostChannel ch(8);
  RecordingBackend be(1);
  be.hold = true;
  std::mutex mu;
  std::vector<std::string> reports;
  proxy::ServiceOptions o = watched(1000000000ull, 0, mu, reports);  // 1 s
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  uint64_t first = 0;
  REQUIRE(proxy::reserve<HostMem>(ch.c, 1, &first, 0) == proxy::Room::ok);
  gpushmem_proxy_slot_t b = body_for(5, 0);
  b.size_event = gpushmem_proxy_size_event(1024, 0);
  b.cookie = gpushmem_proxy_cookie(17, 2, 5, 0);
  proxy::publish<HostMem>(ch.c, first, b, GPUSHMEM_PROXY_OP_PUT, 0, 1);
  const uint64_t t0 = proxy::Service::now_ns();
  CHECK(svc.check_stuck(t0) == 0);                  // first look: nothing is old yet
  CHECK(svc.check_stuck(t0 + 500000000ull) == 0);   // 0.5 s
  CHECK(svc.check_stuck(t0 + 1500000000ull) == 1);  // 1.5 s: the proxy has not taken it
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].find("proxy channel 0: request 0 (ring slot 0, seq 0): put of 1024 bytes to PE 1 (CTA 5, "
                        "warp 2, SM 17), written but not taken by the proxy for 1.5 s: the proxy thread is "
                        "stalled") != std::string::npos);
  CHECK(svc.check_stuck(t0 + 2500000000ull) == 0);  // reported once
  // The proxy takes it; the backend never completes it.
  CHECK(svc.poll_once() == 1);
  const uint64_t t1 = proxy::Service::now_ns();
  CHECK(svc.check_stuck(t1 + 200000000ull) == 0);
  CHECK(svc.check_stuck(t1 + 3000000000ull) == 1);
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].find("proxy channel 0: request 0 (ring slot 0, seq 0): put of 1024 bytes to PE 1 (CTA 5, warp "
                        "2, SM 17), handed to the network") != std::string::npos);
  CHECK(reports[1].find("ago and not complete: PE 1 or the network is stalled") != std::string::npos);
  be.release({{0, 0}});
  svc.poll_once();
  CHECK(ch.control.completed == 1);
  CHECK(svc.check_stuck(t1 + 9000000000ull) == 0);
}

TEST_CASE("proxy watchdog thread reports a stalled network on its own", "[proxy][emu]") {
  HostChannel ch(8);
  RecordingBackend be(1);
  be.hold = true;
  std::mutex mu;
  std::vector<std::string> reports;
  proxy::ServiceOptions o = watched(50000000ull, 10000000ull, mu, reports);  // 50 ms, looks every 10 ms
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  svc.start();
  REQUIRE(produce(ch.c, 3, 1));
  const uint64_t start = proxy::Service::now_ns();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!reports.empty() || proxy::Service::now_ns() - start > 5000000000ull) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  svc.stop();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].find("PE 3 or the network is stalled") != std::string::npos);
}

TEST_CASE("proxy cpus: lists parse and print as the kernel writes them", "[proxy][emu]") {
  std::vector<int> c;
  REQUIRE(proxy::parse_cpu_list("0-3,8,10-11\n", &c));
  CHECK(c == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(proxy::format_cpu_list(c) == "0-3,8,10-11");
  REQUIRE(proxy::parse_cpu_list(" 5, 2,2 ", &c));
  CHECK(c == std::vector<int>{2, 5});
  for (const char *bad : {"", "a", "1-", "-1", "3-1", "1,,2", "1.5", "0-9999999"})
    CHECK_FALSE(proxy::parse_cpu_list(bad, &c));
  CHECK(c == std::vector<int>{2, 5});  // untouched by the failures
  CHECK(proxy::sysfs_bus_id("00000000:1B:00.0") == "0000:1b:00.0");
  CHECK(proxy::sysfs_bus_id("0000:00:06.0") == "0000:00:06.0");
  CHECK(proxy::sysfs_bus_id("10000:01:00.0") == "10000:01:00.0");
  CHECK(proxy::sysfs_bus_id("GPU-1234") == "");
}

TEST_CASE("proxy cpus: auto reads the GPU's local CPUs, a list and none are taken as given, within the allowed",
          "[proxy][emu]") {
  char dir[] = "/tmp/proxy_cpus_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string root = dir, dev = root + "/bus/pci/devices/0000:1b:00.0";
  std::filesystem::create_directories(dev);
  std::ofstream(dev + "/local_cpulist") << "4-7,12\n";
  const std::vector<int> allowed = {0, 1, 2, 3, 4, 5, 12};
  proxy::CpuChoice ch;
  std::string err;
  REQUIRE(proxy::choose_cpus("auto", "00000000:1B:00.0", root, allowed, &ch, &err));
  CHECK(ch.cpus == std::vector<int>{4, 5, 12});
  CHECK(ch.why == "on CPUs 4-5,12 (near GPU 0000:1b:00.0)");
  REQUIRE(proxy::choose_cpus("auto", "00000000:1C:00.0", root, allowed, &ch, &err));  // no such device
  CHECK(ch.cpus.empty());
  CHECK(ch.why.find("does not say which CPUs are near the GPU") != std::string::npos);
  REQUIRE(proxy::choose_cpus("auto", "0000:1b:00.0", root, {0, 1}, &ch, &err));  // near CPUs all off limits
  CHECK(ch.cpus.empty());
  CHECK(ch.why == "not pinned (the CPUs near GPU 0000:1b:00.0, 4-7,12, are none of those this process may use, 0-1)");
  REQUIRE(proxy::choose_cpus("none", "0000:1b:00.0", root, allowed, &ch, &err));
  CHECK(ch.cpus.empty());
  REQUIRE(proxy::choose_cpus("1-3,9", "", root, allowed, &ch, &err));
  CHECK(ch.cpus == std::vector<int>{1, 2, 3});
  CHECK(ch.why == "on CPUs 1-3 (GPUSHMEM_PROXY_CPUS)");
  CHECK_FALSE(proxy::choose_cpus("9-11", "", root, allowed, &ch, &err));
  CHECK(err == "GPUSHMEM_PROXY_CPUS='9-11' names no CPU this process may run on (it may use 0-5,12)");
  CHECK_FALSE(proxy::choose_cpus("fast", "", root, allowed, &ch, &err));
  CHECK(err == "GPUSHMEM_PROXY_CPUS='fast' is not auto, none or a CPU list such as 2,3 or 4-7");
  std::filesystem::remove_all(root);
}

TEST_CASE("proxy cpus: the service's thread runs on the CPUs it is given", "[proxy][emu]") {
  struct AffinityBackend final : proxy::Backend {
    std::vector<int> seen;
    bool execute(uint32_t, const proxy::Request &) override {
      seen = proxy::allowed_cpus();  // sched_getaffinity(0): the calling thread's
      return true;
    }
    void progress(const std::function<void(uint32_t, uint64_t)> &) override {}
  } be;
  const std::vector<int> allowed = proxy::allowed_cpus();
  REQUIRE_FALSE(allowed.empty());
  HostChannel ch(8);
  proxy::ServiceOptions o;
  o.cpus = {allowed.back()};
  proxy::Service svc(&be, o);
  svc.add_channel(ch.c);
  svc.start();
  REQUIRE(produce(ch.c, 1, 1));
  const double start = static_cast<double>(proxy::Service::now_ns());
  while (!proxy::completed_before<HostMem>(ch.c, 1) && proxy::Service::now_ns() - start < 10e9)
    std::this_thread::yield();
  svc.stop();
  CHECK(be.seen == std::vector<int>{allowed.back()});
  CHECK(proxy::allowed_cpus() == allowed);  // the caller's own affinity is untouched
}

TEST_CASE("proxy cpus: a process bound to one CPU is warned that its proxy shares it", "[proxy][emu]") {
  CHECK(proxy::crowded_warning({0, 1}).empty());
  CHECK(proxy::crowded_warning({}).empty());  // affinity unknown: nothing to say
  const std::string w = proxy::crowded_warning({5});
  CHECK(w.find("may run on CPU 5 only") != std::string::npos);
  CHECK(w.find("mpirun --bind-to none") != std::string::npos);
}
