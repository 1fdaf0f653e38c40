/*
 * gpushmem: OpenSHMEM 1.5 API.
 *
 * Valid C11 and C++. Symmetric addresses are addresses returned by shmem_malloc and friends (the same
 * offset in every PE's heap). Unless a routine says otherwise it may be called from any thread the
 * thread level allows, and it is not collective.
 */
#ifndef GPUSHMEM_SHMEM_H
#define GPUSHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/config.h"
#include "gpushmem/type_table.h"

/* In CUDA translation units the routines that exist on both sides are defined (at the end of this file, by
   gpushmem/device/shmem_api.cuh) as static inline __host__ __device__ functions: inside a kernel the P2P
   implementation, on the host a call of the exported symbol; device-only routines (AMOs, signals, waits,
   iput/iget) are added as __device__ functions. Defining GPUSHMEM_NO_DEVICE_API before including this
   file keeps a CUDA file to the plain host declarations. C and C++ files see only those. */
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(GPUSHMEM_NO_DEVICE_API)
#define GPUSHMEMI_DEVICE_API 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Library constants ------------------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "gpushmem " GPUSHMEM_VERSION_STRING
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Work-array sizes of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Opaque handles (teams: gpushmem/api/teams.h; contexts: gpushmem/api/ctx.h). */
typedef struct gpushmem_team *shmem_team_t;
typedef struct gpushmem_ctx *shmem_ctx_t;
typedef struct {
  int num_contexts;
} shmem_team_config_t;

/* ---- Setup, query, exit ------------------------------------------------------------------------ */

/* Collective over all PEs: starts the library (bootstrap, symmetric heap, peer mappings). Calling it twice,
   or after shmem_finalize, is reported as an error and ends the job. */
void shmem_init(void);
/* As shmem_init; asks for thread level `requested` (SHMEM_THREAD_*), stores the level granted in
 *provided (may be NULL). Returns 0 on success. */
int shmem_init_thread(int requested, int *provided);
/* The thread level granted by init. */
void shmem_query_thread(int *provided);
/* Collective: completes all communication (quiet + barrier), releases the heap and the bootstrap. */
void shmem_finalize(void);
/* Ends every PE of the job with exit status `status`; callable by one PE alone. Does not return. */
void shmem_global_exit(int status);
#ifndef GPUSHMEMI_DEVICE_API
/* This PE's number, 0..shmem_n_pes()-1 (-1 before shmem_init). */
int shmem_my_pe(void);
/* Number of PEs in the job (-1 before shmem_init). */
int shmem_n_pes(void);
#endif
/* 1 if `pe` can be reached by OpenSHMEM calls from this PE, else 0. */
int shmem_pe_accessible(int pe);
/* 1 if `addr` is a symmetric address that PE `pe` can be reached at, else 0. */
int shmem_addr_accessible(const void *addr, int pe);
#ifndef GPUSHMEMI_DEVICE_API
/* A local address through which load/store reach `dest` on PE `pe`, or NULL when there is none. */
void *shmem_ptr(const void *dest, int pe);
#endif
/* The OpenSHMEM version this library implements (1.5). */
void shmem_info_get_version(int *major, int *minor);
/* The vendor string, at most SHMEM_MAX_NAME_LEN bytes including the NUL. */
void shmem_info_get_name(char *name);
/* Profiling hook: a no-op. */
void shmem_pcontrol(int level, ...);

/* Deprecated spellings, kept because 1.5 still lists them. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* ---- Symmetric memory (collective over all PEs; each ends with a barrier) ----------------------- */

/* `size` bytes of symmetric memory, 64-byte aligned, or NULL when the heap is exhausted (logged with what
   was asked, what is free, and that SHMEM_SYMMETRIC_SIZE raises the limit). size 0 returns NULL. */
void *shmem_malloc(size_t size);
/* As shmem_malloc, zero-filled, for `count` elements of `size` bytes. */
void *shmem_calloc(size_t count, size_t size);
/* As shmem_malloc with an alignment that is a power of two. */
void *shmem_align(size_t alignment, size_t size);
/* Resizes an allocation, keeping the first min(old, new) bytes of this PE's copy. */
void *shmem_realloc(void *ptr, size_t size);
/* As shmem_malloc; `hints` (SHMEM_MALLOC_*) only guide placement. */
void *shmem_malloc_with_hints(size_t size, long hints);
/* Releases an allocation (NULL is ignored). Collective: starts with a barrier. */
void shmem_free(void *ptr);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ---- RMA --------------------------------------------------------------------------------------- */
#ifndef GPUSHMEMI_DEVICE_API

