// alltoall and alltoalls. Small exchanges are pushed into the receivers' staging buffers (one round); larger
// ones are pulled pairwise: member i reads block i of member j's source in place, starting with j = i + 1 so
// that no source is read by everyone at once, and signals j when done (two rounds). Between members reached
// through the network, where a read is a round trip per request, the sender pushes the block into the
// receiver's dest once the receiver said it is ready (one message with the signal).
#include <cstring>

#include "coll/engine.hpp"
#include "coll/strided_copy.hpp"

namespace gpushmem::coll {

void alltoall(Call &c, void *dest, const void *source, size_t bytes) {
  c.hdr = Header{uint64_t(Kind::alltoall), bytes, -1, 0};
  char *d = static_cast<char *>(dest);
  const char *s = static_cast<const char *>(source);
  if (bytes != 0) std::memcpy(d + size_t(c.me) * bytes, s + size_t(c.me) * bytes, bytes);
  if (c.n == 1) return;
  if (use_push(c, uint64_t(c.n) * bytes)) {
    const Push p = begin_push(c);
    char *stage = c.scratch(p.buf);
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      if (bytes != 0) put(stage + size_t(c.me) * bytes, s + size_t(j) * bytes, bytes, c.t.world_pe(j));
      c.signal(p.stage, j);
    }
    for (int i = 1; i < c.n; ++i) {
      const int j = (c.me + i) % c.n;
      c.wait(p.stage, j);
      if (bytes != 0) std::memcpy(d + size_t(j) * bytes, stage + size_t(j) * bytes, bytes);
    }
    return;
  }
  c.signal_all(team::kReady);
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    c.wait(team::kReady, j);
    if (network_pair(c, j)) {
      put(d + size_t(c.me) * bytes, s + size_t(j) * bytes, bytes, c.t.world_pe(j));
      c.signal(team::kDone, j);  // after j's ready: never a call ahead
      continue;
    }
    get(d + size_t(j) * bytes, s + size_t(c.me) * bytes, bytes, c.t.world_pe(j));
    c.signal(team::kDone, j);
  }
  c.wait_all(team::kDone);  // mapped members read my source; network members' blocks are in my dest
}

void alltoalls(Call &c, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem) {
  c.hdr = Header{uint64_t(Kind::alltoalls), nelems * elem, -1, uint64_t(dst) * 1000003u + uint64_t(sst)};
  char *d = static_cast<char *>(dest);
  const char *s = static_cast<const char *>(source);
  const ptrdiff_t block = ptrdiff_t(nelems);
  auto dest_block = [&](int k) { return d + k * block * dst * ptrdiff_t(elem); };
  auto source_block = [&](const char *base, int l) { return base + l * block * sst * ptrdiff_t(elem); };
  strided(dest_block(c.me), dst, source_block(s, c.me), sst, nelems, elem);
  if (c.n == 1) return;
  c.signal_all(team::kReady);
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    c.wait(team::kReady, j);
    get_strided(dest_block(j), dst, source_block(s, c.me), sst, nelems, elem, c.t.world_pe(j));
    c.signal(team::kDone, j);
  }
  c.wait_all(team::kDone);
}

}  // namespace gpushmem::coll
