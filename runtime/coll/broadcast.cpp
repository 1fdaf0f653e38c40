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
    // not yet copied out the broadcast that used the same slot two pushed broadcasts ago.
    const uint64_t seq = ++c.t.bcast_seq;
    const int slot = static_cast<int>(seq & 1);
    const team::Stage stage = slot == 0 ? team::kBcast0 : team::kBcast1;
    char *mine = c.t.area + team::layout().bcast + uint64_t(slot) * team::kBcastBytes;
    auto *consumed = reinterpret_cast<uint64_t *>(c.t.area + team::layout().consumed);
    if (c.me == root) {
      if (copy_root) std::memcpy(dest, source, bytes);
      for (int i = 1; i < c.n; ++i) {
        const int j = (c.me + i) % c.n;
        const int pe = c.t.world_pe(j);
        // The receiver's own progress word, read where it lies (acquire: its copy-out is over before we
        // overwrite the slot); through the network, with gets.
        if (seq > 2)
          wait_remote_ge(consumed, seq - 2, c.call, pe,
                         "it to copy out an earlier broadcast from the slot this one reuses");
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