/* Copies nelems bytes from local `source` to symmetric `dest` on PE `pe`. Returns when `source` may be
   reused; remote completion needs shmem_quiet. */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
/* Copies nelems bytes from symmetric `source` on PE `pe` to local `dest`; returns when `dest` holds them. */
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
/* Non-blocking forms: neither buffer may be touched until shmem_quiet returns. */
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
#endif

/* Typed RMA for every standard RMA type: put/get/put_nbi/get_nbi of `nelems` elements, p/g of one. */
#define GPUSHMEM_DECLARE_TYPED_RMA(T, N)                                     \
  void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);     \
  void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);     \
  void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe); \
  void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe); \
  void shmem_##N##_p(T *dest, T value, int pe);                              \
  T shmem_##N##_g(const T *source, int pe);
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_RMA_TYPES(GPUSHMEM_DECLARE_TYPED_RMA)
#else
/* CUDA: long double has no device form; the other types are host/device functions (shmem_api.cuh). */
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_TYPED_RMA)
#endif
#undef GPUSHMEM_DECLARE_TYPED_RMA

#ifndef GPUSHMEMI_DEVICE_API
/* Sized RMA: elements of SIZE bits. */
#define GPUSHMEM_DECLARE_SIZED_RMA(S)                                             \
  void shmem_put##S(void *dest, const void *source, size_t nelems, int pe);       \
  void shmem_get##S(void *dest, const void *source, size_t nelems, int pe);       \
  void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe); \
  void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe);
GPUSHMEM_RMA_SIZES(GPUSHMEM_DECLARE_SIZED_RMA)
#undef GPUSHMEM_DECLARE_SIZED_RMA
#endif

/* ---- AMOs (host: same-node PEs; words in the GPU heap need the device API) --------------------------
   Every operation is atomic against the other AMOs of the same type on the same word, from any PE. Fetching
   forms return the old value; the _nbi forms store it in the local *fetch (same node: before they return). */
#define GPUSHMEM_DECLARE_FETCH_OP(T, N, FETCH, PLAIN)                 \
  T shmem_##N##_##FETCH(T *dest, T value, int pe);                    \
  void shmem_##N##_##FETCH##_nbi(T *fetch, T *dest, T value, int pe); \
  void shmem_##N##_##PLAIN(T *dest, T value, int pe);
#define GPUSHMEM_DECLARE_AMOX(T, N)                                     \
  T shmem_##N##_atomic_fetch(const T *source, int pe);                  \
  void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe); \
  void shmem_##N##_atomic_set(T *dest, T value, int pe);                \
  T shmem_##N##_atomic_swap(T *dest, T value, int pe);                  \
  void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);
#define GPUSHMEM_DECLARE_AMO(T, N)                                                      \
  T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                  \
  void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe); \
  T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                      \
  void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                     \
  void shmem_##N##_atomic_inc(T *dest, int pe);                                         \
  GPUSHMEM_DECLARE_FETCH_OP(T, N, atomic_fetch_add, atomic_add)
#define GPUSHMEM_DECLARE_AMOB(T, N)                             \
  GPUSHMEM_DECLARE_FETCH_OP(T, N, atomic_fetch_and, atomic_and) \
  GPUSHMEM_DECLARE_FETCH_OP(T, N, atomic_fetch_or, atomic_or)   \
  GPUSHMEM_DECLARE_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor)
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_AMOX_TYPES(GPUSHMEM_DECLARE_AMOX)
GPUSHMEM_AMO_TYPES(GPUSHMEM_DECLARE_AMO)
GPUSHMEM_AMOB_TYPES(GPUSHMEM_DECLARE_AMOB)
#endif
#undef GPUSHMEM_DECLARE_AMOX
#undef GPUSHMEM_DECLARE_AMO
#undef GPUSHMEM_DECLARE_AMOB
#undef GPUSHMEM_DECLARE_FETCH_OP

