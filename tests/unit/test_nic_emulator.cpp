// The NIC emulator (transports/ibgda/emu) driven by host producers that post through the same encoder the IBGDA
// device code uses (emu_qp.hpp): every opcode executed on host memory with its data checked, CQEs in collapsed
// and ring mode, send queues that wrap (two-block WQEs across the end, the 16-bit index past 2^16), atomicity
// of fetch-adds from several QPs on one word, the error path (the NIC's syndromes, then WR_FLUSH for the rest
// of the QP), each fault knob, the trace, and a local region reached only through a copier (as a GPU heap is).
// Label emu.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "emu_qp.hpp"
#include "ibgda/emu/emu_faults.hpp"
#include "ibgda/emu/nic_emulator.hpp"

namespace emu = gpushmem::ibgda::emu;
namespace mlx5 = gpushmem::mlx5;
using gpushmem::test::EmuQp;

namespace {

uint64_t addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

// The initiator's and the target's memory, registered: local keys on one table, remote on another.
struct Setup {
  emu::KeyTable local_keys, remote_keys;
  emu::LocalTarget target{&remote_keys};
  std::vector<uint8_t> local = std::vector<uint8_t>(1 << 16), remote = std::vector<uint8_t>(1 << 16);
  uint32_t lkey, rkey;
  Setup() {
    lkey = local_keys.add(local.data(), local.size(), emu::kLocalWrite);
    rkey = remote_keys.add(remote.data(), remote.size(), emu::kAllAccess);
  }
  mlx5::Local l(size_t off) { return {addr(local.data() + off), lkey}; }
  mlx5::Remote r(size_t off) { return {addr(remote.data() + off), rkey}; }
};

}  // namespace

TEST_CASE("nic emulator: every opcode moves the right bytes and completes", "[emu]") {
  Setup s;
  std::vector<std::string> lines;
  emu::EmulatorOptions options;
  options.trace = [&lines](const std::string &l) { lines.push_back(l); };
  emu::NicEmulator nic(options);
  EmuQp qp(0x1a2b, 64, 1, true, &s.local_keys, &s.target);
  nic.add_qp(qp.config());

  for (size_t i = 0; i < 4096; ++i) s.local[i] = static_cast<uint8_t>(i * 7 + 1);
  // WRITE of 4 KiB, READ back into another local range, inline WRITE of 12 bytes
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(0), s.l(0), 4096); });
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_read(w, p, s.r(0), s.l(8192), 4096); });
  const uint8_t payload[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write_inline(w, p, s.r(5000), payload, 12); });
  // 8-byte fetch-add and compare-swap, 4-byte masked fetch-add (two 16-bit fields), 8-byte masked compare-swap (or)
  uint64_t word = 40;
  std::memcpy(&s.remote[6000], &word, 8);
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_fetch_add(w, p, s.r(6000), s.l(20000), 2); });
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_compare_swap(w, p, s.r(6000), s.l(20008), 42, 7); });
  const uint32_t fields = 0x0001ffff;
  std::memcpy(&s.remote[6016], &fields, 4);
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) {
    mlx5::build_masked_fetch_add(w, p, s.r(6016), s.l(20016), 4, 0x00010001, 0x00008000);
  });
  uint64_t bits = 0xf0;
  std::memcpy(&s.remote[6024], &bits, 8);
  const uint32_t last = qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) {
    mlx5::build_masked_compare_swap(w, p, s.r(6024), s.l(20024), 8, 0x0f, 0, 0x0f, 0);
  });
  while (nic.poll_once() != 0) {
  }
  REQUIRE(qp.wait(last) == GPUSHMEM_MLX5_CQE_REQ);

  CHECK(std::equal(s.local.begin(), s.local.begin() + 4096, s.remote.begin()));
  CHECK(std::equal(s.local.begin(), s.local.begin() + 4096, s.local.begin() + 8192));
  CHECK(std::memcmp(&s.remote[5000], payload, 12) == 0);
  uint64_t fetched[2], now_word;
  std::memcpy(fetched, &s.local[20000], 16);
  std::memcpy(&now_word, &s.remote[6000], 8);
  CHECK((fetched[0] == 40 && fetched[1] == 42 && now_word == 7));  // 40 + 2 = 42, then swapped for 7
  uint32_t old_fields, now_fields;
  std::memcpy(&old_fields, &s.local[20016], 4);
  std::memcpy(&now_fields, &s.remote[6016], 4);
  CHECK((old_fields == 0x0001ffff && now_fields == 0x00020000));
  uint64_t old_bits, now_bits;
  std::memcpy(&old_bits, &s.local[20024], 8);
  std::memcpy(&now_bits, &s.remote[6024], 8);
  CHECK((old_bits == 0xf0 && now_bits == 0xff));

  const emu::EmulatorCounters c = nic.counters();
  CHECK((c.wqes == 7 && c.cqes == 7 && c.errors == 0 && c.flushed == 0));
  REQUIRE(lines.size() == 7);
  CHECK(lines[0].find("emu: qpn 0x1a2b wqe 0 WRITE 4096 B") == 0);
  CHECK(lines[0].find("signaled -> ok") != std::string::npos);
  CHECK(lines[2].find("WRITE 12 B") != std::string::npos);
  CHECK(lines[6].find("MASKED_CS 8 B") != std::string::npos);
}

