/*
 * Device operations on PEs reached through IBGDA (peer_transport[pe] == GPUSHMEM_PEER_IBGDA): the calling thread builds
 * mlx5 work requests (gpushmem/mlx5_wqe.hpp) and posts them to the QP its warp maps to, rq[pe][global warp % Q]
 * (gpushmem/ibgda_qp.h), through the producer protocol of gpushmem/ibgda_producer.hpp with the PTX memory operations
 * of ibgda_mem.cuh: reservation, the units, the doorbell record, the doorbell. Reached only after the P2P test failed
 * (address.cuh), each out of line, so the P2P fast path carries none of this code (as transport/proxy.cuh).
 *
 * Local buffers: one in this PE's GPU heap is the request's local segment (heap_lkey). A put's source elsewhere (a
 * cudaMalloc buffer, shared memory, the stack) of at most GPUSHMEM_IBGDA_INLINE_BYTES travels inline in the WQE;
 * larger ones, a get's destination outside the heap, and fetched values go through the QP's bounce memory, held
 * (bounce_locks) from the copy into it until the NIC has completed the request.
 * Completion: a blocking put waits until its QP completed the WRITE (the NIC reads the source); an nbi put from the
 * heap is complete at quiet, or once the event returned is (local completion). A get waits for its READ (nbi into the
 * heap: at quiet, or its event). Non-fetching atomics and signals are posted (complete at quiet); fetching ones wait.
 * quiet waits for every QP of every IBGDA peer; fence is a quiet (the next requests start after the earlier ones
 * completed). A put-with-signal posts the WRITEs, then the signal's atomic with the fence flag, on one QP.
 * An error CQE, or a QP that completes nothing for GPUSHMEM_DEVICE_TIMEOUT, stops the kernel with a message naming
 * the call, the request, the PE and the NIC's syndrome (and the sticky device error the host reports).
 *
 * Not yet run on a GPU (issue 14): compiled in CI through every device API header.
 */
#ifndef GPUSHMEM_DEVICE_TRANSPORT_IBGDA_CUH
#define GPUSHMEM_DEVICE_TRANSPORT_IBGDA_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/device/checks.cuh"
#include "gpushmem/device/scope.cuh"
#include "gpushmem/device/state.cuh"
#include "gpushmem/device/transport/ibgda_mem.cuh"
#include "gpushmem/ibgda_qp.h"
#include "gpushmem/mlx5_wqe.hpp"
#include "gpushmem/proxy_channel.h"

/* A put's source outside the heap up to this many bytes travels inline (one WQE block up to 12 bytes). */
#define GPUSHMEM_IBGDA_INLINE_BYTES 64u

