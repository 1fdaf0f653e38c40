/*
 * Bad arguments in device calls. With error checks on (gpushmem_device_state_t.error_checks, set from
 * GPUSHMEM_ERROR_CHECKS) a call checks the PE range and that symmetric addresses lie in the user part of
 * the heap; a failure prints one line naming the PE, the call, the argument and the address, then traps.
 * The kernel ends with an error the host sees at its next synchronisation (cudaErrorLaunchFailure or
 * similar) instead of corrupting memory or hanging. Device printf goes to the process's stdout.
 *
 * The reporters are out of line so the printf stays out of the callers' fast paths. When many threads
 * fail at once, the first one prints and the others wait for its line before trapping (a trap ends the
 * whole kernel, which could otherwise cut the line off).
 */
#ifndef GPUSHMEM_DEVICE_CHECKS_CUH
#define GPUSHMEM_DEVICE_CHECKS_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpushmem/device/state.cuh"

#ifndef GPUSHMEM_SHMEM_H
#error "gpushmem/device/*.cuh are parts of <shmem.h>: include <shmem.h> (or <shmemx.h>) instead"
#endif

/* 0: no error yet; 1: a thread is printing its report; 2: printed. One per file, like the state. */
static __device__ unsigned int gpushmemi_device_error_gate;

