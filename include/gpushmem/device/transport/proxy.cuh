/*
 * Device operations on PEs reached through the CPU proxy (peer_transport[pe] == GPUSHMEM_PEER_PROXY: another
 * node, or a GPU this one cannot map). A thread writes one request slot per operation into channel
 * pe % proxy_channel_count (gpushmem/proxy_channel.h); this PE's proxy thread executes it over the network.
 * Callers reach these functions only after the P2P test failed (address.cuh reach() returned NULL), and every
 * one is out of line, so the P2P fast path carries none of this code.
 *
 * One thread issues each call (the warp and block forms let their rank 0 do it, between the group's
 * syncs); the lanes of a warp that issue at the same time to the same channel reserve their slots with one
 * atomic (warp-aggregated). Where the data travels:
 *   - up to 8 bytes: inside the slot (INLINE);
 *   - up to GPUSHMEM_PROXY_BOUNCE_BYTES, or any size whose local buffer is not global memory (shared memory,
 *     a thread's stack): through the slot's bounce memory, pinned host memory the thread writes or reads
 *     itself (a bigger buffer in pieces);
 *   - larger global-memory buffers: the proxy stages them through host memory with copy-engine copies.
 * Completion (the channel's `completed` counter): a put whose payload is inline or in bounce memory is
 * complete locally once published (its source is reusable at once); a staged put's source is reusable once
 * completed passes it; a get's data and a fetched value are there once completed passes it. quiet publishes a
 * QUIET in every channel used since the last one and waits for them (the network operations before it are
 * then complete at their targets).
 *
 * A wait longer than GPUSHMEM_DEVICE_TIMEOUT (device_timeout_ns) stops the kernel with a message naming the
 * call, the PE and the address, so nothing hangs without saying what it waits for.
 */
#ifndef GPUSHMEM_DEVICE_TRANSPORT_PROXY_CUH
#define GPUSHMEM_DEVICE_TRANSPORT_PROXY_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpushmem/device/checks.cuh"
#include "gpushmem/device/copy.cuh"
#include "gpushmem/device/global_ops.cuh"
#include "gpushmem/device/scope.cuh"
#include "gpushmem/device/state.cuh"
#include "gpushmem/device/transport/proxy_mem.cuh"

