/*
 * Device-only gpushmem extensions in CUDA files (included by <shmemx.h>, never directly).
 *
 * Warp and block forms of the bulk operations: shmemx_<routine>_warp and shmemx_<routine>_block (the team
 * collectives also _grid: see there), for
 *   putmem / getmem (+ _nbi), putmem_signal (+ _nbi),
 *   TYPE_put / get / put_nbi / get_nbi / iput / iget / put_signal / put_signal_nbi (T-RMA but longdouble),
 *   putSIZE / getSIZE (+ _nbi), iputSIZE / igetSIZE, putSIZE_signal (+ _nbi),
 *   barrier_all and sync_all.
 * Same arguments and semantics as the routine without the suffix, but every thread of the calling warp
 * (or block) must make the call, with the same arguments, and the group shares the work: the copy is
 * split over its lanes in wide coalesced accesses. The call synchronises the group on entry and on exit,
 * so lanes may write the source just before it and read the destination right after. For barrier_all /
 * sync_all the group counts as the PE's one caller.
 *
 * shmemx_signal_op(sig_addr, signal, sig_op, pe): SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD on PE pe's signal
 * word alone (OpenSHMEM 1.6's shmem_signal_set / shmem_signal_add); ordered after earlier puts only by
 * shmem_fence or shmem_quiet. Thread scope.
 */
#ifndef GPUSHMEM_DEVICE_SHMEMX_API_CUH
#define GPUSHMEM_DEVICE_SHMEMX_API_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "gpushmem/device/shmemx_api.cuh is part of <shmemx.h>: include <shmemx.h> instead"
#endif

#define GPUSHMEMI_COOP_MEM(SCOPE)                                                                                    \
  static inline __device__ void shmemx_putmem_##SCOPE(void *dest, const void *source, size_t nelems, int pe) {       \
    GPUSHMEMI_DEV::putmem<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_putmem_" #SCOPE, dest, source, nelems, pe);          \
  }                                                                                                                  \
  static inline __device__ void shmemx_getmem_##SCOPE(void *dest, const void *source, size_t nelems, int pe) {       \
    GPUSHMEMI_DEV::getmem<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_getmem_" #SCOPE, dest, source, nelems, pe);          \
  }                                                                                                                  \
  static inline __device__ void shmemx_putmem_nbi_##SCOPE(void *dest, const void *source, size_t nelems, int pe) {   \
    GPUSHMEMI_DEV::putmem_nbi<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_putmem_nbi_" #SCOPE, dest, source, nelems, pe);  \
  }                                                                                                                  \
  static inline __device__ void shmemx_getmem_nbi_##SCOPE(void *dest, const void *source, size_t nelems, int pe) {   \
    GPUSHMEMI_DEV::getmem_nbi<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_getmem_nbi_" #SCOPE, dest, source, nelems, pe);  \
  }                                                                                                                  \
  static inline __device__ void shmemx_putmem_signal_##SCOPE(                                                        \
      void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {      \
    GPUSHMEMI_DEV::putmem_signal<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_putmem_signal_" #SCOPE, dest, source, nelems, \
                                                               sig_addr, signal, sig_op, pe);                        \
  }                                                                                                                  \
  static inline __device__ void shmemx_putmem_signal_nbi_##SCOPE(                                                    \
      void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {      \
    GPUSHMEMI_DEV::putmem_signal_nbi<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_putmem_signal_nbi_" #SCOPE, dest, source, \
                                                                   nelems, sig_addr, signal, sig_op, pe);            \
  }                                                                                                                  \
  static inline __device__ void shmemx_barrier_all_##SCOPE(void) {                                                   \
    GPUSHMEMI_DEV::barrier_all<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_barrier_all_" #SCOPE);                          \
  }                                                                                                                  \
  static inline __device__ void shmemx_sync_all_##SCOPE(void) {                                                      \
    GPUSHMEMI_DEV::sync_all<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_sync_all_" #SCOPE);                                \
  }
GPUSHMEMI_COOP_MEM(warp)
GPUSHMEMI_COOP_MEM(block)
#undef GPUSHMEMI_COOP_MEM