TEST_CASE("nic emulator: unsignaled WQEs complete silently; the next CQE covers them", "[emu]") {
  Setup s;
  emu::NicEmulator nic;
  EmuQp qp(7, 16, 1, true, &s.local_keys, &s.target);
  nic.add_qp(qp.config());
  for (int i = 0; i < 5; ++i)
    qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(i * 8), s.l(i * 8), 8); }, 0);
  while (nic.poll_once() != 0) {
  }
  uint16_t counter;
  uint8_t op_own;
  qp.last_cqe(&counter, &op_own);
  CHECK(gpushmem_mlx5_cqe_opcode(op_own) == GPUSHMEM_MLX5_CQE_INVALID);  // nothing asked for a CQE yet
  const uint32_t nop = qp.post([](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_nop(w, p); });
  while (nic.poll_once() != 0) {
  }
  REQUIRE(qp.wait(nop) == GPUSHMEM_MLX5_CQE_REQ);
  CHECK(nic.counters().wqes == 6);
  CHECK(nic.counters().cqes == 1);
}

TEST_CASE("nic emulator: ring-mode CQ owner bits over laps, and send queues that wrap", "[emu]") {
  Setup s;
  emu::NicEmulator nic;
  // 16-block send queue, 4-entry ring CQ; 8-byte masked compare-swaps take two blocks and start at odd indices,
  // so one in eight crosses the end of the ring. 70001 blocks take the 16-bit index past 2^16.
  EmuQp qp(3, 16, 4, false, &s.local_keys, &s.target);
  nic.add_qp(qp.config());
  std::memset(s.remote.data(), 0, 8);
  uint32_t cqe_seen = 0;
  // The first WQE, a 1-block NOP, makes every later 2-block WQE start at an odd index.
  qp.post([](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_nop(w, p); }, 0);
  for (uint64_t i = 0; i < 35000; ++i) {
    // or-in bit (i % 64): masked compare-swap with no compare mask
    const uint64_t bit = 1ull << (i % 64);
    qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) {
      mlx5::build_masked_compare_swap(w, p, s.r(0), s.l(64), 8, bit, 0, bit, 0);
    });
    // Take the completions as a ring-mode poller does: entry n valid when its owner bit is n's lap parity.
    nic.poll_once();
    for (;;) {
      const uint8_t *e = qp.cq() + (cqe_seen % 4) * 64;
      const uint8_t op_own = std::atomic_ref<uint8_t>(*const_cast<uint8_t *>(e + 63)).load(std::memory_order_acquire);
      if (!gpushmem_mlx5_cqe_valid(op_own, cqe_seen, 4)) break;
      REQUIRE(gpushmem_mlx5_cqe_opcode(op_own) == GPUSHMEM_MLX5_CQE_REQ);
      ++cqe_seen;
    }
  }
  while (nic.poll_once() != 0) {
  }
  CHECK(qp.producer_index() == 1 + 2 * 35000);
  CHECK(nic.counters().wqes == 35001);
  CHECK(nic.counters().errors == 0);
  uint64_t word;
  std::memcpy(&word, s.remote.data(), 8);
  CHECK(word == ~0ull);  // every bit or-ed in
}

