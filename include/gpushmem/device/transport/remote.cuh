/*
 * The operations on a PE this GPU has no mapping of, under one name whatever carries them: IBGDA where the peer's
 * transport kind says so (transport/ibgda.cuh), the CPU proxy otherwise (transport/proxy.cuh). The device API calls
 * these after its P2P test failed (address.cuh's reach() returned NULL); each is a kind check and an out-of-line call.
 *
 * The IBGDA branches are compiled only with GPUSHMEM_DEVICE_IBGDA defined to 1 (before the first gpushmem header).
 * Without -rdc a callee's registers go above those its caller keeps live across the call (transport/proxy.cuh), so
 * a second transport's call chain raises the register count of kernels that reach the network at all. With IBGDA on,
 * each function here is one out-of-line dispatcher (one call site in the kernel, as without it); across the 112
 * kernels of eight perftest programs, 29 still use more registers than without IBGDA (306 in all, 12 of them past
 * the 64 a 1024-thread block allows; a thread-scope put's latency kernel 62 -> 80), so by default device code is
 * exactly what it was without them. Issue 14 keeps them opt-in until their register cost is brought under the P2P
 * path's.
 */
#ifndef GPUSHMEM_DEVICE_TRANSPORT_REMOTE_CUH
#define GPUSHMEM_DEVICE_TRANSPORT_REMOTE_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/transport/proxy.cuh"

#ifndef GPUSHMEM_DEVICE_IBGDA
#define GPUSHMEM_DEVICE_IBGDA 0
#endif
#if GPUSHMEM_DEVICE_IBGDA
#include "gpushmem/device/transport/ibgda.cuh"
#define GPUSHMEMI_IF_IBGDA(...) __VA_ARGS__
#define GPUSHMEMI_REMOTE_CALL __noinline__ inline
#else
#define GPUSHMEMI_IF_IBGDA(...)
#define GPUSHMEMI_REMOTE_CALL __forceinline__
#endif

namespace gpushmem {
namespace device {
namespace {

/* Whether PE pe is reached through a network transport from device code. */
__device__ __forceinline__ bool remote_reaches(int pe) {
  return GPUSHMEMI_IF_IBGDA(ibgda_reaches(pe) ||) proxy_reaches(pe);
}

/* Return an event (event.cuh; 0: complete) as proxy_putmem / proxy_getmem / proxy_putmem_signal. */
__device__ GPUSHMEMI_REMOTE_CALL uint64_t remote_putmem(const char *call, void *dest, const void *source, size_t bytes,
                                                        int pe, bool nbi) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_reaches(pe)) return ibgda_putmem(call, dest, source, bytes, pe, nbi);)
  return proxy_putmem(call, dest, source, bytes, pe, nbi);
}
__device__ GPUSHMEMI_REMOTE_CALL uint64_t remote_getmem(const char *call, void *dest, const void *source, size_t bytes,
                                                        int pe, bool nbi) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_reaches(pe)) return ibgda_getmem(call, dest, source, bytes, pe, nbi);)
  return proxy_getmem(call, dest, source, bytes, pe, nbi);
}
__device__ GPUSHMEMI_REMOTE_CALL uint64_t remote_putmem_signal(const char *call, void *dest, const void *source,
                                                               size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                                               bool add, int pe, bool nbi) {
  GPUSHMEMI_IF_IBGDA(
      if (ibgda_reaches(pe)) return ibgda_putmem_signal(call, dest, source, bytes, sig_addr, signal, add, pe, nbi);)
  return proxy_putmem_signal(call, dest, source, bytes, sig_addr, signal, add, pe, nbi);
}
__device__ GPUSHMEMI_REMOTE_CALL void remote_signal(const char *call, uint64_t *sig_addr, uint64_t value, bool add,
                                                    int pe) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_reaches(pe)) {
    ibgda_signal(call, sig_addr, value, add, pe);
    return;
  })
  proxy_signal(call, sig_addr, value, add, pe);
}
/* amo: a GPUSHMEM_PROXY_AMO_* code (gpushmem/proxy_channel.h), for both transports. */
__device__ GPUSHMEMI_REMOTE_CALL void remote_amo(const char *call, void *dest, uint32_t amo, uint32_t width,
                                                 uint64_t operand, int pe) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_reaches(pe)) {
    ibgda_amo(call, dest, amo, width, operand, pe);
    return;
  })
  proxy_amo(call, dest, amo, width, operand, pe);
}
__device__ GPUSHMEMI_REMOTE_CALL uint64_t remote_amo_fetch(const char *call, const void *dest, uint32_t amo,
                                                           uint32_t width, uint64_t operand, uint64_t compare, int pe) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_reaches(pe)) return ibgda_amo_fetch(call, dest, amo, width, operand, compare, pe);)
  return proxy_amo_fetch(call, dest, amo, width, operand, compare, pe);
}

/* quiet and fence over every network transport device code uses (over IBGDA a fence is a quiet). */
__device__ GPUSHMEMI_REMOTE_CALL void remote_quiet(const char *call) {
  if (state().proxy_channel_count != 0) proxy_quiet(call);
  GPUSHMEMI_IF_IBGDA(if (state().ibgda != nullptr) ibgda_quiet(call);)
}
__device__ GPUSHMEMI_REMOTE_CALL void remote_fence(const char *call) {
  if (state().proxy_channel_count != 0) proxy_fence();
  GPUSHMEMI_IF_IBGDA(if (state().ibgda != nullptr) ibgda_quiet(call);)
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_REMOTE_CUH */