namespace gpushmem {
namespace device {
namespace {

/* Whether PE pe is reached through IBGDA (read on the slow path only). */
__device__ __forceinline__ bool ibgda_reaches(int pe) {
  const gpushmem_device_state_t &s = state();
  return s.ibgda != nullptr && s.peer_transport != nullptr && s.peer_transport[pe] == GPUSHMEM_PEER_IBGDA;
}

/* One request in the making: everything lives here, in the thread's local memory, and the out-of-line steps take its
   address, so almost nothing stays in registers across them (the register budget of transport/proxy.cuh: a kernel
   that also reaches P2P peers keeps the register count its P2P path needs). The WQE is built with index 0; the post
   step patches the index it reserved into its ctrl segment. */
struct ibgda_req {
  const char *call;
  const char *what; /* the work request, for error reports */
  const void *addr; /* the symmetric address messages name */
  int pe;
  uint32_t qp;    /* index in qps[] */
  uint64_t index; /* the first block of the request posted last */
  uint32_t fence; /* the next request starts once the QP's earlier ones completed */
  gpushmem_mlx5_wqe_t wqe;
};

__device__ __forceinline__ const gpushmem_ibgda_state_t &ibgda_state() {
  return *state().ibgda;
}
__device__ __forceinline__ const gpushmem_ibgda_qp_t &ibgda_qp(const ibgda_req *r) {
  return ibgda_state().qps[r->qp];
}
__device__ __forceinline__ uint8_t *ibgda_bounce(const ibgda_req *r) {
  return ibgda_state().bounce + static_cast<uint64_t>(r->qp) * ibgda_state().bounce_bytes;
}

/* The QP of pe that this warp posts to. */
__device__ __forceinline__ uint32_t ibgda_qp_of(int pe) {
  const gpushmem_ibgda_state_t &g = ibgda_state();
  const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned warp = cta * ((block_thread_count() + 31u) / 32u) + linear_thread_index() / 32u;
  return static_cast<uint32_t>(pe) * g.qps_per_peer + warp % g.qps_per_peer;
}

/* A request on QP qp (ibgda_req_start: the one this warp posts to for pe). */
__device__ __forceinline__ void ibgda_req_at(ibgda_req *r, const char *call, const char *what, const void *addr, int pe,
                                             uint32_t qp) {
  r->call = call;
  r->what = what;
  r->addr = addr;
  r->pe = pe;
  r->qp = qp;
  r->index = 0;
  r->fence = 0;
  r->wqe.ds = 0;
}
__device__ __forceinline__ void ibgda_req_start(ibgda_req *r, const char *call, const char *what, const void *addr,
                                                int pe) {
  ibgda_req_at(r, call, what, addr, pe, ibgda_qp_of(pe));
}

/* Symmetric `sym` at PE r->pe, as its work requests name it. */
__device__ __forceinline__ mlx5::Remote ibgda_remote(const ibgda_req *r, const void *sym) {
  const gpushmem_ibgda_state_t &g = ibgda_state();
  const uint64_t offset = static_cast<uint64_t>(static_cast<const char *>(sym) - state().heap_base);
  return mlx5::Remote{g.remote_base[r->pe] + offset, g.rkeys[r->pe]};
}

/* Whether [p, p + bytes) lies in this PE's GPU heap (a local segment under heap_lkey). */
__device__ __forceinline__ bool ibgda_in_heap(const void *p, size_t bytes) {
  const gpushmem_device_state_t &s = state();
  const char *c = static_cast<const char *>(p);
  return c >= s.heap_base && static_cast<uint64_t>(c - s.heap_base) <= s.heap_size &&
         bytes <= s.heap_size - static_cast<uint64_t>(c - s.heap_base);
}

[[noreturn]] __device__ __noinline__ inline void fail_ibgda(const ibgda_req *r, ibgda::Outcome o) {
  const gpushmem_ibgda_qp_t &q = ibgda_qp(r);
  const long long synd = o == ibgda::Outcome::error         ? static_cast<long long>(IbgdaMem::load32(&q.words->error))
                         : o == ibgda::Outcome::bad_request ? static_cast<long long>(GPUSHMEM_MLX5_SYND_LOCAL_QP_OP)
                                                            : -1ll;
  const bool printer = error_report_begin();
  if (printer) {
    error_record(GPUSHMEM_DEVICE_ERROR_IBGDA, r->call, r->pe, r->addr, synd, r->what, nullptr);
    if (synd < 0)
      printf(
          "gpushmem[PE %d] device error in %s: pe=%d, address %p: %s: the NIC completed nothing for "
          "GPUSHMEM_DEVICE_TIMEOUT (QP 0x%x: a stalled QP, or no NIC behind it) (block %u,%u,%u thread %u,%u,%u)\n",
          state().my_pe, r->call, r->pe, r->addr, r->what, q.qpn, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
          threadIdx.y, threadIdx.z);
    else
      printf(
          "gpushmem[PE %d] device error in %s: pe=%d, address %p: %s: the NIC reported %s (syndrome 0x%02x, QP 0x%x, "
          "WQE %llu) (block %u,%u,%u thread %u,%u,%u)\n",
          state().my_pe, r->call, r->pe, r->addr, r->what, gpushmem_mlx5_syndrome_name(static_cast<uint32_t>(synd)),
          static_cast<unsigned>(synd), q.qpn, static_cast<unsigned long long>(IbgdaMem::load(&q.words->error_index)),
          blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  }
  error_report_end_and_trap(printer);
}

/* Where a request is built: index 0 (patched when posted), this QP, a CQE for every request (the collapsed CQ then
   names the newest completed one), the fence mode asked for. */
__device__ __forceinline__ mlx5::Post ibgda_post_of(const ibgda_req *r) {
  uint32_t flags = GPUSHMEM_MLX5_CTRL_CQ_UPDATE;
  if (r->fence != 0) flags |= static_cast<uint32_t>(GPUSHMEM_MLX5_FM_FENCE) << GPUSHMEM_MLX5_CTRL_FM_SHIFT;
  return mlx5::Post{0, ibgda_qp(r).qpn, flags};
}

/* Posts the request built in r->wqe to r->qp: reserve its blocks (waiting while the send queue is full), patch the
   index into its ctrl segment, write its units, publish, ring (gpushmem/ibgda_producer.hpp). r->index receives its
   first block. */
__device__ __noinline__ inline void ibgda_step_post(ibgda_req *r) {
  const gpushmem_ibgda_qp_t &q = ibgda_qp(r);
  if (r->wqe.ds == 0 || r->wqe.ds > GPUSHMEM_MLX5_MAX_DS) fail_ibgda(r, ibgda::Outcome::bad_request);
  const uint32_t blocks = gpushmem_mlx5_wqebbs(r->wqe.ds);
  uint64_t first = 0;
  ibgda::Outcome o = ibgda::reserve<IbgdaMem>(q, blocks, &first, ibgda_state().timeout_ns);
  if (o != ibgda::Outcome::ok) fail_ibgda(r, o);
  uint32_t word = gpushmem_mlx5_bswap32(r->wqe.unit[0].ctrl.opmod_idx_opcode_be);
  word = (word & 0xff0000ffu) | ((static_cast<uint32_t>(first) & 0xffffu) << 8);
  r->wqe.unit[0].ctrl.opmod_idx_opcode_be = gpushmem_mlx5_bswap32(word);
  ibgda::write<IbgdaMem>(q, first, r->wqe);
  o = ibgda::publish<IbgdaMem>(q, first, blocks, false);
  if (o != ibgda::Outcome::ok) fail_ibgda(r, o);
  r->index = first;
}

/* Every request posted to r->qp before is complete. */
__device__ __noinline__ inline void ibgda_step_wait(ibgda_req *r) {
  const ibgda::Outcome o = ibgda::quiet<IbgdaMem>(ibgda_qp(r), ibgda_state().timeout_ns);
  if (o != ibgda::Outcome::ok) fail_ibgda(r, o);
}

__device__ __noinline__ inline void ibgda_step_lock_bounce(ibgda_req *r) {
  uint32_t *lock = ibgda_state().bounce_locks + r->qp;
  uint32_t pause = 32;
  while (!IbgdaMem::try_lock(lock)) IbgdaMem::backoff(&pause);
}
__device__ __noinline__ inline void ibgda_step_unlock_bounce(ibgda_req *r) {
  IbgdaMem::unlock(ibgda_state().bounce_locks + r->qp);
}

/* Bytes between the device and bounce memory (the NIC wrote or will read it: system-scope accesses), 8 at a time
   where both ends allow. */
__device__ __noinline__ inline void ibgda_step_copy(void *dst, const void *src, size_t bytes) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  size_t i = 0;
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 7u) == 0)
    for (; i + 8 <= bytes; i += 8) {
      uint64_t v;
      asm volatile("ld.relaxed.sys.b64 %0, [%1];" : "=l"(v) : "l"(s + i) : "memory");
      asm volatile("st.relaxed.sys.b64 [%0], %1;" ::"l"(d + i), "l"(v) : "memory");
    }
  for (; i < bytes; ++i) {
    uint32_t v;
    asm volatile("ld.relaxed.sys.u8 %0, [%1];" : "=r"(v) : "l"(s + i) : "memory");
    asm volatile("st.relaxed.sys.u8 [%0], %1;" ::"l"(d + i), "r"(v) : "memory");
  }
}

/* Builders: fill r->wqe (a length no data segment can carry builds nothing: the post step then fails the call). */
/* A WRITE of `bytes` (at most 2^31) from local segment `from` (its key) to symmetric `dest`. */
__device__ __noinline__ inline void ibgda_build_write(ibgda_req *r, void *dest, const void *from, uint32_t lkey,
                                                      uint64_t bytes) {
  r->wqe.ds = 0;
  (void)mlx5::build_write(&r->wqe, ibgda_post_of(r), ibgda_remote(r, dest),
                          mlx5::Local{reinterpret_cast<uint64_t>(from), lkey}, bytes);
}
/* A WRITE carrying its payload (at most GPUSHMEM_IBGDA_INLINE_BYTES) in the WQE. */
__device__ __noinline__ inline void ibgda_build_write_inline(ibgda_req *r, void *dest, const void *from,
                                                             uint32_t bytes) {
  r->wqe.ds = 0;
  (void)mlx5::build_write_inline(&r->wqe, ibgda_post_of(r), ibgda_remote(r, dest), from, bytes);
}
/* A READ of `bytes` from symmetric `source` into local segment `into`. */
__device__ __noinline__ inline void ibgda_build_read(ibgda_req *r, void *into, uint32_t lkey, const void *source,
                                                     uint64_t bytes) {
  r->wqe.ds = 0;
  (void)mlx5::build_read(&r->wqe, ibgda_post_of(r), ibgda_remote(r, source),
                         mlx5::Local{reinterpret_cast<uint64_t>(into), lkey}, bytes);
}

/* An event (event.cuh) for the request at block `index` of QP `qp`: 0xff in the top byte, the QP below, index + 1 in
   the low 40 bits; complete once the QP's CQ reported a request at or after it. */
__device__ __forceinline__ uint64_t ibgda_event(uint32_t qp, uint64_t index) {
  return (uint64_t{0xff} << 56) | (static_cast<uint64_t>(qp & 0xffffu) << 40) |
         ((index + 1) & ((uint64_t{1} << 40) - 1));
}
__device__ __forceinline__ bool ibgda_event_is(uint64_t ev) {
  return (ev >> 56) == 0xff;
}
/* Whether the request an IBGDA event names is complete (polls its QP's CQ once). */
__device__ __noinline__ inline bool ibgda_event_test(const char *call, uint64_t ev) {
  const uint32_t qp = static_cast<uint32_t>(ev >> 40) & 0xffffu;
  const gpushmem_ibgda_state_t &g = ibgda_state();
  if (state().ibgda == nullptr || qp >= static_cast<uint32_t>(state().n_pes) * g.qps_per_peer)
    fail_argument(call, "event", static_cast<long long>(ev), "not an event of this PE's IBGDA queues");
  const gpushmem_ibgda_qp_t &q = g.qps[qp];
  const uint64_t index = (ev & ((uint64_t{1} << 40) - 1)) - 1;
  if (ibgda::poll_cq<IbgdaMem>(q) == ibgda::Outcome::error) {
    ibgda_req r;
    ibgda_req_at(&r, call, "a request an event names", nullptr, static_cast<int>(qp / g.qps_per_peer), qp);
    fail_ibgda(&r, ibgda::Outcome::error);
  }
  // `done` counts blocks, the index is the request's first block (its low 40 bits): done passes it once complete.
  return (IbgdaMem::load(&q.words->done) & ((uint64_t{1} << 40) - 1)) > index;
}

/* Waits for the request an IBGDA event names, up to GPUSHMEM_DEVICE_TIMEOUT. */
__device__ __noinline__ inline void ibgda_event_wait(const char *call, uint64_t ev) {
  const uint64_t start = IbgdaMem::now_ns(), limit = ibgda_state().timeout_ns;
  uint32_t pause = 32;
  while (!ibgda_event_test(call, ev)) {
    if (limit != 0 && IbgdaMem::now_ns() - start > limit) {
      const uint32_t qp = static_cast<uint32_t>(ev >> 40) & 0xffffu;
      ibgda_req r;
      ibgda_req_at(&r, call, "the request an event names", nullptr, static_cast<int>(qp / ibgda_state().qps_per_peer),
                   qp);
      fail_ibgda(&r, ibgda::Outcome::timed_out);
    }
    IbgdaMem::backoff(&pause);
  }
}

/* putmem and putmem_nbi; returns the event of an nbi put whose source the NIC still reads (0: complete). */
__device__ __noinline__ inline uint64_t ibgda_putmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  if (bytes == 0) return 0;
  ibgda_req r;
  ibgda_req_start(&r, call, "RDMA WRITE", dest, pe);
  if (ibgda_in_heap(source, bytes)) {
    for (size_t off = 0; off < bytes; off += size_t{0x80000000u}) {
      const uint64_t n = bytes - off < size_t{0x80000000u} ? bytes - off : size_t{0x80000000u};
      ibgda_build_write(&r, static_cast<char *>(dest) + off, static_cast<const char *>(source) + off,
                        ibgda_state().heap_lkey, n);
      ibgda_step_post(&r);
    }
    if (!nbi) {
      ibgda_step_wait(&r);
      return 0;
    }
    return ibgda_event(r.qp, r.index);
  }
  if (bytes <= GPUSHMEM_IBGDA_INLINE_BYTES) {  // the WQE carries it: complete locally at once
    ibgda_build_write_inline(&r, dest, source, static_cast<uint32_t>(bytes));
    ibgda_step_post(&r);
    return 0;
  }
  // Through the QP's bounce memory (after its first 64 bytes), one piece at a time, each complete before the next.
  ibgda_step_lock_bounce(&r);
  const size_t piece = ibgda_state().bounce_bytes - 64u;
  uint8_t *b = ibgda_bounce(&r) + 64;
  for (size_t off = 0; off < bytes; off += piece) {
    const size_t n = bytes - off < piece ? bytes - off : piece;
    ibgda_step_copy(b, static_cast<const char *>(source) + off, n);
    ibgda_build_write(&r, static_cast<char *>(dest) + off, b, ibgda_state().bounce_lkey, n);
    ibgda_step_post(&r);
    ibgda_step_wait(&r);
  }
  ibgda_step_unlock_bounce(&r);
  return 0;
}