/* Deprecated AMO names (host only): fetch / set / swap, cswap / finc / inc / fadd / add. */
#define GPUSHMEM_DECLARE_DEPRECATED_AMOX(T, N)    \
  T shmem_##N##_fetch(const T *source, int pe);   \
  void shmem_##N##_set(T *dest, T value, int pe); \
  T shmem_##N##_swap(T *dest, T value, int pe);
#define GPUSHMEM_DECLARE_DEPRECATED_AMO(T, N)            \
  T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
  T shmem_##N##_finc(T *dest, int pe);                   \
  void shmem_##N##_inc(T *dest, int pe);                 \
  T shmem_##N##_fadd(T *dest, T value, int pe);          \
  void shmem_##N##_add(T *dest, T value, int pe);
GPUSHMEM_DEPRECATED_AMOX_TYPES(GPUSHMEM_DECLARE_DEPRECATED_AMOX)
GPUSHMEM_DEPRECATED_AMO_TYPES(GPUSHMEM_DECLARE_DEPRECATED_AMO)
#undef GPUSHMEM_DECLARE_DEPRECATED_AMOX
#undef GPUSHMEM_DECLARE_DEPRECATED_AMO

/* ---- Signals ------------------------------------------------------------------------------------
   put_signal copies the payload to `dest` on PE pe, then updates the 64-bit symmetric *sig_addr there
   (sig_op SHMEM_SIGNAL_SET stores `signal`, SHMEM_SIGNAL_ADD adds it): a PE that sees the update sees the
   payload. Earlier puts are not covered without shmem_fence. */
#define GPUSHMEM_DECLARE_TYPED_SIGNAL(T, N)                                                                     \
  void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                              int sig_op, int pe);                                                              \
  void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                  int sig_op, int pe);
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_RMA_TYPES(GPUSHMEM_DECLARE_TYPED_SIGNAL)
#define GPUSHMEM_DECLARE_SIZED_SIGNAL(S)                                                                             \
  void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                             int sig_op, int pe);                                                                    \
  void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                 int sig_op, int pe);
GPUSHMEM_RMA_SIZES(GPUSHMEM_DECLARE_SIZED_SIGNAL)
#undef GPUSHMEM_DECLARE_SIZED_SIGNAL
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                         int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe);
/* This PE's signal word (an acquire load). */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
/* Waits until this PE's signal word satisfies `cmp` against cmp_value; returns the value that did. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
#else
GPUSHMEM_HOST_ONLY_RMA_TYPES(GPUSHMEM_DECLARE_TYPED_SIGNAL)
#endif
#undef GPUSHMEM_DECLARE_TYPED_SIGNAL

/* ---- Point-to-point synchronisation ---------------------------------------------------------------
   ivar / ivars are symmetric words of this PE that other PEs update with AMOs of the same type. Waits
   return with acquire order and log what they wait for every GPUSHMEM_HANG_WARN seconds; they spin
   briefly, then yield the core (at once on an oversubscribed node). status: NULL or one int per element,
   0 includes it. Empty sets (nelems 0 or all excluded): wait_until_all and test_all return at once (1),
   wait_until_any and test_any return SIZE_MAX, wait_until_some and test_some return 0. any / some scans
   start past the element reported last, so every satisfied element is eventually reported. */
#define GPUSHMEM_DECLARE_WAIT_ONE(T, N)                       \
  void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value); \
  int shmem_##N##_test(T *ivar, int cmp, T cmp_value);
#define GPUSHMEM_DECLARE_WAIT_SET(T, N, SUFFIX, ARG)                                                               \
  void shmem_##N##_wait_until_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG);               \
  size_t shmem_##N##_wait_until_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG);             \
  size_t shmem_##N##_wait_until_some##SUFFIX(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                             ARG);                                                                 \
  int shmem_##N##_test_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG);                      \
  size_t shmem_##N##_test_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, ARG);                   \
  size_t shmem_##N##_test_some##SUFFIX(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, ARG);
