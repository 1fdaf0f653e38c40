// The IBGDA producer protocol (gpushmem/ibgda_producer.hpp) run by host threads with std::atomic_ref memory
// operations against the NIC emulator: many threads on one QP (nothing lost, nothing twice, every payload where
// it belongs), a send queue of 8 blocks under 8 threads (flow control through the collapsed CQ, no deadlock),
// the doorbell batching decisions at each batch size, aggregated posts rung only by quiet, quiet returning only once
// the data is in place, and an error CQE surfacing in quiet with its syndrome and WQE. Label emu.
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "gpushmem/ibgda_producer.hpp"
#include "ibgda/emu/nic_emulator.hpp"
#include "ibgda_host_mem.hpp"
#include "ibgda_host_qp.hpp"
#include "sanitized.hpp"

namespace emu = gpushmem::ibgda::emu;
namespace ibgda = gpushmem::ibgda;
namespace mlx5 = gpushmem::mlx5;

namespace {

using gpushmem::test::IbgdaHostMem;
using HostMem = IbgdaHostMem;

uint64_t addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

// One QP in host memory, registered with an emulator whose target is `remote` (all access) and whose local keys
// cover `local`.
struct Rig {
  emu::KeyTable local_keys, remote_keys;
  emu::LocalTarget target{&remote_keys};
  std::vector<uint8_t> local, remote;
  uint32_t lkey = 0, rkey = 0;
  gpushmem::test::IbgdaHostQp host;
  gpushmem_ibgda_qp_t &qp = host.qp;
  gpushmem_ibgda_qp_words_t &words = host.words;
  uint8_t *sq = host.sq;
  uint32_t *dbrec = host.dbrec;
  emu::NicEmulator nic;

  Rig(uint32_t wqebbs, uint32_t batch, size_t bytes = 1 << 20)
      : local(bytes), remote(bytes), host(0x77, wqebbs, batch) {
    lkey = local_keys.add(local.data(), local.size(), emu::kLocalWrite);
    rkey = remote_keys.add(remote.data(), remote.size(), emu::kAllAccess);
    nic.add_qp(host.config(&local_keys, &target));
  }
  ~Rig() { nic.stop(); }
  mlx5::Local l(size_t off) { return {addr(local.data() + off), lkey}; }
  mlx5::Remote r(size_t off) { return {addr(remote.data() + off), rkey}; }
};

constexpr uint64_t kTimeout = 20'000'000'000ull;  // 20 s: a hang fails the test instead of the job

}  // namespace

