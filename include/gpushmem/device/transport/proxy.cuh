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
#include "gpushmem/team_state.h"

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

/* An event (shmemx_event_t, event.cuh) for request `index` of pe's channel: the channel's number + 1 in the top 8 bits,
   index + 1 below; complete once the channel's completed count passes index. 0 is an event complete at issue. */
__device__ __forceinline__ uint64_t proxy_event(int pe, uint64_t index) {
  const uint64_t channel = static_cast<unsigned>(pe) % state().proxy_channel_count;
  return ((channel + 1) << 56) | ((index + 1) & ((uint64_t{1} << 56) - 1));
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
  if (printer) {
    error_record(GPUSHMEM_DEVICE_ERROR_PROXY_TIMEOUT, call, pe, addr,
                 static_cast<long long>(state().device_timeout_ns / 1000000000ull), what, nullptr);
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d, address %p: gave up after GPUSHMEM_DEVICE_TIMEOUT=%llu s waiting "
        "for %s (block %u,%u,%u thread %u,%u,%u); the proxy's watchdog (GPUSHMEM_PROXY_TIMEOUT) names the request "
        "it is stuck on\n",
        state().my_pe, call, pe, addr, static_cast<unsigned long long>(state().device_timeout_ns / 1000000000ull), what,
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  }
  error_report_end_and_trap(printer);
}

[[noreturn]] __device__ __noinline__ inline void fail_proxy_unsupported(const char *call, int pe, const void *addr) {
  const bool printer = error_report_begin();
  if (printer) {
    printf(
        "gpushmem[PE %d] device error in %s: pe=%d, address %p: that PE is reached through the CPU proxy (another "
        "node), and %s does not go through the proxy yet (block %u,%u,%u thread %u,%u,%u); docs/transports.md lists "
        "the device calls that do\n",
        state().my_pe, call, pe, addr, call, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  }
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

/*
 * Register budget. Without -rdc, ptxas allocates a kernel's registers across its whole call graph: an out-of-line
 * callee's registers go above those the caller keeps live across the call, so a caller's count becomes its live
 * set plus the callee's need, level by level. The issuing functions below are therefore flat: everything a request
 * needs lives in a proxy_req in the thread's local memory, and small out-of-line steps (reserve, copy, publish,
 * wait) take its address, so almost nothing stays in registers across them and a kernel that also reaches P2P
 * peers keeps the register count its P2P path needs (a 1024-thread block has 64 registers a thread).
 */
struct proxy_req {
  const char *call;
  const void *addr; /* the symmetric address messages name */
  const uint8_t *src;
  uint8_t *dst;
  size_t bytes;   /* this request's */
  size_t rest;    /* a put in pieces: what is left of it */
  size_t leave;   /* ... and where proxy_put_pieces stops */
  uint64_t index; /* the slot reserved */
  int pe;
  uint32_t op;
  uint32_t flags;
  uint32_t wait;   /* a blocking put: wait for a staged source's completion */
  uint32_t staged; /* some piece was staged by the proxy (its source read only once the request completes) */
  gpushmem_proxy_slot_t body;
};

__device__ __noinline__ inline void proxy_step_reserve(proxy_req *r) {
  r->index = proxy_reserve(r->call, r->pe, r->addr);
}
__device__ __noinline__ inline void proxy_step_publish(proxy_req *r) {
  proxy_publish(proxy_channel_of(r->pe), r->index, r->body, r->op, r->flags, r->pe);
}
__device__ __noinline__ inline void proxy_step_wait(proxy_req *r, uint64_t until, bool acquire) {
  proxy_wait_completed(r->call, r->pe, r->addr, proxy_channel_of(r->pe), until, acquire);
}
__device__ __noinline__ inline void proxy_step_bounce_writable(proxy_req *r) {
  proxy_bounce_writable(r->call, r->pe, r->addr, proxy_channel_of(r->pe), r->index);
}
__device__ __noinline__ inline void proxy_step_bounce_own(proxy_req *r) {
  proxy_bounce_own(r->call, r->pe, r->addr, proxy_channel_of(r->pe), r->index);
}
/* At most GPUSHMEM_PROXY_BOUNCE_BYTES, from or to bounce memory: words where both ends allow, else bytes. */
__device__ __noinline__ inline void proxy_step_copy(void *dst, const void *src, size_t bytes) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  size_t i = 0;
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 7u) == 0)
    for (; i + 8 <= bytes; i += 8) *reinterpret_cast<uint64_t *>(d + i) = *reinterpret_cast<const uint64_t *>(s + i);
  for (; i < bytes; ++i) d[i] = s[i];
}
__device__ __forceinline__ void proxy_req_start(proxy_req *r, const char *call, int pe, const void *addr, uint32_t op) {
  r->call = call;
  r->pe = pe;
  r->addr = addr;
  r->op = op;
  r->body = gpushmem_proxy_slot_t{};
}