#define GPUSHMEM_DECLARE_WAIT(T, N)              \
  GPUSHMEM_DECLARE_WAIT_ONE(T, N)                \
  GPUSHMEM_DECLARE_WAIT_SET(T, N, , T cmp_value) \
  GPUSHMEM_DECLARE_WAIT_SET(T, N, _vector, const T *cmp_values)
#ifndef GPUSHMEMI_DEVICE_API
GPUSHMEM_AMO_TYPES(GPUSHMEM_DECLARE_WAIT)
/* Deprecated: the plain long form of wait_until (in C11 also the generic macro's name). */
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
/* Deprecated: short / ushort wait_until and test; shmem_wait is wait_until with SHMEM_CMP_NE. (CUDA: host and
   device forms in gpushmem/device/api_signal_wait.cuh.) */
GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_DECLARE_WAIT_ONE)
#define GPUSHMEM_DECLARE_DEPRECATED_WAIT(T, N) void shmem_##N##_wait(T *ivar, T cmp_value);
GPUSHMEM_DEPRECATED_WAIT_TYPES(GPUSHMEM_DECLARE_DEPRECATED_WAIT)
#undef GPUSHMEM_DECLARE_DEPRECATED_WAIT
void shmem_wait(long *ivar, long cmp_value);
#endif
#undef GPUSHMEM_DECLARE_WAIT
#undef GPUSHMEM_DECLARE_WAIT_SET
#undef GPUSHMEM_DECLARE_WAIT_ONE

/* ---- Ordering and synchronisation -------------------------------------------------------------- */
#ifndef GPUSHMEMI_DEVICE_API

/* Completes every put, AMO and nbi operation this PE issued: they are visible at their targets. */
void shmem_quiet(void);
/* Orders this PE's puts and AMOs per target: earlier ones arrive before later ones. */
void shmem_fence(void);
/* Collective over all PEs: quiet, then wait until every PE has arrived. */
void shmem_barrier_all(void);
/* Collective over all PEs: wait until every PE has arrived (no quiet; local stores are published). */
void shmem_sync_all(void);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- Teams and collectives (their own headers) ------------------------------------------------- */
#include "gpushmem/api/collectives.h"
#include "gpushmem/api/teams.h"

/* ---- Distributed locks (host only) --------------------------------------------------------------- */
#include "gpushmem/api/lock.h"

/* ---- API families in headers of their own (each brings its declarations and C++ overloads) ---------- */
#include "gpushmem/api/ctx.h"
#include "gpushmem/api/rma_strided.h"

/* ---- Generic names: C11 _Generic selections and C++ overloads, from the same table -------------- */
#if defined(GPUSHMEMI_DEVICE_API)
/* CUDA: host/device overloads, in gpushmem/device/shmem_api.cuh. */
#elif defined(__cplusplus)
#define GPUSHMEM_OVERLOAD_RMA(T, N)                                                   \
  static inline void shmem_put(T *dest, const T *source, size_t nelems, int pe) {     \
    shmem_##N##_put(dest, source, nelems, pe);                                        \
  }                                                                                   \
  static inline void shmem_get(T *dest, const T *source, size_t nelems, int pe) {     \
    shmem_##N##_get(dest, source, nelems, pe);                                        \
  }                                                                                   \
  static inline void shmem_put_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    shmem_##N##_put_nbi(dest, source, nelems, pe);                                    \
  }                                                                                   \
  static inline void shmem_get_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    shmem_##N##_get_nbi(dest, source, nelems, pe);                                    \
  }                                                                                   \
  static inline void shmem_p(T *dest, T value, int pe) {                              \
    shmem_##N##_p(dest, value, pe);                                                   \
  }                                                                                   \
  static inline T shmem_g(const T *source, int pe) {                                  \
    return shmem_##N##_g(source, pe);                                                 \
  }
