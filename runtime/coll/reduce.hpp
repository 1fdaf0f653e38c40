// Reductions to all members (allreduce), one template per element type and operation.
//
// Small: every member pushes its source into every other member's staging buffer (one round) and combines
// the n inputs locally; in a team spanning nodes larger ones too, one staging buffer's worth per round.
// Large: reduce-scatter then allgather, in place: member i combines chunk i of every
// member's source (read where it lies) into its own dest, signals, then reads chunk j from member j's dest;
// source and dest may be the same buffer, since chunk i of a member's source is read only by member i and a
// chunk is overwritten only after its reader has signalled (three rounds, each member moves 2(n-1)/n of the
// data). Inputs are always combined in team order, so every member computes bit-identical results.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/engine.hpp"

namespace gpushmem::coll {

// The operations (OpenSHMEM: and, or, xor, min, max, sum, prod).
struct OpAnd {
  template <class T>
  static T apply(T a, T b) {
    return a & b;
  }
};
struct OpOr {
  template <class T>
  static T apply(T a, T b) {
    return a | b;
  }
};
struct OpXor {
  template <class T>
  static T apply(T a, T b) {
    return a ^ b;
  }
};
struct OpMin {
  template <class T>
  static T apply(T a, T b) {
    return b < a ? b : a;
  }
};
struct OpMax {
  template <class T>
  static T apply(T a, T b) {
    return a < b ? b : a;
  }
};
struct OpSum {
  template <class T>
  static T apply(T a, T b) {
    return a + b;
  }
};
struct OpProd {
  template <class T>
  static T apply(T a, T b) {
    return a * b;
  }
};

// out[i] = OP over j of in[j][i] for i < count, j in team order. `out` may be one of the inputs.
template <class T, class Op>
void combine(T *out, const T *const *in, int n, size_t count) {
  constexpr size_t kBlock = sizeof(T) >= 4096 ? 1 : 4096 / sizeof(T);
  T acc[kBlock];
  for (size_t base = 0; base < count; base += kBlock) {
    const size_t m = std::min(kBlock, count - base);
    std::memcpy(acc, in[0] + base, m * sizeof(T));
    for (int j = 1; j < n; ++j) {
      const T *src = in[j] + base;
      for (size_t i = 0; i < m; ++i) acc[i] = Op::apply(acc[i], src[i]);
    }
    std::memcpy(out + base, acc, m * sizeof(T));
  }
}

// One pushed round: every member puts `count` elements of its source into every other member's staging
// buffer and combines the n inputs locally into dest (n * count elements fit in a staging buffer).
template <class T, class Op>
void reduce_pushed(Call &c, T *dest, const T *source, size_t count, const T **in) {
  const size_t bytes = count * sizeof(T);
  const Push p = begin_push(c);
  const char *stage = push_to_all(c, p, source, bytes);
  for (int j = 0; j < c.n; ++j) {
    if (j != c.me) c.wait(p.stage, j);
    in[j] = j == c.me ? source : reinterpret_cast<const T *>(stage + size_t(j) * bytes);
  }
  combine<T, Op>(dest, in, c.n, count);
}

// A pushed round in a team that spans nodes with several members on a node (`leader`: node_leaders): each
// member puts its source into its node leader's staging buffer; the leader combines its node's inputs (team
// order) into its own slot there, pushes that partial to every other leader, combines the leaders' partials
// (team order of the leaders, the same on every leader, so every member gets the same bits) into dest and
// writes dest to its node's members. One network message per pair of leaders, instead of one per pair of
// members. Every member has entered the call when any leaves it (a leader waits for every partial, each of
// which waited for its node), so the two staging buffers still alternate safely.
template <class T, class Op>
void reduce_grouped(Call &c, T *dest, const T *source, size_t count, const int *leader, const T **in) {
  const size_t bytes = count * sizeof(T);
  const Push p = begin_push(c);
  char *stage = c.scratch(p.buf);
  const int mine = leader[c.me];
  if (mine != c.me) {
    if (bytes != 0) put(stage + size_t(c.me) * bytes, source, bytes, c.t.world_pe(mine));
    c.signal(p.stage, mine);
    c.wait(team::kReduced, mine);  // dest holds the result
    return;
  }
  int m = 0;
  for (int j = 0; j < c.n; ++j) {
    if (leader[j] != c.me) continue;
    if (j != c.me) c.wait(p.stage, j);
    in[m++] = j == c.me ? source : reinterpret_cast<const T *>(stage + size_t(j) * bytes);
  }
  T *partial = reinterpret_cast<T *>(stage + size_t(c.me) * bytes);
  combine<T, Op>(partial, in, m, count);
  for (int i = 1; i < c.n; ++i) {
    const int k = (c.me + i) % c.n;
    if (leader[k] != k) continue;
    if (bytes != 0) put(stage + size_t(c.me) * bytes, partial, bytes, c.t.world_pe(k));
    c.signal(p.stage, k);
  }
  m = 0;
  for (int k = 0; k < c.n; ++k) {
    if (leader[k] != k) continue;
    if (k != c.me) c.wait(p.stage, k);
    in[m++] = reinterpret_cast<const T *>(stage + size_t(k) * bytes);
  }
  combine<T, Op>(dest, in, m, count);
  for (int j = 0; j < c.n; ++j) {
    if (j == c.me || leader[j] != c.me) continue;
    if (bytes != 0) put(dest, dest, bytes, c.t.world_pe(j));
    c.signal(team::kReduced, j);
  }
}

// `op_id` identifies operation and type for the mismatch check.
template <class T, class Op>
void reduce(Call &c, T *dest, const T *source, size_t count, uint64_t op_id) {
  const size_t bytes = count * sizeof(T);
  c.hdr = Header{uint64_t(Kind::reduce), bytes, -1, op_id};
  if (c.n == 1) {
    if (dest != source && bytes != 0) std::memmove(dest, source, bytes);
    return;
  }
  std::vector<const T *> in(size_t(c.n));
  if (use_push(c, uint64_t(c.n) * bytes)) {
    if (spans_network(c.t))
      if (const int *leader = node_leaders(c.t))
        return reduce_grouped<T, Op>(c, dest, source, count, leader, in.data());
    reduce_pushed<T, Op>(c, dest, source, count, in.data());
    return;
  }
  // Across nodes: the pushed exchange piece by piece, each piece a round (an epoch) of its own, where the
  // in-place algorithm would read every chunk with a network round trip.
  const uint64_t staging = team::layout().scratch_bytes;
  const size_t piece = staging / size_t(c.n) / sizeof(T);
  if (c.n <= flat_max_pes() && spans_network(c.t) && push_limit(c) == staging && piece != 0) {
    for (size_t at = 0; at < count; at += piece) {
      if (at != 0) c.e = ++c.t.epoch;  // every member counts the pieces alike
      reduce_pushed<T, Op>(c, dest + at, source + at, std::min(piece, count - at), in.data());
    }
    return;
  }
  c.signal_all(team::kReady);
  c.wait_all(team::kReady);
  auto lo = [&](int k) { return count * size_t(k) / size_t(c.n); };
  // Every member's chunk me, read in place where it is mapped, fetched through the network otherwise.
  std::vector<std::vector<char>> fetched(size_t(c.n));
  const size_t my_count = lo(c.me + 1) - lo(c.me);
  for (int j = 0; j < c.n; ++j)
    in[size_t(j)] = j == c.me ? source + lo(c.me)
                              : reinterpret_cast<const T *>(read_view(source + lo(c.me), my_count * sizeof(T),
                                                                      c.t.world_pe(j), &fetched[size_t(j)]));
  combine<T, Op>(dest + lo(c.me), in.data(), c.n, lo(c.me + 1) - lo(c.me));
  c.signal_all(team::kReduced);
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    c.wait(team::kReduced, j);
    if (lo(j + 1) > lo(j)) get(dest + lo(j), dest + lo(j), (lo(j + 1) - lo(j)) * sizeof(T), c.t.world_pe(j));
    c.signal(team::kDone, j);
  }
  c.wait_all(team::kDone);
}

}  // namespace gpushmem::coll
