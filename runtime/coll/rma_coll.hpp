// Team collectives written with the host API's RMA alone (rma::put_bytes / get_bytes, a network quiet, the team
// barrier): for symmetric buffers the collective engine cannot load and store, the GPU heap (its own and mapped
// peers' reached by copies through the GPU, the others through the network and their memory agents). The
// algorithms are device code's (include/gpushmem/device/coll.cuh): pushes into every member's dest, then a quiet
// and a barrier; a reduction syncs first, then each member combines its share of the elements from every member's
// source in team order and stores it into every member's dest (disjoint shares: dest may be source). Data moves
// in pieces of kPieceBytes through host memory, so any size needs bounded memory.
//
// The pieces without synchronisation (reduce_share, push, read_word) also serve the CPU proxy's COLL requests
// (runtime/proxy/proxy_coll.cpp), whose device code synchronises itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "team/team.hpp"

namespace gpushmem::coll::rma_coll {

inline constexpr size_t kPieceBytes = size_t{1} << 20;

// The members of a team, as the device's team state says them.
struct Members {
  int start = 0, stride = 0, size = 1, index = 0;
  int pe(int i) const { return start + i * stride; }
};
Members members_of(const team::Team &t);

// acc[i] = op(acc[i], in[i]) for i < n.
using Combine = void (*)(void *acc, const void *in, size_t n);
template <class T, class Op>
void combine(void *acc, const void *in, size_t n) {
  T *a = static_cast<T *>(acc);
  const T *b = static_cast<const T *>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Op::apply(a[i], b[i]);
}

// This member's share (gpushmem_reduce_share, as device code splits) of n elements of `width` bytes: gets it from every
// member's `source`, combines in team order, puts it into every member's `dest`.
void reduce_share(const char *call, const Members &m, Combine f, size_t width, char *dest, const char *source,
                  uint64_t n);
// `bytes` bytes of this PE's symmetric `source` into every member's symmetric `dest` (the next member first).
void push(const char *call, const Members &m, char *dest, const char *source, uint64_t bytes);
// A 64-bit runtime word at symmetric `sym` on PE pe (the host API's address checks refuse the runtime's areas).
uint64_t read_word(const char *call, const char *sym, int pe);

// The host API's team collectives on such buffers, each complete (synchronised) on return; `call` names the
// routine in errors. Arguments are checked by the caller.
void broadcast(team::Team &t, const char *call, void *dest, const void *source, size_t bytes, int root);
void fcollect(team::Team &t, const char *call, void *dest, const void *source, size_t bytes);
void collect(team::Team &t, const char *call, void *dest, const void *source, size_t bytes);
void alltoall(team::Team &t, const char *call, void *dest, const void *source, size_t bytes);
void alltoalls(team::Team &t, const char *call, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
               size_t nelems, size_t elem);
void reduce(team::Team &t, const char *call, Combine f, size_t width, void *dest, const void *source, size_t n);

}  // namespace gpushmem::coll::rma_coll
