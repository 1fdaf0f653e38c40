/*
 * The one header through which the device benchmarks reach their OpenSHMEM library: gpushmem's <shmem.h>
 * and <shmemx.h>, or, when PERF_USE_NVSHMEM is defined (the *_nvshmem builds of
 * GPUSHMEM_PERFTEST_NVSHMEM_ROOT), NVIDIA NVSHMEM's headers with every name the programs use mapped to its
 * nvshmem_ / nvshmemx_ / NVSHMEM_ spelling, so the same sources measure both libraries.
 */
#ifndef GPUSHMEM_PERF_SHMEM_H
#define GPUSHMEM_PERF_SHMEM_H

#ifndef PERF_USE_NVSHMEM

#include <shmem.h>
#include <shmemx.h>

#define PERF_LIBRARY "gpushmem"
/* Typed and scoped names built by token pasting (the collective programs): PERF_SHMEM_NAME(int_broadcast) is
   shmem_int_broadcast, PERF_SHMEMX_NAME(int_broadcast_warp) is shmemx_int_broadcast_warp. */
#define PERF_SHMEM_NAME(x) shmem_##x
#define PERF_SHMEMX_NAME(x) shmemx_##x

#else /* NVSHMEM */

#include <nvshmem.h>
#include <nvshmemx.h>

#define PERF_LIBRARY "nvshmem"
#define PERF_SHMEM_NAME(x) nvshmem_##x
#define PERF_SHMEMX_NAME(x) nvshmemx_##x

/* setup, memory, queries */
#define shmem_init nvshmem_init
#define shmem_finalize nvshmem_finalize
#define shmem_global_exit nvshmem_global_exit
#define shmem_my_pe nvshmem_my_pe
#define shmem_n_pes nvshmem_n_pes
#define shmem_malloc nvshmem_malloc
#define shmem_free nvshmem_free
#define shmem_ptr nvshmem_ptr
/* ordering and synchronisation */
#define shmem_quiet nvshmem_quiet
#define shmem_fence nvshmem_fence
#define shmem_barrier_all nvshmem_barrier_all
#define shmem_sync_all nvshmem_sync_all
#define shmemx_barrier_all_warp nvshmemx_barrier_all_warp
#define shmemx_barrier_all_block nvshmemx_barrier_all_block
#define shmemx_sync_all_warp nvshmemx_sync_all_warp
#define shmemx_sync_all_block nvshmemx_sync_all_block
/* teams (the collectives themselves go through PERF_SHMEM_NAME / PERF_SHMEMX_NAME) */
#define shmem_team_t nvshmem_team_t
#define SHMEM_TEAM_WORLD NVSHMEM_TEAM_WORLD
/* RMA */
#define shmem_putmem nvshmem_putmem
#define shmem_getmem nvshmem_getmem
#define shmem_putmem_nbi nvshmem_putmem_nbi
#define shmemx_putmem_warp nvshmemx_putmem_warp
#define shmemx_putmem_block nvshmemx_putmem_block
#define shmemx_getmem_warp nvshmemx_getmem_warp
#define shmemx_getmem_block nvshmemx_getmem_block
#define shmem_int_p nvshmem_int_p
#define shmem_long_p nvshmem_long_p
#define shmem_double_p nvshmem_double_p
#define shmem_uint64_p nvshmem_uint64_p
#define shmem_int_g nvshmem_int_g
#define shmem_long_g nvshmem_long_g
#define shmem_double_g nvshmem_double_g
/* signals and waits */
#define shmem_putmem_signal nvshmem_putmem_signal
#define shmem_signal_wait_until nvshmem_signal_wait_until
#define shmemx_signal_op nvshmemx_signal_op
#define shmem_uint64_wait_until nvshmem_uint64_wait_until
#define SHMEM_SIGNAL_SET NVSHMEM_SIGNAL_SET
#define SHMEM_CMP_EQ NVSHMEM_CMP_EQ
#define SHMEM_CMP_GE NVSHMEM_CMP_GE
/* atomics */
#define shmem_uint64_atomic_fetch_add nvshmem_uint64_atomic_fetch_add
#define shmem_uint64_atomic_fetch_inc nvshmem_uint64_atomic_fetch_inc
#define shmem_uint64_atomic_fetch nvshmem_uint64_atomic_fetch
#define shmem_uint64_atomic_swap nvshmem_uint64_atomic_swap
#define shmem_uint64_atomic_compare_swap nvshmem_uint64_atomic_compare_swap
#define shmem_uint64_atomic_fetch_and nvshmem_uint64_atomic_fetch_and
#define shmem_uint64_atomic_fetch_or nvshmem_uint64_atomic_fetch_or
#define shmem_uint64_atomic_fetch_xor nvshmem_uint64_atomic_fetch_xor
#define shmem_uint64_atomic_add nvshmem_uint64_atomic_add
#define shmem_uint64_atomic_inc nvshmem_uint64_atomic_inc
#define shmem_uint64_atomic_set nvshmem_uint64_atomic_set
#define shmem_uint64_atomic_and nvshmem_uint64_atomic_and
#define shmem_uint64_atomic_or nvshmem_uint64_atomic_or
#define shmem_uint64_atomic_xor nvshmem_uint64_atomic_xor

#endif /* PERF_USE_NVSHMEM */

#endif /* GPUSHMEM_PERF_SHMEM_H */