/* getmem and getmem_nbi; returns the event of an nbi get into the heap (0: the data is there). */
__device__ __noinline__ inline uint64_t ibgda_getmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  if (bytes == 0) return 0;
  ibgda_req r;
  ibgda_req_start(&r, call, "RDMA READ", source, pe);
  if (ibgda_in_heap(dest, bytes)) {
    for (size_t off = 0; off < bytes; off += size_t{0x80000000u}) {
      const uint64_t n = bytes - off < size_t{0x80000000u} ? bytes - off : size_t{0x80000000u};
      ibgda_build_read(&r, static_cast<char *>(dest) + off, ibgda_state().heap_lkey,
                       static_cast<const char *>(source) + off, n);
      ibgda_step_post(&r);
    }
    if (!nbi) {
      ibgda_step_wait(&r);
      return 0;
    }
    return ibgda_event(r.qp, r.index);
  }
  ibgda_step_lock_bounce(&r);
  const size_t piece = ibgda_state().bounce_bytes - 64u;
  uint8_t *b = ibgda_bounce(&r) + 64;
  for (size_t off = 0; off < bytes; off += piece) {
    const size_t n = bytes - off < piece ? bytes - off : piece;
    ibgda_build_read(&r, b, ibgda_state().bounce_lkey, static_cast<const char *>(source) + off, n);
    ibgda_step_post(&r);
    ibgda_step_wait(&r);
    ibgda_step_copy(static_cast<char *>(dest) + off, b, n);
  }
  ibgda_step_unlock_bounce(&r);
  return 0;
}

