#include "proxy/proxy_coll.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "api/api_common.hpp"
#include "coll/reduce.hpp"
#include "gpu/gpu.hpp"
#include "net/net.hpp"
#include "rma/host_rma.hpp"
#include "state.hpp"

namespace gpushmem::proxy_rt {

namespace {

constexpr const char *kReduceCall = "a device reduction (through the proxy)";
constexpr const char *kCollectCall = "a device collect (through the proxy)";

using Combine = void (*)(void *acc, const void *in, size_t n);

template <class T, class Op>
void combine(void *acc, const void *in, size_t n) {
  T *a = static_cast<T *>(acc);
  const T *b = static_cast<const T *>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Op::apply(a[i], b[i]);
}

template <class T>
Combine combine_for(uint32_t op) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case GPUSHMEM_PROXY_REDUCE_AND:
        return combine<T, coll::OpAnd>;
      case GPUSHMEM_PROXY_REDUCE_OR:
        return combine<T, coll::OpOr>;
      case GPUSHMEM_PROXY_REDUCE_XOR:
        return combine<T, coll::OpXor>;
      default:
        break;
    }
  }
  switch (op) {
    case GPUSHMEM_PROXY_REDUCE_MIN:
      return combine<T, coll::OpMin>;
    case GPUSHMEM_PROXY_REDUCE_MAX:
      return combine<T, coll::OpMax>;
    case GPUSHMEM_PROXY_REDUCE_SUM:
      return combine<T, coll::OpSum>;
    case GPUSHMEM_PROXY_REDUCE_PROD:
      return combine<T, coll::OpProd>;
    default:
      return nullptr;
  }
}

constexpr uint32_t elem_code(uint32_t cls, uint32_t log2_bytes) {
  return cls << 2 | log2_bytes;
}

// nullptr: not a reduction the specification defines (a bitwise operator on floating point, an unknown code).
Combine combine_for(uint32_t elem, uint32_t op) {
  switch (elem) {
    case elem_code(GPUSHMEM_PROXY_ELEM_SIGNED, 0):
      return combine_for<int8_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_SIGNED, 1):
      return combine_for<int16_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_SIGNED, 2):
      return combine_for<int32_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_SIGNED, 3):
      return combine_for<int64_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_UNSIGNED, 0):
      return combine_for<uint8_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_UNSIGNED, 1):
      return combine_for<uint16_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_UNSIGNED, 2):
      return combine_for<uint32_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_UNSIGNED, 3):
      return combine_for<uint64_t>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_FLOAT, 2):
      return combine_for<float>(op);
    case elem_code(GPUSHMEM_PROXY_ELEM_FLOAT, 3):
      return combine_for<double>(op);
    default:
      return nullptr;
  }
}

// The team a COLL slot names, checked: every member a PE of the job, this PE the member it says it is.
struct Team {
  int start = 0, stride = 0, size = 0, index = 0;
  int pe(int i) const { return start + i * stride; }
};

const char *team_of(const gpushmem_proxy_slot_t &s, Team *t) {
  t->start = gpushmem_proxy_pair_low(s.value);
  t->stride = gpushmem_proxy_pair_high(s.value);
  t->size = gpushmem_proxy_pair_low(s.compare);
  t->index = gpushmem_proxy_pair_high(s.compare);
  const int n_pes = rt().n_pes;
  if (t->size < 1 || t->size > n_pes) return "its team size is not between 1 and the number of PEs";
  if (t->index < 0 || t->index >= t->size) return "its member index is outside the team";
  const int64_t last = int64_t{t->start} + int64_t{t->size - 1} * t->stride;
  if (t->start < 0 || t->start >= n_pes || last < 0 || last >= n_pes) return "its team has a PE outside the job";
  if (t->pe(t->index) != rt().my_pe) return "its member index is not this PE's";
  return nullptr;
}

// This PE's addresses of a slot's symmetric word (dest in `remote`, source in `local`), `bytes` bytes each.
const char *buffers(const gpushmem_proxy_slot_t &s, uint64_t bytes, char **dest, const char **source) {
  *dest = const_cast<char *>(
      symmetric_address(gpushmem_proxy_remote_region(s.remote), gpushmem_proxy_remote_offset(s.remote), bytes));
  *source = symmetric_address(gpushmem_proxy_remote_region(s.local), gpushmem_proxy_remote_offset(s.local), bytes);
  if (*dest == nullptr) return "its dest is not a symmetric buffer of this PE";
  if (*source == nullptr) return "its source is not a symmetric buffer of this PE";
  return nullptr;
}

// Member index's share of n elements among size members, as device code computes it over P2P.
void share_of(uint64_t n, int size, int index, uint64_t *first, uint64_t *last) {
  const uint64_t share = (n + static_cast<uint64_t>(size) - 1) / static_cast<uint64_t>(size);
  *first = std::min(n, share * static_cast<uint64_t>(index));
  *last = std::min(n, *first + share);
}