GPUSHMEM_RMA_GENERIC_TYPES(GPUSHMEM_OVERLOAD_RMA)
#undef GPUSHMEM_OVERLOAD_RMA
#define GPUSHMEM_OVERLOAD_AMOX(T, N)                                             \
  static inline T shmem_atomic_fetch(const T *source, int pe) {                  \
    return shmem_##N##_atomic_fetch(source, pe);                                 \
  }                                                                              \
  static inline void shmem_atomic_fetch_nbi(T *fetch, const T *source, int pe) { \
    shmem_##N##_atomic_fetch_nbi(fetch, source, pe);                             \
  }                                                                              \
  static inline void shmem_atomic_set(T *dest, T value, int pe) {                \
    shmem_##N##_atomic_set(dest, value, pe);                                     \
  }                                                                              \
  static inline T shmem_atomic_swap(T *dest, T value, int pe) {                  \
    return shmem_##N##_atomic_swap(dest, value, pe);                             \
  }                                                                              \
  static inline void shmem_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) { \
    shmem_##N##_atomic_swap_nbi(fetch, dest, value, pe);                         \
  }
GPUSHMEM_AMOX_GENERIC_TYPES(GPUSHMEM_OVERLOAD_AMOX)
#undef GPUSHMEM_OVERLOAD_AMOX
#define GPUSHMEM_OVERLOAD_AMO(T, N)                                                              \
  static inline T shmem_atomic_compare_swap(T *dest, T cond, T value, int pe) {                  \
    return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                               \
  }                                                                                              \
  static inline void shmem_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) { \
    shmem_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe);                           \
  }                                                                                              \
  static inline T shmem_atomic_fetch_inc(T *dest, int pe) {                                      \
    return shmem_##N##_atomic_fetch_inc(dest, pe);                                               \
  }                                                                                              \
  static inline void shmem_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                     \
    shmem_##N##_atomic_fetch_inc_nbi(fetch, dest, pe);                                           \
  }                                                                                              \
  static inline void shmem_atomic_inc(T *dest, int pe) {                                         \
    shmem_##N##_atomic_inc(dest, pe);                                                            \
  }                                                                                              \
  static inline T shmem_atomic_fetch_add(T *dest, T value, int pe) {                             \
    return shmem_##N##_atomic_fetch_add(dest, value, pe);                                        \
  }                                                                                              \
  static inline void shmem_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {            \
    shmem_##N##_atomic_fetch_add_nbi(fetch, dest, value, pe);                                    \
  }                                                                                              \
  static inline void shmem_atomic_add(T *dest, T value, int pe) {                                \
    shmem_##N##_atomic_add(dest, value, pe);                                                     \
  }
GPUSHMEM_AMO_GENERIC_TYPES(GPUSHMEM_OVERLOAD_AMO)
#undef GPUSHMEM_OVERLOAD_AMO
#define GPUSHMEM_OVERLOAD_AMOB(T, N)                                                  \
  static inline T shmem_atomic_fetch_and(T *dest, T value, int pe) {                  \
    return shmem_##N##_atomic_fetch_and(dest, value, pe);                             \
  }                                                                                   \
  static inline void shmem_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe) { \
    shmem_##N##_atomic_fetch_and_nbi(fetch, dest, value, pe);                         \
  }                                                                                   \
  static inline void shmem_atomic_and(T *dest, T value, int pe) {                     \
    shmem_##N##_atomic_and(dest, value, pe);                                          \
  }                                                                                   \
  static inline T shmem_atomic_fetch_or(T *dest, T value, int pe) {                   \
    return shmem_##N##_atomic_fetch_or(dest, value, pe);                              \
  }                                                                                   \
  static inline void shmem_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe) {  \
    shmem_##N##_atomic_fetch_or_nbi(fetch, dest, value, pe);                          \
  }                                                                                   \
  static inline void shmem_atomic_or(T *dest, T value, int pe) {                      \
    shmem_##N##_atomic_or(dest, value, pe);                                           \
  }                                                                                   \
  static inline T shmem_atomic_fetch_xor(T *dest, T value, int pe) {                  \
    return shmem_##N##_atomic_fetch_xor(dest, value, pe);                             \
  }                                                                                   \
  static inline void shmem_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe) { \
    shmem_##N##_atomic_fetch_xor_nbi(fetch, dest, value, pe);                         \
  }                                                                                   \
  static inline void shmem_atomic_xor(T *dest, T value, int pe) {                     \
    shmem_##N##_atomic_xor(dest, value, pe);                                          \
  }
