// Broadcast: small messages in small teams are pushed into the receivers' broadcast slots (the root returns
// at once); otherwise flat for small teams (members on the root's node read its buffer in place once it has
// signalled, and it waits until all have read; members reached through the network get the data pushed into
// their dest once they said they are ready), binomial pull tree for larger teams (a member reads from its
// parent's dest, then serves its children), so no buffer is read by more than log2(n) members.
#include <atomic>
#include <cstring>

#include "coll/engine.hpp"

namespace gpushmem::coll {

namespace {

// Before the root of broadcast `seq` pushes into member j's slot again: j copied out broadcast `prev`, the
// slot's last one. A root on j's node reads j's consumed word in place. Through the network, j acknowledges
// every (slots / 2)-th broadcast to that broadcast's root: when the first acknowledgement at or after
// `prev` came here, this root waits on its own word; otherwise it reads j's word with gets.
void wait_consumed(Call &c, int j, uint64_t prev) {
  const int pe = c.t.world_pe(j);
  auto *consumed = reinterpret_cast<uint64_t *>(c.t.area + team::layout().consumed);
  const char *what = "it to copy out an earlier broadcast from the slot this one reuses";
  if (peer_ptr(consumed, pe) == nullptr) {
    const uint64_t slots = uint64_t(team::layout().bcast_slots), every = slots / 2;
    const uint64_t ack = (prev + every - 1) / every * every;
    // ack < seq, so its slot still names its root (prev's slot is rewritten only after this wait).
    if (c.t.bcast_root[ack % slots] == c.me) return wait_ge(&c.flag(team::kBcastAck, j)->epoch, prev, c.call, pe, what);
  }
  wait_remote_ge(consumed, prev, c.call, pe, what);
}

// Whether a broadcast of `bytes` between the root and member PE `pe` goes through the slots: up to
// kBcastNetBytes through the network; on the node, up to layout().bcast_push_bytes (kBcastBytes in a job on
// one node, kBcastNetBytes in one that spans nodes, where a root that waited for its node's members to read
// its buffer would hold up its network members too). The same answer on both sides of the pair. fits:
// bytes <= bcast_push_bytes.
bool pushed_pair(bool fits, int pe, const void *sym) {
  return fits || peer_ptr(sym, pe) == nullptr;
}

// Broadcasts up to kBcastNetBytes are numbered (every member counts them alike). Receivers of a pushed pair
// get the call's header and the data in their slot for this number and the root returns at once; it waits
// only where a receiver has not yet copied out the broadcast that used the slot `slots` broadcasts ago
// (unless that receiver was its root). Other receivers (on the root's node, above kBcastBytes) read the
// root's source in place once it signalled, and the root waits for them.
void sequenced(Call &c, void *dest, const void *source, size_t bytes, int root, bool copy_root) {
  const uint64_t seq = ++c.t.bcast_seq;
  const team::AreaLayout &l = team::layout();
  const int slot = static_cast<int>(seq % uint64_t(l.bcast_slots));
  const bool fits = bytes <= l.bcast_push_bytes;
  char *mine = c.t.area + l.bcast + uint64_t(slot) * team::kBcastSlotBytes;
  auto *consumed = reinterpret_cast<uint64_t *>(c.t.area + team::layout().consumed);
  if (c.me == root) {
    bool pulled = false;
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      if (!pushed_pair(fits, c.t.world_pe(j), consumed)) {
        c.signal(team::kReady, j);
        pulled = true;
      }
    }
    if (copy_root) std::memcpy(dest, source, bytes);
    const uint64_t prev = seq > uint64_t(l.bcast_slots) ? seq - uint64_t(l.bcast_slots) : 0;
    const int prev_root = c.t.bcast_root[slot];
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      const int pe = c.t.world_pe(j);
      if (!pushed_pair(fits, pe, consumed)) continue;
      if (prev != 0 && j != prev_root) wait_consumed(c, j, prev);
      put(mine, &c.hdr, sizeof c.hdr, pe);
      if (bytes != 0) put(mine + 64, source, bytes, pe);
      c.signal(team::kBcast, j);
    }
    for (int i = 1; pulled && i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      if (!pushed_pair(fits, c.t.world_pe(j), consumed)) c.wait(team::kDone, j);
    }
    c.t.bcast_root[slot] = root;
    if (rt().error_checks) {
      c.t.root_check_epoch = c.e;
      c.t.root_check_stage = team::kBcast;
      c.t.root_check_root = root;
      c.t.root_check_call = c.call;
    }
    return;
  }
  const int root_pe = c.t.world_pe(root);
  const bool network = peer_ptr(consumed, root_pe) == nullptr;
  if (pushed_pair(fits, root_pe, consumed)) {
    // The slot's header is this call's (the flag's payload may already be a later broadcast's).
    c.wait_with_header(team::kBcast, root, reinterpret_cast<const Header *>(mine));
    if (bytes != 0) std::memcpy(dest, mine + 64, bytes);
  } else {
    c.wait(team::kReady, root);
    if (bytes != 0) get(dest, source, bytes, root_pe);
    c.signal(team::kDone, root);
  }
  // Every numbered broadcast, pushed or not: a root waiting for a number this one passed sees it.
  std::atomic_ref<uint64_t>(*consumed).store(seq, std::memory_order_release);
  c.t.bcast_root[slot] = root;
  if (network && seq % uint64_t(l.bcast_slots / 2) == 0) signal(&c.flag(team::kBcastAck, c.me)->epoch, seq, root_pe);
}