TEST_CASE("nic emulator: fetch-adds from several QPs on one word are atomic", "[emu]") {
  Setup s;
  emu::NicEmulator nic;
  constexpr int kQps = 4, kOps = 20000;
  std::vector<std::unique_ptr<EmuQp>> qps;
  std::vector<emu::KeyTable> keys(kQps);
  std::vector<std::vector<uint64_t>> fetched(kQps, std::vector<uint64_t>(kOps));
  std::vector<uint32_t> lkeys;
  for (int q = 0; q < kQps; ++q) {
    lkeys.push_back(
        keys[static_cast<size_t>(q)].add(fetched[static_cast<size_t>(q)].data(), kOps * 8, emu::kLocalWrite));
    qps.push_back(std::make_unique<EmuQp>(0x100 + q, 32, 1, true, &keys[static_cast<size_t>(q)], &s.target));
    nic.add_qp(qps.back()->config());
  }
  std::memset(s.remote.data(), 0, 8);
  nic.start();
  std::vector<std::thread> producers;
  for (int q = 0; q < kQps; ++q)
    producers.emplace_back([&, q] {
      EmuQp &qp = *qps[static_cast<size_t>(q)];
      uint32_t last = 0;
      for (int i = 0; i < kOps; ++i)
        last = qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) {
          mlx5::build_fetch_add(
              w, p, s.r(0),
              {addr(&fetched[static_cast<size_t>(q)][static_cast<size_t>(i)]), lkeys[static_cast<size_t>(q)]}, 1);
        });
      qp.wait(last);
    });
  for (auto &t : producers) t.join();
  nic.stop();
  uint64_t total;
  std::memcpy(&total, s.remote.data(), 8);
  CHECK(total == uint64_t{kQps} * kOps);
  std::set<uint64_t> seen;
  for (const auto &f : fetched) seen.insert(f.begin(), f.end());
  CHECK(seen.size() == size_t{kQps} * kOps);  // every old value once: 0 .. total-1
  CHECK(*seen.rbegin() == total - 1);
}

TEST_CASE("nic emulator: errors complete with the NIC's syndrome, and flush the rest of the QP", "[emu]") {
  Setup s;
  std::vector<std::string> lines;
  emu::EmulatorOptions options;
  options.trace = [&lines](const std::string &l) { lines.push_back(l); };
  emu::NicEmulator nic(options);
  EmuQp qp(9, 16, 1, true, &s.local_keys, &s.target);
  nic.add_qp(qp.config());

  struct Case {
    const char *what;
    uint32_t syndrome;
    std::function<void(mlx5::Wqe *, const mlx5::Post &)> build;
  };
  const Case cases[] = {
      {"an unknown rkey", GPUSHMEM_MLX5_SYND_REMOTE_ACCESS,
       [&](mlx5::Wqe *w, const mlx5::Post &p) {
         mlx5::build_write(w, p, {addr(s.remote.data()), 0xdead}, s.l(0), 8);
       }},
      {"a range past the region", GPUSHMEM_MLX5_SYND_REMOTE_ACCESS,
       [&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_read(w, p, s.r(s.remote.size() - 4), s.l(0), 8); }},
      {"an unknown lkey", GPUSHMEM_MLX5_SYND_LOCAL_PROT,
       [&](mlx5::Wqe *w, const mlx5::Post &p) {
         mlx5::build_write(w, p, s.r(0), {addr(s.local.data()), 0xbeef}, 8);
       }},
      {"another QP's number", GPUSHMEM_MLX5_SYND_LOCAL_QP_OP,
       [&](mlx5::Wqe *w, const mlx5::Post &p) {
         mlx5::build_nop(w, mlx5::Post{p.index, p.qpn + 1, p.flags});
       }},
      {"a WQE index that is not the expected one", GPUSHMEM_MLX5_SYND_LOCAL_QP_OP,
       [&](mlx5::Wqe *w, const mlx5::Post &p) {
         mlx5::build_nop(w, mlx5::Post{p.index + 3, p.qpn, p.flags});
       }},
      {"a misaligned atomic", GPUSHMEM_MLX5_SYND_REMOTE_ACCESS,
       [&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_fetch_add(w, p, s.r(4), s.l(0), 1); }},
      {"an atomic on a word without the right", GPUSHMEM_MLX5_SYND_REMOTE_ACCESS,
       [&](mlx5::Wqe *w, const mlx5::Post &p) {
         static uint64_t word;
         const uint32_t key = s.remote_keys.add(&word, 8, emu::kRemoteWrite);
         mlx5::build_fetch_add(w, p, {addr(&word), key}, s.l(0), 1);
       }},
  };
  for (const Case &c : cases) {
    DYNAMIC_SECTION(c.what) {
      const uint32_t bad = qp.post(c.build);
      // Two more: unsignaled and signaled; both are flushed.
      qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(0), s.l(0), 8); }, 0);
      qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(0), s.l(0), 8); });
      while (nic.poll_once() != 0) {
      }
      uint32_t synd = 0;
      REQUIRE(nic.in_error(9, &synd));  // also orders this thread after the emulator's writes
      CHECK(synd == c.syndrome);
      const auto *e = reinterpret_cast<const gpushmem_mlx5_err_cqe_t *>(qp.cq());
      // Entry 0 holds the last CQE: the second flushed WQE's.
      CHECK(gpushmem_mlx5_cqe_opcode(e->op_own) == GPUSHMEM_MLX5_CQE_REQ_ERR);
      CHECK(e->syndrome == GPUSHMEM_MLX5_SYND_WR_FLUSH);
      CHECK(gpushmem_mlx5_bswap16(e->wqe_counter_be) == bad + 2);
      const emu::EmulatorCounters n = nic.counters();
      CHECK((n.errors == 1 && n.flushed == 2 && n.cqes == 3));
      REQUIRE(lines.size() == 3);
      CHECK(lines[0].find(std::string("-> ") + emu::NicEmulator::syndrome_name(c.syndrome)) != std::string::npos);
      CHECK(lines[1].find("-> WR_FLUSH_ERR") != std::string::npos);
    }
  }
}