namespace gpushmem {
namespace device {
namespace {

/* Whether PE pe is reached through the proxy (read on the slow path only: a global load). */
__device__ __forceinline__ bool proxy_reaches(int pe) {
  const gpushmem_device_state_t &s = state();
  return s.proxy_channel_count != 0 && s.peer_transport != nullptr && s.peer_transport[pe] == GPUSHMEM_PEER_PROXY;
}

__device__ __forceinline__ const gpushmem_proxy_channel_t &proxy_channel_of(int pe) {
  const gpushmem_device_state_t &s = state();
  return s.proxy_channels[static_cast<unsigned>(pe) % s.proxy_channel_count];
}

/* The remote word of a slot: a symmetric address of this PE's GPU heap as an offset in the peer's. */
__device__ __forceinline__ uint64_t proxy_remote(const void *sym) {
  const gpushmem_device_state_t &s = state();
  return gpushmem_proxy_remote(static_cast<uint64_t>(static_cast<const char *>(sym) - s.heap_base),
                               s.proxy_region_gpu_heap);
}
__device__ __forceinline__ uint64_t proxy_signal_word(const void *sym, uint32_t amo) {
  const gpushmem_device_state_t &s = state();
  return gpushmem_proxy_signal(static_cast<uint64_t>(static_cast<const char *>(sym) - s.heap_base),
                               s.proxy_region_gpu_heap, amo);
}

__device__ __forceinline__ uint64_t proxy_cookie() {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  return gpushmem_proxy_cookie(smid, linear_thread_index() / 32u, cta, static_cast<uint32_t>(ProxyMem::now_ns()));
}

[[noreturn]] __device__ __noinline__ inline void fail_proxy_timeout(const char *call, int pe, const void *addr,
                                                                    const char *what) {
  const bool printer = error_report_begin();
  if (printer)
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d, address %p: gave up after GPUSHMEM_DEVICE_TIMEOUT=%llu s waiting "
        "for %s (block %u,%u,%u thread %u,%u,%u); the proxy's watchdog (GPUSHMEM_PROXY_TIMEOUT) names the request "
        "it is stuck on\n",
        state().my_pe, call, pe, addr, static_cast<unsigned long long>(state().device_timeout_ns / 1000000000ull), what,
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_proxy_unsupported(const char *call, int pe, const void *addr) {
  const bool printer = error_report_begin();
  if (printer)
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d, address %p: that PE is reached through the CPU proxy (another "
        "node), and %s does not go through the proxy yet (block %u,%u,%u thread %u,%u,%u); docs/transports.md lists "
        "the device calls that do\n",
        state().my_pe, call, pe, addr, call, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  error_report_end_and_trap(printer);
}

/* A wait for the proxy: `done()` polled with a growing pause, up to the device timeout. */
template <class Done>
__device__ __forceinline__ void proxy_wait(const char *call, int pe, const void *addr, const char *what, Done done) {
  if (done()) return;
  const uint64_t limit = state().device_timeout_ns;
  const uint64_t start = ProxyMem::now_ns();
  uint32_t pause = 32;
  while (!done()) {
    __nanosleep(pause);
    if (pause < 1024u) pause *= 2;
    if (limit != 0 && ProxyMem::now_ns() - start > limit) fail_proxy_timeout(call, pe, addr, what);
  }
}

/* Every request of channel c before `until` is complete. `acquire`: the caller reads data the proxy delivered,
   so the host counter itself is read with acquire (the device cache alone does not order that data). */
__device__ __forceinline__ void proxy_wait_completed(const char *call, int pe, const void *addr,
                                                     const gpushmem_proxy_channel_t &c, uint64_t until, bool acquire) {
  if (!acquire && ProxyMem::load_relaxed(&c.words->completed_cache) >= until) return;
  proxy_wait(call, pe, addr, "the proxy to complete the request", [&] {
    const uint64_t v = ProxyMem::load_host(&c.control->completed);
    if (v < until) return false;
    ProxyMem::raise(&c.words->completed_cache, v);
    return true;
  });
}

/* Reserves one slot of pe's channel for the calling thread. The lanes of the warp that call together for the
   same channel share one atomic on its head; the lowest of them waits for room on behalf of all. */
__device__ __forceinline__ uint64_t proxy_reserve(const char *call, int pe, const void *addr) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const unsigned active = __activemask();
  const unsigned group = __match_any_sync(active, static_cast<unsigned>(pe) % state().proxy_channel_count);
  const unsigned lane = linear_thread_index() & 31u;
  const int leader = __ffs(group) - 1;
  uint64_t first = 0;
  bool timed_out = false;
  if (static_cast<int>(lane) == leader)
    timed_out = proxy::reserve<ProxyMem>(c, __popc(group), &first, state().device_timeout_ns) == proxy::Room::timed_out;
  first = __shfl_sync(group, first, leader);
  if (__any_sync(group, timed_out)) fail_proxy_timeout(call, pe, addr, "room in a full proxy ring");
  return first + __popc(group & ((1u << lane) - 1u));
}

__device__ __forceinline__ uint8_t *proxy_bounce(const gpushmem_proxy_channel_t &c, uint64_t index) {
  return c.bounce + (index & (c.capacity - 1)) * static_cast<uint64_t>(GPUSHMEM_PROXY_BOUNCE_BYTES);
}

/* Before writing slot `index`'s bounce memory: the previous lap's put has left it, and no reader holds it. */
__device__ __forceinline__ void proxy_bounce_writable(const char *call, int pe, const void *addr,
                                                      const gpushmem_proxy_channel_t &c, uint64_t index) {
  if (index >= c.capacity) proxy_wait_completed(call, pe, addr, c, index - c.capacity + 1, false);
  const uint64_t *owner = c.owner + (index & (c.capacity - 1));
  proxy_wait(call, pe, addr, "the bounce memory of an earlier get", [&] { return ProxyMem::load_relaxed(owner) == 0; });
}

/* A get or fetching AMO takes the slot's bounce memory until it has read its data (proxy_release). */
__device__ __forceinline__ void proxy_bounce_own(const char *call, int pe, const void *addr,
                                                 const gpushmem_proxy_channel_t &c, uint64_t index) {
  unsigned long long *owner = reinterpret_cast<unsigned long long *>(c.owner + (index & (c.capacity - 1)));
  proxy_wait(call, pe, addr, "the bounce memory of an earlier get",
             [&] { return atomicCAS(owner, 0ull, static_cast<unsigned long long>(index + 1)) == 0ull; });
}
__device__ __forceinline__ void proxy_release(const gpushmem_proxy_channel_t &c, uint64_t index) {
  __threadfence();  // the reads of the bounce memory are done before the next owner may see it free
  atomicExch(reinterpret_cast<unsigned long long *>(c.owner + (index & (c.capacity - 1))), 0ull);
}

__device__ __forceinline__ void proxy_publish(const gpushmem_proxy_channel_t &c, uint64_t index,
                                              gpushmem_proxy_slot_t &body, uint32_t op, uint32_t flags, int pe) {
  body.cookie = proxy_cookie();
  proxy::publish<ProxyMem>(c, index, body, op, flags, static_cast<uint32_t>(pe));
}

__device__ __forceinline__ bool proxy_through_bounce(const void *local, size_t bytes) {
  return bytes <= GPUSHMEM_PROXY_BOUNCE_BYTES || !__isGlobal(local);
}

/* One put request (or put-with-signal, `op`) of at most 2^32 - 1 bytes. Returns its index. */
__device__ __noinline__ inline uint64_t proxy_put_one(const char *call, int pe, void *dest, const void *source,
                                                      size_t bytes, uint32_t op, uint64_t signal, uint64_t value,
                                                      uint32_t extra_flags, bool wait) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const uint64_t index = proxy_reserve(call, pe, dest);
  gpushmem_proxy_slot_t body{};
  body.remote = proxy_remote(dest);
  body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(bytes), 0);
  body.signal = signal;
  body.value = value;
  uint32_t flags = extra_flags | GPUSHMEM_PROXY_FLAG_NBI;
  if (bytes <= sizeof body.compare) {
    memcpy(&body.compare, source, bytes);
    flags |= GPUSHMEM_PROXY_FLAG_INLINE;
    proxy_publish(c, index, body, op, flags, pe);
  } else if (proxy_through_bounce(source, bytes)) {
    proxy_bounce_writable(call, pe, dest, c, index);
    uint8_t *b = proxy_bounce(c, index);
    copy_data<thread_scope>(b, source, bytes);
    body.local = reinterpret_cast<uint64_t>(b);
    proxy_publish(c, index, body, op, flags, pe);
  } else {
    body.local = reinterpret_cast<uint64_t>(source);
    flags |= GPUSHMEM_PROXY_FLAG_LOCAL_GPU;
    if (wait) flags &= ~GPUSHMEM_PROXY_FLAG_NBI;
    proxy_publish(c, index, body, op, flags, pe);
    if (wait) proxy_wait_completed(call, pe, dest, c, index + 1, false);
  }
  return index;
}

/* putmem and putmem_nbi (nbi: a staged source stays in use until the next quiet). */
__device__ __noinline__ inline void proxy_putmem(const char *call, void *dest, const void *source, size_t bytes, int pe,
                                                 bool nbi) {
  // A buffer the proxy cannot read (shared memory, the stack) goes in bounce-sized pieces; a global one in pieces
  // that fit the slot's 32-bit size.
  const size_t piece = __isGlobal(source) ? size_t{0x80000000u} : size_t{GPUSHMEM_PROXY_BOUNCE_BYTES};
  for (size_t off = 0; off < bytes; off += piece) {
    const size_t n = bytes - off < piece ? bytes - off : piece;
    proxy_put_one(call, pe, static_cast<char *>(dest) + off, static_cast<const char *>(source) + off, n,
                  GPUSHMEM_PROXY_OP_PUT, 0, 0, 0, !nbi);
  }
}

/* A get of up to GPUSHMEM_PROXY_BOUNCE_BYTES through the slot's bounce memory into any local buffer. */
__device__ __noinline__ inline void proxy_get_bounced(const char *call, int pe, void *dest, const void *source,
                                                      size_t bytes) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const uint64_t index = proxy_reserve(call, pe, source);
  proxy_bounce_own(call, pe, source, c, index);
  uint8_t *b = proxy_bounce(c, index);
  gpushmem_proxy_slot_t body{};
  body.remote = proxy_remote(source);
  body.local = reinterpret_cast<uint64_t>(b);
  body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(bytes), 0);
  proxy_publish(c, index, body, GPUSHMEM_PROXY_OP_GET, 0, pe);
  proxy_wait_completed(call, pe, source, c, index + 1, true);
  copy_data<thread_scope>(dest, b, bytes);
  proxy_release(c, index);
}