/* One atomic on the `width`-byte word at symmetric `dest` (amo: a GPUSHMEM_PROXY_AMO_* code), its old value fetched
   into local `fetch` (under lkey), posted. XOR has no NIC form (ibgda_amo_fetch loops over compare-swaps): nothing is
   built for it. */
__device__ __noinline__ inline void ibgda_step_amo(ibgda_req *r, const void *dest, uint32_t amo, uint32_t width,
                                                   uint64_t operand, uint64_t compare, void *fetch, uint32_t lkey) {
  const mlx5::Remote word = ibgda_remote(r, dest);
  const mlx5::Local into{reinterpret_cast<uint64_t>(fetch), lkey};
  const mlx5::Post p = ibgda_post_of(r);
  const uint64_t all = width == 4 ? 0xffffffffull : ~0ull;
  const uint64_t v = operand & all;
  mlx5::Wqe *w = &r->wqe;
  w->ds = 0;
  switch (amo) {
    case GPUSHMEM_PROXY_AMO_LOAD:
    case GPUSHMEM_PROXY_AMO_ADD:
      if (width == 8)
        mlx5::build_fetch_add(w, p, word, into, amo == GPUSHMEM_PROXY_AMO_ADD ? v : 0);
      else
        (void)mlx5::build_masked_fetch_add(w, p, word, into, 4, amo == GPUSHMEM_PROXY_AMO_ADD ? v : 0, 0);
      break;
    case GPUSHMEM_PROXY_AMO_STORE:
    case GPUSHMEM_PROXY_AMO_SWAP:  // every bit takes the operand's, whatever the word holds
      (void)mlx5::build_masked_compare_swap(w, p, word, into, width, v, 0, all, 0);
      break;
    case GPUSHMEM_PROXY_AMO_CSWAP:
      if (width == 8)
        mlx5::build_compare_swap(w, p, word, into, compare, v);
      else
        (void)mlx5::build_masked_compare_swap(w, p, word, into, 4, v, compare & all, all, all);
      break;
    case GPUSHMEM_PROXY_AMO_AND:  // the bits the operand clears become 0
      (void)mlx5::build_masked_compare_swap(w, p, word, into, width, 0, 0, ~v & all, 0);
      break;
    case GPUSHMEM_PROXY_AMO_OR:  // the bits the operand sets become 1
      (void)mlx5::build_masked_compare_swap(w, p, word, into, width, all, 0, v, 0);
      break;
    default:
      break;
  }
  ibgda_step_post(r);
}

