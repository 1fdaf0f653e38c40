// The MCS queue lock of mcs_lock.hpp: every copy of the lock word is reached through this process's mapping
// of its PE's heap, with one seq_cst CPU atomic per update (the same locked instruction the host AMOs use,
// so the lock is atomic against every PE of the node), or through the network transport's atomics for a PE
// on another node (the same agent every other PE's host AMOs on that word use).
#include "lock/mcs_lock.hpp"

#include <atomic>
#include <cstdio>

#include "amo/host_amo.hpp"
#include "api/api_common.hpp"
#include "lock/thread_gate.hpp"
#include "net/net.hpp"
#include "shmem.h"
#include "sync/wait.hpp"

namespace gpushmem::lock {
namespace {

static_assert(sizeof(long) == sizeof(uint64_t), "the lock word is a 64-bit long (LP64)");

// One PE's copy of a lock word: a CPU atomic through this process's mapping, or the network transport's
// atomics when that PE is reached through the network. Every operation is seq_cst (one locked instruction,
// or one network atomic that completes before the call returns).
struct Cell {
  const char *call;
  int pe;
  uint64_t *direct;  // nullptr: through the network
  const void *sym;   // this PE's address of the lock (the network's symmetric reference)

  uint64_t net_op(transport::AmoOp op, uint64_t operand, uint64_t compare) const {
    uint64_t old = 0;
    net::amo(call, net::kRuntimeChan, pe, sym, op, sizeof(uint64_t), operand, compare, &old);
    return old;
  }
  uint64_t load() const {
    if (direct == nullptr) [[unlikely]]
      return net_op(transport::AmoOp::load, 0, 0);
    return std::atomic_ref<uint64_t>(*direct).load(std::memory_order_seq_cst);
  }
  // compare_exchange: true when `expected` was there; otherwise `expected` receives what was.
  bool compare_exchange(uint64_t &expected, uint64_t desired) const {
    if (direct == nullptr) [[unlikely]] {
      const uint64_t seen = net_op(transport::AmoOp::cswap, desired, expected);
      const bool ok = seen == expected;
      expected = seen;
      return ok;
    }
    return std::atomic_ref<uint64_t>(*direct).compare_exchange_weak(expected, desired, std::memory_order_seq_cst);
  }
  uint64_t fetch_or(uint64_t bits) const {
    if (direct == nullptr) [[unlikely]]
      return net_op(transport::AmoOp::or_, bits, 0);
    return std::atomic_ref<uint64_t>(*direct).fetch_or(bits, std::memory_order_seq_cst);
  }
  uint64_t fetch_and(uint64_t bits) const {
    if (direct == nullptr) [[unlikely]]
      return net_op(transport::AmoOp::and_, bits, 0);
    return std::atomic_ref<uint64_t>(*direct).fetch_and(bits, std::memory_order_seq_cst);
  }
};

// The copies of one lock word: where it lives in each PE's heap (or among each PE's globals), and which PE
// holds the tail.
struct LockWord {
  const char *call;
  long *lock;       // this PE's address of the word
  uint64_t offset;  // from the start of every PE's heap, or of its global variables
  bool global;      // a global or static variable (Runtime::data)
  int home;

