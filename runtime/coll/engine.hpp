// One collective call on a team: its epoch, the team's synchronisation area, and the signal/wait steps the
// algorithms are made of (runtime/coll/*.cpp). Every member runs the same sequence of calls on a team, so
// every member numbers a call with the same epoch; a signal carries the epoch and never goes backwards.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "api/api_common.hpp"
#include "coll/rma_layer.hpp"
#include "env/env.hpp"
#include "net/net.hpp"
#include "team/team.hpp"

namespace gpushmem::coll {

// What a call announces in its ready / pushed signals, so that receivers (with error checks on) can name
// arguments that differ between members.
enum class Kind : uint64_t { broadcast = 1, collect, fcollect, alltoall, alltoalls, reduce };

struct Header {
  uint64_t kind = 0;
  uint64_t size = 0;  // bytes per member (collect: this member's bytes, not compared)
  int64_t root = -1;  // broadcast root (team index); -1 when there is none
  uint64_t op = 0;    // reduction: operation and type, packed
};

struct Call {
  team::Team &t;
  const char *call;
  uint64_t e;  // this call's epoch (>= 1)
  int n;       // members
  int me;      // my index
  Header hdr;
  bool check_size = true;  // compare hdr.size with the senders' (collect does not)

  Call(team::Team &team, const char *name) : t(team), call(name), e(++team.epoch), n(team.n()), me(team.me()) {
    // Network failures in the plumbing (rma_layer.hpp) name this call. Only a team that may reach a member
    // through the network (spans_network: not known yet, or yes) needs it; node-local calls skip the
    // thread-local (a 512-byte node-local broadcast measured up to 0.08 us slower with it, 2-core VM).
    if (team.spans_network != 0) [[unlikely]] {
      named_ = true;
      outer_ = detail::t_call;
      detail::t_call = name;
    }
    if (team.root_check_epoch != 0) [[unlikely]]
      check_root(team);
  }
  ~Call() {
    if (named_) [[unlikely]]
      detail::t_call = outer_;
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
  // The pending check of team.root_check_* (see team.hpp); clears it.
  static void check_root(team::Team &team);

  // This PE's flag for `stage` from sender `from` (also its symmetric address: the area is symmetric).
  team::Flag *flag(team::Stage stage, int from) const {
    return reinterpret_cast<team::Flag *>(t.area + team::layout().stages) + size_t(stage) * size_t(rt().n_pes) + from;
  }
  // Staging buffer `buf` (0 or 1) of this PE's area.
  char *scratch(int buf) const {
    return t.area + team::layout().scratch + uint64_t(buf) * team::layout().scratch_bytes;
  }

  // Sets member `to`'s flag for this PE at `stage` to this call's epoch, with the call's header first.
  void signal(team::Stage stage, int to) const {
    const int pe = t.world_pe(to);
    team::Flag *f = flag(stage, me);
    if (stage != team::kReduced && stage != team::kDone) put(f->payload, &hdr, sizeof hdr, pe);
    coll::signal(&f->epoch, e, pe);
  }
  void signal_all(team::Stage stage) const {
    for (int i = 1; i < n; ++i) signal(stage, (me + i) % n);
  }
  // Waits until member `from` has signalled `stage` for this call (or a later one).
  void wait(team::Stage stage, int from) const {
    team::Flag *f = flag(stage, from);
    wait_with_header(
        stage, from,
        stage != team::kReduced && stage != team::kDone ? reinterpret_cast<const Header *>(f->payload) : nullptr);
  }
  // As wait, with the sender's header read from `h` (nullptr: none to check).
  void wait_with_header(team::Stage stage, int from, const Header *h) const {
    std::atomic_ref<uint64_t> w(flag(stage, from)->epoch);
    if (w.load(std::memory_order_acquire) < e) [[unlikely]]
      wait_slow(w, from, stage);
    if (h != nullptr) check_header(from, *h);
  }
  void wait_all(team::Stage stage) const {
    for (int i = 1; i < n; ++i) wait(stage, (me + i) % n);
  }
  const Header &header_of(int from, team::Stage stage) const {
    return *reinterpret_cast<const Header *>(flag(stage, from)->payload);
  }

 private:
  static const char *what(team::Stage stage) {
    switch (stage) {
      case team::kReady:
        return "its arrival in the collective (its source is ready)";
      case team::kReduced:
        return "its share of the reduction";
      case team::kDone:
        return "it to finish reading this PE's buffers";
      default:
        return "its data in this PE's staging buffer";
    }
  }
  void check_header(int from, const Header &h) const;
  void wait_slow(std::atomic_ref<uint64_t> &w, int from, team::Stage stage) const;
  // With error checks on: a member whose ready / pushed signal for this very call carries other arguments
  // (a different root, size or routine): then the members wait on each other forever. Returns its index
  // and its header, or -1.
  int find_mismatch(Header *found) const;
  bool named_ = false;           // this call set detail::t_call
  const char *outer_ = nullptr;  // the collective this thread was in before (a team split runs one inside another)
};

// Tuning (environment table).
inline int flat_max_pes() {
  return static_cast<int>(env::get().GPUSHMEM_COLL_FLAT_MAX_PES);
}
// At most kScratchBytes: shmem_init refuses larger values (env::check_ranges).
inline uint64_t push_max_bytes() {
  return env::get().GPUSHMEM_COLL_PUSH_MAX_BYTES;
}
// Whether some member of the team is reached only through the network. Then every member has such a member
// (the team spans several nodes), so all members agree on what depends on it.
inline bool spans_network(team::Team &t) {
  if (t.spans_network < 0) [[unlikely]] {
    t.spans_network = 0;
    for (int j = 0; j < t.n(); ++j)
      if (j != t.me() && peer_ptr(t.area, t.world_pe(j)) == nullptr) t.spans_network = 1;
  }
  return t.spans_network != 0;
}
// In a team that spans nodes, the members' node groups: leaders[j] is the lowest member on member j's node
// (members on one node map each other's heaps, unless GPUSHMEM_TRANSPORTS leaves p2p out: then each is
// alone). Every member derives the same table from the job's topology. nullptr when every member is alone
// on its node (no group to gather first).
inline const int *node_leaders(team::Team &t) {
  if (t.leaders.empty()) [[unlikely]] {
    const int n = t.n();
    t.leaders.assign(size_t(n), -1);
    const std::vector<int> &node_of = rt().topology.node_of;
    bool grouped = false;
    for (int j = 0; net::p2p_allowed() && j < n; ++j)
      for (int k = 0; k < j && t.leaders[size_t(j)] < 0; ++k)
        if (node_of[size_t(t.world_pe(k))] == node_of[size_t(t.world_pe(j))]) {
          t.leaders[size_t(j)] = k;
          grouped = true;
        }
    for (int j = 0; grouped && j < n; ++j)
      if (t.leaders[size_t(j)] < 0) t.leaders[size_t(j)] = j;
  }
  return t.leaders[0] < 0 ? nullptr : t.leaders.data();
}
// Whether member j is reached only through the network (its area, like its heap, is not mapped here). The
// same answer on both sides of a pair.
inline bool network_pair(const Call &c, int j) {
  return peer_ptr(c.t.area, c.t.world_pe(j)) == nullptr;
}
// The largest exchange (per receiver) pushed through the staging buffers: GPUSHMEM_COLL_PUSH_MAX_BYTES on
// one node; across nodes, where each read of a peer's buffer is a network round trip, the whole staging
// buffer, GPUSHMEM_COLL_NET_SCRATCH (unless the variable is 0, which forces the in-place algorithms).
inline uint64_t push_limit(const Call &c) {
  const uint64_t v = push_max_bytes();
  return v != 0 && spans_network(c.t) ? team::layout().scratch_bytes : v;
}
// Whether a call exchanging `total` bytes in all (per receiver) goes through the staging buffers.
inline bool use_push(const Call &c, uint64_t total) {
  return c.n <= flat_max_pes() && total <= push_limit(c);
}

// A call that goes through the staging buffers: which buffer, and the stage that signals it. Every such call
// exchanges data between all pairs of members, so a member that reaches the next push call has received this
// one's data from everyone, i.e. every receiver has finished the push call before last: two buffers suffice.
struct Push {
  int buf;
  team::Stage stage;
};
inline Push begin_push(Call &c) {
  const int buf = static_cast<int>(c.t.push_seq++ & 1);
  return Push{buf, buf == 0 ? team::kPushed : team::kPushed1};
}

// The sending half of a pushed exchange: this member's `bytes` from `source` into its slot (index me) of
// every other member's staging buffer p.buf, each signalled at p.stage. Returns this PE's staging buffer,
// where the other members' slots arrive.
inline char *push_to_all(Call &c, const Push &p, const void *source, size_t bytes) {
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    if (bytes != 0) put(c.scratch(p.buf) + size_t(c.me) * bytes, source, bytes, c.t.world_pe(j));
    c.signal(p.stage, j);
  }
  return c.scratch(p.buf);
}

// Algorithms (bytes; every member passes the same arguments unless said otherwise).
void barrier(Call &c);
// root_writes_dest: the team form writes dest on the root too; the active-set form leaves it alone.
void broadcast(Call &c, void *dest, const void *source, size_t bytes, int root, bool root_writes_dest);
void fcollect(Call &c, void *dest, const void *source, size_t bytes);
// Members may pass different byte counts (multiples of `elem`).
void collect(Call &c, void *dest, const void *source, size_t bytes);
void alltoall(Call &c, void *dest, const void *source, size_t bytes);
void alltoalls(Call &c, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem);

}  // namespace gpushmem::coll
