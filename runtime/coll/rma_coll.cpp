#include "coll/rma_coll.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "api/api_common.hpp"
#include "coll/engine.hpp"
#include "gpu/gpu.hpp"
#include "heap/internal_area.hpp"
#include "net/net.hpp"
#include "rma/host_rma.hpp"
#include "rma/host_strided.hpp"
#include "state.hpp"

namespace gpushmem::coll::rma_coll {

namespace {

// A team barrier of its own (each coll::Call takes the next epoch of the team, on every member alike).
void sync(team::Team &t, const char *call) {
  Call c(t, call);
  barrier(c);
}

// What this PE stored through the network is complete at its targets, then the team barrier.
void finish(team::Team &t, const char *call) {
  net::quiet(call, 0);
  sync(t, call);
}

template <size_t Bytes>
void strided_block(const char *call, char *dest, ptrdiff_t dst, const char *source, ptrdiff_t sst, size_t nelems,
                   int pe, std::vector<uint64_t> &buffer) {
  // This PE's strided elements gathered into host memory, then scattered into the member's dest.
  buffer.resize((nelems * Bytes + 7) / 8);
  rma::iget<Bytes>(call, buffer.data(), source, 1, sst, nelems, rt().my_pe);
  rma::iput<Bytes>(call, dest, buffer.data(), dst, 1, nelems, pe);
}

using StridedBlock = void (*)(const char *, char *, ptrdiff_t, const char *, ptrdiff_t, size_t, int,
                              std::vector<uint64_t> &);
StridedBlock strided_block_of(size_t elem) {
  switch (elem) {
    case 1:
      return strided_block<1>;
    case 2:
      return strided_block<2>;
    case 4:
      return strided_block<4>;
    case 8:
      return strided_block<8>;
    case 16:
      return strided_block<16>;
    default:
      return nullptr;
  }
}

}  // namespace

Members members_of(const team::Team &t) {
  return Members{t.s.start, t.s.stride, t.s.size, t.s.my_index};
}

void reduce_share(const char *call, const Members &m, Combine f, size_t width, char *dest, const char *source,
                  uint64_t n) {
  uint64_t first = 0, last = 0;
  gpushmem_reduce_share(n, width, m.size, m.index, &first, &last);
  if (first == last) return;
  const size_t piece = std::max<size_t>(1, kPieceBytes / width);
  std::vector<uint64_t> acc((std::min<uint64_t>(last - first, piece) * width + 7) / 8);
  std::vector<uint64_t> in(m.size > 1 ? acc.size() : 0);
  for (uint64_t at = first; at < last; at += piece) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(piece, last - at));
    const size_t offset = static_cast<size_t>(at) * width;
    // In team order, as device code over P2P: every member's share comes out bit for bit the same on every PE.
    rma::get_bytes(call, acc.data(), source + offset, count, width, m.pe(0));
    for (int i = 1; i < m.size; ++i) {
      rma::get_bytes(call, in.data(), source + offset, count, width, m.pe(i));
      f(acc.data(), in.data(), count);
    }
    for (int k = 1; k <= m.size; ++k)  // the next member first, so members do not all start on one PE
      rma::put_bytes(call, dest + offset, acc.data(), count, width, m.pe((m.index + k) % m.size));
  }
}

void push(const char *call, const Members &m, char *dest, const char *source, uint64_t bytes) {
  if (bytes == 0) return;
  std::vector<uint64_t> buffer((std::min<uint64_t>(bytes, kPieceBytes) + 7) / 8);
  for (uint64_t done = 0; done < bytes; done += kPieceBytes) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kPieceBytes, bytes - done));
    rma::get_bytes(call, buffer.data(), source + done, count, 1, rt().my_pe);
    for (int k = 1; k <= m.size; ++k)
      rma::put_bytes(call, dest + done, buffer.data(), count, 1, m.pe((m.index + k) % m.size));
  }
}