/* A put of `bytes` from source to dest in pieces (proxy_put_pieces consumes rest down to leave). */
__device__ __forceinline__ void proxy_req_put(proxy_req *r, const char *call, void *dest, const void *source,
                                              size_t bytes, int pe, bool nbi) {
  proxy_req_start(r, call, pe, dest, GPUSHMEM_PROXY_OP_PUT);
  r->dst = static_cast<uint8_t *>(dest);
  r->src = static_cast<const uint8_t *>(source);
  r->rest = bytes;
  r->leave = 0;
  r->wait = nbi ? 0u : 1u;
  r->flags = 0;
  r->staged = 0;
}

/* One put request (or put-with-signal, r->op) of r->bytes (at most 2^32 - 1) from r->src to r->dst; r->body.signal
   and .value are set by the caller. Returns its index. */
__device__ __forceinline__ uint64_t proxy_put_one(proxy_req *r) {
  proxy_step_reserve(r);
  r->body.remote = proxy_remote(r->dst);
  r->body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(r->bytes), 0);
  if (r->bytes <= sizeof r->body.compare) {
    proxy_step_copy(&r->body.compare, r->src, r->bytes);
    r->flags |= GPUSHMEM_PROXY_FLAG_NBI | GPUSHMEM_PROXY_FLAG_INLINE;
    proxy_step_publish(r);
  } else if (proxy_through_bounce(r->src, r->bytes)) {
    proxy_step_bounce_writable(r);
    uint8_t *b = proxy_bounce(proxy_channel_of(r->pe), r->index);
    r->body.local = reinterpret_cast<uint64_t>(b);
    proxy_step_copy(b, r->src, r->bytes);
    r->flags |= GPUSHMEM_PROXY_FLAG_NBI;
    proxy_step_publish(r);
  } else {
    r->body.local = reinterpret_cast<uint64_t>(r->src);
    r->flags |= GPUSHMEM_PROXY_FLAG_LOCAL_GPU | (r->wait ? 0u : GPUSHMEM_PROXY_FLAG_NBI);
    r->staged = 1;
    proxy_step_publish(r);
    if (r->wait) proxy_step_wait(r, r->index + 1, false);
  }
  return r->index;
}

/* The pieces of a put: a buffer the proxy cannot read (shared memory, the stack) goes in bounce-sized pieces, a
   global one in pieces that fit the slot's 32-bit size. r->dst, r->src and r->rest describe the whole put and are
   consumed down to r->leave bytes; r->op, r->wait and the signal words are set by the caller. */
__device__ __forceinline__ void proxy_put_pieces(proxy_req *r) {
  while (r->rest > r->leave) {
    const size_t piece = __isGlobal(r->src) ? size_t{0x80000000u} : size_t{GPUSHMEM_PROXY_BOUNCE_BYTES};
    r->bytes = r->rest - r->leave < piece ? r->rest - r->leave : piece;
    r->flags = 0;
    r->body = gpushmem_proxy_slot_t{};
    proxy_put_one(r);
    r->dst += r->bytes;
    r->src += r->bytes;
    r->rest -= r->bytes;
  }
}

/* putmem and putmem_nbi (nbi: a staged source stays in use until the next quiet, or until the event returned is
   complete; 0: the source is reusable now). */
__device__ __noinline__ inline uint64_t proxy_putmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  proxy_req r;
  proxy_req_put(&r, call, dest, source, bytes, pe, nbi);
  proxy_put_pieces(&r);
  // The channel completes in slot order: the last piece's event covers the earlier ones, staged or not.
  return nbi && r.staged != 0 ? proxy_event(pe, r.index) : 0;
}

/* A get of up to GPUSHMEM_PROXY_BOUNCE_BYTES through the slot's bounce memory into any local buffer. */
__device__ __forceinline__ void proxy_get_bounced(proxy_req *r) {
  proxy_step_reserve(r);
  proxy_step_bounce_own(r);
  r->body = gpushmem_proxy_slot_t{};
  r->body.remote = proxy_remote(r->src);
  r->body.local = reinterpret_cast<uint64_t>(proxy_bounce(proxy_channel_of(r->pe), r->index));
  r->body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(r->bytes), 0);
  r->flags = 0;
  proxy_step_publish(r);
  proxy_step_wait(r, r->index + 1, true);
  proxy_step_copy(r->dst, reinterpret_cast<const void *>(r->body.local), r->bytes);
  proxy_release(proxy_channel_of(r->pe), r->index);
}

/* getmem and getmem_nbi (nbi into global memory: the data is there after the next quiet, or once the event returned
   is complete; 0: it is there now). */
