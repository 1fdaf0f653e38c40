// The emulated-IBGDA provisioner (transports/ibgda/emu/emu_provisioner) with host memory for both of its kinds: the
// state it hands the device (QP table, keys, remote bases, bounce memory), one emulator serving every QP it made, and
// host threads posting through the state exactly as the device routines index it (qps[pe * Q + q], heap_lkey,
// remote_base[pe] + offset under rkeys[pe], a fetched value into the QP's bounce memory): data checked at two peers.
// The layout's refusals. Label emu.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "gpushmem/ibgda_producer.hpp"
#include "ibgda/emu/emu_provisioner.hpp"
#include "ibgda_host_mem.hpp"

namespace emu = gpushmem::ibgda::emu;
namespace ibgda = gpushmem::ibgda;
namespace mlx5 = gpushmem::mlx5;
using gpushmem::Status;
using gpushmem::test::IbgdaHostMem;

namespace {

uint64_t addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

// Host memory for both kinds; counts what is still allocated.
struct HostMemory {
  int live = 0;
  emu::EmuMemory memory() {
    emu::EmuMemory m;
    m.shared = [this](size_t n) {
      ++live;
      return std::calloc(1, n);
    };
    m.producer = m.shared;
    m.free_shared = [this](void *p) {
      --live;
      std::free(p);
    };
    m.free_producer = m.free_shared;
    m.to_producer = [](void *d, const void *s, size_t n) {
      std::memcpy(d, s, n);
      return true;
    };
    return m;
  }
};

// A peer: its heap, registered under one key, as the emulator's target for the QPs to it.
struct Peer {
  std::vector<uint8_t> heap = std::vector<uint8_t>(1 << 16);
  emu::KeyTable keys;
  emu::LocalTarget target{&keys};
  uint32_t rkey = keys.add(heap.data(), heap.size(), emu::kAllAccess);
};

constexpr uint64_t kTimeout = 20'000'000'000ull;

}  // namespace

TEST_CASE("ibgda provisioner: the state it hands the device drives every QP it made", "[emu]") {
  HostMemory host;
  {
    std::vector<uint8_t> heap(1 << 16);
    Peer peers[3];  // PE 0 is this one: not reached through IBGDA
    emu::EmuProvisioner prov(host.memory(), emu::EmulatorOptions{});
    emu::EmuLayout l;
    l.n_pes = 3;
    l.peers = {false, true, true};
    l.qps_per_peer = 2;
    l.wqebbs = 16;
    l.batch = 4;
    l.bounce_bytes = 256;
    l.heap_base = heap.data();
    l.heap_bytes = heap.size();
    l.timeout_ns = kTimeout;
    std::string why;
    REQUIRE(prov.create(
                l,
                [&](int pe) {
                  return emu::EmuPeer{&peers[pe].target, peers[pe].rkey, addr(peers[pe].heap.data())};
                },
                &why) == Status::ok);
    CHECK(why.empty());

    const gpushmem_ibgda_state_t &s = *prov.device_state();  // host memory here: readable as the device reads it
    CHECK(s.qps_per_peer == 2);
    CHECK(s.bounce_bytes == 256);
    CHECK(s.timeout_ns == kTimeout);
    CHECK(s.heap_lkey != 0);
    CHECK(s.bounce_lkey != 0);
    CHECK(s.heap_lkey != s.bounce_lkey);
    CHECK((s.rkeys[0] == 0 && s.rkeys[1] == peers[1].rkey && s.rkeys[2] == peers[2].rkey));
    CHECK((s.remote_base[0] == 0 && s.remote_base[1] == addr(peers[1].heap.data())));
    CHECK((s.qps[0].sq == nullptr && s.qps[1].sq == nullptr));  // PE 0's entries unused
    uint32_t qpns[4];
    for (int k = 0; k < 4; ++k) {
      const gpushmem_ibgda_qp_t &q = s.qps[2 + k];
      REQUIRE(q.sq != nullptr);
      CHECK((q.wqebbs == 16 && q.batch == 4));
      CHECK(q.cqe[63] == 0xff);  // INVALID until the first completion
      qpns[k] = q.qpn;
    }
    CHECK((qpns[0] != qpns[1] && qpns[1] != qpns[2] && qpns[2] != qpns[3]));
    for (int k = 0; k < 6; ++k) CHECK(s.bounce_locks[k] == 0);

    // One thread per QP, as warps would post: a WRITE from the heap, then a fetch-add whose old value lands in the
    // QP's bounce memory, then quiet.
    for (size_t i = 0; i < heap.size(); ++i) heap[i] = static_cast<uint8_t>(i * 5 + 3);
    prov.start();
    std::vector<std::thread> threads;
    std::vector<uint64_t> fetched(4, ~0ull);
    std::vector<int> outcomes(4, -1);
    for (int k = 0; k < 4; ++k)
      threads.emplace_back([&, k] {
        const int pe = 1 + k / 2;
        const uint32_t index = static_cast<uint32_t>(pe) * s.qps_per_peer + static_cast<uint32_t>(k % 2);
        const gpushmem_ibgda_qp_t &q = s.qps[index];
        const uint64_t off = 1024u * static_cast<uint64_t>(k);  // a symmetric offset, the same at every PE
        const mlx5::Remote to{s.remote_base[pe] + off, s.rkeys[pe]};
        const mlx5::Local from{addr(heap.data() + off), s.heap_lkey};
        ibgda::Outcome o = ibgda::post<IbgdaHostMem>(
            q, 1, [&](mlx5::Wqe *w, const mlx5::Post &p) { mlx5::build_write(w, p, to, from, 512); }, false, kTimeout);
        uint8_t *fetch = s.bounce + static_cast<uint64_t>(index) * s.bounce_bytes + 8;
        const mlx5::Remote word{s.remote_base[pe] + 60000, s.rkeys[pe]};
        if (o == ibgda::Outcome::ok)
          o = ibgda::post<IbgdaHostMem>(
              q, 1,
              [&](mlx5::Wqe *w, const mlx5::Post &p) {
                mlx5::build_fetch_add(w, p, word, {addr(fetch), s.bounce_lkey}, 1);
              },
              false, kTimeout);
        if (o == ibgda::Outcome::ok) o = ibgda::quiet<IbgdaHostMem>(q, kTimeout);
        outcomes[static_cast<size_t>(k)] = static_cast<int>(o);
        std::memcpy(&fetched[static_cast<size_t>(k)], fetch, 8);
      });
    for (std::thread &t : threads) t.join();
    prov.stop();
    for (int k = 0; k < 4; ++k) {
      CHECK(outcomes[static_cast<size_t>(k)] == static_cast<int>(ibgda::Outcome::ok));
      const int pe = 1 + k / 2;
      CHECK(std::memcmp(peers[pe].heap.data() + 1024 * k, heap.data() + 1024 * k, 512) == 0);
    }
    // Two fetch-adds on each peer's word: old values 0 and 1 in some order.
    for (int pe = 1; pe <= 2; ++pe) {
      uint64_t word = 0;
      std::memcpy(&word, peers[pe].heap.data() + 60000, 8);
      CHECK(word == 2);
      const uint64_t a = fetched[static_cast<size_t>(2 * (pe - 1))], b = fetched[static_cast<size_t>(2 * (pe - 1) + 1)];
      CHECK(((a == 0 && b == 1) || (a == 1 && b == 0)));
    }
    const emu::EmulatorCounters c = prov.emulator().counters();
    CHECK((c.wqes == 8 && c.errors == 0));
  }
  CHECK(host.live == 0);  // everything it allocated is freed
}