// Flat: receivers on the root's node read its source in place once it has signalled (the root waits until
// they have); a receiver reached through the network says it is ready (its dest may be written) and the
// root pushes the data into its dest with the signal, one message, instead of the receiver asking for it.
void flat(Call &c, void *dest, const void *source, size_t bytes, int root, bool copy_root) {
  if (c.me == root) {
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      if (peer_ptr(dest, c.t.world_pe(j)) != nullptr) c.signal(team::kReady, j);
    }
    // Receivers read the root's source, so its own copy runs while they read.
    if (copy_root) std::memcpy(dest, source, bytes);
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      const int pe = c.t.world_pe(j);
      if (peer_ptr(dest, pe) != nullptr) continue;
      c.wait(team::kReady, j);
      if (bytes != 0) put(dest, source, bytes, pe);
      // kDone, not kReady: this root's next call may signal kReady to j before j has seen this one (with
      // another header, or overtaking it); kDone is only ever sent after j's signal of the same call.
      c.signal(team::kDone, j);
    }
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      if (peer_ptr(dest, c.t.world_pe(j)) != nullptr) c.wait(team::kDone, j);
    }
    return;
  }
  const int root_pe = c.t.world_pe(root);
  if (peer_ptr(source, root_pe) == nullptr) {
    c.signal(team::kReady, root);
    c.wait(team::kDone, root);  // the data is in dest
    return;
  }
  c.wait(team::kReady, root);
  if (bytes != 0) get(dest, source, bytes, root_pe);
  c.signal(team::kDone, root);
}

}  // namespace

void broadcast(Call &c, void *dest, const void *source, size_t bytes, int root, bool root_writes_dest) {
  c.hdr = Header{uint64_t(Kind::broadcast), bytes, root, 0};
  const bool copy_root = root_writes_dest && dest != source && bytes != 0;
  if (c.n == 1) {
    if (copy_root) std::memcpy(dest, source, bytes);
    return;
  }
  if (c.n <= flat_max_pes() && bytes <= team::kBcastNetBytes && bytes <= push_limit(c)) {
    sequenced(c, dest, source, bytes, root, copy_root);
    return;
  }
  if (c.n <= flat_max_pes()) {
    flat(c, dest, source, bytes, root, copy_root);
    return;
  }
  // Binomial tree over v = (me - root) mod n: v's parent is v without its highest set bit; its children are
  // v + 2^k for every 2^k above that bit.
  const int v = (c.me - root + c.n) % c.n;
  auto member = [&](int virt) { return (virt + root) % c.n; };
  int high = 0;  // highest power of two <= v (0 for the root)
  if (v != 0) {
    high = 1;
    while ((high << 1) <= v) high <<= 1;
    const int parent = v - high;
    c.wait(team::kReady, member(parent));
    // The root's children read its source (valid until they are done), so the root's own copy overlaps.
    const void *from = parent == 0 ? source : dest;
    if (bytes != 0) get(dest, from, bytes, c.t.world_pe(member(parent)));
    c.signal(team::kDone, member(parent));
  }
  int first = v == 0 ? 1 : high << 1;
  for (int m = first; v + m < c.n; m <<= 1) c.signal(team::kReady, member(v + m));
  if (v == 0 && copy_root) std::memcpy(dest, source, bytes);
  for (int m = first; v + m < c.n; m <<= 1) c.wait(team::kDone, member(v + m));
}

}  // namespace gpushmem::coll
