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
   address, so almost nothing stays in registers across them (the register budget of transport/proxy.cuh: an
   out-of-line callee's registers go above those its caller keeps live across the call, so a kernel that also reaches
   P2P peers keeps the register count its P2P path needs only if these functions keep nothing live across their
   steps). The WQE is built with index 0; the post step patches the index it reserved into its ctrl segment. */
struct ibgda_req {
  const char *call;
  const char *what;   /* the work request, for error reports */
  const void *addr;   /* the symmetric address messages name */
  uint8_t *dst;       /* a transfer: where the next piece goes (symmetric for a WRITE, local for a READ) */
  const uint8_t *src; /* ... and where it comes from */
  size_t rest;        /* ... what is left of it */
  uint64_t bytes;     /* ... this piece's length */
  uint64_t operand;   /* an atomic: its operand, compare value and fetch buffer (under lkey) */
  uint64_t compare;
  void *fetch;
  uint64_t index;       /* the first block of the request posted last */
  uint64_t event;       /* what the operation returns (put-with-signal: its put's event) */
  uint64_t group_first; /* ibgda_post: the first block its lanes reserved together, and how many */
  uint32_t group_blocks;
  uint32_t group; /* ... the lanes (0: this lane posts alone) */
  int pe;
  uint32_t qp;    /* index in qps[] */
  uint32_t lkey;  /* the local segment's key */
  uint32_t amo;   /* a GPUSHMEM_PROXY_AMO_* code */
  uint32_t width; /* the atomic's word, 4 or 8 bytes */
  uint32_t fence; /* the next request starts once the QP's earlier ones completed */
  uint32_t nbi;
  uint32_t outcome; /* what a step that failed met (ibgda::Outcome) */
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

/* Stops the kernel for the failed request r (r->outcome says why). Called by the issuing functions, never by the steps:
   a step returns false instead, so that the report's registers (printf's) do not add up under the steps'. */
[[noreturn]] __device__ __noinline__ inline void fail_ibgda(const ibgda_req *r) {
  const gpushmem_ibgda_qp_t &q = ibgda_qp(r);
  const ibgda::Outcome o = static_cast<ibgda::Outcome>(r->outcome);
  const uint32_t word = IbgdaMem::load32(&q.words->error);  // a syndrome, or a producer's timeout
  const long long synd = o == ibgda::Outcome::error && word != GPUSHMEM_IBGDA_ERROR_TIMED_OUT
                             ? static_cast<long long>(word)
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

/* A step's failure: recorded in r for fail_ibgda. */
__device__ __forceinline__ bool ibgda_failed(ibgda_req *r, ibgda::Outcome o) {
  r->outcome = static_cast<uint32_t>(o);
  return false;
}

/* Posts the request built in r->wqe to r->qp: reserve its blocks (waiting while the send queue is full), patch the
   index into its ctrl segment, write its units, publish, ring (gpushmem/ibgda_producer.hpp). r->index receives its
   first block. False (r->outcome) if it could not.
   The lanes of the warp that post to the same QP at the same time, with requests of the same size, post together
   (lane aggregation, design.md §4): the lowest of them reserves the blocks of all, each writes its own WQE at its
   rank, and the lowest publishes them at once, so the warp takes one reservation, one publish and at most one
   doorbell where it took one of each per lane (ibgda_post_rate: a warp of 32 posting lanes made 0.16 M WQEs/s and
   0.97 doorbells per WQE on an H200, docs/results/2026-12-07-gpu). */
/* ibgda_post's steps. Without -rdc a call's callee takes its registers above those its caller keeps live, so every
   level of out-of-line calls adds the caller's live values to the kernel's count: the leaves (group, take, write,
   release, wait, copy, lock) are out of line with the request in local memory, and the steps between them and the
   entry points (reserve, publish, post, the builders, the bounced transfers, xor) are inlined into the entry points,
   so a leaf is one out-of-line call below its entry point (itself below remote.cuh's dispatcher). Inlining those ten
   cut the register_budget kernels built with IBGDA from 52.5 to 47.5 registers on average and register_budget_coll's
   from 67.5 to 62.0 (without IBGDA: 37.6 and 54.5), and perftest's kernels above 64 registers from 56 to 50 of 368
   (without IBGDA: 19). Group: the lanes posting with this one now (r->group, 0: alone), the blocks they reserve
   together (r->group_blocks), this lane's offset among them (r->index, until reserved). */
__device__ __noinline__ inline bool ibgda_post_group(ibgda_req *r) {
  const bool built = r->wqe.ds != 0 && r->wqe.ds <= GPUSHMEM_MLX5_MAX_DS;
  const uint32_t blocks = built ? gpushmem_mlx5_wqebbs(r->wqe.ds) : 0u;
  unsigned group = __match_any_sync(__activemask(), (r->qp << 4) | blocks);
  if (!built) return ibgda_failed(r, ibgda::Outcome::bad_request);
  const uint32_t count = static_cast<uint32_t>(__popc(group));
  if (count * blocks > ibgda_qp(r).wqebbs / 2) group = 0;  // too large for one reservation (a small send queue)
  r->group = group;
  r->group_blocks = group != 0 ? count * blocks : blocks;
  r->index =
      group != 0 ? static_cast<uint64_t>(__popc(group & ((1u << (linear_thread_index() & 31u)) - 1u))) * blocks : 0u;
  return true;
}

/* Take: r->group_blocks blocks from r->qp (r->group_first), r->outcome saying whether they were. */
__device__ __noinline__ inline void ibgda_post_take(ibgda_req *r) {
  uint64_t first = 0;
  r->outcome =
      static_cast<uint32_t>(ibgda::reserve<IbgdaMem>(ibgda_qp(r), r->group_blocks, &first, ibgda_state().timeout_ns));
  r->group_first = first;
}

/* Reserve: the group's blocks, taken by its lowest lane; r->index receives this lane's first block. */
__device__ __forceinline__ bool ibgda_post_reserve(ibgda_req *r) {
  if (!ibgda_post_group(r)) return false;
  if (r->group == 0 || static_cast<int>(linear_thread_index() & 31u) == __ffs(r->group) - 1) ibgda_post_take(r);
  if (r->group != 0) {
    const unsigned group = r->group;
    const int leader = __ffs(group) - 1;
    r->group_first = __shfl_sync(group, r->group_first, leader);
    r->outcome = __shfl_sync(group, r->outcome, leader);
  }
  if (r->outcome != static_cast<uint32_t>(ibgda::Outcome::ok)) return false;
  r->index += r->group_first;
  return true;
}

/* Write: this lane's WQE at r->index, its index patched in. */
__device__ __noinline__ inline void ibgda_post_write(ibgda_req *r) {
  uint32_t word = gpushmem_mlx5_bswap32(r->wqe.unit[0].ctrl.opmod_idx_opcode_be);
  word = (word & 0xff0000ffu) | ((static_cast<uint32_t>(r->index) & 0xffffu) << 8);
  r->wqe.unit[0].ctrl.opmod_idx_opcode_be = gpushmem_mlx5_bswap32(word);
  ibgda::write<IbgdaMem>(ibgda_qp(r), r->index, r->wqe);
}

/* Release: the blocks r->group_first.. r->group_blocks on, whose last WQE is this lane's (r->index), r->outcome saying
   whether they were published. */
__device__ __noinline__ inline void ibgda_post_release(ibgda_req *r) {
  const uint64_t first = r->group != 0 ? r->group_first : r->index;
  r->outcome = static_cast<uint32_t>(ibgda::publish_range<IbgdaMem>(
      ibgda_qp(r), first, r->group_blocks, first + r->group_blocks - gpushmem_mlx5_wqebbs(r->wqe.ds), false,
      ibgda_state().timeout_ns));
}

/* Publish: the group's WQEs at once, by its lowest lane, once every lane stored its own. */
__device__ __forceinline__ bool ibgda_post_publish(ibgda_req *r) {
  if (r->group == 0) {
    ibgda_post_release(r);
  } else {
    __syncwarp(r->group);  // every lane's units are stored before the leader's release publishes them
    if (static_cast<int>(linear_thread_index() & 31u) == __ffs(r->group) - 1) ibgda_post_release(r);
    const unsigned group = r->group;
    r->outcome = __shfl_sync(group, r->outcome, __ffs(group) - 1);
  }
  return r->outcome == static_cast<uint32_t>(ibgda::Outcome::ok);
}

/* The group's later warp-synchronous steps (reserve's and publish's shuffles, publish's __syncwarp) are now copied into
   every entry point, so the lanes of one group may run different copies (a heap put and a bounced put to one QP):
   sm_70 and later allow that, as long as every copy issues the same sequence of them, which ibgda_post keeps. */
__device__ __forceinline__ bool ibgda_post(ibgda_req *r) {
  if (!ibgda_post_reserve(r)) return false;
  ibgda_post_write(r);
  return ibgda_post_publish(r);
}

/* Every request posted to r->qp before is complete; false (r->outcome) on an error CQE or the device timeout. */
__device__ __noinline__ inline bool ibgda_step_wait(ibgda_req *r) {
  const ibgda::Outcome o = ibgda::quiet<IbgdaMem>(ibgda_qp(r), ibgda_state().timeout_ns);
  return o == ibgda::Outcome::ok || ibgda_failed(r, o);
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

/* Builders: fill r->wqe and post it (a length no data segment can carry builds nothing: the post step then fails
   the call). */
/* A WRITE of r->bytes (at most 2^31) from local segment r->src (under r->lkey) to symmetric r->dst. */
__device__ __forceinline__ bool ibgda_step_write(ibgda_req *r) {
  r->wqe.ds = 0;
  (void)mlx5::build_write(&r->wqe, ibgda_post_of(r), ibgda_remote(r, r->dst),
                          mlx5::Local{reinterpret_cast<uint64_t>(r->src), r->lkey}, r->bytes);
  return ibgda_post(r);
}
/* A WRITE carrying its payload (r->bytes, at most GPUSHMEM_IBGDA_INLINE_BYTES from r->src) in the WQE. */
__device__ __forceinline__ bool ibgda_step_write_inline(ibgda_req *r) {
  r->wqe.ds = 0;
  (void)mlx5::build_write_inline(&r->wqe, ibgda_post_of(r), ibgda_remote(r, r->dst), r->src,
                                 static_cast<uint32_t>(r->bytes));
  return ibgda_post(r);
}
/* A READ of r->bytes from symmetric r->src into local segment r->dst (under r->lkey). */
__device__ __forceinline__ bool ibgda_step_read(ibgda_req *r) {
  r->wqe.ds = 0;
  (void)mlx5::build_read(&r->wqe, ibgda_post_of(r), ibgda_remote(r, r->src),
                         mlx5::Local{reinterpret_cast<uint64_t>(r->dst), r->lkey}, r->bytes);
  return ibgda_post(r);
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
/* The QP an IBGDA event names, checked. */
__device__ __forceinline__ void ibgda_req_event(ibgda_req *r, const char *call, uint64_t ev) {
  const uint32_t qp = static_cast<uint32_t>(ev >> 40) & 0xffffu;
  if (state().ibgda == nullptr || qp >= static_cast<uint32_t>(state().n_pes) * ibgda_state().qps_per_peer)
    fail_argument(call, "event", static_cast<long long>(ev), "not an event of this PE's IBGDA queues");
  ibgda_req_at(r, call, "the request an event names", nullptr, static_cast<int>(qp / ibgda_state().qps_per_peer), qp);
  r->index = (ev & ((uint64_t{1} << 40) - 1)) - 1;
}
/* Whether r's request (r->index) is complete (polls its QP's CQ once); false with r->outcome set on an error CQE. */
__device__ __noinline__ inline bool ibgda_step_test(ibgda_req *r, bool *done) {
  const gpushmem_ibgda_qp_t &q = ibgda_qp(r);
  if (ibgda::poll_cq<IbgdaMem>(q) == ibgda::Outcome::error) return ibgda_failed(r, ibgda::Outcome::error);
  // `done` counts blocks, the index is the request's first block (its low 40 bits): done passes it once complete.
  *done = (IbgdaMem::load(&q.words->done) & ((uint64_t{1} << 40) - 1)) > r->index;
  return true;
}
/* Whether the request an IBGDA event names is complete. */
__device__ __noinline__ inline bool ibgda_event_test(const char *call, uint64_t ev) {
  ibgda_req r;
  ibgda_req_event(&r, call, ev);
  bool done = false;
  if (!ibgda_step_test(&r, &done)) fail_ibgda(&r);
  return done;
}

/* Waits for the request an IBGDA event names, up to GPUSHMEM_DEVICE_TIMEOUT. */
__device__ __noinline__ inline void ibgda_event_wait(const char *call, uint64_t ev) {
  ibgda_req r;
  ibgda_req_event(&r, call, ev);
  r.bytes = IbgdaMem::now_ns();  // when the wait started
  r.lkey = 32;                   // the pause between polls
  for (;;) {
    bool done = false;
    if (!ibgda_step_test(&r, &done)) fail_ibgda(&r);
    if (done) return;
    if (ibgda_state().timeout_ns != 0 && IbgdaMem::now_ns() - r.bytes > ibgda_state().timeout_ns) {
      r.outcome = static_cast<uint32_t>(ibgda::Outcome::timed_out);
      fail_ibgda(&r);
    }
    IbgdaMem::backoff(&r.lkey);
  }
}

/* The pieces of a transfer whose local segment is in the heap, r->dst/src/rest describing it: posted, one WQE per 2
   GiB. read: READs (r->dst local), else WRITEs. False (r->outcome) if a post failed. */
__device__ __forceinline__ bool ibgda_transfer_heap(ibgda_req *r, bool read) {
  r->lkey = ibgda_state().heap_lkey;
  while (r->rest != 0) {
    r->bytes = r->rest < size_t{0x80000000u} ? r->rest : size_t{0x80000000u};
    if (!(read ? ibgda_step_read(r) : ibgda_step_write(r))) return false;
    r->dst += r->bytes;
    r->src += r->bytes;
    r->rest -= r->bytes;
  }
  return true;
}

/* A put from outside the heap through the QP's bounce memory (after its first 64 bytes, held), one piece at a time,
   each complete before the next. */
__device__ __forceinline__ bool ibgda_step_put_bounced(ibgda_req *r) {
  r->lkey = ibgda_state().bounce_lkey;
  while (r->rest != 0) {
    const size_t piece = ibgda_state().bounce_bytes - 64u;
    r->bytes = r->rest < piece ? r->rest : piece;
    const uint8_t *from = r->src;
    r->src = ibgda_bounce(r) + 64;
    ibgda_step_copy(const_cast<uint8_t *>(r->src), from, r->bytes);
    if (!ibgda_step_write(r) || !ibgda_step_wait(r)) return false;
    r->src = from + r->bytes;
    r->dst += r->bytes;
    r->rest -= r->bytes;
  }
  return true;
}

/* putmem and putmem_nbi; returns the event of an nbi put whose source the NIC still reads (0: complete). */
__device__ __noinline__ inline uint64_t ibgda_putmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  if (bytes == 0) return 0;
  ibgda_req r;
  ibgda_req_start(&r, call, "RDMA WRITE", dest, pe);
  r.dst = static_cast<uint8_t *>(dest);
  r.src = static_cast<const uint8_t *>(source);
  r.rest = bytes;
  r.bytes = bytes;
  r.nbi = nbi ? 1u : 0u;
  r.event = 0;
  bool ok;
  if (ibgda_in_heap(source, bytes)) {
    ok = ibgda_transfer_heap(&r, false);
    if (ok && r.nbi != 0)
      r.event = ibgda_event(r.qp, r.index);
    else if (ok)
      ok = ibgda_step_wait(&r);
  } else if (bytes <= GPUSHMEM_IBGDA_INLINE_BYTES) {  // the WQE carries it: complete locally at once
    ok = ibgda_step_write_inline(&r);
  } else {
    ibgda_step_lock_bounce(&r);
    ok = ibgda_step_put_bounced(&r);
    ibgda_step_unlock_bounce(&r);
  }
  if (!ok) fail_ibgda(&r);
  return r.event;
}

/* A get into memory outside the heap through the QP's bounce memory (after its first 64 bytes, held), one piece at a
   time. */
__device__ __forceinline__ bool ibgda_step_get_bounced(ibgda_req *r) {
  r->lkey = ibgda_state().bounce_lkey;
  while (r->rest != 0) {
    const size_t piece = ibgda_state().bounce_bytes - 64u;
    r->bytes = r->rest < piece ? r->rest : piece;
    uint8_t *into = r->dst;
    r->dst = ibgda_bounce(r) + 64;
    if (!ibgda_step_read(r) || !ibgda_step_wait(r)) return false;
    ibgda_step_copy(into, r->dst, r->bytes);
    r->dst = into + r->bytes;
    r->src += r->bytes;
    r->rest -= r->bytes;
  }
  return true;
}

/* getmem and getmem_nbi; returns the event of an nbi get into the heap (0: the data is there). */
__device__ __noinline__ inline uint64_t ibgda_getmem(const char *call, void *dest, const void *source, size_t bytes,
                                                     int pe, bool nbi) {
  if (bytes == 0) return 0;
  ibgda_req r;
  ibgda_req_start(&r, call, "RDMA READ", source, pe);
  r.dst = static_cast<uint8_t *>(dest);
  r.src = static_cast<const uint8_t *>(source);
  r.rest = bytes;
  r.nbi = nbi ? 1u : 0u;
  r.event = 0;
  bool ok;
  if (ibgda_in_heap(dest, bytes)) {
    ok = ibgda_transfer_heap(&r, true);
    if (ok && r.nbi != 0)
      r.event = ibgda_event(r.qp, r.index);
    else if (ok)
      ok = ibgda_step_wait(&r);
  } else {
    ibgda_step_lock_bounce(&r);
    ok = ibgda_step_get_bounced(&r);
    ibgda_step_unlock_bounce(&r);
  }
  if (!ok) fail_ibgda(&r);
  return r.event;
}

/* One atomic on the r->width-byte word at symmetric r->dst (r->amo: a GPUSHMEM_PROXY_AMO_* code, r->operand,
   r->compare), its old value fetched into local r->fetch (under r->lkey), posted. XOR has no NIC form
   (ibgda_amo_fetch loops over compare-swaps): nothing is built for it. */
__device__ __forceinline__ bool ibgda_step_amo(ibgda_req *r) {
  const mlx5::Remote word = ibgda_remote(r, r->dst);
  const mlx5::Local into{reinterpret_cast<uint64_t>(r->fetch), r->lkey};
  const mlx5::Post p = ibgda_post_of(r);
  const uint32_t width = r->width, amo = r->amo;
  const uint64_t all = width == 4 ? 0xffffffffull : ~0ull;
  const uint64_t v = r->operand & all;
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
        mlx5::build_compare_swap(w, p, word, into, r->compare, v);
      else
        (void)mlx5::build_masked_compare_swap(w, p, word, into, 4, v, r->compare & all, all, all);
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
  return ibgda_post(r);
}

/* A request for an atomic on symmetric `dest` whose fetched word goes to the QP's bounce memory. */
__device__ __forceinline__ void ibgda_req_amo(ibgda_req *r, const char *call, const char *what, const void *dest,
                                              uint32_t amo, uint32_t width, uint64_t operand, int pe) {
  ibgda_req_start(r, call, what, dest, pe);
  r->dst = static_cast<uint8_t *>(const_cast<void *>(dest));
  r->amo = amo;
  r->width = width;
  r->operand = operand;
  r->compare = 0;
  r->lkey = ibgda_state().bounce_lkey;
}

/* The atomic of r with its old value fetched (its bounce memory held): posts, waits, r->event = the old value. */
__device__ __forceinline__ bool ibgda_fetch(ibgda_req *r) {
  r->fetch = ibgda_bounce(r) + 8;  // the fetched word; the first 8 bytes take discarded ones
  if (!ibgda_step_amo(r) || !ibgda_step_wait(r)) return false;
  r->event = IbgdaMem::load_fetched(r->fetch, r->width);
  return true;
}

/* xor, which the NIC has no form of: the old value fetched, then compare-swaps until one finds the word unchanged
   (r->operand: the xor's; its bounce memory held). r->event = the old value. */
__device__ __forceinline__ bool ibgda_step_xor(ibgda_req *r) {
  r->rest = r->operand;
  r->amo = GPUSHMEM_PROXY_AMO_LOAD;
  if (!ibgda_fetch(r)) return false;
  r->amo = GPUSHMEM_PROXY_AMO_CSWAP;
  do {
    r->compare = r->event;
    r->operand = (r->event ^ r->rest) & (r->width == 4 ? 0xffffffffull : ~0ull);
    if (!ibgda_fetch(r)) return false;
  } while (r->event != r->compare);
  return true;
}

/* A fetching atomic: the old value. Waits. */
__device__ __noinline__ inline uint64_t ibgda_amo_fetch(const char *call, const void *dest, uint32_t amo,
                                                        uint32_t width, uint64_t operand, uint64_t compare, int pe) {
  ibgda_req r;
  ibgda_req_amo(&r, call, "atomic", dest, amo, width, operand, pe);
  r.compare = compare;
  ibgda_step_lock_bounce(&r);
  const bool ok = r.amo == GPUSHMEM_PROXY_AMO_XOR ? ibgda_step_xor(&r) : ibgda_fetch(&r);
  ibgda_step_unlock_bounce(&r);
  if (!ok) fail_ibgda(&r);
  return r.event;
}

/* An atomic that returns nothing: posted (complete at quiet); xor waits (a compare-swap loop). */
__device__ __noinline__ inline void ibgda_amo(const char *call, void *dest, uint32_t amo, uint32_t width,
                                              uint64_t operand, int pe) {
  ibgda_req r;
  ibgda_req_amo(&r, call, "atomic", dest, amo, width, operand, pe);
  bool ok;
  if (r.amo == GPUSHMEM_PROXY_AMO_XOR) {
    ibgda_step_lock_bounce(&r);
    ok = ibgda_step_xor(&r);
    ibgda_step_unlock_bounce(&r);
  } else {
    r.fetch = ibgda_bounce(&r);
    ok = ibgda_step_amo(&r);
  }
  if (!ok) fail_ibgda(&r);
}

/* A signal update alone (signal_op, the device barrier's arrivals): posted. */
__device__ __noinline__ inline void ibgda_signal(const char *call, uint64_t *sig_addr, uint64_t value, bool add,
                                                 int pe) {
  ibgda_req r;
  ibgda_req_amo(&r, call, "signal atomic", sig_addr, add ? GPUSHMEM_PROXY_AMO_ADD : GPUSHMEM_PROXY_AMO_STORE, 8, value,
                pe);
  r.fetch = ibgda_bounce(&r);
  if (!ibgda_step_amo(&r)) fail_ibgda(&r);
}

/* put-with-signal: the WRITEs, then the signal's atomic with the fence flag on the same QP (it lands after the whole
   payload). Returns as ibgda_putmem. */
__device__ __noinline__ inline uint64_t ibgda_putmem_signal(const char *call, void *dest, const void *source,
                                                            size_t bytes, uint64_t *sig_addr, uint64_t signal, bool add,
                                                            int pe, bool nbi) {
  ibgda_req r;
  ibgda_req_amo(&r, call, "signal atomic", sig_addr, add ? GPUSHMEM_PROXY_AMO_ADD : GPUSHMEM_PROXY_AMO_STORE, 8, signal,
                pe);
  r.fetch = ibgda_bounce(&r);
  r.fence = 1;
  r.event = bytes != 0 ? ibgda_putmem(call, dest, source, bytes, pe, nbi) : 0;  // the same QP: this warp's for pe
  if (!ibgda_step_amo(&r)) fail_ibgda(&r);
  return r.event;
}

/* quiet (and fence) over IBGDA: every request posted to any QP before is complete. The QP walked lives in the request
   (local memory), so nothing stays live across the wait. */
__device__ __noinline__ inline void ibgda_quiet(const char *call) {
  ibgda_req r;
  ibgda_req_at(&r, call, "quiet", nullptr, 0, 0);
  for (; r.qp < static_cast<uint32_t>(state().n_pes) * ibgda_state().qps_per_peer; ++r.qp) {
    r.pe = static_cast<int>(r.qp / ibgda_state().qps_per_peer);
    if (state().peer_transport[r.pe] == GPUSHMEM_PEER_IBGDA && !ibgda_step_wait(&r)) fail_ibgda(&r);
  }
}

}  // namespace
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_IBGDA_CUH */
