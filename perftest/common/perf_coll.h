/*
 * Host collectives for the perftest programs, over whichever standard API the library offers:
 *   OpenSHMEM 1.5 (gpushmem): team-based shmem_broadcastmem / fcollectmem / alltoallmem,
 *     shmem_TYPE_OP_reduce and shmem_team_sync on SHMEM_TEAM_WORLD;
 *   OpenSHMEM 1.4 (Open MPI 4.1's oshcc): the active-set forms shmem_broadcast64 / fcollect64 /
 *     alltoall64 and shmem_TYPE_OP_to_all over all PEs, with pSync (and pWrk) arrays.
 * Every PE must call these together. Sizes are in bytes per PE; the 1.4 forms move 64-bit words, so
 * perf_coll_size_ok() says whether a size can be measured there.
 * A 1.5 library that lacks some of them yet: define PERF_NO_TEAM_SYNC, PERF_NO_BROADCAST,
 * PERF_NO_FCOLLECT, PERF_NO_ALLTOALL or PERF_NO_REDUCE and the matching perf_ call is left out (the
 * perftest CMakeLists does so after checking <shmem.h>; the programs that need one are then not built).
 */
#ifndef GPUSHMEM_PERF_COLL_H
#define GPUSHMEM_PERF_COLL_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perf_host.h"

#if (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define PERF_SHMEM_15 1
#else
#define PERF_SHMEM_15 0
#endif
/* Which collectives this build has: all of them on 1.4 (the active-set forms), on 1.5 those not
   excluded by a PERF_NO_* define. */
#if PERF_SHMEM_15 && defined(PERF_NO_BROADCAST)
#define PERF_HAVE_BROADCAST 0
#else
#define PERF_HAVE_BROADCAST 1
#endif
#if PERF_SHMEM_15 && defined(PERF_NO_FCOLLECT)
#define PERF_HAVE_FCOLLECT 0
#else
#define PERF_HAVE_FCOLLECT 1
#endif
#if PERF_SHMEM_15 && defined(PERF_NO_ALLTOALL)
#define PERF_HAVE_ALLTOALL 0
#else
#define PERF_HAVE_ALLTOALL 1
#endif
#if PERF_SHMEM_15 && defined(PERF_NO_REDUCE)
#define PERF_HAVE_REDUCE 0
#else
#define PERF_HAVE_REDUCE 1
#endif

/* The data types and operators of the reduction program (bitwise operators on integer types only). */
#define PERF_REDUCE_TYPES(X) X(int, int) X(long, long) X(float, float) X(double, double)
#define PERF_REDUCE_OPS(X) X(sum) X(prod) X(min) X(max) X(and) X(or) X(xor)

typedef struct perf_coll {
  int npes;
  long *psync[2]; /* 1.4: alternating pSync arrays (a call may reuse one once every PE has left the call
                     that used it before; collectives that wait for every PE guarantee that two calls on) */
  void *pwrk;     /* 1.4: the reductions' work array */
  int turn;
} perf_coll;

static inline void perf_coll_init(perf_coll *c, perf_host *h, size_t max_bytes) {
  memset(c, 0, sizeof *c);
  c->npes = h->npes;
#if !PERF_SHMEM_15
  size_t words = SHMEM_BCAST_SYNC_SIZE;
  if (SHMEM_REDUCE_SYNC_SIZE > words) words = SHMEM_REDUCE_SYNC_SIZE;
  if (SHMEM_COLLECT_SYNC_SIZE > words) words = SHMEM_COLLECT_SYNC_SIZE;
  if (SHMEM_ALLTOALL_SYNC_SIZE > words) words = SHMEM_ALLTOALL_SYNC_SIZE;
  if (SHMEM_BARRIER_SYNC_SIZE > words) words = SHMEM_BARRIER_SYNC_SIZE;
  for (int k = 0; k < 2; ++k) {
    c->psync[k] = (long *)perf_host_malloc(h, words * sizeof(long));
    for (size_t i = 0; i < words; ++i) c->psync[k][i] = SHMEM_SYNC_VALUE;
  }
  size_t wrk = max_bytes / 2 + 1;
  if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(double)) wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(double);
  c->pwrk = perf_host_malloc(h, wrk + sizeof(double));
  shmem_barrier_all();
#else
  (void)h;
  (void)max_bytes;
#endif
}

static inline void perf_coll_free(perf_coll *c) {
#if !PERF_SHMEM_15
  shmem_barrier_all();
  shmem_free(c->psync[0]);
  shmem_free(c->psync[1]);
  shmem_free(c->pwrk);
#else
  (void)c;
#endif
}

#if !PERF_SHMEM_15
static inline long *perf_coll_psync(perf_coll *c) {
  c->turn ^= 1;
  return c->psync[c->turn];
}
#endif

/* Whether `bytes` per PE can be moved by this library's collectives (1.4: whole 64-bit words). */
static inline int perf_coll_size_ok(size_t bytes) {
#if PERF_SHMEM_15
  (void)bytes;
  return 1;
#else
  return bytes % 8 == 0;
#endif
}