__device__ __noinline__ inline uint64_t proxy_getmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  proxy_req r;
  proxy_req_start(&r, call, pe, source, GPUSHMEM_PROXY_OP_GET);
  const bool bounced = proxy_through_bounce(dest, bytes);
  const size_t piece = bounced ? size_t{GPUSHMEM_PROXY_BOUNCE_BYTES} : size_t{0x80000000u};
  r.wait = nbi ? 0u : 1u;
  for (size_t off = 0; off < bytes; off += piece) {
    r.dst = static_cast<uint8_t *>(dest) + off;
    r.src = static_cast<const uint8_t *>(source) + off;
    r.bytes = bytes - off < piece ? bytes - off : piece;
    if (bounced) {
      proxy_get_bounced(&r);
      continue;
    }
    proxy_step_reserve(&r);
    r.body = gpushmem_proxy_slot_t{};
    r.body.remote = proxy_remote(r.src);
    r.body.local = reinterpret_cast<uint64_t>(r.dst);
    r.body.size_event = gpushmem_proxy_size_event(static_cast<uint32_t>(r.bytes), 0);
    r.flags = GPUSHMEM_PROXY_FLAG_LOCAL_GPU | (nbi ? GPUSHMEM_PROXY_FLAG_NBI : 0u);
    proxy_step_publish(&r);
  }
  if (bounced || bytes == 0) return 0;
  if (!nbi) {
    proxy_step_wait(&r, r.index + 1, true);
    return 0;
  }
  return proxy_event(pe, r.index);
}

/* put-with-signal: the payload, then the signal, which lands after the whole payload. Returns as proxy_putmem. */
__device__ __noinline__ inline uint64_t proxy_putmem_signal(const char *call, void *dest, const void *source,
                                                            size_t bytes, uint64_t *sig_addr, uint64_t signal, bool add,
                                                            int pe, bool nbi) {
  proxy_req r;
  proxy_req_put(&r, call, dest, source, bytes, pe, nbi);
  // Every piece but the last as a put, then a fence, then the last piece with the signal.
  const size_t piece = __isGlobal(source) ? size_t{0x80000000u} : size_t{GPUSHMEM_PROXY_BOUNCE_BYTES};
  r.leave = bytes == 0 ? 0 : bytes - (bytes - 1) / piece * piece;
  if (bytes > r.leave) {
    proxy_put_pieces(&r);
    r.op = GPUSHMEM_PROXY_OP_FENCE;
    r.flags = GPUSHMEM_PROXY_FLAG_NBI;
    r.body = gpushmem_proxy_slot_t{};
    proxy_step_reserve(&r);
    proxy_step_publish(&r);
  }
  r.op = GPUSHMEM_PROXY_OP_PUT_SIGNAL;
  r.bytes = r.rest;
  r.body = gpushmem_proxy_slot_t{};
  r.body.signal = proxy_signal_word(sig_addr, 0);
  r.body.value = signal;
  r.flags = add ? GPUSHMEM_PROXY_FLAG_SIG_ADD : 0u;
  proxy_put_one(&r);
  return nbi && r.staged != 0 ? proxy_event(pe, r.index) : 0;
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

/* This PE's part of a team collective whose team has a member only the network reaches, executed by its proxy (a
   COLL slot, gpushmem/proxy_channel.h): `what` is gpushmem_proxy_coll's kind | elem << 4 | op << 8, `count` the
   elements (reduce) or bytes (collect), `count_word` the collect's published count (NULL for a reduction). Returns
   once the slot is complete: this PE's stores are complete at every member. */
__device__ __noinline__ inline void proxy_coll(const char *call, const gpushmem_team_state_t *t, uint32_t what,
                                               void *dest, const void *source, uint64_t count, const void *count_word) {
  const gpushmem_device_state_t &s = state();
  if (s.proxy_channel_count == 0) fail_proxy_unsupported(call, -1, dest);
  proxy_req r;
  proxy_req_start(&r, call, s.my_pe, dest, GPUSHMEM_PROXY_OP_COLL);
  r.flags = 0;
  proxy_step_reserve(&r);
  r.body.remote = proxy_remote(dest);
  r.body.local = proxy_remote(source);
  r.body.size_event = count;
  const uint64_t counts =
      count_word == nullptr ? 0 : static_cast<uint64_t>(static_cast<const char *>(count_word) - s.heap_base);
  r.body.signal = gpushmem_proxy_coll(counts, s.proxy_region_gpu_heap, what & 0xfu, (what >> 4) & 0xfu, what >> 8);
  r.body.value = gpushmem_proxy_pair(t->start, t->stride);
  r.body.compare = gpushmem_proxy_pair(t->size, t->my_index);
  proxy_step_publish(&r);
  proxy_step_wait(&r, r.index + 1, true);
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
