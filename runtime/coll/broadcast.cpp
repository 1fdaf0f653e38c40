// Broadcast: small messages in small teams are pushed into the receivers' broadcast slots (the root returns
// at once); otherwise flat pull for small teams (every member reads the root's buffer in place once the root has
// signalled; the root waits until all have read), binomial pull tree for larger teams (a member reads from
// its parent's dest, then serves its children), so no buffer is read by more than log2(n) members.
#include <atomic>
#include <cstring>

#include "coll/engine.hpp"

namespace gpushmem::coll {

void broadcast(Call &c, void *dest, const void *source, size_t bytes, int root, bool root_writes_dest) {
  c.hdr = Header{uint64_t(Kind::broadcast), bytes, root, 0};
  const bool copy_root = root_writes_dest && dest != source && bytes != 0;
  if (c.n == 1) {
    if (copy_root) std::memcpy(dest, source, bytes);
    return;
  }
  if (c.n <= flat_max_pes() && bytes <= team::kBcastBytes && bytes <= push_max_bytes()) {
    // Pushed: the root writes every receiver's broadcast slot and signals; it waits only if a receiver has
    // not yet copied out the broadcast that used the same slot two pushed broadcasts ago (that broadcast's
    // root had nothing to copy out). A receiver says so in its `consumed` word, which a root on its node
    // reads where it lies; to a root reached through the network it also sends its kDone flag (that call's
    // epoch), so that root, when it pushes into the slot again, waits on a word of its own instead of
    // asking with a round trip (another root asks with gets).
    const uint64_t seq = ++c.t.bcast_seq;
    const int slot = static_cast<int>(seq & 1);
    const uint64_t prev_epoch = c.t.bcast_epoch[slot];
    const int prev_root = c.t.bcast_root[slot];
    c.t.bcast_epoch[slot] = c.e;
    c.t.bcast_root[slot] = root;
    const team::Stage stage = slot == 0 ? team::kBcast0 : team::kBcast1;
    char *mine = c.t.area + team::layout().bcast + uint64_t(slot) * team::kBcastBytes;
    auto *consumed = reinterpret_cast<uint64_t *>(c.t.area + team::layout().consumed);
    if (c.me == root) {
      if (copy_root) std::memcpy(dest, source, bytes);
      for (int i = 1; i < c.n; ++i) {
        const int j = (c.me + i) % c.n;
        const int pe = c.t.world_pe(j);
        if (seq > 2 && j != prev_root) {
          // Acquire: its copy-out is over before we overwrite the slot. Its kDone came to the root of that
          // broadcast: here, if that was this PE too (the usual case); otherwise ask with gets.
          if (prev_root == c.me && peer_ptr(consumed, pe) == nullptr)
            wait_ge(&c.flag(team::kDone, j)->epoch, prev_epoch, c.call, pe,
                    "it to copy out an earlier broadcast from the slot this one reuses");
          else
            wait_remote_ge(consumed, seq - 2, c.call, pe,
                           "it to copy out an earlier broadcast from the slot this one reuses");
        }
        if (bytes != 0) put(mine, source, bytes, pe);
        c.signal(stage, j);
      }
      if (rt().error_checks) {
        c.t.root_check_epoch = c.e;
        c.t.root_check_stage = stage;
        c.t.root_check_root = root;
        c.t.root_check_call = c.call;
      }
    } else {
      c.wait(stage, root);
      if (bytes != 0) std::memcpy(dest, mine, bytes);
      std::atomic_ref<uint64_t>(*consumed).store(seq, std::memory_order_release);
      if (peer_ptr(consumed, c.t.world_pe(root)) == nullptr) c.signal(team::kDone, root);
    }
    return;
  }
  if (c.n <= flat_max_pes()) {
    if (c.me == root) {
      // Receivers read the root's source, so its own copy runs while they read.
      c.signal_all(team::kReady);
      if (copy_root) std::memcpy(dest, source, bytes);
      c.wait_all(team::kDone);
    } else {
      c.wait(team::kReady, root);
      if (bytes != 0) get(dest, source, bytes, c.t.world_pe(root));
      c.signal(team::kDone, root);
    }
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