/* getmem and getmem_nbi (nbi into global memory: the data is there after the next quiet). */
__device__ __noinline__ inline void proxy_getmem(const char *call, void *dest, const void *source, size_t bytes, int pe,
                                                 bool nbi) {
  if (proxy_through_bounce(dest, bytes)) {
    for (size_t off = 0; off < bytes; off += GPUSHMEM_PROXY_BOUNCE_BYTES) {
      const size_t n = bytes - off < GPUSHMEM_PROXY_BOUNCE_BYTES ? bytes - off : GPUSHMEM_PROXY_BOUNCE_BYTES;
      proxy_get_bounced(call, pe, static_cast<char *>(dest) + off, static_cast<const char *>(source) + off, n);
    }
    return;
  }
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const size_t piece = 0x80000000u;
  uint64_t last = 0;
  for (size_t off = 0; off < bytes; off += piece) {
    const size_t n = bytes - off < piece ? bytes - off : piece;
    last = proxy_reserve(call, pe, source);
    gpushmem_proxy_slot_t body{};
    body.remote = proxy_remote(static_cast<const char *>(source) + off);
    body.local = reinterpret_cast<uint64_t>(static_cast<char *>(dest) + off);
    body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(n), 0);
    proxy_publish(c, last, body, GPUSHMEM_PROXY_OP_GET,
                  GPUSHMEM_PROXY_FLAG_LOCAL_GPU | (nbi ? GPUSHMEM_PROXY_FLAG_NBI : 0u), pe);
  }
  if (!nbi) proxy_wait_completed(call, pe, source, c, last + 1, true);
}