TEST_CASE("nic emulator: the first error CQE names the failed WQE, its opcode and QP", "[emu]") {
  Setup s;
  emu::NicEmulator nic;
  EmuQp qp(0xabcd, 16, 1, true, &s.local_keys, &s.target);
  nic.add_qp(qp.config());
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_nop(w, p); });
  const uint32_t bad = qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) {
    mlx5::build_read(w, p, {addr(s.remote.data()), 1}, s.l(0), 8);
  });
  while (nic.poll_once() != 0) {
  }
  REQUIRE(nic.in_error(0xabcd));
  const auto *e = reinterpret_cast<const gpushmem_mlx5_err_cqe_t *>(qp.cq());
  CHECK(e->syndrome == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS);
  CHECK(gpushmem_mlx5_bswap16(e->wqe_counter_be) == bad);
  CHECK(gpushmem_mlx5_bswap32(e->s_wqe_opcode_qpn_be) == ((GPUSHMEM_MLX5_OP_RDMA_READ << 24) | 0xabcdu));
}

TEST_CASE("nic emulator: fault knobs", "[emu]") {
  Setup s;
  emu::NicEmulator nic;
  EmuQp a(1, 16, 1, true, &s.local_keys, &s.target), b(2, 16, 1, true, &s.local_keys, &s.target);
  nic.add_qp(a.config());
  nic.add_qp(b.config());
  const auto write8 = [&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(0), s.l(0), 8); };

  SECTION("a stalled QP takes nothing; the others go on; released, it catches up") {
    nic.stall(1, true);
    a.post(write8);
    const uint32_t on_b = b.post(write8);
    while (nic.poll_once() != 0) {
    }
    CHECK(b.wait(on_b) == GPUSHMEM_MLX5_CQE_REQ);
    CHECK(nic.counters().wqes == 1);
    nic.stall(1, false);
    while (nic.poll_once() != 0) {
    }
    CHECK(nic.counters().wqes == 2);
  }
  SECTION("a bad rkey for one WQE") {
    a.post(write8);
    nic.bad_rkey_once(1, 1);
    a.post(write8);
    while (nic.poll_once() != 0) {
    }
    uint32_t synd = 0;
    CHECK(nic.in_error(1, &synd));
    CHECK(synd == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS);
    CHECK(nic.counters().wqes == 1);
  }
  SECTION("a doorbell delay holds the WQEs back that long") {
    nic.set_doorbell_delay(30'000'000);  // 30 ms
    const auto start = std::chrono::steady_clock::now();
    const uint32_t i = a.post(write8);
    CHECK(nic.poll_once() == 0);  // noticed, not yet taken
    while (nic.poll_once() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(a.wait(i) == GPUSHMEM_MLX5_CQE_REQ);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(30));
  }
  SECTION("slow CQEs") {
    nic.set_cqe_delay(20'000'000);  // 20 ms each
    const auto start = std::chrono::steady_clock::now();
    a.post(write8);
    const uint32_t i = a.post(write8);
    while (nic.poll_once() != 0) {
    }
    CHECK(a.wait(i) == GPUSHMEM_MLX5_CQE_REQ);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(40));
  }
}

