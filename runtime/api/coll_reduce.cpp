// Team reductions: shmem_TYPE_OP_reduce for every type of the reduction table (type_table.h), stamped. Buffers in
// the GPU heap go through coll/rma_coll.hpp.
#include "api/coll_common.hpp"
#include "coll/reduce.hpp"
#include "coll/rma_coll.hpp"
#include "shmem.h"

using namespace gpushmem;

namespace {

// A per-routine number for the mismatch check (two members in different reductions at once).
constexpr uint64_t routine_id(const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (; *name != '\0'; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ull;
  return h;
}

template <class T, class Op>
int team_reduce(const char *call, uint64_t id, shmem_team_t team, T *dest, const T *source, size_t nreduce) {
  team::Team &t = api::coll_team(call, team);
  const size_t bytes = nreduce * sizeof(T);
  const bool gpu_dest = api::coll_buffer(call, "dest", dest, bytes);
  const bool gpu_source = api::coll_buffer(call, "source", source, bytes);
  api::coll_disjoint(call, dest, bytes, source, bytes, true);
  if (api::coll_via_rma(gpu_dest, gpu_source)) [[unlikely]] {
    coll::rma_coll::reduce(t, call, coll::rma_coll::combine<T, Op>, sizeof(T), dest, source, nreduce);
    return 0;
  }
  coll::Call c(t, call);
  coll::reduce<T, Op>(c, dest, source, nreduce, id);
  return 0;
}

}  // namespace

#define GPUSHMEM_DEFINE_REDUCE(T, N, OP, OPCLASS)                                                              \
  GPUSHMEM_EXPORT int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) { \
    static constexpr const char *call = "shmem_" #N "_" #OP "_reduce";                                         \
    return team_reduce<T, coll::OPCLASS>(call, routine_id(call), team, dest, source, nreduce);                 \
  }
#define GPUSHMEM_DEFINE_REDUCE_BITWISE(T, N) \
  GPUSHMEM_DEFINE_REDUCE(T, N, and, OpAnd)   \
  GPUSHMEM_DEFINE_REDUCE(T, N, or, OpOr) GPUSHMEM_DEFINE_REDUCE(T, N, xor, OpXor)
#define GPUSHMEM_DEFINE_REDUCE_MINMAX(T, N) \
  GPUSHMEM_DEFINE_REDUCE(T, N, min, OpMin) GPUSHMEM_DEFINE_REDUCE(T, N, max, OpMax)
#define GPUSHMEM_DEFINE_REDUCE_ARITH(T, N) \
  GPUSHMEM_DEFINE_REDUCE(T, N, sum, OpSum) GPUSHMEM_DEFINE_REDUCE(T, N, prod, OpProd)
GPUSHMEM_REDUCE_BITWISE_TYPES(GPUSHMEM_DEFINE_REDUCE_BITWISE)
GPUSHMEM_REDUCE_MINMAX_TYPES(GPUSHMEM_DEFINE_REDUCE_MINMAX)
GPUSHMEM_REDUCE_ARITH_TYPES(GPUSHMEM_DEFINE_REDUCE_ARITH)
GPUSHMEM_REDUCE_COMPLEX_TYPES(GPUSHMEM_DEFINE_REDUCE_ARITH)