namespace gpushmem {
namespace device {
namespace {

/* Copies `text` (NUL-terminated, cut to fit) into dst[0..room), returns the bytes written before its NUL. */
__device__ __forceinline__ unsigned error_copy_text(char *dst, unsigned room, const char *text) {
  unsigned n = 0;
  if (text != nullptr)
    for (; n + 1 < room && text[n] != 0; ++n) dst[n] = text[n];
  dst[n] = 0;
  return n;
}

/* The sticky device error (gpushmem/device_error.h), filled by the thread that prints: the host reports it even
   if the printf is lost with the trap. text2 (may be NULL) follows text after a NUL. Out of line and called only
   on the way to a trap. */
__device__ __forceinline__ void error_record(uint32_t kind, const char *call, int pe, const void *addr, long long value,
                                             const char *text, const char *text2) {
  gpushmem_device_error_t *e = state().device_error;
  if (e == nullptr) return;
  // The first PE-wide: another kernel of this PE may be failing at the same time.
  if (atomicCAS_system(&e->state, 0u, 1u) != 0u) return;
  e->kind = kind;
  e->pe = pe;
  e->block[0] = blockIdx.x, e->block[1] = blockIdx.y, e->block[2] = blockIdx.z;
  e->thread[0] = threadIdx.x, e->thread[1] = threadIdx.y, e->thread[2] = threadIdx.z;
  e->address = reinterpret_cast<uint64_t>(addr);
  e->value = value;
  error_copy_text(e->call, GPUSHMEM_DEVICE_ERROR_CALL_BYTES, call);
  const unsigned n = error_copy_text(e->text, GPUSHMEM_DEVICE_ERROR_TEXT_BYTES, text);
  if (text2 != nullptr && n + 2 < GPUSHMEM_DEVICE_ERROR_TEXT_BYTES)
    error_copy_text(e->text + n + 1, GPUSHMEM_DEVICE_ERROR_TEXT_BYTES - n - 1, text2);
  __threadfence_system();  // the fields before the state the host polls
  atomicExch_system(&e->state, 2u);
}

/* True for the one thread that gets to print. */
__device__ __forceinline__ bool error_report_begin() {
  return atomicCAS(&gpushmemi_device_error_gate, 0u, 1u) == 0u;
}

[[noreturn]] __device__ __forceinline__ void error_report_end_and_trap(bool printed) {
  if (printed) {
    __threadfence();
    atomicExch(&gpushmemi_device_error_gate, 2u);
  } else {
    while (*static_cast<volatile unsigned int *>(&gpushmemi_device_error_gate) != 2u) {
    }
  }
  __trap();
}

#define GPUSHMEMI_DEVICE_WHERE "(block %u,%u,%u thread %u,%u,%u)"
#define GPUSHMEMI_DEVICE_WHERE_ARGS blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z

[[noreturn]] __device__ __noinline__ inline void fail_not_initialized(const char *call) {
  const bool printer = error_report_begin();
  if (printer) {
    printf("gpushmem[PE ?] device error in %s: the device state of this CUDA file is not set " GPUSHMEMI_DEVICE_WHERE
           ": call shmem_init before launching kernels that use gpushmem, and check that libgpushmem found a GPU "
           "(GPUSHMEM_DISABLE_CUDA unset)\n",
           call, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_pe(const char *call, int pe, const void *addr) {
  const bool printer = error_report_begin();
  if (printer) {
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d is out of range: the job has %d PEs (0..%d); address "
        "%p " GPUSHMEMI_DEVICE_WHERE "\n",
        state().my_pe, call, pe, state().n_pes, state().n_pes - 1, addr, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_address(const char *call, const char *arg, const void *addr,
                                                              size_t bytes, int pe) {
  const bool printer = error_report_begin();
  if (printer) {
    const char *lo = state().heap_base + GPUSHMEM_DEVICE_INTERNAL_BYTES;
    const char *hi = state().heap_base + state().heap_size;
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d, %s=address %p (%llu bytes) is not a symmetric address: it is "
        "not inside the symmetric heap [%p, %p) " GPUSHMEMI_DEVICE_WHERE "; pass memory from shmem_malloc\n",
        state().my_pe, call, pe, arg, addr, static_cast<unsigned long long>(bytes), static_cast<const void *>(lo),
        static_cast<const void *>(hi), GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_unreachable(const char *call, int pe, const void *addr) {
  const bool printer = error_report_begin();
  if (printer) {
    error_record(GPUSHMEM_DEVICE_ERROR_UNREACHABLE, call, pe, addr, 0, nullptr, nullptr);
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d cannot be reached from this GPU (no P2P mapping of its heap; "
        "gpushmem-info shows each peer's transport; a PE reached through IBGDA needs kernels compiled with "
        "GPUSHMEM_DEVICE_IBGDA=1); address %p " GPUSHMEMI_DEVICE_WHERE "\n",
        state().my_pe, call, pe, addr, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_alignment(const char *call, const char *arg, const void *addr,
                                                                unsigned int alignment, int pe) {
  const bool printer = error_report_begin();
  if (printer) {
    printf("gpushmem[PE %d] device error in %s: pe=%d, %s=address %p is not aligned to %u bytes " GPUSHMEMI_DEVICE_WHERE
           "; atomics need naturally aligned words\n",
           state().my_pe, call, pe, arg, addr, alignment, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

/* An argument with a bad value (cmp, sig_op, a stride): `expected` says what is allowed. */
[[noreturn]] __device__ __noinline__ inline void fail_argument(const char *call, const char *arg, long long value,
                                                               const char *expected) {
  const bool printer = error_report_begin();
  if (printer) {
    printf("gpushmem[PE %d] device error in %s: %s=%lld is invalid: %s " GPUSHMEMI_DEVICE_WHERE "\n", state().my_pe,
           call, arg, value, expected, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

/* A _grid collective in a kernel that was not launched cooperatively: its blocks need not be resident together, so
   the grid barrier the collective relies on is undefined. */
[[noreturn]] __device__ __noinline__ inline void fail_not_cooperative(const char *call) {
  const bool printer = error_report_begin();
  if (printer) {
    printf("gpushmem[PE %d] device error in %s: the kernel was not launched cooperatively " GPUSHMEMI_DEVICE_WHERE
           ": launch kernels that call _grid collectives with shmemx_collective_launch (or "
           "cudaLaunchCooperativeKernel), or use the _block form\n",
           state().my_pe, call, GPUSHMEMI_DEVICE_WHERE_ARGS);
  }
  error_report_end_and_trap(printer);
}

#undef GPUSHMEMI_DEVICE_WHERE
#undef GPUSHMEMI_DEVICE_WHERE_ARGS

/* [addr, addr + bytes) inside the user part of this PE's heap (the same offsets exist on every PE). */
__device__ __forceinline__ void check_symmetric(const char *call, const char *arg, const void *addr, size_t bytes,
                                                int pe) {
  const char *p = static_cast<const char *>(addr);
  const char *lo = state().heap_base + GPUSHMEM_DEVICE_INTERNAL_BYTES;
  const char *hi = state().heap_base + state().heap_size;
  if (p < lo || p > hi || bytes > static_cast<size_t>(hi - p)) fail_address(call, arg, addr, bytes, pe);
}

__device__ __forceinline__ void check_pe(const char *call, int pe, const void *addr) {
  if (pe < 0 || pe >= state().n_pes) fail_pe(call, pe, addr);
}

__device__ __forceinline__ void check_aligned(const char *call, const char *arg, const void *addr,
                                              unsigned int alignment, int pe) {
  if ((reinterpret_cast<uintptr_t>(addr) & (alignment - 1u)) != 0) fail_alignment(call, arg, addr, alignment, pe);
}

__device__ __forceinline__ void check_cmp(const char *call, int cmp) {
  if (cmp != SHMEM_CMP_EQ && cmp != SHMEM_CMP_NE && cmp != SHMEM_CMP_GT && cmp != SHMEM_CMP_LE && cmp != SHMEM_CMP_LT &&
      cmp != SHMEM_CMP_GE)
    fail_argument(call, "cmp", cmp, "use one of SHMEM_CMP_EQ, NE, GT, LE, LT, GE");
}

__device__ __forceinline__ void check_sig_op(const char *call, int sig_op) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    fail_argument(call, "sig_op", sig_op, "use SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD");
}

__device__ __forceinline__ void check_stride(const char *call, const char *arg, ptrdiff_t stride) {
  if (stride < 1) fail_argument(call, arg, stride, "strides count elements and must be at least 1");
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_CHECKS_CUH */