TEST_CASE("ibgda producer: many threads on one QP, every WQE executed once and in its place", "[emu]") {
  const uint32_t wqebbs = GENERATE(8u, 64u);
  Rig rig(wqebbs, 4);
  rig.nic.start();
  constexpr int kThreads = 8, kPerThread = gpushmem::test::kSanitized ? 1000 : 3000;
  // Each thread writes its own 8-byte slots inline (value = thread << 32 | i) and adds 1 to a shared counter
  // every 10th post; the counter is an 8-byte masked compare-swap or (two blocks) every 7th.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const uint64_t value = (uint64_t{static_cast<uint32_t>(t)} << 32) | static_cast<uint32_t>(i);
        const size_t slot = 4096 + (static_cast<size_t>(t) * kPerThread + static_cast<size_t>(i)) * 8;
        ibgda::Outcome o;
        if (i % 7 == 3) {
          o = ibgda::post<HostMem>(
              rig.qp, 2,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                mlx5::build_masked_compare_swap(w, p, rig.r(64), rig.l(128 + static_cast<size_t>(t) * 8), 8, 1ull << t,
                                                0, 1ull << t, 0);
              },
              false, kTimeout);
          if (o == ibgda::Outcome::ok)  // the slot is written too, so the data check below stays uniform
            o = ibgda::post<HostMem>(
                rig.qp, 1,
                [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                  mlx5::build_write_inline(w, p, rig.r(slot), &value, 8);
                },
                false, kTimeout);
        } else {
          o = ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                mlx5::build_write_inline(w, p, rig.r(slot), &value, 8);
              },
              false, kTimeout);
        }
        if (o == ibgda::Outcome::ok && i % 10 == 0)
          o = ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                mlx5::build_fetch_add(w, p, rig.r(0), rig.l(static_cast<size_t>(t) * 8), 1);
              },
              false, kTimeout);
        if (o != ibgda::Outcome::ok) {
          failures.fetch_add(1);
          return;
        }
      }
      if (ibgda::quiet<HostMem>(rig.qp, kTimeout) != ibgda::Outcome::ok) failures.fetch_add(1);
    });
  for (auto &t : threads) t.join();
  REQUIRE(failures.load() == 0);
  rig.nic.stop();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i) {
      uint64_t got;
      std::memcpy(&got, &rig.remote[4096 + (static_cast<size_t>(t) * kPerThread + static_cast<size_t>(i)) * 8], 8);
      REQUIRE(got == ((uint64_t{static_cast<uint32_t>(t)} << 32) | static_cast<uint32_t>(i)));
    }
  uint64_t counter, bits;
  std::memcpy(&counter, &rig.remote[0], 8);
  std::memcpy(&bits, &rig.remote[64], 8);
  CHECK(counter == uint64_t{kThreads} * (kPerThread / 10));
  CHECK(bits == (1ull << kThreads) - 1);
  const emu::EmulatorCounters c = rig.nic.counters();
  CHECK(c.errors == 0);
  uint64_t per_thread = 0;
  for (int i = 0; i < kPerThread; ++i) per_thread += 1 + (i % 7 == 3 ? 1 : 0) + (i % 10 == 0 ? 1 : 0);
  CHECK(c.wqes == per_thread * kThreads);  // every WQE executed once
}

TEST_CASE("ibgda producer: doorbell batching decisions", "[emu]") {
  // 64 WQEs reserved before any is published (64 warps holding reservations), then published in order: only the
  // last is the newest reservation, so the others ring only once `batch` blocks wait unrung. Doorbells:
  // ceil(64 / batch), and one for a batch larger than the lot (the newest rings).
  for (uint32_t batch : {1u, 4u, 16u, 64u, 1000u}) {
    Rig rig(64, batch);
    std::vector<uint64_t> first(64);
    for (auto &f : first) REQUIRE(ibgda::reserve<HostMem>(rig.qp, 1, &f, kTimeout) == ibgda::Outcome::ok);
    for (size_t k = 0; k < first.size(); ++k) {
      const uint64_t value = 1000 + k;
      gpushmem_mlx5_wqe_t w;
      mlx5::build_write_inline(&w, {static_cast<uint32_t>(first[k]), rig.qp.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE},
                               rig.r(k * 8), &value, 8);
      ibgda::write<HostMem>(rig.qp, first[k], w);
      ibgda::publish<HostMem>(rig.qp, first[k], 1, false);
    }
    const uint64_t expected = batch >= 64 ? 1 : (64 + batch - 1) / batch;
    INFO("batch " << batch);
    CHECK(rig.words.doorbells == expected);
    CHECK(rig.words.rung == 64);
    rig.nic.start();
    REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
    for (size_t k = 0; k < 64; ++k) {
      uint64_t got;
      std::memcpy(&got, &rig.remote[k * 8], 8);
      REQUIRE(got == 1000 + k);
    }
    CHECK(rig.nic.counters().wqes == 64);
  }
}