/* OP: the routine's suffix; IMPL: the template; PARAMS / ARGS: its parameters and how they are passed. */
#define GPUSHMEMI_COOP_TYPED_ONE(T, N, SCOPE, OP, IMPL)                                                           \
  static inline __device__ void shmemx_##N##_##OP##_##SCOPE(T *dest, const T *source, size_t nelems, int pe) {    \
    GPUSHMEMI_DEV::IMPL<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_" #N "_" #OP "_" #SCOPE, dest, source, nelems, pe); \
  }
#define GPUSHMEMI_COOP_TYPED_STRIDED(T, N, SCOPE, OP)                                                                \
  static inline __device__ void shmemx_##N##_##OP##_##SCOPE(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                                            size_t nelems, int pe) {                                 \
    GPUSHMEMI_DEV::OP<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_" #N "_" #OP "_" #SCOPE, dest, source, dst, sst, nelems, \
                                                    pe);                                                             \
  }
#define GPUSHMEMI_COOP_TYPED_SIGNAL(T, N, SCOPE, OP)                                                                   \
  static inline __device__ void shmemx_##N##_##OP##_##SCOPE(T *dest, const T *source, size_t nelems,                   \
                                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    GPUSHMEMI_DEV::OP<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_" #N "_" #OP "_" #SCOPE, dest, source, nelems, sig_addr,   \
                                                    signal, sig_op, pe);                                               \
  }
#define GPUSHMEMI_COOP_TYPED(T, N, SCOPE)                 \
  GPUSHMEMI_COOP_TYPED_ONE(T, N, SCOPE, put, put)         \
  GPUSHMEMI_COOP_TYPED_ONE(T, N, SCOPE, get, get)         \
  GPUSHMEMI_COOP_TYPED_ONE(T, N, SCOPE, put_nbi, put_nbi) \
  GPUSHMEMI_COOP_TYPED_ONE(T, N, SCOPE, get_nbi, get_nbi) \
  GPUSHMEMI_COOP_TYPED_STRIDED(T, N, SCOPE, iput)         \
  GPUSHMEMI_COOP_TYPED_STRIDED(T, N, SCOPE, iget)         \
  GPUSHMEMI_COOP_TYPED_SIGNAL(T, N, SCOPE, put_signal)    \
  GPUSHMEMI_COOP_TYPED_SIGNAL(T, N, SCOPE, put_signal_nbi)
#define GPUSHMEMI_COOP_TYPED_WARP(T, N) GPUSHMEMI_COOP_TYPED(T, N, warp)
#define GPUSHMEMI_COOP_TYPED_BLOCK(T, N) GPUSHMEMI_COOP_TYPED(T, N, block)
GPUSHMEM_DEVICE_RMA_TYPES(GPUSHMEMI_COOP_TYPED_WARP)
GPUSHMEM_DEVICE_RMA_TYPES(GPUSHMEMI_COOP_TYPED_BLOCK)
#undef GPUSHMEMI_COOP_TYPED_WARP
#undef GPUSHMEMI_COOP_TYPED_BLOCK
#undef GPUSHMEMI_COOP_TYPED
#undef GPUSHMEMI_COOP_TYPED_SIGNAL
#undef GPUSHMEMI_COOP_TYPED_STRIDED
#undef GPUSHMEMI_COOP_TYPED_ONE

#define GPUSHMEMI_COOP_SIZED_BULK(S, SCOPE, OP, IMPL)                                                                  \
  static inline __device__ void shmemx_##OP##_##SCOPE(void *dest, const void *source, size_t nelems, int pe) {         \
    GPUSHMEMI_DEV::IMPL<GPUSHMEMI_DEV::SCOPE##_scope>("shmemx_" #OP "_" #SCOPE, dest, source, nelems * ((S) / 8), pe); \
  }
#define GPUSHMEMI_COOP_SIZED_STRIDED(S, SCOPE, DIR)                                                                  \
  static inline __device__ void shmemx_i##DIR##S##_##SCOPE(void *dest, const void *source, ptrdiff_t dst,            \
                                                           ptrdiff_t sst, size_t nelems, int pe) {                   \
    GPUSHMEMI_DEV::i##DIR##_sized<GPUSHMEMI_DEV::SCOPE##_scope, S>("shmemx_i" #DIR #S "_" #SCOPE, dest, source, dst, \
                                                                   sst, nelems, pe);                                 \
  }