namespace {

// A local region the emulator reaches only through copies (as it reaches a GPU heap): host memory here, with the
// copies counted and able to fail.
struct CountingCopier final : emu::Copier {
  int to_host_calls = 0, from_host_calls = 0;
  bool fail = false;
  bool to_host(void *dst, const void *src, uint64_t bytes) override {
    ++to_host_calls;
    if (fail) return false;
    std::memcpy(dst, src, bytes);
    return true;
  }
  bool from_host(void *dst, const void *src, uint64_t bytes) override {
    ++from_host_calls;
    if (fail) return false;
    std::memcpy(dst, src, bytes);
    return true;
  }
};

}  // namespace

TEST_CASE("nic emulator: a local region behind a copier is read and written only through it", "[emu]") {
  emu::KeyTable local_keys, remote_keys;
  emu::LocalTarget target{&remote_keys};
  std::vector<uint8_t> local(1 << 14), remote(1 << 14);
  CountingCopier copier;
  const uint32_t lkey = local_keys.add(local.data(), local.size(), emu::kLocalWrite, &copier);
  const uint32_t rkey = remote_keys.add(remote.data(), remote.size(), emu::kAllAccess);
  auto l = [&](size_t off) { return mlx5::Local{addr(local.data() + off), lkey}; };
  auto r = [&](size_t off) { return mlx5::Remote{addr(remote.data() + off), rkey}; };
  CHECK(local_keys.resolve(lkey, addr(local.data()), 8, 0) == nullptr);  // no direct pointer into such a region

  emu::NicEmulator nic;
  EmuQp qp(0x77, 64, 1, true, &local_keys, &target);
  nic.add_qp(qp.config());
  for (size_t i = 0; i < 3000; ++i) local[i] = static_cast<uint8_t>(i * 13 + 5);
  uint64_t word = 100;
  std::memcpy(&remote[8000], &word, 8);
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, r(0), l(0), 3000); });
  qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_read(w, p, r(0), l(4096), 3000); });
  const uint32_t fa =
      qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_fetch_add(w, p, r(8000), l(12000), 5); });
  while (nic.poll_once() != 0) {
  }
  REQUIRE(qp.wait(fa) == GPUSHMEM_MLX5_CQE_REQ);
  CHECK(std::equal(local.begin(), local.begin() + 3000, remote.begin()));
  CHECK(std::equal(local.begin(), local.begin() + 3000, local.begin() + 4096));
  uint64_t fetched = 0, now_word = 0;
  std::memcpy(&fetched, &local[12000], 8);
  std::memcpy(&now_word, &remote[8000], 8);
  CHECK((fetched == 100 && now_word == 105));
  CHECK((copier.to_host_calls == 1 && copier.from_host_calls == 2));  // the WRITE's source; the READ and the fetch

  // A copy that fails completes the WQE with LOCAL_ACCESS and puts the QP in the error state.
  copier.fail = true;
  const uint32_t bad = qp.post([&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, r(0), l(0), 64); });
  while (nic.poll_once() != 0) {
  }
  CHECK(qp.wait(bad) == GPUSHMEM_MLX5_CQE_REQ_ERR);
  uint32_t synd = 0;
  REQUIRE(nic.in_error(0x77, &synd));
  CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_ACCESS);
}

