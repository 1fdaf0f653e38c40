/*
 * The list of device team collectives, stamped through GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA,
 * IMPL_ARGS), which the including file defines: routine shmem_BASE / shmemx_BASE_<scope> with parameter list
 * PARAMS, passing ARGS on, implemented by GPUSHMEMI_DEV::IMPL<scope EXTRA>(call name, IMPL_ARGS...)
 * (coll.cuh; EXTRA: more template arguments with a leading comma, or nothing). Included without a guard: by
 * api_coll.cuh for the thread forms (both sides), by shmemx_api.cuh for the warp, block and grid forms (device), and
 * for the collectives on a stream by gpushmem/stream.h (declarations), runtime/gpu/stream_coll_api.cpp (entry
 * points) and runtime/gpu/stream_coll_kernels.cu (kernels). Plain C in PARAMS: stream.h is a C header.
 */
#define GPUSHMEMI_NO_EXTRA
#define GPUSHMEMI_COLL_MEM(OP)                                                                \
  GPUSHMEMI_COLL(OP##mem, (shmem_team_t team, void *dest, const void *source, size_t nelems), \
                 (team, dest, source, nelems), OP##mem, GPUSHMEMI_NO_EXTRA, (team, dest, source, nelems))
GPUSHMEMI_COLL_MEM(fcollect)
GPUSHMEMI_COLL_MEM(collect)
GPUSHMEMI_COLL_MEM(alltoall)
#undef GPUSHMEMI_COLL_MEM
GPUSHMEMI_COLL(broadcastmem, (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root),
               (team, dest, source, nelems, PE_root), broadcastmem, GPUSHMEMI_NO_EXTRA,
               (team, dest, source, nelems, PE_root))
GPUSHMEMI_COLL(alltoallsmem,
               (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems),
               (team, dest, source, dst, sst, nelems), alltoalls, GPUSHMEMI_NO_EXTRA,
               (team, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source), dst, sst, nelems))

#define GPUSHMEMI_COLL_TYPED(T, N)                                                                                \
  GPUSHMEMI_COLL(N##_broadcast, (shmem_team_t team, T * dest, const T *source, size_t nelems, int PE_root),       \
                 (team, dest, source, nelems, PE_root), broadcastmem, GPUSHMEMI_NO_EXTRA,                         \
                 (team, dest, source, nelems * sizeof(T), PE_root))                                               \
  GPUSHMEMI_COLL(N##_fcollect, (shmem_team_t team, T * dest, const T *source, size_t nelems),                     \
                 (team, dest, source, nelems), fcollectmem, GPUSHMEMI_NO_EXTRA,                                   \
                 (team, dest, source, nelems * sizeof(T)))                                                        \
  GPUSHMEMI_COLL(N##_collect, (shmem_team_t team, T * dest, const T *source, size_t nelems),                      \
                 (team, dest, source, nelems), collectmem, GPUSHMEMI_NO_EXTRA,                                    \
                 (team, dest, source, nelems * sizeof(T)))                                                        \
  GPUSHMEMI_COLL(N##_alltoall, (shmem_team_t team, T * dest, const T *source, size_t nelems),                     \
                 (team, dest, source, nelems), alltoallmem, GPUSHMEMI_NO_EXTRA,                                   \
                 (team, dest, source, nelems * sizeof(T)))                                                        \
  GPUSHMEMI_COLL(                                                                                                 \
      N##_alltoalls, (shmem_team_t team, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems), \
      (team, dest, source, dst, sst, nelems), alltoalls, GPUSHMEMI_NO_EXTRA, (team, dest, source, dst, sst, nelems))
GPUSHMEM_DEVICE_RMA_TYPES(GPUSHMEMI_COLL_TYPED)
#undef GPUSHMEMI_COLL_TYPED

/* ---- reductions ------------------------------------------------------------------------------------- */
#define GPUSHMEMI_REDUCE_OP(OP, T) , GPUSHMEMI_DEV::op_##OP, T
#define GPUSHMEMI_COLL_REDUCE(T, N, OP)                                                             \
  GPUSHMEMI_COLL(N##_##OP##_reduce, (shmem_team_t team, T * dest, const T *source, size_t nreduce), \
                 (team, dest, source, nreduce), reduce, GPUSHMEMI_REDUCE_OP(OP, T), (team, dest, source, nreduce))
#define GPUSHMEMI_REDUCE_BITWISE(T, N) \
  GPUSHMEMI_COLL_REDUCE(T, N, and) GPUSHMEMI_COLL_REDUCE(T, N, or) GPUSHMEMI_COLL_REDUCE(T, N, xor)
#define GPUSHMEMI_REDUCE_MINMAX(T, N) GPUSHMEMI_COLL_REDUCE(T, N, min) GPUSHMEMI_COLL_REDUCE(T, N, max)
#define GPUSHMEMI_REDUCE_ARITH(T, N) GPUSHMEMI_COLL_REDUCE(T, N, sum) GPUSHMEMI_COLL_REDUCE(T, N, prod)
GPUSHMEM_DEVICE_REDUCE_BITWISE_TYPES(GPUSHMEMI_REDUCE_BITWISE)
GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(GPUSHMEMI_REDUCE_MINMAX)
GPUSHMEM_DEVICE_REDUCE_ARITH_TYPES(GPUSHMEMI_REDUCE_ARITH)
#undef GPUSHMEMI_REDUCE_BITWISE
#undef GPUSHMEMI_REDUCE_MINMAX
#undef GPUSHMEMI_REDUCE_ARITH
#undef GPUSHMEMI_COLL_REDUCE
#undef GPUSHMEMI_REDUCE_OP
#undef GPUSHMEMI_NO_EXTRA
