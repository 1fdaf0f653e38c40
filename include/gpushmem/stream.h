/*
 * Stream-ordered operations (gpushmem extensions, declared by <shmemx.h>): host calls that enqueue an
 * OpenSHMEM operation on a CUDA stream instead of performing it at once. Built only into libgpushmem with
 * CUDA support (GPUSHMEM_BUILT_WITH_CUDA); they need the GPU symmetric heap.
 *
 * `stream` is a cudaStream_t of this PE's GPU: cudaStream_t is `struct CUstream_st *`, so C and C++ files
 * pass it as is without including a CUDA header here. cudaStreamPerThread and cudaStreamLegacy (or 0, the
 * legacy default stream) are accepted; a file built with --default-stream per-thread must pass
 * cudaStreamPerThread rather than 0, because 0 means the legacy stream to libgpushmem. Streams of other
 * devices are refused by CUDA.
 *
 * Common contract of every call below:
 *   - Non-blocking: the call checks its arguments, enqueues the operation and returns. The operation runs
 *     when the stream reaches it: after everything enqueued on `stream` before it, and before everything
 *     enqueued after it. Other streams are not ordered with it (join them with events). That includes
 *     the legacy default stream for a stream created with cudaStreamNonBlocking: data written there by a
 *     plain cudaMemcpy / cudaMemset, which can return before it lands (a copy from pageable host memory
 *     returns once staged), needs a synchronisation or an event before a put reads it or another PE is
 *     told it is ready.
 *   - Completion: an operation is complete (its data visible at the target, for every PE and the CPU) when
 *     the stream has moved past it: cudaStreamSynchronize, an event recorded after it, or later work on the
 *     same stream. Buffers must stay valid until then; a put's source must not change and a get's dest must
 *     not be read before then.
 *   - Local buffers (a put's source, a get's dest): any memory the copy engines reach from this PE's GPU:
 *     device memory (shmem_malloc'd or not), pinned or registered host memory, and pageable host memory
 *     outside stream capture (CUDA then stages the copy, and the call may block until it is staged).
 *   - PEs on another node (no P2P mapping; shmem_pe_accessible is 1, shmem_ptr NULL): a put, get,
 *     put-with-signal or signal is a one-thread kernel on `stream` running the device API's operation
 *     through the CPU proxy, complete at the target before the kernel ends (captured as a kernel node). Its
 *     local buffer must be device or pinned/registered host memory: pageable host memory is refused, naming
 *     the call and the argument.
 *   - CUDA graphs: every call is legal while `stream` is being captured (cudaStreamBeginCapture, any
 *     mode): it only enqueues copies and kernels, never synchronises, allocates or blocks. The graph
 *     repeats the operation on each launch with the same addresses and the data current at that time.
 *   - Errors: before shmem_init, in host mode (no GPU symmetric heap), or with a bad argument (PE out of
 *     range, dest / source / sig_addr not symmetric or not inside the allocated heap, bad sig_op or cmp),
 *     the call prints a message naming itself, the argument and the PE, and the job ends, as with the host
 *     API. A CUDA error while enqueueing (a stream of another GPU, a capture that CUDA refuses) is reported
 *     the same way. A failure while the stream runs surfaces as a CUDA error at the application's next
 *     synchronisation with it.
 *   - Thread safety: callable from any thread (as the host RMA routines); calls on one stream from several
 *     threads are enqueued in the order the calls happen.
 *   - The barrier and sync calls are collectives: every PE enqueues them, in the same order relative to the
 *     device-side barrier_all / sync_all calls of its kernels, and no two of them run at the same time on
 *     one PE (one caller per PE, as on the device).
 */
#ifndef GPUSHMEM_STREAM_H
#define GPUSHMEM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/config.h"
#include "gpushmem/type_table.h"
#include "shmem.h" /* shmem_team_t */

#if GPUSHMEM_BUILT_WITH_CUDA

/* cudaStream_t's definition in the CUDA headers is `typedef struct CUstream_st *cudaStream_t`. */
struct CUstream_st;

#ifdef __cplusplus
extern "C" {
#endif

/* Copies nelems bytes from local `source` to symmetric `dest` on PE `pe` (a copy-engine copy through the
   peer's mapping). Complete at the target when the stream has passed it. */
void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe, struct CUstream_st *stream);
/* Copies nelems bytes from symmetric `source` on PE `pe` to local `dest`. */
void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe, struct CUstream_st *stream);

/* shmem_putmem_signal in stream order: the payload copy, then the update of the 64-bit symmetric signal
   word *sig_addr on PE pe (SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD `signal`). A PE that sees the signal
   also sees the whole payload. nelems may be 0 (the signal alone). */