GPUSHMEM_AMOB_GENERIC_TYPES(GPUSHMEM_OVERLOAD_AMOB)
#undef GPUSHMEM_OVERLOAD_AMOB
#define GPUSHMEM_OVERLOAD_SIGNAL(T, N)                                                                              \
  static inline void shmem_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                      int sig_op, int pe) {                                                         \
    shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                                     \
  }                                                                                                                 \
  static inline void shmem_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,              \
                                          uint64_t signal, int sig_op, int pe) {                                    \
    shmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                                 \
  }
GPUSHMEM_RMA_GENERIC_TYPES(GPUSHMEM_OVERLOAD_SIGNAL)
#undef GPUSHMEM_OVERLOAD_SIGNAL
#define GPUSHMEM_OVERLOAD_WAIT_UNTIL(T, N)                             \
  static inline void shmem_wait_until(T *ivar, int cmp, T cmp_value) { \
    shmem_##N##_wait_until(ivar, cmp, cmp_value);                      \
  }
GPUSHMEM_WAIT_UNTIL_OVERLOAD_TYPES(GPUSHMEM_OVERLOAD_WAIT_UNTIL)
/* The deprecated short / unsigned short ivars: wait_until and test only. */
GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_OVERLOAD_WAIT_UNTIL)
#define GPUSHMEM_OVERLOAD_TEST_ONLY(T, N)                       \
  static inline int shmem_test(T *ivar, int cmp, T cmp_value) { \
    return shmem_##N##_test(ivar, cmp, cmp_value);              \
  }
GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_OVERLOAD_TEST_ONLY)
#undef GPUSHMEM_OVERLOAD_TEST_ONLY
#undef GPUSHMEM_OVERLOAD_WAIT_UNTIL
#define GPUSHMEM_OVERLOAD_WAIT(T, N)                                                                                  \
  static inline int shmem_test(T *ivar, int cmp, T cmp_value) {                                                       \
    return shmem_##N##_test(ivar, cmp, cmp_value);                                                                    \
  }                                                                                                                   \
  static inline void shmem_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {         \
    shmem_##N##_wait_until_all(ivars, nelems, status, cmp, cmp_value);                                                \
  }                                                                                                                   \
  static inline size_t shmem_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {       \
    return shmem_##N##_wait_until_any(ivars, nelems, status, cmp, cmp_value);                                         \
  }                                                                                                                   \
  static inline size_t shmem_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,    \
                                             T cmp_value) {                                                           \
    return shmem_##N##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);                               \
  }                                                                                                                   \
  static inline int shmem_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {                \
    return shmem_##N##_test_all(ivars, nelems, status, cmp, cmp_value);                                               \
  }                                                                                                                   \
  static inline size_t shmem_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {             \
    return shmem_##N##_test_any(ivars, nelems, status, cmp, cmp_value);                                               \
  }                                                                                                                   \
  static inline size_t shmem_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,          \
                                       T cmp_value) {                                                                 \
    return shmem_##N##_test_some(ivars, nelems, indices, status, cmp, cmp_value);                                     \
  }                                                                                                                   \
  static inline void shmem_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,                 \
                                                 const T *cmp_values) {                                               \
    shmem_##N##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values);                                        \
  }                                                                                                                   \
  static inline size_t shmem_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,               \
                                                   const T *cmp_values) {                                             \
    return shmem_##N##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values);                                 \
  }                                                                                                                   \
  static inline size_t shmem_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                                    int cmp, const T *cmp_values) {                                   \
    return shmem_##N##_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values);                       \
  }                                                                                                                   \
  static inline int shmem_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) { \
    return shmem_##N##_test_all_vector(ivars, nelems, status, cmp, cmp_values);                                       \
  }                                                                                                                   \
  static inline size_t shmem_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,                     \
                                             const T *cmp_values) {                                                   \
    return shmem_##N##_test_any_vector(ivars, nelems, status, cmp, cmp_values);                                       \
  }                                                                                                                   \
  static inline size_t shmem_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,   \
                                              const T *cmp_values) {                                                  \
    return shmem_##N##_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values);                             \
  }