/* A fetching atomic: the old value (xor as a compare-swap loop). Waits. */
__device__ __noinline__ inline uint64_t ibgda_amo_fetch(const char *call, const void *dest, uint32_t amo,
                                                        uint32_t width, uint64_t operand, uint64_t compare, int pe) {
  ibgda_req r;
  ibgda_req_start(&r, call, "atomic", dest, pe);
  ibgda_step_lock_bounce(&r);
  uint8_t *f = ibgda_bounce(&r) + 8;  // the fetched word; the first 8 bytes take discarded ones
  uint64_t old = 0;
  ibgda_step_amo(&r, dest, amo == GPUSHMEM_PROXY_AMO_XOR ? static_cast<uint32_t>(GPUSHMEM_PROXY_AMO_LOAD) : amo, width,
                 operand, compare, f, ibgda_state().bounce_lkey);
  ibgda_step_wait(&r);
  ibgda_step_copy(&old, f, width);
  if (amo == GPUSHMEM_PROXY_AMO_XOR) {
    const uint64_t all = width == 4 ? 0xffffffffull : ~0ull;
    for (;;) {
      ibgda_step_amo(&r, dest, GPUSHMEM_PROXY_AMO_CSWAP, width, (old ^ operand) & all, old, f,
                     ibgda_state().bounce_lkey);
      ibgda_step_wait(&r);
      uint64_t seen = 0;
      ibgda_step_copy(&seen, f, width);
      if (seen == old) break;
      old = seen;
    }
  }
  ibgda_step_unlock_bounce(&r);
  return old;
}

