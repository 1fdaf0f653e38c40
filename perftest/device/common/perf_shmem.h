/*
 * The one header through which the device benchmarks reach their OpenSHMEM library. The programs are written
 * in NVSHMEM's spelling (nvshmem_ / nvshmemx_ / NVSHMEM_), and both builds compile the very same text:
 *   - <program> (gpushmem): <nvshmem.h> and <nvshmemx.h> are gpushmem's NVSHMEM compatibility headers
 *     (include/gpushmem/compat/nvshmem, first on the include path), which map every name to gpushmem's own
 *     (shmem_ / shmemx_ / SHMEM_: macros, no wrappers);
 *   - <program>_nvshmem (PERF_USE_NVSHMEM, GPUSHMEM_PERFTEST_NVSHMEM_ROOT): NVIDIA NVSHMEM's real headers.
 */
#ifndef GPUSHMEM_PERF_SHMEM_H
#define GPUSHMEM_PERF_SHMEM_H

#include <nvshmem.h>
#include <nvshmemx.h>

#ifdef PERF_USE_NVSHMEM
#define PERF_LIBRARY "nvshmem"
#else
#define PERF_LIBRARY "gpushmem"
#endif

/* Typed and scoped names built by token pasting (the collective programs): PERF_SHMEM_NAME(int_broadcast) is
   nvshmem_int_broadcast, PERF_SHMEMX_NAME(int_broadcast_warp) is nvshmemx_int_broadcast_warp. */
#define PERF_SHMEM_NAME(x) nvshmem_##x
#define PERF_SHMEMX_NAME(x) nvshmemx_##x

#endif /* GPUSHMEM_PERF_SHMEM_H */
