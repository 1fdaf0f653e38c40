// Header checks of collective calls, and the team barrier.
#include "coll/engine.hpp"

#include <cstring>
#include <string>

namespace gpushmem::coll {
namespace {

const char *kind_name(uint64_t kind) {
  switch (static_cast<Kind>(kind)) {
    case Kind::broadcast:
      return "a broadcast";
    case Kind::collect:
      return "a collect";
    case Kind::fcollect:
      return "an fcollect";
    case Kind::alltoall:
      return "an alltoall";
    case Kind::alltoalls:
      return "an alltoalls";
    case Kind::reduce:
      return "a reduction";
  }
  return "another collective";
}

}  // namespace

void Call::check_header(int from, const Header &h) const {
  if (!rt().error_checks) return;
  const int pe = t.world_pe(from);
  if (h.kind != hdr.kind)
    api::fail(call,
              "PE %d (team member %d) is in %s on the same team at the same time: every member must call the "
              "same collectives in the same order",
              pe, from, kind_name(h.kind));
  if (h.root != hdr.root)
    api::fail(call, "PE_root differs between PEs: %lld here (PE %d), %lld on PE %d", static_cast<long long>(hdr.root),
              rt().my_pe, static_cast<long long>(h.root), pe);
  if (h.op != hdr.op && hdr.kind == uint64_t(Kind::alltoalls))
    api::fail(call, "dst or sst differs between PEs (here and on PE %d): every member must pass the same strides", pe);
  if (h.op != hdr.op)
    api::fail(call,
              "PE %d runs another reduction (operation or type) at the same time: every member must call the "
              "same routine",
              pe);
  if (check_size && h.size != hdr.size)
    api::fail(call,
              "the size differs between PEs: %llu bytes here (PE %d), %llu bytes on PE %d (nelems/nreduce must "
              "be the same on every member)",
              static_cast<unsigned long long>(hdr.size), rt().my_pe, static_cast<unsigned long long>(h.size), pe);
}

int Call::find_mismatch(Header *found) const {
  for (int j = 0; j < n; ++j) {
    if (j == me) continue;
    for (team::Stage stage : {team::kReady, team::kPushed, team::kPushed1, team::kBcast}) {
      team::Flag *f = flag(stage, j);
      std::atomic_ref<uint64_t> w(f->epoch);
      if (w.load(std::memory_order_acquire) != e) continue;
      Header h;
      std::memcpy(&h, f->payload, sizeof h);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (w.load(std::memory_order_relaxed) != e) continue;  // the sender moved on while we read
      if (h.kind != hdr.kind || h.root != hdr.root || h.op != hdr.op || (check_size && h.size != hdr.size)) {
        *found = h;
        return j;
      }
    }
  }
  return -1;
}

void Call::wait_slow(std::atomic_ref<uint64_t> &w, int from, team::Stage stage) const {
  const bool checks = rt().error_checks;
  unsigned polls = 0;
  int suspect = -1;
  sync::wait_until(
      [&] {
        if (w.load(std::memory_order_acquire) >= e) return true;
        // Now and then (not on the fast path) look for members that entered this call with other
        // arguments. A suspect must show up in two scans: a sender legitimately one call ahead may be
        // rewriting its header during the first.
        if (checks && (++polls & 0xffffu) == 0) {
          Header h;
          const int j = find_mismatch(&h);
          if (j >= 0 && j == suspect) check_header(j, h);
          suspect = j;
        }
        return false;
      },
      call, t.world_pe(from), what(stage));
}

void Call::check_root(team::Team &team) {
  const uint64_t e = team.root_check_epoch;
  team.root_check_epoch = 0;
  for (int j = 0; j < team.n(); ++j) {
    if (j == team.me()) continue;
    team::Flag *f = reinterpret_cast<team::Flag *>(team.area + team::layout().stages) +
                    size_t(team.root_check_stage) * size_t(rt().n_pes) + j;
    if (std::atomic_ref<uint64_t>(f->epoch).load(std::memory_order_acquire) != e) continue;
    Header h;
    std::memcpy(&h, f->payload, sizeof h);
    api::fail(team.root_check_call, "PE_root differs between PEs: %d here (PE %d), %lld on PE %d", team.root_check_root,
              rt().my_pe, static_cast<long long>(h.root), team.world_pe(j));
  }
}

// Dissemination: in round k member i signals member i + 2^k and waits for member i - 2^k; after
// ceil(log2 n) rounds everyone has heard, directly or not, from everyone.
void barrier(Call &c) {
  if (c.n == 1) return;
  team::Flag *rounds = reinterpret_cast<team::Flag *>(c.t.area + team::layout().barrier);
  for (int k = 0, dist = 1; dist < c.n; ++k, dist <<= 1) {
    const int to = (c.me + dist) % c.n;
    const int from = (c.me - dist + c.n) % c.n;
    signal(&rounds[k].epoch, c.e, c.t.world_pe(to));
    std::atomic_ref<uint64_t> w(rounds[k].epoch);
    if (w.load(std::memory_order_acquire) >= c.e) continue;
    // In a report: the members that have not arrived at all (each member's first signal goes to round 0 of
    // the next member), where this PE can read that member's flag.
    auto late = [&] {
      return sync::not_arrived(
          c.n, c.e,
          [&](int q) {
            return q == c.me ? &rounds[0].epoch
                             : reinterpret_cast<const uint64_t *>(peer_ptr(&rounds[0].epoch, c.t.world_pe(q)));
          },
          [&](int p) { return c.t.world_pe(p); });
    };
    sync::wait_until_explained([&] { return w.load(std::memory_order_acquire) >= c.e; }, c.call, c.t.world_pe(from),
                               "its arrival at the team barrier", late);
  }
}

}  // namespace gpushmem::coll
