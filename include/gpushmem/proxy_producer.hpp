/*
 * The producer side of a proxy channel (gpushmem/proxy_channel.h), written once for both producers: device
 * code (include/gpushmem/device/transport/proxy.cuh supplies the memory operations as PTX) and the host
 * threads of the emu tests (std::atomic_ref). `Mem` supplies:
 *   static uint64_t fetch_add(uint64_t *w, uint64_t n);      atomic, relaxed (head, device memory)
 *   static uint64_t load_relaxed(const uint64_t *w);         (tail_cache)
 *   static void raise(uint64_t *w, uint64_t v);              atomic max, release (tail_cache, completed_cache)
 *   static uint64_t load_acquire(const uint64_t *w);         acquire (tail_cache, read by a waiting producer)
 *   static bool try_claim(uint64_t *w);                      0 -> 1, acquire (poller)
 *   static void unclaim(uint64_t *w);                        -> 0, release (poller)
 *   static uint64_t load_host(const uint64_t *w);            acquire, system scope (tail)
 *   static void store_host(uint64_t *w, uint64_t v);         relaxed, system scope (help)
 *   static void write_body(gpushmem_proxy_slot_t *s, const gpushmem_proxy_slot_t &v);  words 1..7
 *   static void publish(gpushmem_proxy_slot_t *s, uint64_t header);  word 0, release, system scope
 *   static uint64_t now_ns();
 *   static void backoff(uint32_t *ns);                       sleep *ns, then double it up to a cap
 *
 * Back-pressure (design.md §4): a producer compares its reservation with the cached tail and goes on
 * without touching host memory while the ring is below the high-water mark; above it, it refreshes the
 * cache from the host tail (one PCIe read); when the ring is really full it raises `help` and waits, each pause
 * as long as the proxy needs for the slots still ahead of its own, until the proxy has consumed enough, or until
 * `timeout_ns`. A producer waits only for the
 * proxy to consume slots reserved before its own, whose producers in turn wait for nothing but the proxy:
 * never for something another warp of its CTA must do first.
 */
#ifndef GPUSHMEM_PROXY_PRODUCER_HPP
#define GPUSHMEM_PROXY_PRODUCER_HPP

#include "gpushmem/proxy_channel.h"

#ifdef __CUDACC__
#define GPUSHMEM_PROXY_HD __host__ __device__ __forceinline__
#else
#define GPUSHMEM_PROXY_HD inline
#endif

namespace gpushmem {
namespace proxy {

enum class Room { ok, timed_out };

/* The waits of a producer that found the ring full (reserve): the proxy's expected time per slot (a proxy thread
   takes 20 M slots/s or more), and the shortest and longest wait. */
constexpr uint64_t kDrainNsPerSlot = 32;
constexpr uint32_t kWaitMinNs = 64;
constexpr uint32_t kWaitMaxNs = 16384;

/* Reserves n (1 <= n <= capacity) consecutive slots of channel c; *first receives the index of the first. Returns at
   once in the common case; waits (see above) when the ring is full, and gives up after timeout_ns (0: never), leaving
   the reservation unpublished: the caller reports the sticky error, and the proxy's watchdog names the hole. */
template <class Mem>
GPUSHMEM_PROXY_HD Room reserve(const gpushmem_proxy_channel_t &c, uint32_t n, uint64_t *first, uint64_t timeout_ns) {
  const uint64_t idx = Mem::fetch_add(&c.words->head, n);
  *first = idx;
  const uint64_t end = idx + n;  // one past the last slot reserved
  uint64_t tail = Mem::load_relaxed(&c.words->tail_cache);
  if (end - tail <= c.high_water) return Room::ok;
  tail = Mem::load_host(&c.control->tail);
  Mem::raise(&c.words->tail_cache, tail);
  if (end - tail <= c.capacity) {
    if (end - tail > c.high_water) Mem::store_host(&c.control->help, end);
    return Room::ok;
  }
  // Full: slot end - 1 may be written once tail >= end - capacity. Each wait lasts about as long as the proxy takes
  // to drain the slots still ahead of ours (kDrainNsPerSlot each), so the producer next in line looks again soon
  // and those far behind rarely. And one waiting producer at a time (the poller) reads the host's tail across PCIe
  // and leaves it in tail_cache, which the others read in device memory: when every waiter read the host word with
  // a doubling pause, 32 x 8 warps on a 4096-slot ring drained 5.8 M slots/s on an H200, against 31 M/s while the
  // ring had room (docs/results/2026-12-07-gpu; proxy_drain_rate WAIT doubling keeps that wait for comparison).
  const uint64_t start = Mem::now_ns();
  Mem::store_host(&c.control->help, end);
  for (;;) {
    const uint64_t ahead = end - tail - c.capacity;  // slots the proxy must take before ours fit
    uint32_t pause_ns = ahead >= kWaitMaxNs / kDrainNsPerSlot  ? kWaitMaxNs
                        : ahead * kDrainNsPerSlot > kWaitMinNs ? static_cast<uint32_t>(ahead * kDrainNsPerSlot)
                                                               : kWaitMinNs;
    Mem::backoff(&pause_ns);
    if (Mem::try_claim(&c.words->poller)) {
      tail = Mem::load_host(&c.control->tail);
      Mem::raise(&c.words->tail_cache, tail);  // release: a waiter that reads it may rewrite the slots it frees
      Mem::unclaim(&c.words->poller);
    } else {
      tail = Mem::load_acquire(&c.words->tail_cache);
    }
    if (end - tail <= c.capacity) return Room::ok;
    if (timeout_ns != 0 && Mem::now_ns() - start > timeout_ns) return Room::timed_out;
  }
}

/* Fills slot `index` (reserved) with `body` (words 1..7) and publishes it with its header. */
template <class Mem>
GPUSHMEM_PROXY_HD void publish(const gpushmem_proxy_channel_t &c, uint64_t index, const gpushmem_proxy_slot_t &body,
                               uint32_t op, uint32_t flags, uint32_t pe) {
  gpushmem_proxy_slot_t *s = c.ring + (index & (uint64_t)(c.capacity - 1));
  Mem::write_body(s, body);
  Mem::publish(s, gpushmem_proxy_header(index, op, flags, pe));
}

/* Whether every request of channel c before index `until` is complete. */
template <class Mem>
GPUSHMEM_PROXY_HD bool completed_before(const gpushmem_proxy_channel_t &c, uint64_t until) {
  return Mem::load_host(&c.control->completed) >= until;
}

}  // namespace proxy
}  // namespace gpushmem

#undef GPUSHMEM_PROXY_HD

#endif /* GPUSHMEM_PROXY_PRODUCER_HPP */
