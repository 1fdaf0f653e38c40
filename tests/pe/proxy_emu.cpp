// The CPU proxy end to end without a GPU (label emu): host producer threads write requests into channels laid
// out as the runtime lays out a GPU's (gpushmem/proxy_channel.h, through gpushmem/proxy_producer.hpp, the code
// the device producers run), and this PE's proxy service executes them with the runtime's backend
// (runtime/proxy/runtime_backend.cpp) over the network to the other PE, which sits in another virtual host.
// Every op the device issues is covered, data checked at the target and at the source:
//   - PUT inline (8 bytes) and from a host buffer (100 bytes) into the peer's heap, from 4 threads at once
//     through a ring of 64 slots (back-pressure), 4000 requests in all;
//   - GET into a host buffer; AMO add (non-fetching) and AMO_FETCH fetch-add (every ticket once);
//   - PUT_SIGNAL of 2000 bytes whose signal the target waits for with shmem_uint64_wait_until before checking
//     the payload; SIGNAL (add);
//   - compare-and-swap and swap through AMO_FETCH; FENCE; QUIET (completed passes it once the network
//     operations before it are complete at the target);
//   - rendezvous-sized transfers both ways at once: each PE's proxy puts 1 MiB into the other's heap and gets
//     64 KiB + 1 from it, each proxy waiting in its own transfer while it serves the peer's.
// With GPUSHMEM_TEST_HEAP_AGENT=1 (pe.proxy_emu.agent) every operation on the heap travels as a message the
// target's memory agent executes, as on a GPU heap without GPUDirect. `pe_proxy_emu many` (pe.proxy_emu.agent_many)
// runs gpu.proxy_device's many kernel's pattern instead (run_many).
#include <shmem.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gpushmem/proxy_producer.hpp"
#include "pe_check.h"
#include "proxy/proxy_service.hpp"
#include "proxy/runtime_backend.hpp"
#include "proxy_host_mem.hpp"
#include "proxy_requests.hpp"
#include "state.hpp"
#include "transport.hpp"

