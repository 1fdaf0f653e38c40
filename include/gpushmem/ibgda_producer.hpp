/*
 * The producer side of an IBGDA queue pair (gpushmem/ibgda_qp.h), written once for the device code (PTX memory
 * operations) and the host threads of the emu tests (std::atomic_ref). design.md §4 (IBGDA, doorbell batching).
 * `Mem` supplies (scopes for the device: the words are shared by the GPU's warps, the send queue, the doorbell
 * record, the doorbell and the CQE by the GPU and the NIC):
 *   static uint64_t load(const uint64_t *w);              acquire, gpu scope
 *   static uint32_t load32(const uint32_t *w);            acquire, gpu scope (error)
 *   static void store(uint64_t *w, uint64_t v);           release, gpu scope
 *   static uint64_t fetch_add(uint64_t *w, uint64_t n);   relaxed (reservations, doorbells)
 *   static void raise(uint64_t *w, uint64_t v);           atomic max, release, gpu scope
 *   static bool try_lock(uint32_t *w);                    0 -> 1, acquire, gpu scope
 *   static void unlock(uint32_t *w);                      -> 0, release, gpu scope
 *   static void store_unit(uint8_t *dst, const gpushmem_mlx5_unit_t &u);  16 bytes into the send queue (weak)
 *   static void store_dbrec(uint32_t *w, uint32_t v);     release, system scope and cumulative: the send queue's
 *                                                         units other warps stored before `ready` moved are
 *                                                         visible to the NIC before the record
 *   static void store_doorbell(uint64_t *w, uint64_t v);  release, system scope (after the record)
 *   static uint32_t load_cqe_tail(const uint8_t *cqe);    bytes 60..63 of the CQE, acquire, system scope
 *   static uint8_t load_byte(const uint8_t *p);           relaxed, system scope (an error CQE's syndrome)
 *   static void record_error(gpushmem_ibgda_qp_words_t *w, uint32_t syndrome, uint64_t index);  first one wins
 *   static uint64_t now_ns();
 *   static void backoff(uint32_t *ns);
 *
 * One post: reserve (an atomic add, then a wait until the NIC has consumed the blocks it rewrites: first come,
 * first served), write the units, publish in reservation order, then ring
 * unless a later publisher will: the doorbell goes out when this publisher holds the newest reservation, or when
 * `batch` blocks wait unrung. A plain publisher that leaves its doorbell to a later one raises `owed` first; an
 * aggregated publisher never rings for itself (the next plain post or a quiet does) but rings what it is owed.
 * Ringing writes the doorbell record up to everything published, then the doorbell, under the QP's lock, so the
 * record only moves forward. Every wait ends at the QP's first error CQE, and the waits for the NIC after a
 * timeout.
 */
#pragma once

#include <stdint.h>

#include "gpushmem/ibgda_qp.h"
#include "gpushmem/mlx5_wqe.hpp"

#ifdef __CUDACC__
#define GPUSHMEM_IBGDA_HD __host__ __device__ __forceinline__
#else
#define GPUSHMEM_IBGDA_HD inline
#endif

namespace gpushmem::ibgda {

enum class Outcome : uint32_t {
  ok = 0,
  timed_out = 1,    // the NIC consumed nothing for timeout_ns (a stalled QP, or no NIC behind it)
  error = 2,        // the QP's first error CQE: words->error holds its syndrome, words->error_index its WQE
  bad_request = 3,  // the builder built nothing, or not as many blocks as reserved: NOPs took its place
};

// `counter`, the 16-bit index of a WQE known to start at or after `ref`, as a 64-bit index (at most 65535 on).
GPUSHMEM_IBGDA_HD uint64_t widen_forward(uint16_t counter, uint64_t ref) {
  return ref + static_cast<uint16_t>(counter - static_cast<uint16_t>(ref));
}

// Reads the collapsed CQE: raises `done` past the newest completed WQE; `error` on an error CQE (recorded).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome poll_cq(const gpushmem_ibgda_qp_t &q) {
  // `done` first, then the CQE: the CQE read is then at least as new as the one `done` came from, so its WQE
  // starts at or after done - 1 and the counter widens forward from there (outstanding blocks < 2^15).
  const uint64_t done = Mem::load(&q.words->done);
  const uint64_t ref = done == 0 ? 0 : done - 1;
  for (int tries = 0;; ++tries) {
    const uint32_t tail = Mem::load_cqe_tail(q.cqe);
    const uint8_t op_own = static_cast<uint8_t>(tail >> 24);
    const uint16_t counter = static_cast<uint16_t>(((tail & 0xffu) << 8) | ((tail >> 8) & 0xffu));
    const uint32_t opcode = gpushmem_mlx5_cqe_opcode(op_own);
    if (opcode == GPUSHMEM_MLX5_CQE_REQ_ERR) {
      // The syndrome belongs to this tail only if the tail did not change meanwhile (the NIC rewrites entry 0).
      const uint8_t syndrome = Mem::load_byte(q.cqe + 55);
      if (Mem::load_cqe_tail(q.cqe) != tail && tries < 8) continue;
      Mem::record_error(q.words, syndrome, widen_forward(counter, ref));
      return Outcome::error;
    }
    if (opcode != GPUSHMEM_MLX5_CQE_REQ) return Outcome::ok;  // nothing completed yet (INVALID)
    Mem::raise(&q.words->done, widen_forward(counter, ref) + 1);
    return Outcome::ok;
  }
}

