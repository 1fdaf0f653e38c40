// Dissemination barrier over the node's shared heaps: in round k, PE i bumps a counter in PE
// (i + 2^k) mod n's runtime area and waits for its own round-k counter to reach this barrier's epoch.
// Counters only grow, so consecutive barriers need no reset. A PE whose heap is not mapped here gets its
// arrival as a network message that adds it (Transport::send_message).
#include "sync/barrier.hpp"

#include <atomic>
#include <string>

#include "api/api_common.hpp"
#include "net/net.hpp"
#include "sync/wait.hpp"

namespace gpushmem::sync {

void barrier_all(const char *call) {
  Runtime &r = rt();
  // Publishes this PE's stores before anyone can leave the barrier and read them; the network's operations
  // (every context's) are complete too.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (net::active() != nullptr) [[unlikely]]
    net::quiet(call, transport::Transport::kAllChannels);
  if (r.n_pes == 1) return;
  static uint64_t epoch = 0;  // barriers completed by this PE; all PEs agree on it
  ++epoch;
  const int n = r.n_pes, me = r.my_pe;
  heap::InternalArea *area = r.heap.internal();  // at offset 0 of every heap: the same offset everywhere
  for (int k = 0, dist = 1; dist < n; ++k, dist <<= 1) {
    const int to = (me + dist) % n;
    const int from = (me - dist + n) % n;
    if (char *peer = r.p2p.heap_base(to); peer != nullptr) [[likely]] {
      auto *remote = reinterpret_cast<heap::InternalArea *>(peer);
      // Release: our earlier stores are visible to `to` before it sees the arrival.
      std::atomic_ref<uint64_t>(remote->barrier_round[k].value).fetch_add(1, std::memory_order_release);
    } else {
      // A network message adding the arrival; everything this PE issued before is complete (the quiet above).
      net::send_message(call, net::kRuntimeChan, to, nullptr, 0, &area->barrier_round[k].value, 1,
                        transport::SignalOp::add);
    }
    std::atomic_ref<uint64_t> mine(area->barrier_round[k].value);
    // In a report: the PEs that have not arrived at all (each PE's first arrival bumps round 0 of the next
    // PE), where this PE can see that PE's counter; the PE named above may only be waiting for them.
    auto late = [&] {
      int unseen = 0;
      std::string out = not_arrived(
          n, epoch,
          [&](int q) -> const uint64_t * {
            char *base = q == me ? reinterpret_cast<char *>(area) : r.p2p.heap_base(q);
            return base == nullptr ? nullptr : &reinterpret_cast<heap::InternalArea *>(base)->barrier_round[0].value;
          },
          [](int p) { return p; }, &unseen);
      if (unseen != 0 && !out.empty())
        out += " (and maybe some of the " + std::to_string(unseen) + " PEs on other nodes)";
      return out;
    };
    wait_until_explained([&] { return mine.load(std::memory_order_acquire) >= epoch; }, call, from,
                         "its arrival at the barrier", late);
  }
}

}  // namespace gpushmem::sync