GPUSHMEM_AMO_GENERIC_TYPES(GPUSHMEM_OVERLOAD_WAIT)
#undef GPUSHMEM_OVERLOAD_WAIT
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* The names that also take a ctx (put, get, p, g, iput, iget, put_signal, atomic_*): argument counting. */
#include "gpushmem/api/generic_c11.h"
/* Each association is emitted with a leading comma so the list needs no terminator. */
/* shmem_wait_until is also the deprecated long function: (shmem_wait_until)(...) still calls it. */
#define GPUSHMEM_GENERIC_wait_until(T, N) , T : shmem_##N##_wait_until
/* wait_until and test also take the deprecated short / unsigned short ivars (1.4 programs use them). */
#define shmem_wait_until(ivar, cmp, cmp_value)                                       \
  _Generic (*(ivar)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until) \
                GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_GENERIC_wait_until))(ivar, cmp, cmp_value)
#define GPUSHMEM_GENERIC_test(T, N) , T : shmem_##N##_test
#define shmem_test(ivar, cmp, cmp_value)                                       \
  _Generic (*(ivar)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test) \
                GPUSHMEM_P2P_EXTRA_TYPES(GPUSHMEM_GENERIC_test))(ivar, cmp, cmp_value)
#define GPUSHMEM_GENERIC_wait_until_all(T, N) , T : shmem_##N##_wait_until_all
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value)                                                    \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_all))(ivars, nelems, status, cmp, \
                                                                                           cmp_value)
#define GPUSHMEM_GENERIC_wait_until_any(T, N) , T : shmem_##N##_wait_until_any
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value)                                                    \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_any))(ivars, nelems, status, cmp, \
                                                                                           cmp_value)
#define GPUSHMEM_GENERIC_wait_until_some(T, N) , T : shmem_##N##_wait_until_some
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value)                                       \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_some))(ivars, nelems, indices, \
                                                                                            status, cmp, cmp_value)
#define GPUSHMEM_GENERIC_test_all(T, N) , T : shmem_##N##_test_all
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value)                                                    \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_all))(ivars, nelems, status, cmp, \
                                                                                     cmp_value)
#define GPUSHMEM_GENERIC_test_any(T, N) , T : shmem_##N##_test_any
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value)                                                    \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_any))(ivars, nelems, status, cmp, \
                                                                                     cmp_value)
#define GPUSHMEM_GENERIC_test_some(T, N) , T : shmem_##N##_test_some
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value)                                               \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_some))(ivars, nelems, indices, status, \
                                                                                      cmp, cmp_value)
#define GPUSHMEM_GENERIC_wait_until_all_vector(T, N) , T : shmem_##N##_wait_until_all_vector
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values)                        \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_all_vector))( \
      ivars, nelems, status, cmp, cmp_values)
#define GPUSHMEM_GENERIC_wait_until_any_vector(T, N) , T : shmem_##N##_wait_until_any_vector
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values)                        \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_any_vector))( \
      ivars, nelems, status, cmp, cmp_values)
#define GPUSHMEM_GENERIC_wait_until_some_vector(T, N) , T : shmem_##N##_wait_until_some_vector
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values)               \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_wait_until_some_vector))( \
      ivars, nelems, indices, status, cmp, cmp_values)
#define GPUSHMEM_GENERIC_test_all_vector(T, N) , T : shmem_##N##_test_all_vector
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values)                                              \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_all_vector))(ivars, nelems, status, \
                                                                                            cmp, cmp_values)
#define GPUSHMEM_GENERIC_test_any_vector(T, N) , T : shmem_##N##_test_any_vector
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values)                                              \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_any_vector))(ivars, nelems, status, \
                                                                                            cmp, cmp_values)
#define GPUSHMEM_GENERIC_test_some_vector(T, N) , T : shmem_##N##_test_some_vector
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values)                                      \
  _Generic (*(ivars)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_test_some_vector))(ivars, nelems, indices, \
                                                                                             status, cmp, cmp_values)
#endif

/* The deprecated generic AMO names (host only; CUDA files use the typed names). */
#if !defined(GPUSHMEMI_DEVICE_API)
#include "gpushmem/api/amo_deprecated_generic.h"
#endif

#ifdef GPUSHMEMI_DEVICE_API
#include "gpushmem/device/shmem_api.cuh"
#endif

/* After the device API: in CUDA files the typed collectives it calls are defined there. */
#include "gpushmem/api/collectives_generic.h"

#endif /* GPUSHMEM_SHMEM_H */