// Rings the doorbell for everything published, unless another ringer already covered `upto` (<= ready).
template <class Mem>
GPUSHMEM_IBGDA_HD void ring(const gpushmem_ibgda_qp_t &q, uint64_t upto) {
  uint32_t pause = 32;
  while (Mem::load(&q.words->rung) < upto) {
    if (!Mem::try_lock(&q.words->lock)) {
      Mem::backoff(&pause);  // the holder rings everything published, this WQE included if it was by then
      continue;
    }
    const uint64_t ready = Mem::load(&q.words->ready);
    if (ready > Mem::load(&q.words->rung)) {
      Mem::store_dbrec(&q.dbrec[GPUSHMEM_MLX5_DBR_SND], gpushmem_mlx5_dbr_send_value(static_cast<uint32_t>(ready)));
      Mem::store_doorbell(q.doorbell, gpushmem_mlx5_doorbell_value(static_cast<uint32_t>(ready), q.qpn));
      Mem::store(&q.words->rung, ready);
      Mem::fetch_add(&q.words->doorbells, 1);
    }
    Mem::unlock(&q.words->lock);
  }
}

// Reserves n blocks (1 <= n <= wqebbs / 2); *first receives the first. Takes them at once (an atomic add: under
// contention nobody starves, where a compare-and-swap taken only once the send queue had room let a producer that
// slept lose to the ones awake for seconds: ibgda_post_rate, 32 x 8 warps on 4 QPs), then waits while the send
// queue has no room for them (blocks reserved before not yet consumed by the NIC), ringing what is published
// meanwhile, up to timeout_ns without the NIC consuming anything (0: for ever). A producer that gives up (or finds
// the QP failed) leaves its blocks unpublished: it marks the QP failed (GPUSHMEM_IBGDA_ERROR_TIMED_OUT) unless it
// already was, so the producers after it stop instead of waiting for them.
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome reserve(const gpushmem_ibgda_qp_t &q, uint32_t n, uint64_t *first, uint64_t timeout_ns) {
  if (Mem::load32(&q.words->error) != 0) return Outcome::error;
  const uint64_t idx = Mem::fetch_add(&q.words->resv, n);
  *first = idx;
  if (idx + n <= q.wqebbs) return Outcome::ok;
  // The reservation rewrites the blocks one send queue's length before it: every one must be consumed, and `done`
  // is a lower bound of the consumed blocks (acquire: the NIC's reads of them are over).
  const uint64_t need = idx + n - q.wqebbs;
  uint64_t start = 0, seen = 0;
  uint32_t pause = 32;
  for (;;) {
    const uint64_t done = Mem::load(&q.words->done);
    if (done >= need) return Outcome::ok;
    if (Mem::load32(&q.words->error) != 0) return Outcome::error;
    if (poll_cq<Mem>(q) == Outcome::error) return Outcome::error;
    if (Mem::load(&q.words->done) >= need) return Outcome::ok;
    // The blocks waited for may be unrung (aggregated posts, a deferred doorbell): ring what is published.
    const uint64_t ready = Mem::load(&q.words->ready);
    if (Mem::load(&q.words->rung) < ready) ring<Mem>(q, ready);
    const uint64_t now = Mem::now_ns();
    if (start == 0 || done != seen) {  // the NIC moved: the timeout counts from here
      start = now;
      seen = done;
    } else if (timeout_ns != 0 && now - start > timeout_ns) {
      Mem::record_error(q.words, GPUSHMEM_IBGDA_ERROR_TIMED_OUT, idx);
      return Outcome::timed_out;
    }
    Mem::backoff(&pause);
  }
}

// Writes a built WQE into its reserved blocks, one 16-byte unit at a time.
template <class Mem>
GPUSHMEM_IBGDA_HD void write(const gpushmem_ibgda_qp_t &q, uint64_t first, const gpushmem_mlx5_wqe_t &w) {
  for (uint32_t k = 0; k < w.ds && k < GPUSHMEM_MLX5_MAX_DS; ++k)
    Mem::store_unit(q.sq + gpushmem_mlx5_unit_offset(q.wqebbs, static_cast<uint32_t>(first), k), w.unit[k]);
}