TEST_CASE("ibgda producer: threads posting at once never ring more than once a WQE", "[emu]") {
  // 4 threads x 4096 posts (1024 under a sanitizer) through a 256-block queue at each batch size: every payload lands,
  // and a publisher rings only as the newest reservation or past the batch (how much that saves depends on how often
  // the threads overlap, which a 2-core host does not promise).
  for (uint32_t batch : {1u, 16u}) {
    Rig rig(256, batch);
    rig.nic.start();
    constexpr int kThreads = 4, kPerThread = gpushmem::test::kSanitized ? 1024 : 4096;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const uint64_t value = static_cast<uint64_t>(t * kPerThread + i);
          if (ibgda::post<HostMem>(
                  rig.qp, 1,
                  [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                    mlx5::build_write_inline(w, p, rig.r(static_cast<size_t>(value) * 8), &value, 8);
                  },
                  false, kTimeout) != ibgda::Outcome::ok)
            failures.fetch_add(1);
        }
      });
    for (auto &t : threads) t.join();
    REQUIRE(failures.load() == 0);
    REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
    CHECK(rig.words.doorbells >= 1);
    CHECK(rig.words.doorbells <= uint64_t{kThreads} * kPerThread);
    for (int v = 0; v < kThreads * kPerThread; ++v) {
      uint64_t got;
      std::memcpy(&got, &rig.remote[static_cast<size_t>(v) * 8], 8);
      REQUIRE(got == static_cast<uint64_t>(v));
    }
  }
}

TEST_CASE("ibgda producer: aggregated posts wait for quiet's doorbell", "[emu]") {
  Rig rig(64, 1000);
  // No emulator thread: the test polls it, so "nothing rung" is observable.
  uint64_t value = 0x1234;
  for (int i = 0; i < 10; ++i) {
    REQUIRE(ibgda::post<HostMem>(
                rig.qp, 1,
                [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                  mlx5::build_write_inline(w, p, rig.r(static_cast<size_t>(i) * 8), &value, 8);
                },
                true, kTimeout) == ibgda::Outcome::ok);
  }
  CHECK(rig.words.doorbells == 0);
  CHECK(rig.nic.poll_once() == 0);  // the record has not moved
  CHECK(rig.words.ready == 10);
  // quiet rings once and waits for the last WQE's CQE (the emulator thread takes them now).
  rig.nic.start();
  REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
  CHECK(rig.words.doorbells == 1);
  for (int i = 0; i < 10; ++i) {
    uint64_t got;
    std::memcpy(&got, &rig.remote[static_cast<size_t>(i) * 8], 8);
    CHECK(got == 0x1234);
  }
}

TEST_CASE("ibgda producer: an error CQE surfaces in quiet with its syndrome and WQE", "[emu]") {
  Rig rig(16, 1);
  rig.nic.start();
  uint64_t value = 5;
  uint64_t bad = 0;
  REQUIRE(ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(0), &value, 8); },
              false, kTimeout) == ibgda::Outcome::ok);
  REQUIRE(ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                mlx5::build_write_inline(w, p, {addr(rig.remote.data()), rig.rkey + 99}, &value, 8);
              },
              false, kTimeout, &bad) == ibgda::Outcome::ok);
  CHECK(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::error);
  CHECK(rig.words.error == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS);
  CHECK(rig.words.error_index == bad);
}

TEST_CASE("ibgda producer: a QP the NIC never serves times out instead of hanging", "[emu]") {
  Rig rig(8, 1);  // the emulator is never started
  uint64_t value = 1;
  for (int i = 0; i < 8; ++i)
    REQUIRE(
        ibgda::post<HostMem>(
            rig.qp, 1,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(0), &value, 8); },
            false, kTimeout) == ibgda::Outcome::ok);
  // The ninth needs a block the NIC never consumed.
  CHECK(ibgda::post<HostMem>(
            rig.qp, 1,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(0), &value, 8); },
            false, 50'000'000) == ibgda::Outcome::timed_out);
  // Its block stays reserved and never published: the QP is failed, and what comes after says so at once.
  CHECK(rig.words.error == GPUSHMEM_IBGDA_ERROR_TIMED_OUT);
  CHECK(rig.words.error_index == 8);
  CHECK(ibgda::quiet<HostMem>(rig.qp, 50'000'000) == ibgda::Outcome::error);
}

// ---- what a review found (each failed before its fix) ----

