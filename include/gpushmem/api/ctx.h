/*
 * Part of <shmem.h> (include <shmem.h>, never this file): communication contexts and the shmem_ctx_ form of
 * every RMA, AMO, put-with-signal, fence and quiet routine.
 *
 * A context is an independent stream of point-to-point operations: shmem_ctx_quiet(ctx) completes, and
 * shmem_ctx_fence(ctx) orders, only the operations issued on `ctx`. SHMEM_CTX_DEFAULT is the context of every
 * routine without a ctx argument (shmem_quiet is shmem_ctx_quiet(SHMEM_CTX_DEFAULT)). A context created by
 * shmem_ctx_create belongs to the world team, one from shmem_team_create_ctx to that team; PE numbers given to
 * a context's operations are numbers in its team.
 * Each shmem_ctx_NAME(ctx, args...) behaves as NAME(args...) (see its contract in <shmem.h>) on `ctx`.
 *
 * Contexts are host only: kernels use the routines without ctx. Handles compare with ==; a handle is not a
 * pointer to anything the program may touch.
 *
 * Errors (with error checks on, GPUSHMEM_ERROR_CHECKS): an RMA, AMO or signal call on SHMEM_CTX_INVALID, on
 * a destroyed context or on something that is not a context, and a SHMEM_CTX_PRIVATE context used by a
 * thread other than its creator, end the job with a message naming the call. fence, quiet and destroy on
 * SHMEM_CTX_INVALID do nothing, as the specification says.
 */
#ifndef GPUSHMEM_API_CTX_H
#define GPUSHMEM_API_CTX_H

#ifndef GPUSHMEM_SHMEM_H
#error "gpushmem/api/ctx.h is part of <shmem.h>: include <shmem.h> instead"
#endif

/* The invalid context (what a failed shmem_ctx_create stores) and the default context. Both are constants of
   type shmem_ctx_t; they may initialise static variables. */
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)(uintptr_t)0x8000000100000000ULL)

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a context of the world team. `options`: 0 or an OR of
     SHMEM_CTX_PRIVATE     only the calling thread will use (and destroy) it; checked with error checks on;
     SHMEM_CTX_SERIALIZED  threads will use it, but never two at once;
     SHMEM_CTX_NOSTORE     its quiet and fence need not complete or order the caller's plain stores.
   These are promises of the program; the host runtime is thread safe on every context whatever they say, and
   quiet still fences (host-heap puts are stores themselves), so today they change no behaviour.
   Returns 0 with *ctx set, or nonzero with *ctx = SHMEM_CTX_INVALID when no more contexts can be made (at most
   65536 alive at once; a later call may succeed). Not collective; thread safe. Other option bits and a NULL
   ctx end the job with a message. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
/* As shmem_ctx_create, for `team`: point-to-point calls on the context take PE numbers of that team (a PE
   outside 0..team size-1 is reported). SHMEM_TEAM_INVALID: returns nonzero with *ctx = SHMEM_CTX_INVALID; a
   destroyed team is reported. The team's num_contexts is a hint. The context is destroyed with its team. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
/* Stores the team of `ctx` in *team and returns 0: SHMEM_TEAM_WORLD for SHMEM_CTX_DEFAULT and shmem_ctx_create
   contexts. SHMEM_CTX_INVALID: *team = SHMEM_TEAM_INVALID and a nonzero return. */
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
/* Quiets `ctx`, then frees it; the handle must not be used again (with error checks on, a later use is
   reported). SHMEM_CTX_INVALID: nothing. SHMEM_CTX_DEFAULT cannot be destroyed (reported). Not collective. */
void shmem_ctx_destroy(shmem_ctx_t ctx);
/* Orders the puts, AMOs and put-with-signals issued on `ctx` before the call ahead of those after it, per
   target PE. SHMEM_CTX_INVALID: nothing. */
void shmem_ctx_fence(shmem_ctx_t ctx);
/* Completes every operation issued on `ctx` by the calling thread (and the caller's plain stores to
   symmetric memory): they are visible at every PE. Operations on other contexts are not waited for.
   SHMEM_CTX_INVALID: nothing. */
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- RMA ------------------------------------------------------------------------------------------------ */
#define GPUSHMEM_DECLARE_CTX_TYPED(T, N)                                                                            \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                       \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                       \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                   \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);                   \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                                                \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                                    \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                            int pe);                                                                                \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                            int pe);                                                                                \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,     \
                                  uint64_t signal, int sig_op, int pe);                                             \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                      uint64_t signal, int sig_op, int pe);
