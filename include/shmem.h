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

/* Opaque handles (teams and contexts are completed by later releases of the runtime). */
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
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Each association is emitted with a leading comma so the list needs no terminator. */
#define GPUSHMEM_GENERIC_put(T, N) , T : shmem_##N##_put
#define GPUSHMEM_GENERIC_get(T, N) , T : shmem_##N##_get
#define GPUSHMEM_GENERIC_put_nbi(T, N) , T : shmem_##N##_put_nbi
#define GPUSHMEM_GENERIC_get_nbi(T, N) , T : shmem_##N##_get_nbi
#define GPUSHMEM_GENERIC_p(T, N) , T : shmem_##N##_p
#define GPUSHMEM_GENERIC_g(T, N) , T : shmem_##N##_g
#define shmem_put(dest, source, nelems, pe) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_put))(dest, source, nelems, pe)
#define shmem_get(dest, source, nelems, pe) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_get))(dest, source, nelems, pe)
#define shmem_put_nbi(dest, source, nelems, pe) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_put_nbi))(dest, source, nelems, pe)
#define shmem_get_nbi(dest, source, nelems, pe) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_get_nbi))(dest, source, nelems, pe)
#define shmem_p(dest, value, pe) _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_p))(dest, value, pe)
#define shmem_g(source, pe) _Generic (*(source)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_g))(source, pe)
#endif

#ifdef GPUSHMEMI_DEVICE_API
#include "gpushmem/device/shmem_api.cuh"
#endif

#endif /* GPUSHMEM_SHMEM_H */
