#include "proxy/proxy_coll.hpp"

#include <cstdint>
#include <type_traits>

#include "coll/reduce.hpp"
#include "coll/rma_coll.hpp"
#include "net/net.hpp"
#include "state.hpp"

namespace gpushmem::proxy_rt {

namespace {

constexpr const char *kReduceCall = "a device reduction (through the proxy)";
constexpr const char *kCollectCall = "a device collect (through the proxy)";

using coll::rma_coll::Combine;
using coll::rma_coll::combine;

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

using Team = coll::rma_coll::Members;

// The team a COLL slot names, checked: every member a PE of the job, this PE the member it says it is.
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
  coll::rma_coll::reduce_share(kReduceCall, t, f, width, dest, source, n);
  return nullptr;
}

const char *run_collect(const gpushmem_proxy_slot_t &s, const Team &t) {
  const uint64_t bytes = s.size_event;
  const char *counts =
      symmetric_address(gpushmem_proxy_coll_region(s.signal), gpushmem_proxy_coll_offset(s.signal), sizeof(uint64_t));
  if (counts == nullptr) return "its count word is not a symmetric word of this PE";
  uint64_t at = 0;  // where this member's block starts: the counts the members before it published
  for (int i = 0; i < t.index; ++i) {
    const uint64_t count = coll::rma_coll::read_word(kCollectCall, counts, t.pe(i));
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
  const uint64_t dest_offset = gpushmem_proxy_remote_offset(s.remote);
  if (at > UINT64_MAX - dest_offset ||
      symmetric_address(gpushmem_proxy_remote_region(s.remote), dest_offset + at, bytes) == nullptr)
    return "this member's block (after the counts of the members before it) ends past its symmetric region";
  coll::rma_coll::push(kCollectCall, t, dest + at, source, bytes);
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