  Cell on(int pe) const {
    char *base = global ? rt().p2p.globals_base(pe) : rt().p2p.heap_base(pe);
    if (base == nullptr && global && rt().topology.local_index_of[pe] >= 0 && net::kind(pe) != net::Kind::network)
        [[unlikely]]
      api::fail(call,
                "lock is a global variable, and PE %d's copy is not mapped in PE %d: the PEs of this node do not "
                "share their globals (they run different executables, or GPUSHMEM_SYMMETRIC_DATA=0 on some of "
                "them); use shmem_malloc",
                pe, rt().my_pe);
    if (base == nullptr) [[unlikely]] {
      if (net::kind(pe) != net::Kind::network)
        api::fail(call, "PE %d cannot be reached from PE %d, and its copy of the lock is part of the lock's queue", pe,
                  rt().my_pe);
      if (global && !rt().data_everywhere)
        api::fail(call,
                  "lock is a global variable, and PE %d reaches PE %d only through the network, where globals are "
                  "symmetric only when every PE runs the same executable; use shmem_malloc",
                  rt().my_pe, pe);
      return {call, pe, nullptr, lock};
    }
    return {call, pe, reinterpret_cast<uint64_t *>(base + offset), lock};
  }
  // This PE's own copy, which it polls while waiting.
  std::atomic_ref<uint64_t> mine() const { return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(lock)); }
  Cell tail_word() const { return on(home); }
};

// Checked whatever GPUSHMEM_ERROR_CHECKS says: a lock word outside the heap would make every PE update
// unrelated memory at that offset, and the check costs nothing next to the atomics that follow.
LockWord lock_word(const char *call, long *lock) {
  api::require_running(call);
  Runtime &r = rt();
  if (lock == nullptr) [[unlikely]]
    api::fail(call, "lock is NULL: pass a symmetric long (from shmem_malloc or shmem_calloc) that is 0 on every PE");
  const char *p = reinterpret_cast<const char *>(lock);
  if (const char *gpu_base = r.gpu.base; gpu_base != nullptr && p >= gpu_base && p < gpu_base + r.gpu.limit)
      [[unlikely]]
    amo::fail_gpu_word(call, "lock");
  const bool global = r.data.contains(p, sizeof(long));
  const char *base = global ? r.data.start() : r.heap.base();
  const char *user = base + heap::kInternalAreaBytes;
  const char *end = base + r.heap.size();
  if (!global && (p < user || p >= end || static_cast<size_t>(end - p) < sizeof(long))) [[unlikely]]
    api::fail(call,
              "lock=%p is not a symmetric address: it is not inside the symmetric heap [%p, %p) of PE %d%s; a lock "
              "must be a symmetric long (from shmem_malloc or shmem_calloc%s), 0 on every PE before its first use",
              static_cast<const void *>(lock), static_cast<const void *>(user), static_cast<const void *>(end), r.my_pe,
              r.data.size() != 0 ? " nor among its global and static variables" : "",
              r.data.size() != 0 ? ", or a global or static variable" : "");
  if (reinterpret_cast<uintptr_t>(lock) % alignof(long) != 0) [[unlikely]]
    amo::fail_misaligned(call, "lock", lock, sizeof(long));
  const auto offset = static_cast<uint64_t>(p - base);
  // Spread independent locks over the PEs: the home holds the tail every joining PE swaps.
  const int home = static_cast<int>((offset / sizeof(long)) % static_cast<uint64_t>(r.n_pes));
  return {call, lock, offset, global, home};
}

// One compare-and-swap loop on the tail field of the home copy (the other bits of that word belong to the
// home PE's own queue node and may change under us). Returns the word the swap replaced. `only_if_free`:
// give up (returning the current word) when the lock is taken.
uint64_t swap_tail(const LockWord &w, uint64_t new_tail, bool only_if_free) {
  const Cell home = w.tail_word();
  uint64_t seen = home.load();
  for (;;) {
    if (only_if_free && tail_of(seen) != 0) return seen;
    if (home.compare_exchange(seen, (seen & ~kTailMask) | new_tail)) return seen;
  }
}

// A PE that holds the home copy takes and frees the lock with CPU atomics alone, which progress nothing: a
// network peer's atomic on that copy (its tail swap, its link) would wait for this PE's progress thread to
// take over, up to ten naps each, while this PE loops on the lock. One poll per call serves it at once, and
// the MCS queue then hands the lock over in turn. Nothing when no PE is reached through the network.
void serve_network_peers(const LockWord &w) {
  if (net::active() != nullptr && w.home == rt().my_pe) [[unlikely]]
    net::poll();
}

// The PE-wide queue, entered by one thread of the PE at a time (see thread_gate.hpp).
void queue_acquire(const char *call, long *lock, const LockWord &w) {
  const int me = rt().my_pe;
  serve_network_peers(w);
  // Uncontended: a free lock is taken by the tail swap alone, without touching this PE's queue node.
  if (tail_of(swap_tail(w, encode_pe(me), true)) == 0) return;
  std::atomic_ref<uint64_t> mine = w.mine();
  // Waiting first: the predecessor may hand the lock over as soon as this PE is linked behind it.
  mine.fetch_or(kWaitingBit, std::memory_order_seq_cst);
  const uint64_t before = swap_tail(w, encode_pe(me), false);
  const uint64_t previous = tail_of(before);
  if (previous == 0) {  // the lock was free: it is ours
    mine.fetch_and(~kWaitingBit, std::memory_order_seq_cst);
    return;
  }
  const int predecessor = static_cast<int>(previous - 1);
  if (predecessor == me) [[unlikely]]
    api::fail(call,
              "lock=%p: this PE already holds this lock or waits for it: OpenSHMEM locks are not reentrant, call "
              "shmem_clear_lock first",
              static_cast<void *>(lock));
  // Link behind the predecessor; it clears our waiting bit when it releases (release order: whatever it
  // wrote while holding the lock is visible once we see the bit clear).
  w.on(predecessor).fetch_or(encode_pe(me) << kNextShift);
  char what[160];
  std::snprintf(what, sizeof what,
                "the lock at %p: PE %d is ahead of this PE in the lock's queue and hands it over when it calls "
                "shmem_clear_lock",
                static_cast<void *>(lock), predecessor);
  sync::wait_until([&] { return (mine.load(std::memory_order_acquire) & kWaitingBit) == 0; }, call, predecessor, what);
}

bool queue_try(const LockWord &w) {
  serve_network_peers(w);
  // Take the lock only if nobody holds or waits for it: joining a queue would block.
  const uint64_t before = swap_tail(w, encode_pe(rt().my_pe), true);
  return tail_of(before) == 0;
}

void queue_release(const char *call, long *lock, const LockWord &w) {
  const int me = rt().my_pe;
  // The spec's quiet: the updates made under the lock are complete before the next holder can see it.
  shmem_quiet();
  std::atomic_ref<uint64_t> mine = w.mine();
  const Cell home = w.tail_word();
  serve_network_peers(w);
  if (next_of(mine.load(std::memory_order_seq_cst)) == 0) {
    uint64_t seen = home.load();
    if (tail_of(seen) == 0) [[unlikely]]
      api::fail(call,
                "lock=%p is not held by any PE: shmem_clear_lock must follow this PE's shmem_set_lock "
                "or a shmem_test_lock that returned 0",
                static_cast<void *>(lock));
    // Still the last in the queue: the lock becomes free.
    while (tail_of(seen) == encode_pe(me))
      if (home.compare_exchange(seen, seen & ~kTailMask)) return;
    // Someone joined behind this PE: it links itself in a moment.
    sync::wait_until([&] { return next_of(mine.load(std::memory_order_acquire)) != 0; }, call, -1,
                     "the PE that joined the lock's queue behind this one to link itself");
  }
  const uint64_t next = next_of(mine.fetch_and(~kNextMask, std::memory_order_seq_cst));
  w.on(static_cast<int>(next - 1)).fetch_and(~kWaitingBit);
}

bool threads_share_locks() {
  return rt().thread_level == SHMEM_THREAD_MULTIPLE;
}

}  // namespace

void set_lock(const char *call, long *lock) {
  const LockWord w = lock_word(call, lock);
  if (threads_share_locks()) {
    ThreadGate &gate = gate_for(w.offset);
    if (gate.held_by_me()) [[unlikely]]
      api::fail(call,
                "lock=%p: this thread already holds this lock: OpenSHMEM locks are not reentrant, call "
                "shmem_clear_lock first",
                static_cast<void *>(lock));
    gate.enter(call, lock);
  }
  queue_acquire(call, lock, w);
}

int test_lock(const char *call, long *lock) {
  const LockWord w = lock_word(call, lock);
  ThreadGate *gate = nullptr;
  if (threads_share_locks()) {
    gate = &gate_for(w.offset);
    if (!gate->try_enter()) return 1;  // another thread of this PE holds or waits for it
  }
  if (queue_try(w)) return 0;
  if (gate != nullptr) gate->leave();
  return 1;
}

void clear_lock(const char *call, long *lock) {
  const LockWord w = lock_word(call, lock);
  queue_release(call, lock, w);
  if (threads_share_locks()) gate_for(w.offset).leave();
}

}  // namespace gpushmem::lock