/* put-with-signal: the payload, then the signal, which lands after the whole payload. */
__device__ __noinline__ inline void proxy_putmem_signal(const char *call, void *dest, const void *source, size_t bytes,
                                                        uint64_t *sig_addr, uint64_t signal, bool add, int pe,
                                                        bool nbi) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const size_t piece = __isGlobal(source) ? size_t{0x80000000u} : size_t{GPUSHMEM_PROXY_BOUNCE_BYTES};
  // Every piece but the last as a put, then a fence, then the last piece with the signal.
  const size_t last = bytes == 0 ? 0 : (bytes - 1) / piece * piece;
  if (last != 0) {
    proxy_putmem(call, dest, source, last, pe, nbi);
    gpushmem_proxy_slot_t body{};
    const uint64_t index = proxy_reserve(call, pe, dest);
    proxy_publish(c, index, body, GPUSHMEM_PROXY_OP_FENCE, GPUSHMEM_PROXY_FLAG_NBI, pe);
  }
  proxy_put_one(call, pe, static_cast<char *>(dest) + last, static_cast<const char *>(source) + last, bytes - last,
                GPUSHMEM_PROXY_OP_PUT_SIGNAL, proxy_signal_word(sig_addr, 0), signal,
                add ? GPUSHMEM_PROXY_FLAG_SIG_ADD : 0u, !nbi);
}

/* A signal update alone (signal_op, and the device barrier's arrivals). */
__device__ __noinline__ inline void proxy_signal(const char *call, uint64_t *sig_addr, uint64_t value, bool add,
                                                 int pe) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const uint64_t index = proxy_reserve(call, pe, sig_addr);
  gpushmem_proxy_slot_t body{};
  body.signal = proxy_signal_word(sig_addr, add ? GPUSHMEM_PROXY_AMO_ADD : GPUSHMEM_PROXY_AMO_STORE);
  body.value = value;
  proxy_publish(c, index, body, GPUSHMEM_PROXY_OP_SIGNAL,
                GPUSHMEM_PROXY_FLAG_NBI | (add ? GPUSHMEM_PROXY_FLAG_SIG_ADD : 0u), pe);
}

