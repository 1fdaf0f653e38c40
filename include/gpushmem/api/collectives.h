/*
 * gpushmem: OpenSHMEM 1.5 collectives (included by shmem.h; not meant to be included alone).
 *
 * Team forms: collective over `team`; every member calls the same routine with the same arguments (except
 * collect's nelems) in the same order. `dest` and `source` are symmetric; each returns 0 on success. The
 * caller's own `source` must be ready when it enters; other members' buffers are read only after they have
 * entered. A member may start the next collective on the team at once after return. None of them completes
 * earlier puts or AMOs (shmem_quiet does). Buffers in the GPU symmetric heap are not supported by the host
 * forms yet (an error names the call).
 *
 * Active-set forms (deprecated, still in 1.5): the PEs PE_start + i * 2^logPE_stride, i < PE_size, each
 * passing the same symmetric pSync (every element SHMEM_SYNC_VALUE before the first use; it is restored before
 * return) and, for reductions, pWrk (unused here but part of the signature).
 */
#ifndef GPUSHMEM_API_COLLECTIVES_H
#define GPUSHMEM_API_COLLECTIVES_H

#include <stddef.h>

#include "gpushmem/type_table.h"

#if !defined(__STDC_NO_COMPLEX__) && !defined(__CUDACC__)
#define GPUSHMEMI_HAVE_COMPLEX 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Broadcast: `nelems` elements of the root's (team index PE_root) source land in dest on every member, the
   root included. collect: every member's source (nelems may differ between members) is concatenated into dest
   in team order on every member. fcollect: the same with one nelems for all. alltoall: block j (nelems
   elements) of member i's source lands in block i of member j's dest. alltoalls: the same with element
   strides dst and sst (>= 1) inside the blocks. source and dest must not overlap. */
#define GPUSHMEM_DECLARE_TEAM_COLL(T, N)                                                              \
  int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
  int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);                \
  int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);               \
  int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);               \
  int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_RMA_TYPES(GPUSHMEM_DECLARE_TEAM_COLL)
/* The same in bytes. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
#else
/* CUDA: the forms that also run in kernels are host/device functions (gpushmem/device/api_coll.cuh); long
   double exists on the host only. */
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_TEAM_COLL)
#endif
#undef GPUSHMEM_DECLARE_TEAM_COLL

/* Reductions: element k of dest on every member is OP over element k of every member's source, combined in
   team order (the same bits on every member). source and dest are the same buffer or do not overlap. */
#define GPUSHMEM_DECLARE_REDUCE(T, N, OP) \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define GPUSHMEM_DECLARE_REDUCE_BITWISE(T, N) \
  GPUSHMEM_DECLARE_REDUCE(T, N, and) GPUSHMEM_DECLARE_REDUCE(T, N, or) GPUSHMEM_DECLARE_REDUCE(T, N, xor)
#define GPUSHMEM_DECLARE_REDUCE_MINMAX(T, N) GPUSHMEM_DECLARE_REDUCE(T, N, min) GPUSHMEM_DECLARE_REDUCE(T, N, max)
#define GPUSHMEM_DECLARE_REDUCE_ARITH(T, N) GPUSHMEM_DECLARE_REDUCE(T, N, sum) GPUSHMEM_DECLARE_REDUCE(T, N, prod)
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_REDUCE_BITWISE_TYPES(GPUSHMEM_DECLARE_REDUCE_BITWISE)
GPUSHMEM_REDUCE_MINMAX_TYPES(GPUSHMEM_DECLARE_REDUCE_MINMAX)
GPUSHMEM_REDUCE_ARITH_TYPES(GPUSHMEM_DECLARE_REDUCE_ARITH)
#else
/* CUDA: see above; the long double reductions are host only (the complex ones are C and C++ only). */
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_REDUCE_MINMAX)
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_REDUCE_ARITH)
#endif
#ifdef GPUSHMEMI_HAVE_COMPLEX
GPUSHMEM_REDUCE_COMPLEX_TYPES(GPUSHMEM_DECLARE_REDUCE_ARITH)
#endif
#undef GPUSHMEM_DECLARE_REDUCE_BITWISE
#undef GPUSHMEM_DECLARE_REDUCE_MINMAX
#undef GPUSHMEM_DECLARE_REDUCE_ARITH
#undef GPUSHMEM_DECLARE_REDUCE

/* ---- Deprecated active-set forms ---- */
/* shmem_quiet, then returns once every PE of the active set has called it. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* Returns once every PE of the active set has called it (no quiet). In C11 the name is also the generic
   shmem_sync(team), chosen by the number of arguments; (shmem_sync)(...) always calls this function. */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* As the team forms on 32- or 64-bit elements; broadcast leaves the root's dest alone and PE_root is the
   root's ordinal in the active set. */
#define GPUSHMEM_DECLARE_ACTIVE_SET_COLL(S)                                                                           \
  void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, \
                          int PE_size, long *pSync);                                                                  \
  void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                        long *pSync);                                                                                 \
  void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,  \
                         long *pSync);                                                                                \
  void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,  \
                         long *pSync);                                                                                \
  void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,  \
                          int logPE_stride, int PE_size, long *pSync);
GPUSHMEM_DECLARE_ACTIVE_SET_COLL(32)
GPUSHMEM_DECLARE_ACTIVE_SET_COLL(64)
#undef GPUSHMEM_DECLARE_ACTIVE_SET_COLL
/* Reductions over the active set (nreduce elements; source and dest the same or disjoint). */
#define GPUSHMEM_DECLARE_TO_ALL(T, N, OP)                                                                            \
  void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, \
                                 T *pWrk, long *pSync);
#define GPUSHMEM_DECLARE_TO_ALL_BITWISE(T, N) \
  GPUSHMEM_DECLARE_TO_ALL(T, N, and) GPUSHMEM_DECLARE_TO_ALL(T, N, or) GPUSHMEM_DECLARE_TO_ALL(T, N, xor)
#define GPUSHMEM_DECLARE_TO_ALL_ARITH(T, N) \
  GPUSHMEM_DECLARE_TO_ALL(T, N, min)        \
  GPUSHMEM_DECLARE_TO_ALL(T, N, max) GPUSHMEM_DECLARE_TO_ALL(T, N, sum) GPUSHMEM_DECLARE_TO_ALL(T, N, prod)
#define GPUSHMEM_DECLARE_TO_ALL_COMPLEX(T, N) GPUSHMEM_DECLARE_TO_ALL(T, N, sum) GPUSHMEM_DECLARE_TO_ALL(T, N, prod)
GPUSHMEM_TO_ALL_BITWISE_TYPES(GPUSHMEM_DECLARE_TO_ALL_BITWISE)
GPUSHMEM_TO_ALL_ARITH_TYPES(GPUSHMEM_DECLARE_TO_ALL_ARITH)
#ifdef GPUSHMEMI_HAVE_COMPLEX
GPUSHMEM_REDUCE_COMPLEX_TYPES(GPUSHMEM_DECLARE_TO_ALL_COMPLEX)
#endif
#undef GPUSHMEM_DECLARE_TO_ALL_BITWISE
#undef GPUSHMEM_DECLARE_TO_ALL_ARITH
#undef GPUSHMEM_DECLARE_TO_ALL_COMPLEX
#undef GPUSHMEM_DECLARE_TO_ALL

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUSHMEM_API_COLLECTIVES_H */