TEST_CASE("ibgda producer: the CQ counter widens forward across 2^15 and 2^16 with the largest ring", "[emu]") {
  Rig rig(32768, 1u << 30);
  const uint64_t value = 1;
  const auto put = [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
    mlx5::build_write_inline(w, p, rig.r(0), &value, 8);
  };
  REQUIRE(ibgda::post<HostMem>(rig.qp, 1, put, false, kTimeout) == ibgda::Outcome::ok);
  while (rig.nic.poll_once() != 0) {
  }
  REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
  REQUIRE(rig.words.done == 1);
  for (int lap = 0; lap < 3; ++lap) {  // 32768 WQEs between two polls, three times: past 2^16
    for (int i = 0; i < 32768; ++i)
      REQUIRE(ibgda::post<HostMem>(rig.qp, 1, put, false, kTimeout) == ibgda::Outcome::ok);
    while (rig.nic.poll_once() != 0) {
    }
    REQUIRE(ibgda::poll_cq<HostMem>(rig.qp) == ibgda::Outcome::ok);
    CHECK(rig.words.done == 1 + 32768ull * static_cast<uint64_t>(lap + 1));  // the newest WQE's start + 1
  }
}

TEST_CASE("ibgda producer: a plain post followed by an aggregated one is rung without a quiet", "[emu]") {
  Rig rig(64, 1000);
  uint64_t p = 0, a = 0;
  const uint64_t value = 7;
  REQUIRE(ibgda::reserve<HostMem>(rig.qp, 1, &p, kTimeout) == ibgda::Outcome::ok);
  REQUIRE(ibgda::reserve<HostMem>(rig.qp, 1, &a, kTimeout) == ibgda::Outcome::ok);
  gpushmem_mlx5_wqe_t w;
  mlx5::build_write_inline(&w, {static_cast<uint32_t>(p), rig.qp.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE}, rig.r(0), &value,
                           8);
  ibgda::write<HostMem>(rig.qp, p, w);
  REQUIRE(ibgda::publish<HostMem>(rig.qp, p, 1, false) == ibgda::Outcome::ok);
  CHECK(rig.words.rung == 0);  // left to the later publisher (not the newest reservation, under the batch)
  mlx5::build_write_inline(&w, {static_cast<uint32_t>(a), rig.qp.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE}, rig.r(8), &value,
                           8);
  ibgda::write<HostMem>(rig.qp, a, w);
  REQUIRE(ibgda::publish<HostMem>(rig.qp, a, 1, true) == ibgda::Outcome::ok);
  CHECK(rig.words.rung >= 1);  // the aggregated publisher rang what the plain one left to it
}