TEST_CASE("nic emulator: GPUSHMEM_IBGDA_EMU_FAULTS as the runtime reads it", "[emu]") {
  std::vector<emu::EmuFault> f;
  std::string why;
  SECTION("the four forms, in order") {
    REQUIRE(emu::parse_faults("doorbell_delay_us=5,cqe_delay_us=100,,stall_qp=3,bad_rkey=1:70000", 4, &f, &why));
    REQUIRE(f.size() == 4);
    CHECK((f[0].kind == emu::EmuFault::Kind::doorbell_delay && f[0].a == 5));
    CHECK((f[1].kind == emu::EmuFault::Kind::cqe_delay && f[1].a == 100));
    CHECK((f[2].kind == emu::EmuFault::Kind::stall_qp && f[2].a == 3));
    CHECK((f[3].kind == emu::EmuFault::Kind::bad_rkey && f[3].a == 1 && f[3].b == 70000));
    CHECK(emu::parse_faults("", 4, &f, &why));
    CHECK(f.empty());
  }
  SECTION("each refusal names the item") {
    for (const char *bad : {"stall_qp=4", "stall_qp=-1", "bad_rkey=1", "bad_rkey=1:", "bad_rkey=x:2", "bad_rkey=4:0",
                            "foo=1", "doorbell_delay_us=", "doorbell_delay_us=5us", "cqe_delay_us=3600000001",
                            "cqe_delay_us=99999999999999999999", "stall_qp"}) {
      INFO(bad);
      CHECK_FALSE(emu::parse_faults(std::string("cqe_delay_us=1,") + bad, 4, &f, &why));
      CHECK(why.find(std::string("'") + bad + "'") != std::string::npos);
      CHECK(why.find("below 4") != std::string::npos);
    }
  }
  SECTION("applied: queue pair 1 stalls, queue pair 2's work request 1 fails; a queue pair to no peer is skipped") {
    Setup s;
    emu::NicEmulator nic;
    EmuQp a(7, 16, 1, true, &s.local_keys, &s.target), b(8, 16, 1, true, &s.local_keys, &s.target);
    nic.add_qp(a.config());
    nic.add_qp(b.config());
    REQUIRE(emu::parse_faults("stall_qp=1,bad_rkey=2:1", 3, &f, &why));
    const std::vector<uint32_t> qpn_of{0, 7, 8};  // queue pair 0 leads to this PE itself: no QP
    std::vector<emu::EmuFault> elsewhere;
    REQUIRE(emu::parse_faults("stall_qp=0,bad_rkey=0:3", 3, &elsewhere, &why));
    CHECK(emu::apply_faults(elsewhere, qpn_of, nic, &why) == 2);  // another PE's concern: skipped, named
    CHECK(why == "stall_qp=0, bad_rkey=0");
    CHECK(emu::apply_faults(f, qpn_of, nic, &why) == 0);
    const auto write8 = [&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, s.r(0), s.l(0), 8); };
    a.post(write8);
    b.post(write8);
    b.post(write8);
    while (nic.poll_once() != 0) {
    }
    uint32_t synd = 0, index = 0;
    CHECK(nic.in_error(8, &synd, &index));
    CHECK(synd == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS);
    CHECK(index == 1);
    CHECK_FALSE(nic.in_error(7));
    CHECK(nic.counters().wqes == 1);  // b's first; a's is held by the stall
  }
}

// With nothing to execute, the thread still calls `serve` (the runtime serves the network there when no CPU proxy
// thread does), at most every serve_every_ns, and not after stop.
TEST_CASE("nic emulator: the idle thread serves the network, rate-limited", "[emu]") {
  emu::EmulatorOptions options;
  std::atomic<uint64_t> calls{0};
  options.serve = [&] { calls.fetch_add(1, std::memory_order_relaxed); };
  options.serve_every_ns = 100000;  // 100 us
  emu::NicEmulator nic(options);
  nic.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  nic.stop();
  const uint64_t n = calls.load();
  CHECK(n >= 5);    // 50 ms of idling: served many times (generous for a loaded 2-core machine)
  CHECK(n <= 501);  // never more often than every 100 us
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(calls.load() == n);  // not after stop
}