// Publishes the WQEs at [first, first + n), the last of which starts at `last`, once every WQE reserved before them
// is published, then rings as the header says. `error` (nothing published) once the QP failed; `timed_out` (the QP
// marked failed) when the WQEs before them stay unpublished for timeout_ns (0: waits for ever), as when their
// producer's kernel stopped. Several WQEs at once: the lanes of a warp that reserved together (one reservation,
// one publish, at most one doorbell).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome publish_range(const gpushmem_ibgda_qp_t &q, uint64_t first, uint32_t n, uint64_t last,
                                        bool aggregate, uint64_t timeout_ns) {
  uint32_t pause = 32;
  uint64_t start = 0, seen = 0;
  for (;;) {
    const uint64_t ready = Mem::load(&q.words->ready);
    if (ready == first) break;
    if (Mem::load32(&q.words->error) != 0) return Outcome::error;
    const uint64_t now = Mem::now_ns();
    if (start == 0 || ready != seen) {
      start = now;
      seen = ready;
    } else if (timeout_ns != 0 && now - start > timeout_ns) {
      Mem::record_error(q.words, GPUSHMEM_IBGDA_ERROR_TIMED_OUT, first);
      return Outcome::timed_out;
    }
    Mem::backoff(&pause);
  }
  const uint64_t end = first + n;
  // Before `ready` moves: the publisher after this one sees what this one may leave to it.
  if (!aggregate) Mem::raise(&q.words->owed, end);
  Mem::store(&q.words->last_start, last);  // what a quiet waits to see completed
  Mem::store(&q.words->ready, end);
  if (aggregate) {
    const uint64_t owed = Mem::load(&q.words->owed);
    if (owed > Mem::load(&q.words->rung)) ring<Mem>(q, owed);
    return Outcome::ok;
  }
  const bool newest = Mem::load(&q.words->resv) == end;  // no later publisher will ring for this one
  if (newest || end - Mem::load(&q.words->rung) >= q.batch) ring<Mem>(q, end);
  return Outcome::ok;
}

// Publishes the one WQE at [first, first + n) (publish_range).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome publish(const gpushmem_ibgda_qp_t &q, uint64_t first, uint32_t n, bool aggregate,
                                  uint64_t timeout_ns = 0) {
  return publish_range<Mem>(q, first, n, first, aggregate, timeout_ns);
}

// Every WQE published before the call is complete at the NIC (its data moved, its fetched value delivered).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome quiet(const gpushmem_ibgda_qp_t &q, uint64_t timeout_ns) {
  if (Mem::load32(&q.words->error) != 0) return Outcome::error;
  const uint64_t last = Mem::load(&q.words->last_start);
  if (Mem::load(&q.words->ready) == 0) return Outcome::ok;
  const uint64_t start = Mem::now_ns();
  uint32_t pause = 32;
  for (;;) {
    // Ring what is published each time round: `ready` read now covers the WQE at `last` sooner or later.
    const uint64_t ready = Mem::load(&q.words->ready);
    if (Mem::load(&q.words->rung) < ready) ring<Mem>(q, ready);
    if (poll_cq<Mem>(q) == Outcome::error) return Outcome::error;
    if (Mem::load(&q.words->done) > last) return Outcome::ok;
    if (timeout_ns != 0 && Mem::now_ns() - start > timeout_ns) return Outcome::timed_out;
    Mem::backoff(&pause);
  }
}

// Builds, reserves, writes and publishes one work request of `blocks` blocks: build(gpushmem_mlx5_wqe_t *,
// const mlx5::Post &) fills it (its index is only known once reserved, so it is built after). A builder that
// builds nothing, or another size, gets its reservation filled with NOPs and `bad_request`. *index receives the
// first block.
template <class Mem, class Build>
GPUSHMEM_IBGDA_HD Outcome post(const gpushmem_ibgda_qp_t &q, uint32_t blocks, Build build, bool aggregate,
                               uint64_t timeout_ns, uint64_t *index = nullptr) {
  uint64_t first = 0;
  const Outcome o = reserve<Mem>(q, blocks, &first, timeout_ns);
  if (o != Outcome::ok) return o;
  if (index != nullptr) *index = first;
  gpushmem_mlx5_wqe_t w;
  w.ds = 0;
  build(&w, mlx5::Post{static_cast<uint32_t>(first), q.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE});
  const bool fits = w.ds != 0 && w.ds <= GPUSHMEM_MLX5_MAX_DS && gpushmem_mlx5_wqebbs(w.ds) == blocks;
  if (!fits) {
    // The reservation is published all the same (as NOPs, one a block), so the producers after it go on.
    for (uint32_t b = 0; b < blocks; ++b) {
      mlx5::build_nop(&w, mlx5::Post{static_cast<uint32_t>(first + b), q.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE});
      write<Mem>(q, first + b, w);
      const Outcome p = publish<Mem>(q, first + b, 1, false, timeout_ns);
      if (p != Outcome::ok) return p;
    }
    return Outcome::bad_request;
  }
  write<Mem>(q, first, w);
  return publish<Mem>(q, first, blocks, aggregate, timeout_ns);
}

}  // namespace gpushmem::ibgda