uint64_t read_word(const char *call, const char *sym, int pe) {
  const Runtime &r = rt();
  uint64_t v = 0;
  if (r.gpu.base != nullptr && sym >= r.gpu.base && sym < r.gpu.base + r.gpu.limit) {
    if (char *peer = r.gpu.peer_base[static_cast<size_t>(pe)]; peer != nullptr) {
      if (gpu::copy(call, &v, peer + (sym - r.gpu.base), sizeof v) != Status::ok)
        api::fail(call, "reading a runtime word of PE %d failed (the CUDA error is above)", pe);
      return v;
    }
  } else if (char *peer = r.p2p.heap_base(pe); peer != nullptr) {
    std::memcpy(&v, peer + (sym - r.heap.base()), sizeof v);
    return v;
  }
  net::get(call, 0, pe, &v, sym, sizeof v);
  return v;
}

void broadcast(team::Team &t, const char *call, void *dest, const void *source, size_t bytes, int root) {
  const Members m = members_of(t);
  sync(t, call);  // every member has entered: done with what it read of its dest
  if (m.index == root) push(call, m, static_cast<char *>(dest), static_cast<const char *>(source), bytes);
  finish(t, call);
}

void fcollect(team::Team &t, const char *call, void *dest, const void *source, size_t bytes) {
  const Members m = members_of(t);
  sync(t, call);
  push(call, m, static_cast<char *>(dest) + static_cast<size_t>(m.index) * bytes, static_cast<const char *>(source),
       bytes);
  finish(t, call);
}

void collect(team::Team &t, const char *call, void *dest, const void *source, size_t bytes) {
  const Members m = members_of(t);
  // The counts: each member's in its host heap's runtime area, by team slot (a collect on one team at a time).
  const Runtime &r = rt();
  char *word = reinterpret_cast<char *>(&r.heap.internal()->collect_count[t.s.slot]);
  std::memcpy(word, &bytes, sizeof bytes);
  sync(t, call);  // every count is published (its release stores)
  uint64_t at = 0;
  for (int i = 0; i < m.index; ++i) at += read_word(call, word, m.pe(i));
  push(call, m, static_cast<char *>(dest) + at, static_cast<const char *>(source), bytes);
  finish(t, call);
}

void alltoall(team::Team &t, const char *call, void *dest, const void *source, size_t bytes) {
  const Members m = members_of(t);
  sync(t, call);
  if (bytes != 0) {
    std::vector<uint64_t> buffer((std::min<uint64_t>(bytes, kPieceBytes) + 7) / 8);
    const size_t mine = static_cast<size_t>(m.index) * bytes;
    for (int k = 1; k <= m.size; ++k) {
      const int j = (m.index + k) % m.size;
      const char *from = static_cast<const char *>(source) + static_cast<size_t>(j) * bytes;
      for (size_t done = 0; done < bytes; done += kPieceBytes) {
        const size_t count = std::min(kPieceBytes, bytes - done);
        rma::get_bytes(call, buffer.data(), from + done, count, 1, rt().my_pe);
        rma::put_bytes(call, static_cast<char *>(dest) + mine + done, buffer.data(), count, 1, m.pe(j));
      }
    }
  }
  finish(t, call);
}

void alltoalls(team::Team &t, const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
               size_t nelems, size_t elem) {
  const Members m = members_of(t);
  sync(t, call);
  if (nelems != 0) {
    const StridedBlock block = strided_block_of(elem);
    if (block == nullptr) api::fail(call, "an element of %zu bytes has no strided form (1, 2, 4, 8 or 16)", elem);
    std::vector<uint64_t> buffer;
    const ptrdiff_t n = static_cast<ptrdiff_t>(nelems), me = m.index, e = static_cast<ptrdiff_t>(elem);
    for (int k = 1; k <= m.size; ++k) {
      const int j = (m.index + k) % m.size;
      char *to = static_cast<char *>(dest) + dst * me * n * e;
      const char *from = static_cast<const char *>(source) + sst * static_cast<ptrdiff_t>(j) * n * e;
      block(call, to, dst, from, sst, nelems, m.pe(j), buffer);
    }
  }
  finish(t, call);
}

void reduce(team::Team &t, const char *call, Combine f, size_t width, void *dest, const void *source, size_t n) {
  sync(t, call);  // every member's source is ready
  reduce_share(call, members_of(t), f, width, static_cast<char *>(dest), static_cast<const char *>(source), n);
  finish(t, call);
}

}  // namespace gpushmem::coll::rma_coll