/* An atomic that returns nothing (set, add, and, or, xor): issued and not waited for. */
__device__ __noinline__ inline void proxy_amo(const char *call, void *dest, uint32_t amo, uint32_t width,
                                              uint64_t operand, int pe) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const uint64_t index = proxy_reserve(call, pe, dest);
  gpushmem_proxy_slot_t body{};
  body.remote = proxy_remote(dest);
  body.size_event = gpushmem_proxy_size_event(width, 0);
  body.signal = gpushmem_proxy_signal(0, 0, amo);
  body.value = operand;
  proxy_publish(c, index, body, GPUSHMEM_PROXY_OP_AMO, GPUSHMEM_PROXY_FLAG_NBI, pe);
}

/* A fetching atomic: the old value, delivered into the slot's bounce memory. */
__device__ __noinline__ inline uint64_t proxy_amo_fetch(const char *call, const void *dest, uint32_t amo,
                                                        uint32_t width, uint64_t operand, uint64_t compare, int pe) {
  const gpushmem_proxy_channel_t &c = proxy_channel_of(pe);
  const uint64_t index = proxy_reserve(call, pe, dest);
  proxy_bounce_own(call, pe, dest, c, index);
  uint8_t *b = proxy_bounce(c, index);
  gpushmem_proxy_slot_t body{};
  body.remote = proxy_remote(dest);
  body.local = reinterpret_cast<uint64_t>(b);
  body.size_event = gpushmem_proxy_size_event(width, 0);
  body.signal = gpushmem_proxy_signal(0, 0, amo);
  body.value = operand;
  body.compare = compare;
  proxy_publish(c, index, body, GPUSHMEM_PROXY_OP_AMO_FETCH, 0, pe);
  proxy_wait_completed(call, pe, dest, c, index + 1, true);
  uint64_t old = 0;
  if (width == 4)
    old = gmem::load_relaxed(reinterpret_cast<const uint32_t *>(b));
  else
    old = gmem::load_relaxed(reinterpret_cast<const uint64_t *>(b));
  proxy_release(c, index);
  return old;
}

/* An op of `op` in every channel used since its last quiet; returns the channels' indices in idx[] (~0: none). */
__device__ __forceinline__ void proxy_post_all(uint32_t op, uint64_t *idx) {
  const gpushmem_device_state_t &s = state();
  for (uint32_t i = 0; i < s.proxy_channel_count; ++i) {
    const gpushmem_proxy_channel_t &c = s.proxy_channels[i];
    idx[i] = ~0ull;
    if (ProxyMem::load_relaxed(&c.words->head) == ProxyMem::load_relaxed(&c.words->quieted)) continue;
    uint64_t first = 0;
    (void)proxy::reserve<ProxyMem>(c, 1, &first, 0);
    gpushmem_proxy_slot_t body{};
    body.cookie = proxy_cookie();
    proxy::publish<ProxyMem>(c, first, body, op, op == GPUSHMEM_PROXY_OP_FENCE ? GPUSHMEM_PROXY_FLAG_NBI : 0u, 0);
    idx[i] = first;
  }
}

#define GPUSHMEMI_PROXY_MAX_CHANNELS 64

/* quiet over the proxy: every network operation this PE's device code issued before is complete. */
__device__ __noinline__ inline void proxy_quiet(const char *call) {
  const gpushmem_device_state_t &s = state();
  uint64_t idx[GPUSHMEMI_PROXY_MAX_CHANNELS];
  proxy_post_all(GPUSHMEM_PROXY_OP_QUIET, idx);
  for (uint32_t i = 0; i < s.proxy_channel_count; ++i) {
    if (idx[i] == ~0ull) continue;
    const gpushmem_proxy_channel_t &c = s.proxy_channels[i];
    proxy_wait_completed(call, -1, nullptr, c, idx[i] + 1, true);
    ProxyMem::raise(&c.words->quieted, idx[i] + 1);
  }
}

/* fence over the proxy: operations to each PE before it are delivered before those after it. */
__device__ __noinline__ inline void proxy_fence() {
  uint64_t idx[GPUSHMEMI_PROXY_MAX_CHANNELS];
  proxy_post_all(GPUSHMEM_PROXY_OP_FENCE, idx);
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_PROXY_CUH */
