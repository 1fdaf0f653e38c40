// The NIC emulator across processes: each PE runs an emulated NIC whose QP reaches the other PE through the network
// transport (transports/ibgda/emu/transport_target.hpp over ucx/, 2 PEs in 2 virtual hosts), and a host thread
// posts to it with the IBGDA producer protocol (gpushmem/ibgda_producer.hpp) the device code will use. Each PE
// writes a pattern into the other's heap (inline WRITEs and 4 KiB WRITEs from a registered buffer), reads it back
// with READs, fetch-adds on the other's counter (the old values fetched in order) and masked compare-swaps that or
// bits into the other's word, and an unknown rkey completes with REMOTE_ACCESS_ERR followed by flushes. Every PE checks
// its own heap after a barrier. Labels pe, vhost, emu.
#include <shmem.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gpushmem/ibgda_producer.hpp"
#include "ibgda/emu/nic_emulator.hpp"
#include "ibgda/emu/transport_target.hpp"
#include "ibgda_host_mem.hpp"
#include "ibgda_host_qp.hpp"
#include "net/net.hpp"
#include "pe_check.h"
#include "state.hpp"

namespace emu = gpushmem::ibgda::emu;
namespace ibgda = gpushmem::ibgda;
namespace mlx5 = gpushmem::mlx5;
using Mem = gpushmem::test::IbgdaHostMem;

namespace {

constexpr int kInline = 512;  // inline 8-byte WRITEs to the peer
constexpr int kBulk = 16;     // 4 KiB WRITEs from a registered buffer
constexpr int kAdds = 1000;   // fetch-adds by each PE on PE 0's counter
constexpr uint64_t kTimeout = 30'000'000'000ull;

struct Sym {
  uint64_t counter;           // the peer adds 1 to it kAdds times
  uint64_t bits;              // the peer ors its bits in (masked compare-swaps)
  uint64_t small[kInline];    // written by the peer, inline
  uint8_t bulk[kBulk][4096];  // written by the peer from its buffer
};

uint64_t addr(const void *p) {
  return reinterpret_cast<uint64_t>(p);
}

}  // namespace

