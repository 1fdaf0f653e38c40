/*
 * Events: the completion of one non-blocking operation (shmemx_*_nbi_event, shmemx_event_*). An event is a 64-bit
 * value, SHMEMX_EVENT_COMPLETE (0) for an operation complete when it returned (every P2P operation, and a proxied
 * or IBGDA one whose data went inline or through bounce memory); otherwise it names a request of a CPU proxy channel
 * (transport/proxy.cuh, proxy_event), complete once that channel's completed count passes it, or (0xff in its top
 * byte) a work request of an IBGDA QP (transport/ibgda.cuh, ibgda_event), complete once the QP's CQ passes it: for a
 * put or put-with-signal the source may then be reused (local completion: the proxy has read it), for a get the data is
 * in the destination. That a put is visible at its target (remote completion) only quiet says.
 */
#ifndef GPUSHMEM_DEVICE_EVENT_CUH
#define GPUSHMEM_DEVICE_EVENT_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/rma.cuh"
#include "gpushmem/device/signal.cuh"
#include "gpushmem/device/transport/remote.cuh"

namespace gpushmem {
namespace device {
namespace {

/* An event's channel and the count its completion needs; false for an event complete at issue. */
__device__ __forceinline__ bool event_channel(const char *call, uint64_t ev, const gpushmem_proxy_channel_t **c,
                                              uint64_t *until) {
  if (ev == 0) return false;
  const uint32_t channel = static_cast<uint32_t>(ev >> 56) - 1u;
  if (channel >= state().proxy_channel_count)
    fail_argument(call, "event", static_cast<long long>(ev), "not an event of this PE's proxy channels");
  *c = &state().proxy_channels[channel];
  *until = ev & ((uint64_t{1} << 56) - 1);
  return true;
}

/* Reads the proxy's own count with acquire, never the device cache: the cache (raised relaxed by any thread) does
   not order the data a get delivered before this thread's reads of it. */
__device__ __forceinline__ bool event_test(const char *call, uint64_t ev) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_event_is(ev)) return ibgda_event_test(call, ev);)
  const gpushmem_proxy_channel_t *c = nullptr;
  uint64_t until = 0;
  if (!event_channel(call, ev, &c, &until)) return true;
  const uint64_t v = ProxyMem::load_host(&c->control->completed);  // acquire: the data before it
  if (v < until) return false;
  ProxyMem::raise(&c->words->completed_cache, v);
  return true;
}

__device__ __noinline__ inline void event_wait(const char *call, uint64_t ev) {
  GPUSHMEMI_IF_IBGDA(if (ibgda_event_is(ev)) {
    ibgda_event_wait(call, ev);
    return;
  })
  const gpushmem_proxy_channel_t *c = nullptr;
  uint64_t until = 0;
  if (!event_channel(call, ev, &c, &until)) return;
  proxy_wait_completed(call, -1, nullptr, *c, until, true);
}

/* The index of an event of evs[0..n) that is complete (the lowest such when several are); waits for one. n == 0:
   SIZE_MAX at once, as shmem_test_any answers when it has no candidate. */
__device__ __noinline__ inline size_t event_wait_any(const char *call, const uint64_t *evs, size_t n) {
  if (n == 0) return SIZE_MAX;
  size_t found = n;
  proxy_wait(call, -1, evs, "any of the events", [&] {
    for (size_t i = 0; i < n; ++i)
      if (event_test(call, evs[i])) {
        found = i;
        return true;
      }
    return false;
  });
  return found;
}

/* The _nbi routines (rma.cuh, signal.cuh), each thread of the group given rank 0's event. */
template <class Scope>
__device__ __forceinline__ uint64_t putmem_nbi_event(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe) {
  return static_cast<uint64_t>(Scope::share(putmem_event<Scope, true>(call, dest, source, bytes, pe)));
}
template <class Scope>
__device__ __forceinline__ uint64_t getmem_nbi_event(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe) {
  return static_cast<uint64_t>(Scope::share(getmem_event<Scope, true>(call, dest, source, bytes, pe)));
}
template <class Scope>
__device__ __forceinline__ uint64_t putmem_signal_nbi_event(const char *call, void *dest, const void *source,
                                                            size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                                            int sig_op, int pe) {
  return static_cast<uint64_t>(
      Scope::share(putmem_signal_event<Scope, true>(call, dest, source, bytes, sig_addr, signal, sig_op, pe)));
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_EVENT_CUH */