namespace {

using gpushmem::test::HostChannel;
using gpushmem::test::HostMem;
using gpushmem::test::issue;
using gpushmem::test::wait_completed;
namespace proxy = gpushmem::proxy;

constexpr int kThreads = 4;
constexpr int kPerThread = 500;  // each a PUT inline and a PUT from a buffer
constexpr size_t kBody = 100;

struct Sym {
  uint64_t inl[kThreads * kPerThread];
  unsigned char body[kThreads][kPerThread][kBody];
  unsigned char signalled[2000];
  uint64_t counter, ticket, sig, sig_add, swap_word;
  unsigned char big[1 << 20];             // the peer's 1 MiB put lands here
  unsigned char big_src[(64 << 10) + 1];  // what the peer gets
};

unsigned char pattern(int pe, int salt, size_t k) {
  return static_cast<unsigned char>(pe * 29 + salt * 5 + k * 3 + 1);
}

uint64_t remote_of(const void *sym) {
  const char *base = gpushmem::rt().heap.base();
  return gpushmem_proxy_remote(static_cast<uint64_t>(static_cast<const char *>(sym) - base),
                               static_cast<uint32_t>(gpushmem::transport::Region::heap));
}
uint64_t signal_of(const void *sym, uint32_t amo) {
  const char *base = gpushmem::rt().heap.base();
  return gpushmem_proxy_signal(static_cast<uint64_t>(static_cast<const char *>(sym) - base),
                               static_cast<uint32_t>(gpushmem::transport::Region::heap), amo);
}

gpushmem_proxy_slot_t slot(uint64_t remote, const void *local, uint32_t size) {
  gpushmem_proxy_slot_t s{};
  s.remote = remote;
  s.local = reinterpret_cast<uint64_t>(local);
  s.size_event = gpushmem_proxy_size_event(size, 0);
  return s;
}

// `many`: what gpu.proxy_device's many kernel does, from host threads, both PEs at once: kManyThreads producers
// each issue kManyIters x (an inline 4-byte PUT, a posted AMO add, an AMO_FETCH fetch-inc waited for) through one
// ring of 64 slots, then a QUIET; every element, the counter and each ticket checked.
constexpr int kManyThreads = 8, kManyIters = 2000;
struct ManySym {
  uint32_t elems[kManyThreads * kManyIters];
  uint64_t counter, ticket;
};

int run_many(int peer) {
  auto *sym = static_cast<ManySym *>(shmem_calloc(1, sizeof(ManySym)));
  shmem_barrier_all();
  HostChannel ring(64);
  gpushmem::test::RuntimeProxy runtime_proxy({&ring.c}, 10000000000ull);
  std::vector<std::vector<uint64_t>> tickets(kManyThreads);
  std::vector<std::thread> producers;
  for (int t = 0; t < kManyThreads; ++t)
    producers.emplace_back([&, t] {
      for (int i = 0; i < kManyIters; ++i) {
        const int n = t * kManyIters + i;
        gpushmem_proxy_slot_t p = slot(remote_of(&sym->elems[n]), nullptr, 4);
        p.compare = static_cast<uint64_t>(n) * 3u + 1u;
        issue(ring.c, p, GPUSHMEM_PROXY_OP_PUT, GPUSHMEM_PROXY_FLAG_INLINE | GPUSHMEM_PROXY_FLAG_NBI, peer);
        gpushmem_proxy_slot_t a = slot(remote_of(&sym->counter), nullptr, 8);
        a.signal = gpushmem_proxy_signal(0, 0, GPUSHMEM_PROXY_AMO_ADD);
        a.value = static_cast<uint64_t>(n) + 1u;
        issue(ring.c, a, GPUSHMEM_PROXY_OP_AMO, GPUSHMEM_PROXY_FLAG_NBI, peer);
        uint64_t old = ~0ull;
        gpushmem_proxy_slot_t f = slot(remote_of(&sym->ticket), &old, 8);
        f.signal = gpushmem_proxy_signal(0, 0, GPUSHMEM_PROXY_AMO_ADD);
        f.value = 1;
        wait_completed(ring.c, issue(ring.c, f, GPUSHMEM_PROXY_OP_AMO_FETCH, 0, peer) + 1, "a fetch-inc");
        tickets[static_cast<size_t>(t)].push_back(old);
      }
    });
  for (std::thread &p : producers) p.join();
  wait_completed(ring.c, issue(ring.c, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_QUIET, 0, peer) + 1, "the quiet");
  constexpr uint64_t kN = kManyThreads * kManyIters;
  std::vector<int> seen(kN, 0);
  for (const auto &v : tickets)
    for (uint64_t old : v)
      if (old >= kN || seen[old]++ != 0) {
        PE_FAIL("fetch-inc returned ticket %llu (out of range or twice)", static_cast<unsigned long long>(old));
        break;
      }
  shmem_barrier_all();  // both PEs' operations are complete (each quieted above)
  for (uint64_t n = 0; n < kN; ++n)
    if (sym->elems[n] != n * 3u + 1u) {
      PE_FAIL("inline put %llu: %u", static_cast<unsigned long long>(n), sym->elems[n]);
      break;
    }
  if (sym->counter != kN * (kN + 1) / 2 || sym->ticket != kN)
    PE_FAIL("counter %llu (expected %llu), ticket %llu (expected %llu)", static_cast<unsigned long long>(sym->counter),
            static_cast<unsigned long long>(kN * (kN + 1) / 2), static_cast<unsigned long long>(sym->ticket),
            static_cast<unsigned long long>(kN));
  runtime_proxy.service.stop();
  shmem_barrier_all();
  shmem_free(sym);
  return pe_finish("proxy_emu many");
}

}  // namespace

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (npes != 2) {
    PE_FAIL("run with 2 PEs (got %d)", npes);
    return pe_finish("proxy_emu");
  }
  const int peer = 1 - me;
  if (argc > 1 && std::strcmp(argv[1], "many") == 0) return run_many(peer);
  auto *sym = static_cast<Sym *>(shmem_calloc(1, sizeof(Sym)));
  shmem_barrier_all();

  // Two channels of 64 slots: one fed by the producer threads, one for this thread's requests.
  HostChannel puts(64), mine(64);
  gpushmem::test::RuntimeProxy runtime_proxy({&puts.c, &mine.c}, 10000000000ull);

  // PUTs from kThreads threads at once, through a ring smaller than what they issue.
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t)
    producers.emplace_back([&, t] {
      std::vector<unsigned char> buffer(kBody);
      uint64_t last = 0;
      for (int i = 0; i < kPerThread; ++i) {
        const int n = t * kPerThread + i;
        gpushmem_proxy_slot_t s = slot(remote_of(&sym->inl[n]), nullptr, 8);
        s.compare = static_cast<uint64_t>(n) * 1000003u + static_cast<uint64_t>(me);
        issue(puts.c, s, GPUSHMEM_PROXY_OP_PUT, GPUSHMEM_PROXY_FLAG_INLINE | GPUSHMEM_PROXY_FLAG_NBI, peer);
        for (size_t k = 0; k < kBody; ++k) buffer[k] = pattern(me, t * 1000 + i, k);
        // A put from a buffer is complete (the buffer reusable) once completed passes it.
        last = issue(puts.c, slot(remote_of(sym->body[t][i]), buffer.data(), kBody), GPUSHMEM_PROXY_OP_PUT, 0, peer);
        wait_completed(puts.c, last + 1, "a put from a host buffer");
      }
    });
  for (std::thread &p : producers) p.join();
  const uint64_t q = issue(puts.c, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_QUIET, 0, peer);
  wait_completed(puts.c, q + 1, "the quiet after the puts");

  // Atomics: 100 adds of 3, 100 fetch-adds of 1 (tickets 0..99 once each).
  for (int i = 0; i < 100; ++i) {
    gpushmem_proxy_slot_t s = slot(remote_of(&sym->counter), nullptr, 8);
    s.signal = gpushmem_proxy_signal(0, 0, GPUSHMEM_PROXY_AMO_ADD);
    s.value = 3;
    issue(mine.c, s, GPUSHMEM_PROXY_OP_AMO, GPUSHMEM_PROXY_FLAG_NBI, peer);
  }
  std::vector<int> seen(100, 0);
  for (int i = 0; i < 100; ++i) {
    uint64_t old = ~0ull;
    gpushmem_proxy_slot_t s = slot(remote_of(&sym->ticket), &old, 8);
    s.signal = gpushmem_proxy_signal(0, 0, GPUSHMEM_PROXY_AMO_ADD);
    s.value = 1;
    wait_completed(mine.c, issue(mine.c, s, GPUSHMEM_PROXY_OP_AMO_FETCH, 0, peer) + 1, "a fetch-add");
    if (old >= 100 || seen[old]++ != 0)
      PE_FAIL("fetch-add %d returned ticket %llu (out of range or twice)", i, static_cast<unsigned long long>(old));
  }
  // Swap, then compare-and-swap that succeeds, then one that fails.
  uint64_t olds[3] = {~0ull, ~0ull, ~0ull};
  const uint32_t amos[3] = {GPUSHMEM_PROXY_AMO_SWAP, GPUSHMEM_PROXY_AMO_CSWAP, GPUSHMEM_PROXY_AMO_CSWAP};
  const uint64_t values[3] = {100u + me, 200u + me, 7}, compares[3] = {0, 100u + me, 1};
  for (int i = 0; i < 3; ++i) {
    gpushmem_proxy_slot_t s = slot(remote_of(&sym->swap_word), &olds[i], 8);
    s.signal = gpushmem_proxy_signal(0, 0, amos[i]);
    s.value = values[i];
    s.compare = compares[i];
    wait_completed(mine.c, issue(mine.c, s, GPUSHMEM_PROXY_OP_AMO_FETCH, 0, peer) + 1, "a swap");
  }
  if (olds[0] != 0 || olds[1] != 100u + me || olds[2] != 200u + me)
    PE_FAIL("swap / cswap / failing cswap returned %llu %llu %llu, expected 0 %d %d",
            static_cast<unsigned long long>(olds[0]), static_cast<unsigned long long>(olds[1]),
            static_cast<unsigned long long>(olds[2]), 100 + me, 200 + me);

  // PUT_SIGNAL after a FENCE, then a SIGNAL add; the target waits for both below.
  std::vector<unsigned char> payload(sizeof sym->signalled);
  for (size_t k = 0; k < payload.size(); ++k) payload[k] = pattern(me, 7, k);
  issue(mine.c, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_FENCE, GPUSHMEM_PROXY_FLAG_NBI, peer);
  gpushmem_proxy_slot_t ps = slot(remote_of(sym->signalled), payload.data(), static_cast<uint32_t>(payload.size()));
  ps.signal = signal_of(&sym->sig, 0);
  ps.value = 42;
  const uint64_t put_signal = issue(mine.c, ps, GPUSHMEM_PROXY_OP_PUT_SIGNAL, 0, peer);
  gpushmem_proxy_slot_t sg{};
  sg.signal = signal_of(&sym->sig_add, GPUSHMEM_PROXY_AMO_ADD);
  sg.value = 5;
  issue(mine.c, sg, GPUSHMEM_PROXY_OP_SIGNAL, GPUSHMEM_PROXY_FLAG_NBI | GPUSHMEM_PROXY_FLAG_SIG_ADD, peer);
  wait_completed(mine.c, put_signal + 1, "the put-with-signal");

  // A get of the peer's counter and ticket, which this PE's atomics made 300 and 100 (complete after the quiet).
  const uint64_t q2 = issue(mine.c, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_QUIET, 0, peer);
  wait_completed(mine.c, q2 + 1, "the quiet after the atomics");
  uint64_t got[2] = {0, 0};
  wait_completed(mine.c, issue(mine.c, slot(remote_of(&sym->counter), got, 16), GPUSHMEM_PROXY_OP_GET, 0, peer) + 1,
                 "a get");
  if (got[0] != 300 || got[1] != 100)
    PE_FAIL("get of the peer's counter and ticket: %llu %llu, expected 300 100",
            static_cast<unsigned long long>(got[0]), static_cast<unsigned long long>(got[1]));

  // Rendezvous-sized transfers, both PEs at once.
  for (size_t k = 0; k < sizeof sym->big_src; ++k) sym->big_src[k] = pattern(me, 11, k);
  std::vector<unsigned char> big(sizeof sym->big), back(sizeof sym->big_src);
  for (size_t k = 0; k < big.size(); ++k) big[k] = pattern(me, 13, k);
  shmem_barrier_all();  // both sources are ready
  issue(mine.c, slot(remote_of(sym->big), big.data(), static_cast<uint32_t>(big.size())), GPUSHMEM_PROXY_OP_PUT, 0,
        peer);
  const uint64_t big_get = issue(mine.c, slot(remote_of(sym->big_src), back.data(), static_cast<uint32_t>(back.size())),
                                 GPUSHMEM_PROXY_OP_GET, 0, peer);
  wait_completed(mine.c, big_get + 1, "a 1 MiB put and a 64 KiB + 1 get");
  for (size_t k = 0; k < back.size(); ++k)
    if (back[k] != pattern(peer, 11, k)) {
      PE_FAIL("64 KiB + 1 get, byte %zu: 0x%02x, expected 0x%02x", k, back[k], pattern(peer, 11, k));
      break;
    }
  const uint64_t q3 = issue(mine.c, gpushmem_proxy_slot_t{}, GPUSHMEM_PROXY_OP_QUIET, 0, peer);
  wait_completed(mine.c, q3 + 1, "the quiet after the 1 MiB put");

  // The target's side: what the peer's proxy delivered here.
  shmem_uint64_wait_until(&sym->sig, SHMEM_CMP_EQ, 42);
  shmem_uint64_wait_until(&sym->sig_add, SHMEM_CMP_EQ, 5);
  for (size_t k = 0; k < sizeof sym->signalled; ++k)
    if (sym->signalled[k] != pattern(peer, 7, k)) {
      PE_FAIL("put-with-signal payload byte %zu: 0x%02x, expected 0x%02x", k, sym->signalled[k], pattern(peer, 7, k));
      break;
    }
  shmem_barrier_all();  // both PEs' puts and atomics are complete (each quieted above)
  for (int n = 0; n < kThreads * kPerThread; ++n)
    if (sym->inl[n] != static_cast<uint64_t>(n) * 1000003u + static_cast<uint64_t>(peer)) {
      PE_FAIL("inline put %d: %llu", n, static_cast<unsigned long long>(sym->inl[n]));
      break;
    }
  long bad = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i)
      for (size_t k = 0; k < kBody; ++k)
        if (sym->body[t][i][k] != pattern(peer, t * 1000 + i, k) && bad++ < 3)
          PE_FAIL("buffer put %d of thread %d, byte %zu: 0x%02x, expected 0x%02x", i, t, k, sym->body[t][i][k],
                  pattern(peer, t * 1000 + i, k));
  if (sym->counter != 300 || sym->ticket != 100)
    PE_FAIL("counter %llu (expected 300), ticket %llu (expected 100)", static_cast<unsigned long long>(sym->counter),
            static_cast<unsigned long long>(sym->ticket));
  for (size_t k = 0; k < sizeof sym->big; ++k)
    if (sym->big[k] != pattern(peer, 13, k)) {
      PE_FAIL("1 MiB put, byte %zu: 0x%02x, expected 0x%02x", k, sym->big[k], pattern(peer, 13, k));
      break;
    }
  if (sym->swap_word != 200u + static_cast<uint64_t>(peer))
    PE_FAIL("swap word %llu, expected %d", static_cast<unsigned long long>(sym->swap_word), 200 + peer);
  runtime_proxy.service.stop();
  shmem_barrier_all();
  shmem_free(sym);
  return pe_finish("proxy_emu");
}