TEST_CASE("ibgda provisioner: a layout it cannot build is refused, saying why", "[emu]") {
  HostMemory host;
  std::vector<uint8_t> heap(4096);
  Peer peer;
  auto one = [&](int) { return emu::EmuPeer{&peer.target, peer.rkey, addr(peer.heap.data())}; };
  struct Case {
    const char *what;
    void (*bend)(emu::EmuLayout *);
  } cases[] = {
      {"peers must list every PE", [](emu::EmuLayout *l) { l->peers.pop_back(); }},
      {"qps_per_peer must be 1 to 64", [](emu::EmuLayout *l) { l->qps_per_peer = 0; }},
      {"wqebbs must be a power of two", [](emu::EmuLayout *l) { l->wqebbs = 24; }},
      {"bounce_bytes must be a multiple of 64", [](emu::EmuLayout *l) { l->bounce_bytes = 100; }},
      {"the heap is empty", [](emu::EmuLayout *l) { l->heap_bytes = 0; }},
  };
  for (const Case &c : cases) {
    emu::EmuProvisioner prov(host.memory(), emu::EmulatorOptions{});
    emu::EmuLayout l;
    l.n_pes = 2;
    l.peers = {false, true};
    l.heap_base = heap.data();
    l.heap_bytes = heap.size();
    c.bend(&l);
    std::string why;
    CHECK(prov.create(l, one, &why) == Status::invalid_argument);
    CHECK(why.find(c.what) == 0);
  }
  // A peer without a target.
  emu::EmuProvisioner prov(host.memory(), emu::EmulatorOptions{});
  emu::EmuLayout l;
  l.n_pes = 2;
  l.peers = {false, true};
  l.heap_base = heap.data();
  l.heap_bytes = heap.size();
  std::string why;
  CHECK(prov.create(
            l, [](int) { return emu::EmuPeer{}; }, &why) == Status::invalid_argument);
  CHECK(why == "a peer reached through IBGDA has no target");
}