void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                    int sig_op, int pe, struct CUstream_st *stream);
/* SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD `signal` on the signal word *sig_addr of PE pe, atomically. Unlike
   the device's shmemx_signal_op it is ordered after every earlier operation on the stream: a PE that sees
   the update also sees the data of the puts enqueued before it. */
void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, struct CUstream_st *stream);
/* The stream waits until this PE's signal word *sig_addr satisfies `cmp` (SHMEM_CMP_EQ, NE, GT, LE, LT,
   GE) against cmp_value; work enqueued after it then sees the data delivered before the signal. Runs as
   a one-thread kernel polling the word: a signal that never comes leaves the stream waiting forever. */
void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, struct CUstream_st *stream);

/* shmem_quiet in stream order: every put, get and signal this PE enqueued on `stream` before it, and the
   RMA of kernels that ran on `stream` before it, is complete when the stream passes it. Over P2P that
   already holds by stream order (a copy is finished and acknowledged before the stream moves on, and a
   kernel's stores are performed before the next operation on its stream starts), so nothing is
   enqueued; through the CPU proxy each operation's kernel quiets before it ends, so nothing is enqueued
   either. */
void shmemx_quiet_on_stream(struct CUstream_st *stream);
/* shmem_barrier_all in stream order (collective): when the stream passes it, every PE's stream has
   reached its own call and everything enqueued before it on every PE's stream is complete and visible. */
void shmemx_barrier_all_on_stream(struct CUstream_st *stream);
/* shmem_sync_all in stream order (collective): every PE's stream has reached its call; earlier work on
   each stream is published (its stores are visible) but RMA is not completed beyond what stream order
   gives. */
void shmemx_sync_all_on_stream(struct CUstream_st *stream);

/*
 * Team collectives in stream order (collective: every member of `team` enqueues the same collectives in the same
 * order on one stream each, as it would call them from a kernel): shmemx_<collective>_on_stream with the arguments
 * of the OpenSHMEM collective, then the stream, for every team collective the device API has (gpushmem/device/
 * coll_names.cuh): broadcastmem, collectmem, fcollectmem, alltoallmem, alltoallsmem, shmemx_TYPE_broadcast /
 * collect / fcollect / alltoall / alltoalls for the device RMA types, and shmemx_TYPE_OP_reduce for the device
 * reduction types and operators (and, or, xor, min, max, sum, prod); and shmemx_team_sync_on_stream(team, stream).
 *   - When the stream reaches the call, the collective runs as the device API's _grid form (shmemx_api.cuh) in a
 *     kernel of several blocks (cooperatively launched, up to one per SM: about one per 64 KiB this PE moves),
 *     so a large reduction or alltoall uses the whole GPU, not one block. Members through the CPU proxy (another
 *     node) are served as by the device API. When the stream has passed it, every member's dest is complete for
 *     this PE's part, as after the device collective: the next collective on the team may follow at once.
 *   - On entry (when the stream reaches it) the same contract as the device collective: every member's dest is
 *     ready to be written, and this PE's source is ready.
 *   - Arguments are checked when the call is made (a destroyed team or one this PE is not in, dest / source not
 *     in the GPU symmetric heap for the bytes the collective touches, a root out of range, strides below 1,
 *     overlapping buffers where the collective forbids it): the call prints a message naming itself and the
 *     argument, and the job ends. Return 0.
 *   - Like barrier_all_on_stream, a collective on a team must not run at the same time as another collective or
 *     sync on the same team on this PE (from a kernel or another stream).
 */
int shmemx_team_sync_on_stream(shmem_team_t team, struct CUstream_st *stream);
#define GPUSHMEMI_STREAM_UNPAREN(...) __VA_ARGS__
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS) \
  int shmemx_##BASE##_on_stream(GPUSHMEMI_STREAM_UNPAREN PARAMS, struct CUstream_st *stream);
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL

/* Typed forms for every standard RMA type: nelems elements of TYPE, otherwise as the putmem / getmem
   forms above. */
#define GPUSHMEMI_DECLARE_STREAM_RMA(T, N)                                                                      \
  void shmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, struct CUstream_st *stream); \
  void shmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, struct CUstream_st *stream);
GPUSHMEM_RMA_TYPES(GPUSHMEMI_DECLARE_STREAM_RMA)
#undef GPUSHMEMI_DECLARE_STREAM_RMA

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_BUILT_WITH_CUDA */

#endif /* GPUSHMEM_STREAM_H */