const char *run_reduce(const gpushmem_proxy_slot_t &s, const Team &t) {
  const uint32_t elem = gpushmem_proxy_coll_elem(s.signal), op = gpushmem_proxy_coll_op(s.signal);
  const Combine f = combine_for(elem, op);
  if (f == nullptr) return "its element type and operator are not a reduction OpenSHMEM defines";
  const size_t width = size_t{1} << (elem & 3u);
  const uint64_t n = s.size_event;
  if (n > UINT64_MAX / width) return "its element count overflows";
  char *dest = nullptr;
  const char *source = nullptr;
  if (const char *why = buffers(s, n * width, &dest, &source)) return why;
  uint64_t first = 0, last = 0;
  share_of(n, t.size, t.index, &first, &last);
  if (first == last) return nullptr;
  const size_t piece = kCollPieceBytes / width;
  std::vector<uint64_t> acc((std::min<uint64_t>(last - first, piece) * width + 7) / 8);
  std::vector<uint64_t> in(t.size > 1 ? acc.size() : 0);
  for (uint64_t at = first; at < last; at += piece) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(piece, last - at));
    const size_t offset = static_cast<size_t>(at) * width;
    // In team order, as over P2P: every member's share comes out bit for bit the same on every PE.
    rma::get_bytes(kReduceCall, acc.data(), source + offset, count, width, t.pe(0));
    for (int i = 1; i < t.size; ++i) {
      rma::get_bytes(kReduceCall, in.data(), source + offset, count, width, t.pe(i));
      f(acc.data(), in.data(), count);
    }
    for (int k = 1; k <= t.size; ++k)  // the next member first, so members do not all start on one PE
      rma::put_bytes(kReduceCall, dest + offset, acc.data(), count, width, t.pe((t.index + k) % t.size));
  }
  return nullptr;
}

// A collect's count word on PE pe: a runtime word (device code's is in its GPU heap's internal area, which the host
// API's symmetric-address checks refuse), read through the mapping or the network as they would.
void read_count(const char *sym, int pe, uint64_t *out) {
  const Runtime &r = rt();
  if (r.gpu.base != nullptr && sym >= r.gpu.base && sym < r.gpu.base + r.gpu.limit) {
    if (char *peer = r.gpu.peer_base[static_cast<size_t>(pe)]; peer != nullptr) {
      if (gpu::copy(kCollectCall, out, peer + (sym - r.gpu.base), sizeof *out) != Status::ok)
        api::fail(kCollectCall, "reading PE %d's published count failed (the CUDA error is above)", pe);
      return;
    }
  } else if (char *peer = r.p2p.heap_base(pe); peer != nullptr) {
    std::memcpy(out, peer + (sym - r.heap.base()), sizeof *out);
    return;
  }
  net::get(kCollectCall, 0, pe, out, sym, sizeof *out);
}

const char *run_collect(const gpushmem_proxy_slot_t &s, const Team &t) {
  const uint64_t bytes = s.size_event;
  const char *counts =
      symmetric_address(gpushmem_proxy_coll_region(s.signal), gpushmem_proxy_coll_offset(s.signal), sizeof(uint64_t));
  if (counts == nullptr) return "its count word is not a symmetric word of this PE";
  uint64_t at = 0;  // where this member's block starts: the counts the members before it published
  for (int i = 0; i < t.index; ++i) {
    uint64_t count = 0;
    read_count(counts, t.pe(i), &count);
    if (count > UINT64_MAX - at) return "the counts the members before it published overflow";
    at += count;
  }
  if (bytes == 0) return nullptr;
  if (at > UINT64_MAX - bytes) return "the counts the members before it published overflow";
  char *dest = nullptr;
  const char *source = nullptr;
  if (const char *why = buffers(s, bytes, &dest, &source)) return why;
  // dest must hold this member's block at its place: a collect whose counts disagree with dest's size is
  // refused here rather than written past the end.
  if (symmetric_address(gpushmem_proxy_remote_region(s.remote), gpushmem_proxy_remote_offset(s.remote) + at, bytes) ==
      nullptr)
    return "this member's block (after the counts of the members before it) ends past its symmetric region";
  std::vector<uint64_t> buffer((std::min<uint64_t>(bytes, kCollPieceBytes) + 7) / 8);
  for (uint64_t done = 0; done < bytes; done += kCollPieceBytes) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kCollPieceBytes, bytes - done));
    rma::get_bytes(kCollectCall, buffer.data(), source + done, count, 1, rt().my_pe);
    for (int k = 1; k <= t.size; ++k)
      rma::put_bytes(kCollectCall, dest + at + done, buffer.data(), count, 1, t.pe((t.index + k) % t.size));
  }
  return nullptr;
}

}  // namespace

const char *run_coll(const gpushmem_proxy_slot_t &s) {
  Team t;
  if (const char *why = team_of(s, &t)) return why;
  const uint32_t kind = gpushmem_proxy_coll_kind(s.signal);
  const char *why = kind == GPUSHMEM_PROXY_COLL_REDUCE    ? run_reduce(s, t)
                    : kind == GPUSHMEM_PROXY_COLL_COLLECT ? run_collect(s, t)
                                                          : "its collective is not one of gpushmem_proxy_coll_kind";
  if (why != nullptr) return why;
  // The stores through the network are complete at their targets before the slot completes: the members' device
  // code then only quiets and syncs, as over P2P.
  net::quiet(kind == GPUSHMEM_PROXY_COLL_REDUCE ? kReduceCall : kCollectCall, 0);
  return nullptr;
}

}  // namespace gpushmem::proxy_rt