int main() {
  shmem_init();
  if (shmem_n_pes() != 2) {
    PE_FAIL("run with 2 PEs (got %d)", shmem_n_pes());
    return pe_finish("ibgda_emu");
  }
  const int me = shmem_my_pe(), peer = 1 - me;
  auto *sym = static_cast<Sym *>(shmem_calloc(1, sizeof(Sym)));
  gpushmem::transport::Transport *net = gpushmem::net::active();
  if (net == nullptr || !net->reaches(peer)) {
    PE_FAIL("PE %d is not reached through the network: run in two virtual hosts (pe_launch.sh --vhosts 2)", peer);
    return pe_finish("ibgda_emu");
  }

  // This PE's side: local keys over its buffers, the wire to the peer, the QP's queues, the emulated NIC.
  std::vector<uint8_t> source(kBulk * 4096), readback(kBulk * 4096 + kInline * 8);
  std::vector<uint64_t> fetched(kAdds + 64);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 13 + me * 101 + 1);
  emu::KeyTable local_keys;
  const uint32_t lkey_src = local_keys.add(source.data(), source.size(), 0);
  const uint32_t lkey_rb = local_keys.add(readback.data(), readback.size(), emu::kLocalWrite);
  const uint32_t lkey_f = local_keys.add(fetched.data(), fetched.size() * 8, emu::kLocalWrite);
  emu::TransportTarget wire(net, 0);
  // The peer's heap as this PE addresses it: the symmetric address range of its own heap.
  const char *base = gpushmem::rt().heap.base();
  const uint32_t rkey =
      wire.add_key(peer, gpushmem::transport::Region::heap, addr(base), gpushmem::rt().heap.size(), emu::kAllAccess);

  gpushmem::test::IbgdaHostQp host(0x100 + static_cast<uint32_t>(me), 64, 8);
  const gpushmem_ibgda_qp_t &qp = host.qp;
  const gpushmem_ibgda_qp_words_t &words = host.words;
  emu::NicEmulator nic;
  nic.add_qp(host.config(&local_keys, &wire));
  nic.start();
  shmem_barrier_all();

  const auto check = [&](ibgda::Outcome o, const char *what) {
    if (o != ibgda::Outcome::ok)
      PE_FAIL("%s: %s (error syndrome 0x%x at WQE %llu)", what,
              o == ibgda::Outcome::error ? "an error CQE" : "timed out", words.error,
              static_cast<unsigned long long>(words.error_index));
    return o == ibgda::Outcome::ok;
  };
  // The peer's symmetric objects, as this PE addresses them.
  const auto remote = [&](const void *p) { return mlx5::Remote{addr(p), rkey}; };
  bool ok = true;
  for (int i = 0; ok && i < kInline; ++i) {
    const uint64_t v = (uint64_t{static_cast<uint32_t>(me)} << 32) | static_cast<uint32_t>(i);
    ok = check(ibgda::post<Mem>(
                   qp, 1,
                   [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                     mlx5::build_write_inline(w, p, remote(&sym->small[i]), &v, 8);
                   },
                   i % 4 != 3, kTimeout),
               "inline WRITE");
  }
  for (int b = 0; ok && b < kBulk; ++b)
    ok = check(ibgda::post<Mem>(
                   qp, 1,
                   [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                     mlx5::build_write(w, p, remote(sym->bulk[b]),
                                       {addr(&source[static_cast<size_t>(b) * 4096]), lkey_src}, 4096);
                   },
                   false, kTimeout),
               "4 KiB WRITE");
  // Fetch-adds on the peer's counter, and bits or-ed into the peer's word (each PE its own bits).
  for (int i = 0; ok && i < kAdds; ++i)
    ok = check(
        ibgda::post<Mem>(
            qp, 1,
            [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
              mlx5::build_fetch_add(w, p, remote(&sym->counter), {addr(&fetched[static_cast<size_t>(i)]), lkey_f}, 1);
            },
            false, kTimeout),
        "fetch-add");
  for (int bit = 0; ok && bit < 64; bit += 2)
    ok = check(ibgda::post<Mem>(
                   qp, 2,
                   [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                     const uint64_t m = 1ull << (bit + me);
                     mlx5::build_masked_compare_swap(
                         w, p, remote(&sym->bits),
                         {addr(&fetched[static_cast<size_t>(kAdds) + static_cast<size_t>(bit / 2)]), lkey_f}, 8, m, 0,
                         m, 0);
                   },
                   false, kTimeout),
               "masked compare-swap");
  if (ok) ok = check(ibgda::quiet<Mem>(qp, kTimeout), "quiet");
  shmem_barrier_all();  // both PEs' writes are in place

  // What the peer wrote here.
  for (int i = 0; i < kInline; ++i) {
    const uint64_t want = (uint64_t{static_cast<uint32_t>(peer)} << 32) | static_cast<uint32_t>(i);
    if (sym->small[i] != want) {
      PE_FAIL("small[%d] = 0x%llx, want 0x%llx (PE %d's inline WRITE)", i,
              static_cast<unsigned long long>(sym->small[i]), static_cast<unsigned long long>(want), peer);
      break;
    }
  }
  for (int b = 0; b < kBulk; ++b)
    for (size_t i = 0; i < 4096; ++i) {
      const auto want =
          static_cast<uint8_t>((static_cast<size_t>(b) * 4096 + i) * 13 + static_cast<size_t>(peer) * 101 + 1);
      if (sym->bulk[b][i] != want) {
        PE_FAIL("bulk[%d][%zu] = %u, want %u (PE %d's 4 KiB WRITE)", b, i, sym->bulk[b][i], want, peer);
        b = kBulk;
        break;
      }
    }
  PE_CHECK(sym->counter == kAdds, "counter = %llu, want %d (PE %d's fetch-adds)",
           static_cast<unsigned long long>(sym->counter), kAdds, peer);
  uint64_t want_bits = 0;
  for (int bit = 0; bit < 64; bit += 2) want_bits |= 1ull << (bit + peer);
  PE_CHECK(sym->bits == want_bits, "bits = 0x%llx, want 0x%llx", static_cast<unsigned long long>(sym->bits),
           static_cast<unsigned long long>(want_bits));
  // What this PE fetched: every old value 0 .. kAdds-1 once, in order (one QP, executed in order).
  for (int i = 0; i < kAdds; ++i)
    if (fetched[static_cast<size_t>(i)] != static_cast<uint64_t>(i)) {
      PE_FAIL("fetch-add %d fetched %llu, want %d", i, static_cast<unsigned long long>(fetched[static_cast<size_t>(i)]),
              i);
      break;
    }

  // READs: the peer's heap back into this PE's buffer (what this PE wrote there).
  if (ok) {
    ok = check(ibgda::post<Mem>(
                   qp, 1,
                   [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                     mlx5::build_read(w, p, remote(sym->bulk[0]), {addr(readback.data()), lkey_rb}, kBulk * 4096);
                   },
                   false, kTimeout),
               "READ");
    if (ok) ok = check(ibgda::quiet<Mem>(qp, kTimeout), "quiet after the READ");
    PE_CHECK(ok && std::memcmp(readback.data(), source.data(), source.size()) == 0,
             "the READ of the peer's bulk area does not match what this PE wrote there");
  }
  shmem_barrier_all();

  // An unknown rkey: REMOTE_ACCESS_ERR for that WQE, then every later one flushed.
  if (ok) {
    uint64_t bad = 0;
    const uint64_t v = 1;
    (void)ibgda::post<Mem>(
        qp, 1,
        [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
          mlx5::build_write_inline(w, p, {addr(&sym->small[0]), rkey + 77}, &v, 8);
        },
        false, kTimeout, &bad);
    PE_CHECK(ibgda::quiet<Mem>(qp, kTimeout) == ibgda::Outcome::error, "a WRITE with an unknown rkey did not fail");
    PE_CHECK(words.error == GPUSHMEM_MLX5_SYND_REMOTE_ACCESS && words.error_index == bad,
             "the error CQE says syndrome 0x%x at WQE %llu, want REMOTE_ACCESS (0x13) at %llu", words.error,
             static_cast<unsigned long long>(words.error_index), static_cast<unsigned long long>(bad));
  }
  nic.stop();
  const emu::EmulatorCounters n = nic.counters();
  std::printf("ibgda_emu: PE %d: %llu WQEs executed, %llu CQEs, %llu doorbells\n", me,
              static_cast<unsigned long long>(n.wqes), static_cast<unsigned long long>(n.cqes),
              static_cast<unsigned long long>(words.doorbells));
  shmem_barrier_all();
  shmem_free(sym);
  return pe_finish("ibgda_emu");
}