TEST_CASE("ibgda producer: a reservation that timed out fails the QP, so nothing waits for its blocks", "[emu]") {
  Rig rig(8, 1);
  const uint64_t value = 1;
  const auto put = [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
    mlx5::build_write_inline(w, p, rig.r(0), &value, 8);
  };
  for (int i = 0; i < 8; ++i) REQUIRE(ibgda::post<HostMem>(rig.qp, 1, put, false, kTimeout) == ibgda::Outcome::ok);
  REQUIRE(ibgda::post<HostMem>(rig.qp, 1, put, false, 20'000'000) == ibgda::Outcome::timed_out);
  CHECK(rig.words.resv == 9);  // taken at once (first come, first served), never published
  CHECK(rig.words.error == GPUSHMEM_IBGDA_ERROR_TIMED_OUT);
  rig.nic.start();  // the NIC comes back: the QP stays failed, and a post says so at once instead of waiting
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(ibgda::post<HostMem>(rig.qp, 1, put, false, 5'000'000'000ull) == ibgda::Outcome::error);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
}

TEST_CASE("ibgda producer: a publisher behind blocks nobody publishes times out and fails the QP", "[emu]") {
  Rig rig(64, 1000);
  rig.nic.start();
  uint64_t hole = 0, mine = 0;
  const uint64_t value = 5;
  REQUIRE(ibgda::reserve<HostMem>(rig.qp, 1, &hole, kTimeout) == ibgda::Outcome::ok);  // its producer stops here
  REQUIRE(ibgda::reserve<HostMem>(rig.qp, 1, &mine, kTimeout) == ibgda::Outcome::ok);
  gpushmem_mlx5_wqe_t w;
  mlx5::build_write_inline(&w, {static_cast<uint32_t>(mine), rig.qp.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE}, rig.r(0),
                           &value, 8);
  ibgda::write<HostMem>(rig.qp, mine, w);
  CHECK(ibgda::publish<HostMem>(rig.qp, mine, 1, false, 20'000'000) == ibgda::Outcome::timed_out);
  CHECK(rig.words.error == GPUSHMEM_IBGDA_ERROR_TIMED_OUT);
  CHECK(rig.words.error_index == mine);
  CHECK(rig.words.ready == 0);  // nothing published past the hole
}

// Many producers on one QP whose send queue is always full (a NIC slower than they are): each one's posts all go
// through, in its order, none waiting for ever (ibgda_post_rate on the GPU, 32 x 8 warps on 4 QPs, lost about 150 of
// 4 million posts to 10-second timeouts when reservations were a compare-and-swap taken only with room).
TEST_CASE("ibgda producer: under a full send queue every producer gets through", "[emu]") {
  Rig rig(64, 1u << 20);
  rig.nic.start();
  constexpr int kThreads = 16, kPosts = gpushmem::test::kSanitized ? 500 : 2000;
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPosts; ++k) {
        const uint64_t value = (static_cast<uint64_t>(t) << 32) | static_cast<uint64_t>(k);
        const auto put = [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
          mlx5::build_write_inline(w, p, rig.r(static_cast<uint64_t>(t) * 8), &value, 8);
        };
        if (ibgda::post<HostMem>(rig.qp, 1, put, false, 5'000'000'000ull) != ibgda::Outcome::ok) failed.fetch_add(1);
      }
    });
  for (auto &th : threads) th.join();
  CHECK(failed.load() == 0);
  REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
  CHECK(rig.words.resv == static_cast<uint64_t>(kThreads) * kPosts);
  for (int t = 0; t < kThreads; ++t) {  // each producer's last value landed in its word
    uint64_t v = 0;
    std::memcpy(&v, rig.remote.data() + static_cast<size_t>(t) * 8, 8);
    CHECK(v == ((static_cast<uint64_t>(t) << 32) | (kPosts - 1)));
  }
}

// What a warp's lanes do when they post together (device/transport/ibgda.cuh, ibgda_post): one reservation of all
// their blocks, each WQE written at its rank, one publish of the range naming its last WQE, one doorbell.
TEST_CASE("ibgda producer: several WQEs published at once are rung once, and quiet waits for the last", "[emu]") {
  Rig rig(64, 1000);
  rig.nic.start();
  constexpr uint32_t kLanes = 5;
  uint64_t first = 0;
  REQUIRE(ibgda::reserve<HostMem>(rig.qp, kLanes, &first, kTimeout) == ibgda::Outcome::ok);
  uint64_t values[kLanes];
  for (uint32_t k = 0; k < kLanes; ++k) {
    values[k] = 0x1000 + k;
    gpushmem_mlx5_wqe_t w;
    mlx5::build_write_inline(&w, {static_cast<uint32_t>(first + k), rig.qp.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE},
                             rig.r(8 * k), &values[k], 8);
    ibgda::write<HostMem>(rig.qp, first + k, w);
  }
  REQUIRE(ibgda::publish_range<HostMem>(rig.qp, first, kLanes, first + kLanes - 1, false, kTimeout) ==
          ibgda::Outcome::ok);
  CHECK(rig.words.last_start == first + kLanes - 1);
  CHECK(rig.words.doorbells == 1);
  REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
  CHECK(rig.words.done > first + kLanes - 1);  // the last of them completed, not only the first
  for (uint32_t k = 0; k < kLanes; ++k) {
    uint64_t v = 0;
    std::memcpy(&v, rig.remote.data() + 8 * k, 8);
    CHECK(v == values[k]);
  }
}

TEST_CASE("ibgda producer: a builder that builds nothing leaves NOPs, and the posts after it go on", "[emu]") {
  Rig rig(16, 1);
  rig.nic.start();
  const uint64_t value = 3;
  uint8_t too_long[200] = {};
  CHECK(ibgda::post<HostMem>(
            rig.qp, 2,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
              (void)mlx5::build_write_inline(w, p, rig.r(0), too_long, sizeof too_long);  // refused: builds nothing
            },
            false, kTimeout) == ibgda::Outcome::bad_request);
  CHECK(ibgda::post<HostMem>(
            rig.qp, 1,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(8), &value, 8); },
            false, kTimeout) == ibgda::Outcome::ok);
  REQUIRE(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::ok);
  uint64_t got;
  std::memcpy(&got, &rig.remote[8], 8);
  CHECK(got == 3);
  CHECK(rig.nic.counters().errors == 0);
  CHECK(rig.nic.counters().wqes == 3);  // two NOPs and the WRITE
}