/* An atomic that returns nothing: posted (complete at quiet); xor waits (a compare-swap loop). */
__device__ __noinline__ inline void ibgda_amo(const char *call, void *dest, uint32_t amo, uint32_t width,
                                              uint64_t operand, int pe) {
  if (amo == GPUSHMEM_PROXY_AMO_XOR) {
    (void)ibgda_amo_fetch(call, dest, amo, width, operand, 0, pe);
    return;
  }
  ibgda_req r;
  ibgda_req_start(&r, call, "atomic", dest, pe);
  ibgda_step_amo(&r, dest, amo, width, operand, 0, ibgda_bounce(&r), ibgda_state().bounce_lkey);
}

/* A signal update alone (signal_op, the device barrier's arrivals): posted. */
__device__ __noinline__ inline void ibgda_signal(const char *call, uint64_t *sig_addr, uint64_t value, bool add,
                                                 int pe) {
  ibgda_req r;
  ibgda_req_start(&r, call, "signal atomic", sig_addr, pe);
  ibgda_step_amo(&r, sig_addr, add ? GPUSHMEM_PROXY_AMO_ADD : GPUSHMEM_PROXY_AMO_STORE, 8, value, 0, ibgda_bounce(&r),
                 ibgda_state().bounce_lkey);
}

/* put-with-signal: the WRITEs, then the signal's atomic with the fence flag on the same QP (it lands after the whole
   payload). Returns as ibgda_putmem. */
