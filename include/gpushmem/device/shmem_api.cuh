/*
 * The OpenSHMEM names in a CUDA translation unit. Included by <shmem.h> (never directly) when nvcc compiles
 * the file, after the host declarations, outside extern "C": the functions defined here are static (one
 * copy per file, C++ linkage), so they never clash with the exported C symbols they call on the host.
 *
 * Two kinds of names, all stamped from the type table with one-line forwarders to the templates in
 * rma.cuh, amo.cuh, signal.cuh, wait.cuh and sync.cuh:
 *   - routines on both sides (shmem_TYPE_p, shmem_putmem, shmem_quiet, shmem_my_pe, the AMOs, put_signal,
 *     signal_fetch / wait_until, the wait_until and test families, iput / iget, ...):
 *     `static inline __host__ __device__`. Compiled for the device they run the P2P path; compiled for
 *     the host they call the library's exported symbol, declared here under a gpushmemi_host_ name bound
 *     to the real symbol with an asm label;
 *   - C++ generic overloads (shmem_put, shmem_p, shmem_atomic_add, shmem_wait_until, ...), on the same
 *     sides as the typed routine they forward to.
 * The contract of each routine is the specification's (and, for the host, the comments in <shmem.h>).
 * Device-specific rules: the calling thread does the whole operation (the shmemx_*_warp / _block forms
 * in <shmemx.h> split it over a group); over P2P the nbi forms complete before they return; the collective
 * shmem_barrier_all / shmem_sync_all are called by exactly one thread per PE.
 */
#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#define GPUSHMEM_DEVICE_SHMEM_API_CUH

#ifndef GPUSHMEM_SHMEM_H
#error "gpushmem/device/shmem_api.cuh is part of <shmem.h>: include <shmem.h> instead"
#endif

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/amo.cuh"
#include "gpushmem/device/coll.cuh"
#include "gpushmem/device/event.cuh"
#include "gpushmem/device/rma.cuh"
#include "gpushmem/device/signal.cuh"
#include "gpushmem/device/state.cuh"
#include "gpushmem/device/sync.cuh"
#include "gpushmem/device/team.cuh"
#include "gpushmem/device/wait.cuh"

/* The body of a host/device function: nvcc's device pass compiles the first expression, the host pass
   the second. */
#ifdef __CUDA_ARCH__
#define GPUSHMEMI_HD_BODY(on_device, on_host) on_device
#else
#define GPUSHMEMI_HD_BODY(on_device, on_host) on_host
#endif

/* A routine on both sides: declares the exported symbol NAME as gpushmemi_host_NAME (asm label) and defines
   NAME as a static inline host/device function whose device pass evaluates DEVICE_EXPR (parenthesised) and
   whose host pass calls the symbol with ARGS. */
#define GPUSHMEMI_HD_FN(RET, NAME, PARAMS, ARGS, DEVICE_EXPR)          \
  extern "C" RET gpushmemi_host_##NAME PARAMS __asm__(#NAME);          \
  static inline __host__ __device__ RET NAME PARAMS {                  \
    return GPUSHMEMI_HD_BODY(DEVICE_EXPR, gpushmemi_host_##NAME ARGS); \
  }

/* Short spellings for the forwarders below. */
#define GPUSHMEMI_DEV ::gpushmem::device
#define GPUSHMEMI_THREAD ::gpushmem::device::thread_scope

#include "gpushmem/device/api_amo.cuh"
#include "gpushmem/device/api_coll.cuh"
#include "gpushmem/device/api_query_sync.cuh"
#include "gpushmem/device/api_rma.cuh"
#include "gpushmem/device/api_signal_wait.cuh"

/* Last: the generic names forward to the typed ones above. */
#include "gpushmem/device/api_generic.cuh"

#endif /* GPUSHMEM_DEVICE_SHMEM_API_CUH */
