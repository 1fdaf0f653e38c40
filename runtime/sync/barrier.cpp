// Dissemination barrier over the node's shared heaps: in round k, PE i bumps a counter in PE
// (i + 2^k) mod n's runtime area and waits for its own round-k counter to reach this barrier's epoch.
// Counters only grow, so consecutive barriers need no reset. Without load/store reach to every PE the
// bootstrap's barrier is used instead.
#include "sync/barrier.hpp"

#include <atomic>

#include "api/api_common.hpp"
#include "sync/wait.hpp"

namespace gpushmem::sync {

void barrier_all(const char *call) {
  Runtime &r = rt();
  // Publishes this PE's stores before anyone can leave the barrier and read them.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (r.n_pes == 1) return;
  if (!r.all_pes_mapped) {
    int rc = r.bootstrap.table.barrier(&r.bootstrap.table);
    if (rc != GPUSHMEM_BOOTSTRAP_OK)
      api::fail(call, "the %s bootstrap's barrier failed (code %d)", r.bootstrap.table.name, rc);
    return;
  }
  static uint64_t epoch = 0;  // barriers completed by this PE; all PEs agree on it
  ++epoch;
  const int n = r.n_pes, me = r.my_pe;
  const uint64_t offset_in_heap = 0;  // the runtime area sits at the heap's start
  for (int k = 0, dist = 1; dist < n; ++k, dist <<= 1) {
    const int to = (me + dist) % n;
    const int from = (me - dist + n) % n;
    auto *remote = reinterpret_cast<heap::InternalArea *>(r.peer_base[to] + offset_in_heap);
    // Release: our earlier stores are visible to `to` before it sees the arrival.
    std::atomic_ref<uint64_t>(remote->barrier_round[k].value).fetch_add(1, std::memory_order_release);
    std::atomic_ref<uint64_t> mine(r.heap.internal()->barrier_round[k].value);
    wait_until([&] { return mine.load(std::memory_order_acquire) >= epoch; }, call, from, "its arrival at the barrier");
  }
}

}  // namespace gpushmem::sync