GPUSHMEM_RMA_TYPES(GPUSHMEM_DECLARE_CTX_TYPED)
#undef GPUSHMEM_DECLARE_CTX_TYPED

#define GPUSHMEM_DECLARE_CTX_BYTES(NAME)                                                         \
  void shmem_ctx_##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_ctx_##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
#define GPUSHMEM_DECLARE_CTX_BYTES_SIGNAL(NAME)                                                                      \
  void shmem_ctx_##NAME##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                 uint64_t signal, int sig_op, int pe);                                               \
  void shmem_ctx_##NAME##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,                 \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define GPUSHMEM_DECLARE_CTX_SIZED(S)                                                                                  \
  GPUSHMEM_DECLARE_CTX_BYTES(put##S)                                                                                   \
  GPUSHMEM_DECLARE_CTX_BYTES(get##S)                                                                                   \
  GPUSHMEM_DECLARE_CTX_BYTES_SIGNAL(put##S)                                                                            \
  void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);                                                                                      \
  void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                         int pe);
GPUSHMEM_RMA_SIZES(GPUSHMEM_DECLARE_CTX_SIZED)
GPUSHMEM_DECLARE_CTX_BYTES(putmem)
GPUSHMEM_DECLARE_CTX_BYTES(getmem)
GPUSHMEM_DECLARE_CTX_BYTES_SIGNAL(putmem)
#undef GPUSHMEM_DECLARE_CTX_SIZED
#undef GPUSHMEM_DECLARE_CTX_BYTES_SIGNAL
#undef GPUSHMEM_DECLARE_CTX_BYTES

/* ---- AMOs ----------------------------------------------------------------------------------------------- */
#define GPUSHMEM_DECLARE_CTX_FETCH_OP(T, N, FETCH, PLAIN)                                  \
  T shmem_ctx_##N##_##FETCH(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
  void shmem_ctx_##N##_##FETCH##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
  void shmem_ctx_##N##_##PLAIN(shmem_ctx_t ctx, T *dest, T value, int pe);
#define GPUSHMEM_DECLARE_CTX_AMOX(T, N)                                                      \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                  \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define GPUSHMEM_DECLARE_CTX_AMO(T, N)                                                                       \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);                  \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe); \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                                      \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);                     \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                                         \
  GPUSHMEM_DECLARE_CTX_FETCH_OP(T, N, atomic_fetch_add, atomic_add)
#define GPUSHMEM_DECLARE_CTX_AMOB(T, N)                             \
  GPUSHMEM_DECLARE_CTX_FETCH_OP(T, N, atomic_fetch_and, atomic_and) \
  GPUSHMEM_DECLARE_CTX_FETCH_OP(T, N, atomic_fetch_or, atomic_or)   \
  GPUSHMEM_DECLARE_CTX_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor)
GPUSHMEM_AMOX_TYPES(GPUSHMEM_DECLARE_CTX_AMOX)
GPUSHMEM_AMO_TYPES(GPUSHMEM_DECLARE_CTX_AMO)
GPUSHMEM_AMOB_TYPES(GPUSHMEM_DECLARE_CTX_AMOB)
#undef GPUSHMEM_DECLARE_CTX_AMOX
#undef GPUSHMEM_DECLARE_CTX_AMO
#undef GPUSHMEM_DECLARE_CTX_AMOB
#undef GPUSHMEM_DECLARE_CTX_FETCH_OP

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- C++ overloads of the generic names with a leading ctx (host only; the C11 ones are in
   gpushmem/api/generic_c11.h) ------------------------------------------------------------------------------ */
#ifdef __cplusplus
#define GPUSHMEM_OVERLOAD_CTX_RMA(T, N)                                                                             \
  static inline void shmem_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {                  \
    shmem_ctx_##N##_put(ctx, dest, source, nelems, pe);                                                             \
  }                                                                                                                 \
  static inline void shmem_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {                  \
    shmem_ctx_##N##_get(ctx, dest, source, nelems, pe);                                                             \
  }                                                                                                                 \
  static inline void shmem_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {              \
    shmem_ctx_##N##_put_nbi(ctx, dest, source, nelems, pe);                                                         \
  }                                                                                                                 \
  static inline void shmem_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {              \
    shmem_ctx_##N##_get_nbi(ctx, dest, source, nelems, pe);                                                         \
  }                                                                                                                 \
  static inline void shmem_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                                           \
    shmem_ctx_##N##_p(ctx, dest, value, pe);                                                                        \
  }                                                                                                                 \
  static inline T shmem_g(shmem_ctx_t ctx, const T *source, int pe) {                                               \
    return shmem_ctx_##N##_g(ctx, source, pe);                                                                      \
  }                                                                                                                 \
  static inline void shmem_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                size_t nelems, int pe) {                                                            \
    shmem_ctx_##N##_iput(ctx, dest, source, dst, sst, nelems, pe);                                                  \
  }                                                                                                                 \
  static inline void shmem_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                size_t nelems, int pe) {                                                            \
    shmem_ctx_##N##_iget(ctx, dest, source, dst, sst, nelems, pe);                                                  \
  }                                                                                                                 \
  static inline void shmem_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                      uint64_t signal, int sig_op, int pe) {                                        \
    shmem_ctx_##N##_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);                            \
  }                                                                                                                 \
  static inline void shmem_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,                 \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {                \
    shmem_ctx_##N##_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);                        \
  }