__device__ __noinline__ inline uint64_t ibgda_putmem_signal(const char *call, void *dest, const void *source,
                                                            size_t bytes, uint64_t *sig_addr, uint64_t signal, bool add,
                                                            int pe, bool nbi) {
  ibgda_req r;
  ibgda_req_start(&r, call, "RDMA WRITE", dest, pe);
  uint64_t ev = 0;
  if (bytes != 0) ev = ibgda_putmem(call, dest, source, bytes, pe, nbi);  // the same QP: this warp's for pe
  r.what = "signal atomic";
  r.fence = 1;
  ibgda_step_amo(&r, sig_addr, add ? GPUSHMEM_PROXY_AMO_ADD : GPUSHMEM_PROXY_AMO_STORE, 8, signal, 0, ibgda_bounce(&r),
                 ibgda_state().bounce_lkey);
  return ev;
}

/* quiet (and fence) over IBGDA: every request posted to any QP before is complete. */
__device__ __noinline__ inline void ibgda_quiet(const char *call) {
  const gpushmem_device_state_t &s = state();
  const gpushmem_ibgda_state_t &g = *s.ibgda;
  for (int pe = 0; pe < s.n_pes; ++pe) {
    if (s.peer_transport[pe] != GPUSHMEM_PEER_IBGDA) continue;
    for (uint32_t k = 0; k < g.qps_per_peer; ++k) {
      ibgda_req r;
      ibgda_req_at(&r, call, "quiet", nullptr, pe, static_cast<uint32_t>(pe) * g.qps_per_peer + k);
      ibgda_step_wait(&r);
    }
  }
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_IBGDA_CUH */