#define GPUSHMEMI_COOP_SIZED_SIGNAL(S, SCOPE, SUFFIX)                                                                  \
  static inline __device__ void shmemx_put##S##_signal##SUFFIX##_##SCOPE(                                              \
      void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {        \
    GPUSHMEMI_DEV::putmem_signal##SUFFIX<GPUSHMEMI_DEV::SCOPE##_scope>(                                                \
        "shmemx_put" #S "_signal" #SUFFIX "_" #SCOPE, dest, source, nelems * ((S) / 8), sig_addr, signal, sig_op, pe); \
  }
#define GPUSHMEMI_COOP_SIZED(S, SCOPE)                          \
  GPUSHMEMI_COOP_SIZED_BULK(S, SCOPE, put##S, putmem)           \
  GPUSHMEMI_COOP_SIZED_BULK(S, SCOPE, get##S, getmem)           \
  GPUSHMEMI_COOP_SIZED_BULK(S, SCOPE, put##S##_nbi, putmem_nbi) \
  GPUSHMEMI_COOP_SIZED_BULK(S, SCOPE, get##S##_nbi, getmem_nbi) \
  GPUSHMEMI_COOP_SIZED_STRIDED(S, SCOPE, put)                   \
  GPUSHMEMI_COOP_SIZED_STRIDED(S, SCOPE, get)                   \
  GPUSHMEMI_COOP_SIZED_SIGNAL(S, SCOPE, )                       \
  GPUSHMEMI_COOP_SIZED_SIGNAL(S, SCOPE, _nbi)
#define GPUSHMEMI_COOP_SIZED_WARP(S) GPUSHMEMI_COOP_SIZED(S, warp)
#define GPUSHMEMI_COOP_SIZED_BLOCK(S) GPUSHMEMI_COOP_SIZED(S, block)
GPUSHMEM_RMA_SIZES(GPUSHMEMI_COOP_SIZED_WARP)
GPUSHMEM_RMA_SIZES(GPUSHMEMI_COOP_SIZED_BLOCK)
#undef GPUSHMEMI_COOP_SIZED_WARP
#undef GPUSHMEMI_COOP_SIZED_BLOCK
#undef GPUSHMEMI_COOP_SIZED
#undef GPUSHMEMI_COOP_SIZED_SIGNAL
#undef GPUSHMEMI_COOP_SIZED_STRIDED
#undef GPUSHMEMI_COOP_SIZED_BULK

static inline __device__ void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  GPUSHMEMI_DEV::signal_op("shmemx_signal_op", sig_addr, signal, sig_op, pe);
}

/* ---- events (event.cuh; shmemx.h says what complete means) ----------------------------------------------
 * shmemx_putmem_nbi_event / shmemx_getmem_nbi_event / shmemx_putmem_signal_nbi_event[_warp | _block]: the _nbi
 *   routine, returning the event of its completion; the group forms return the same event to every thread.
 * shmemx_event_test(ev): nonzero if ev is complete; never waits.
 * shmemx_event_wait(ev): returns once ev is complete (a wait past GPUSHMEM_DEVICE_TIMEOUT stops the kernel with
 *   a message, as every wait on the proxy does).
 * shmemx_event_wait_all(evs, n): every one of evs[0..n) complete.
 * shmemx_event_wait_any(evs, n): the index of one complete event of evs[0..n) (the lowest then complete); waits
 *   for one; n == 0 returns SIZE_MAX. */
#define GPUSHMEMI_EVENT_RMA(SUFFIX, SCOPE)                                                                        \
  static inline __device__ shmemx_event_t shmemx_putmem_nbi_event##SUFFIX(void *dest, const void *source,         \
                                                                          size_t nelems, int pe) {                \
    return GPUSHMEMI_DEV::putmem_nbi_event<GPUSHMEMI_DEV::SCOPE>("shmemx_putmem_nbi_event" #SUFFIX, dest, source, \
                                                                 nelems, pe);                                     \
  }                                                                                                               \
  static inline __device__ shmemx_event_t shmemx_getmem_nbi_event##SUFFIX(void *dest, const void *source,         \
                                                                          size_t nelems, int pe) {                \
    return GPUSHMEMI_DEV::getmem_nbi_event<GPUSHMEMI_DEV::SCOPE>("shmemx_getmem_nbi_event" #SUFFIX, dest, source, \
                                                                 nelems, pe);                                     \
  }                                                                                                               \
  static inline __device__ shmemx_event_t shmemx_putmem_signal_nbi_event##SUFFIX(                                 \
      void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {   \
    return GPUSHMEMI_DEV::putmem_signal_nbi_event<GPUSHMEMI_DEV::SCOPE>(                                          \
        "shmemx_putmem_signal_nbi_event" #SUFFIX, dest, source, nelems, sig_addr, signal, sig_op, pe);            \
  }
GPUSHMEMI_EVENT_RMA(, thread_scope)
GPUSHMEMI_EVENT_RMA(_warp, warp_scope)
GPUSHMEMI_EVENT_RMA(_block, block_scope)
#undef GPUSHMEMI_EVENT_RMA

static inline __device__ int shmemx_event_test(shmemx_event_t ev) {
  return GPUSHMEMI_DEV::event_test("shmemx_event_test", ev) ? 1 : 0;
}
static inline __device__ void shmemx_event_wait(shmemx_event_t ev) {
  GPUSHMEMI_DEV::event_wait("shmemx_event_wait", ev);
}
static inline __device__ void shmemx_event_wait_all(const shmemx_event_t *evs, size_t n) {
  for (size_t i = 0; i < n; ++i) GPUSHMEMI_DEV::event_wait("shmemx_event_wait_all", evs[i]);
}
static inline __device__ size_t shmemx_event_wait_any(const shmemx_event_t *evs, size_t n) {
  return GPUSHMEMI_DEV::event_wait_any("shmemx_event_wait_any", evs, n);
}

/* ---- teams and team collectives, by a whole warp, block or grid (team.cuh, coll.cuh) ------------------ */
/* The _grid forms: every thread of every block of a kernel launched cooperatively (shmemx_collective_launch) makes
   the call, with the same arguments, and the whole grid shares the work (a reduction's share of this PE, an
   alltoall's blocks): for large messages, where one block cannot keep enough loads and stores in flight. The call
   synchronises the grid on entry and on exit. A kernel launched otherwise ends with an error naming the call. */
static inline __device__ int shmemx_team_sync_warp(shmem_team_t team) {
  GPUSHMEMI_DEV::team_sync<GPUSHMEMI_DEV::warp_scope>("shmemx_team_sync_warp", team);
  return 0;
}
static inline __device__ int shmemx_team_sync_block(shmem_team_t team) {
  GPUSHMEMI_DEV::team_sync<GPUSHMEMI_DEV::block_scope>("shmemx_team_sync_block", team);
  return 0;
}
static inline __device__ int shmemx_team_sync_grid(shmem_team_t team) {
  GPUSHMEMI_DEV::require_cooperative_grid("shmemx_team_sync_grid");
  GPUSHMEMI_DEV::team_sync<GPUSHMEMI_DEV::grid_scope>("shmemx_team_sync_grid", team);
  return 0;
}
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS)                                                     \
  static inline __device__ int shmemx_##BASE##_warp PARAMS {                                                           \
    return GPUSHMEMI_DEV::IMPL<GPUSHMEMI_DEV::warp_scope EXTRA>("shmemx_" #BASE "_warp", GPUSHMEMI_UNPAREN IMPL_ARGS); \
  }                                                                                                                    \
  static inline __device__ int shmemx_##BASE##_block PARAMS {                                                          \
    return GPUSHMEMI_DEV::IMPL<GPUSHMEMI_DEV::block_scope EXTRA>("shmemx_" #BASE "_block",                             \
                                                                 GPUSHMEMI_UNPAREN IMPL_ARGS);                         \
  }                                                                                                                    \
  static inline __device__ int shmemx_##BASE##_grid PARAMS {                                                           \
    GPUSHMEMI_DEV::require_cooperative_grid("shmemx_" #BASE "_grid");                                                  \
    return GPUSHMEMI_DEV::IMPL<GPUSHMEMI_DEV::grid_scope EXTRA>("shmemx_" #BASE "_grid", GPUSHMEMI_UNPAREN IMPL_ARGS); \
  }
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL

#endif /* GPUSHMEM_DEVICE_SHMEMX_API_CUH */