/* Whether the root's dest receives the data too (1.5 yes; 1.4 leaves the root's target alone). */
#define PERF_BCAST_ROOT_RECEIVES PERF_SHMEM_15

#if PERF_HAVE_BROADCAST
static inline void perf_broadcast(perf_coll *c, void *dest, const void *src, size_t bytes, int root) {
#if PERF_SHMEM_15
  (void)c;
  shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, src, bytes, root);
#else
  shmem_broadcast64(dest, src, bytes / 8, root, 0, 0, c->npes, perf_coll_psync(c));
#endif
}
#endif

#if PERF_HAVE_FCOLLECT
/* dest holds npes * bytes: PE p's src block at p * bytes. */
static inline void perf_fcollect(perf_coll *c, void *dest, const void *src, size_t bytes) {
#if PERF_SHMEM_15
  (void)c;
  shmem_fcollectmem(SHMEM_TEAM_WORLD, dest, src, bytes);
#else
  shmem_fcollect64(dest, src, bytes / 8, 0, 0, c->npes, perf_coll_psync(c));
#endif
}
#endif

#if PERF_HAVE_ALLTOALL
/* src and dest hold npes blocks of `bytes`: block q of PE p's src lands in block p of PE q's dest. */
static inline void perf_alltoall(perf_coll *c, void *dest, const void *src, size_t bytes) {
#if PERF_SHMEM_15
  (void)c;
  shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, src, bytes);
#else
  shmem_alltoall64(dest, src, bytes / 8, 0, 0, c->npes, perf_coll_psync(c));
#endif
}
#endif

#if PERF_HAVE_REDUCE
/* Reduction number `type` (PERF_REDUCE_TYPES order) with operator number `op` (PERF_REDUCE_OPS order)
   over `count` elements; returns 0, or -1 for a bitwise operator on a floating type. */
#if PERF_SHMEM_15
#define PERF_REDUCE_CALL(T, N, OP) shmem_##N##_##OP##_reduce(SHMEM_TEAM_WORLD, (T *)dest, (const T *)src, count)
#else
#define PERF_REDUCE_CALL(T, N, OP) \
  shmem_##N##_##OP##_to_all((T *)dest, (const T *)src, (int)count, 0, 0, c->npes, (T *)c->pwrk, perf_coll_psync(c))
#endif
/* 1.5 has no bitwise reductions on the signed plain types: int and long (LP64) go through their
   fixed-width names int32 / int64; 1.4's _to_all forms take int and long. */
#if PERF_SHMEM_15
#define PERF_BITS_NAME_int int32
#define PERF_BITS_NAME_long int64
#define PERF_BITS_TYPE_int int32_t
#define PERF_BITS_TYPE_long int64_t
#else
#define PERF_BITS_NAME_int int
#define PERF_BITS_NAME_long long
#define PERF_BITS_TYPE_int int
#define PERF_BITS_TYPE_long long
#endif
#define PERF_BITS_CALL2(T, N, OP) PERF_REDUCE_CALL(T, N, OP)
#define PERF_BITS_CALL(N, OP) PERF_BITS_CALL2(PERF_BITS_TYPE_##N, PERF_BITS_NAME_##N, OP)
static inline int perf_reduce(perf_coll *c, int type, int op, void *dest, const void *src, size_t count) {
  (void)c;
#define PERF_R_ARITH(T, N)        \
  case 0:                         \
    PERF_REDUCE_CALL(T, N, sum);  \
    return 0;                     \
  case 1:                         \
    PERF_REDUCE_CALL(T, N, prod); \
    return 0;                     \
  case 2:                         \
    PERF_REDUCE_CALL(T, N, min);  \
    return 0;                     \
  case 3:                         \
    PERF_REDUCE_CALL(T, N, max);  \
    return 0;
#define PERF_R_BITS(N)      \
  case 4:                   \
    PERF_BITS_CALL(N, and); \
    return 0;               \
  case 5:                   \
    PERF_BITS_CALL(N, or);  \
    return 0;               \
  case 6:                   \
    PERF_BITS_CALL(N, xor); \
    return 0;
  switch (type) {
    case 0:
      switch (op) { PERF_R_ARITH(int, int) PERF_R_BITS(int) }
      break;
    case 1:
      switch (op) { PERF_R_ARITH(long, long) PERF_R_BITS(long) }
      break;
    case 2:
      switch (op) { PERF_R_ARITH(float, float) }
      break;
    case 3:
      switch (op) { PERF_R_ARITH(double, double) }
      break;
  }
#undef PERF_R_ARITH
#undef PERF_R_BITS
  return -1;
}
#undef PERF_REDUCE_CALL
#endif /* PERF_HAVE_REDUCE */

/* The team-wide sync of 1.5 (shmem_team_sync on SHMEM_TEAM_WORLD), when this build has it. */
#if PERF_SHMEM_15 && !defined(PERF_NO_TEAM_SYNC)
#define PERF_HAVE_TEAM_SYNC 1
static inline void perf_team_sync(void) {
  shmem_team_sync(SHMEM_TEAM_WORLD);
}
#else
#define PERF_HAVE_TEAM_SYNC 0
#endif

#endif /* GPUSHMEM_PERF_COLL_H */
