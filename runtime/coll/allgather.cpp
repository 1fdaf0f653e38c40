// fcollect and collect (allgather). Small exchanges are pushed: each member writes its block into every
// other member's staging buffer and signals once (one round), receivers copy the blocks out. Larger ones are
// pulled: each member signals that its source is ready, reads every other member's source in place into its
// dest, and tells that member it is done; a member returns once all have read its source (two rounds).
#include <cstring>

#include "coll/engine.hpp"

namespace gpushmem::coll {

void fcollect(Call &c, void *dest, const void *source, size_t bytes) {
  c.hdr = Header{uint64_t(Kind::fcollect), bytes, -1, 0};
  char *d = static_cast<char *>(dest);
  if (bytes != 0) std::memcpy(d + size_t(c.me) * bytes, source, bytes);
  if (c.n == 1) return;
  if (use_push(c, uint64_t(c.n) * bytes)) {
    const Push p = begin_push(c);
    const char *stage = push_to_all(c, p, source, bytes);
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      c.wait(p.stage, j);
      if (bytes != 0) std::memcpy(d + size_t(j) * bytes, stage + size_t(j) * bytes, bytes);
    }
    return;
  }
  // In place: each member reads every other's source, except through the network, where the owner pushes its
  // source into the reader's dest once the reader said it is ready (one message instead of a round trip).
  c.signal_all(team::kReady);
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    c.wait(team::kReady, j);
    if (network_pair(c, j)) {
      put(d + size_t(c.me) * bytes, source, bytes, c.t.world_pe(j));
      c.signal(team::kDone, j);  // after j's ready: never a call ahead
      continue;
    }
    get(d + size_t(j) * bytes, source, bytes, c.t.world_pe(j));
    c.signal(team::kDone, j);
  }
  c.wait_all(team::kDone);  // mapped members read my source; network members' blocks are in my dest
}

void collect(Call &c, void *dest, const void *source, size_t bytes) {
  c.hdr = Header{uint64_t(Kind::collect), bytes, -1, 0};
  c.check_size = false;
  char *d = static_cast<char *>(dest);
  if (c.n == 1) {
    if (bytes != 0) std::memcpy(d, source, bytes);
    return;
  }
  // Every member's count travels in its ready signal; offsets are the prefix sums in team order.
  c.signal_all(team::kReady);
  c.wait_all(team::kReady);
  size_t offset = 0;
  for (int j = 0; j < c.n; ++j) {
    const size_t len = j == c.me ? bytes : c.header_of(j, team::kReady).size;
    if (len != 0) {
      if (j == c.me)
        std::memcpy(d + offset, source, len);
      else
        get(d + offset, source, len, c.t.world_pe(j));
    }
    if (j != c.me) c.signal(team::kDone, j);
    offset += len;
  }
  c.wait_all(team::kDone);
}

}  // namespace gpushmem::coll