GPUSHMEM_RMA_GENERIC_TYPES(GPUSHMEM_OVERLOAD_CTX_RMA)
#undef GPUSHMEM_OVERLOAD_CTX_RMA

#define GPUSHMEM_OVERLOAD_CTX_FETCH_OP(T, N, FETCH, PLAIN)                                      \
  static inline T shmem_##FETCH(shmem_ctx_t ctx, T *dest, T value, int pe) {                    \
    return shmem_ctx_##N##_##FETCH(ctx, dest, value, pe);                                       \
  }                                                                                             \
  static inline void shmem_##FETCH##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    shmem_ctx_##N##_##FETCH##_nbi(ctx, fetch, dest, value, pe);                                 \
  }                                                                                             \
  static inline void shmem_##PLAIN(shmem_ctx_t ctx, T *dest, T value, int pe) {                 \
    shmem_ctx_##N##_##PLAIN(ctx, dest, value, pe);                                              \
  }
#define GPUSHMEM_OVERLOAD_CTX_AMOX(T, N)                                                          \
  static inline T shmem_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                  \
    return shmem_ctx_##N##_atomic_fetch(ctx, source, pe);                                         \
  }                                                                                               \
  static inline void shmem_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) { \
    shmem_ctx_##N##_atomic_fetch_nbi(ctx, fetch, source, pe);                                     \
  }                                                                                               \
  static inline void shmem_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
    shmem_ctx_##N##_atomic_set(ctx, dest, value, pe);                                             \
  }                                                                                               \
  static inline T shmem_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    return shmem_ctx_##N##_atomic_swap(ctx, dest, value, pe);                                     \
  }                                                                                               \
  static inline void shmem_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    shmem_ctx_##N##_atomic_swap_nbi(ctx, fetch, dest, value, pe);                                 \
  }
#define GPUSHMEM_OVERLOAD_CTX_AMO(T, N)                                                                           \
  static inline T shmem_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {                  \
    return shmem_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe);                                       \
  }                                                                                                               \
  static inline void shmem_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe) { \
    shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe);                                   \
  }                                                                                                               \
  static inline T shmem_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                                      \
    return shmem_ctx_##N##_atomic_fetch_inc(ctx, dest, pe);                                                       \
  }                                                                                                               \
  static inline void shmem_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {                     \
    shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, fetch, dest, pe);                                                   \
  }                                                                                                               \
  static inline void shmem_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                                         \
    shmem_ctx_##N##_atomic_inc(ctx, dest, pe);                                                                    \
  }                                                                                                               \
  GPUSHMEM_OVERLOAD_CTX_FETCH_OP(T, N, atomic_fetch_add, atomic_add)
#define GPUSHMEM_OVERLOAD_CTX_AMOB(T, N)                             \
  GPUSHMEM_OVERLOAD_CTX_FETCH_OP(T, N, atomic_fetch_and, atomic_and) \
  GPUSHMEM_OVERLOAD_CTX_FETCH_OP(T, N, atomic_fetch_or, atomic_or)   \
  GPUSHMEM_OVERLOAD_CTX_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor)
GPUSHMEM_AMOX_GENERIC_TYPES(GPUSHMEM_OVERLOAD_CTX_AMOX)
GPUSHMEM_AMO_GENERIC_TYPES(GPUSHMEM_OVERLOAD_CTX_AMO)
GPUSHMEM_AMOB_GENERIC_TYPES(GPUSHMEM_OVERLOAD_CTX_AMOB)
#undef GPUSHMEM_OVERLOAD_CTX_AMOX
#undef GPUSHMEM_OVERLOAD_CTX_AMO
#undef GPUSHMEM_OVERLOAD_CTX_AMOB
#undef GPUSHMEM_OVERLOAD_CTX_FETCH_OP
#endif /* __cplusplus */

#endif /* GPUSHMEM_API_CTX_H */