TEST_CASE("ibgda producer: an error followed by flushed WQEs: the QP fails, the emulator names the first error",
          "[emu]") {
  Rig rig(16, 1);
  const uint64_t value = 5;
  uint64_t bad = 0;
  REQUIRE(ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                mlx5::build_write_inline(w, p, {addr(rig.remote.data()), rig.rkey + 99}, &value, 8);
              },
              false, kTimeout, &bad) == ibgda::Outcome::ok);
  REQUIRE(ibgda::post<HostMem>(
              rig.qp, 1,
              [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(0), &value, 8); },
              false, kTimeout) == ibgda::Outcome::ok);
  while (rig.nic.poll_once() != 0) {
  }
  CHECK(ibgda::quiet<HostMem>(rig.qp, kTimeout) == ibgda::Outcome::error);
  // A collapsed CQ keeps only the newest CQE (the flush), as on hardware; the first error is the emulator's to tell.
  CHECK((rig.words.error == GPUSHMEM_MLX5_SYND_WR_FLUSH && rig.words.error_index == bad + 1));
  uint32_t syndrome = 0, index = 0;
  REQUIRE(rig.nic.in_error(rig.qp.qpn, &syndrome, &index));
  CHECK((syndrome == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS && index == bad));
  // Every post after the error fails at once.
  CHECK(ibgda::post<HostMem>(
            rig.qp, 1,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, rig.r(0), &value, 8); },
            false, kTimeout) == ibgda::Outcome::error);
}

TEST_CASE("nic emulator: a malformed unit count or a record that goes back never moves past the record", "[emu]") {
  Rig rig(16, 1);
  gpushmem_mlx5_unit_t u{};
  u.ctrl = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_NOP, 0, 0, rig.qp.qpn, 63, GPUSHMEM_MLX5_CTRL_CQ_UPDATE, 0);
  std::memcpy(rig.sq, &u, 16);
  std::atomic_ref<uint32_t>(rig.dbrec[GPUSHMEM_MLX5_DBR_SND]).store(gpushmem_mlx5_dbr_send_value(1));
  CHECK(rig.nic.poll_once() == 1);  // LOCAL_QP_OP (63 units), consumer index 1
  CHECK(rig.nic.poll_once() == 0);  // the record has not moved
  CHECK(rig.nic.counters().cqes == 1);
  uint32_t syndrome = 0;
  CHECK((rig.nic.in_error(rig.qp.qpn, &syndrome) && syndrome == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP));
  std::atomic_ref<uint32_t>(rig.dbrec[GPUSHMEM_MLX5_DBR_SND]).store(gpushmem_mlx5_dbr_send_value(0));  // back
  CHECK(rig.nic.poll_once() == 0);
  CHECK(rig.nic.counters().bad_records == 1);
}
