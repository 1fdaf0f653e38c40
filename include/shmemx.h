/*
 * gpushmem extensions to OpenSHMEM 1.5 (names under shmemx_). Includes <shmem.h>.
 */
#ifndef GPUSHMEMX_H
#define GPUSHMEMX_H

#include <shmem.h>

#include "gpushmem/stream.h" /* shmemx_*_on_stream: stream-ordered operations (builds with CUDA) */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Initialisation with explicit attributes ----------------------------------------------------- */

/* Bytes of an opaque unique id for the tcp bootstrap. */
#define SHMEMX_UNIQUEID_BYTES 128

/* Identifies one job for the tcp bootstrap. Made on the process that will be rank 0 by
   shmemx_get_uniqueid, copied by the application to every other rank (any channel: a file, a socket,
   its own collective), then passed to shmemx_init_attr on every rank. */
typedef struct {
  char internal[SHMEMX_UNIQUEID_BYTES];
} shmemx_uniqueid_t;

/* What shmemx_init_attr may be told. Start from SHMEMX_INIT_ATTR_INITIALIZER and set what applies. */
typedef struct {
  /* Bootstrap plugin to use: "mpi", "pmix", "tcp", "single", or NULL for the usual selection
     (GPUSHMEM_BOOTSTRAP, then detection of the launcher). */
  const char *bootstrap;
  /* mpi: pointer to an MPI_Comm whose ranks become the PEs (in communicator order). MPI must already be
     initialised by the application, which also finalises it. NULL: MPI_COMM_WORLD. */
  void *mpi_comm;
  /* tcp: this process's rank and the job size, with the id from shmemx_get_uniqueid. */
  int rank;
  int size;
  const shmemx_uniqueid_t *uniqueid;
} shmemx_init_attr_t;

#define SHMEMX_INIT_ATTR_INITIALIZER \
  { NULL, NULL, -1, 0, NULL }

/* ---- Events (CUDA files; gpushmem/device/event.cuh) ------------------------------------------------- */

/* The completion of one non-blocking device operation, returned by shmemx_putmem_nbi_event,
   shmemx_getmem_nbi_event and shmemx_putmem_signal_nbi_event (and their _warp / _block forms), tested and waited
   for with shmemx_event_test / _wait / _wait_all / _wait_any in the same kernel or a later one of the same PE.
   Complete means: for a put or put-with-signal, the source buffer may be reused (local completion: its data has
   left it; that it is visible at the target only shmem_quiet says); for a get, the data is in the destination.
   SHMEMX_EVENT_COMPLETE: complete when the call returned (every operation on a PE this GPU maps; through the CPU
   proxy, data carried inline or in bounce memory). An event is a plain value: copy it, store it, wait for it from
   any thread of the PE. */
typedef uint64_t shmemx_event_t;
#define SHMEMX_EVENT_COMPLETE ((shmemx_event_t)0)

/* Makes a unique id and starts listening for the other ranks of the job. Call it on the process that
   will be rank 0, before shmemx_init_attr; not collective. Returns 0, or nonzero with a logged reason. */
int shmemx_get_uniqueid(shmemx_uniqueid_t *id);

/* Whether shmem_init (or start_pes, shmemx_init_attr) has run and shmem_finalize has not: 1 or 0 in
   *initialized; and whether shmem_finalize has run. Callable at any time, before init and after finalize
   (OpenSHMEM 1.6's shmem_query_initialized / _finalized). */
void shmemx_query_initialized(int *initialized);
void shmemx_query_finalized(int *finalized);

/* shmem_init_thread with explicit attributes (attr may be NULL: same as shmem_init_thread). Setting
   `uniqueid` selects the tcp bootstrap, `mpi_comm` the mpi bootstrap. Returns 0 on success. */
int shmemx_init_attr(int requested, int *provided, const shmemx_init_attr_t *attr);

#ifdef __cplusplus
}
#endif

/* CUDA files: the device-only extensions (shmemx_*_warp / _block, shmemx_signal_op); see
   gpushmem/device/shmemx_api.cuh. */
#ifdef GPUSHMEMI_DEVICE_API
#include "gpushmem/device/shmemx_api.cuh"
#endif

/* CUDA files: shmemx_collective_launch, for kernels that synchronise on the device. */
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include "gpushmem/device/collective_launch.cuh"
#endif

#endif /* GPUSHMEMX_H */
