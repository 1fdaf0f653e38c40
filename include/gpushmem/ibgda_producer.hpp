/*
 * The producer side of an IBGDA queue pair (gpushmem/ibgda_qp.h), written once for the device code (PTX memory
 * operations) and the host threads of the emu tests (std::atomic_ref). design.md §4 (IBGDA, doorbell batching).
 * `Mem` supplies:
 *   static uint64_t fetch_add(uint64_t *w, uint64_t n);   atomic, relaxed
 *   static uint64_t load(const uint64_t *w);              acquire
 *   static void store(uint64_t *w, uint64_t v);           release
 *   static void raise(uint64_t *w, uint64_t v);           atomic max, release
 *   static bool try_lock(uint32_t *w);                    0 -> 1, acquire
 *   static void unlock(uint32_t *w);                      -> 0, release
 *   static void store_unit(uint8_t *dst, const gpushmem_mlx5_unit_t &u);  16 bytes into the send queue
 *   static void store_dbrec(uint32_t *w, uint32_t v);     release, system scope (the NIC reads it)
 *   static void store_doorbell(uint64_t *w, uint64_t v);  release, system scope
 *   static uint32_t load_cqe_tail(const uint8_t *cqe);    bytes 60..63 of the CQE, acquire, system scope
 *   static uint8_t load_byte(const uint8_t *p);           (an error CQE's syndrome, after its tail)
 *   static void record_error(gpushmem_ibgda_qp_words_t *w, uint32_t syndrome, uint64_t index);  first one wins
 *   static uint64_t now_ns();
 *   static void backoff(uint32_t *ns);
 *
 * One post: reserve (waits only for the NIC to consume blocks reserved before), write the units, publish in
 * reservation order, then ring unless a later publisher will: the doorbell goes out when this publisher holds the
 * newest reservation, or when `batch` blocks wait unrung; an aggregated post never rings (the next plain post or a
 * quiet does). Ringing writes the doorbell record up to everything published, then the doorbell, under the QP's
 * lock, so the record only moves forward.
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
  timed_out = 1,  // the NIC consumed nothing for timeout_ns (a stalled QP, or no NIC behind it)
  error = 2,      // an error CQE: words->error holds its syndrome, words->error_index its WQE
};

// Reads the collapsed CQE: raises `done` past the newest completed WQE; `error` on an error CQE (recorded).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome poll_cq(const gpushmem_ibgda_qp_t &q) {
  const uint32_t tail = Mem::load_cqe_tail(q.cqe);
  const uint8_t op_own = static_cast<uint8_t>(tail >> 24);
  const uint16_t counter = static_cast<uint16_t>(((tail & 0xffu) << 8) | ((tail >> 8) & 0xffu));
  const uint32_t opcode = gpushmem_mlx5_cqe_opcode(op_own);
  if (opcode == GPUSHMEM_MLX5_CQE_REQ_ERR) {
    Mem::record_error(q.words, Mem::load_byte(q.cqe + 55), counter);
    return Outcome::error;
  }
  if (opcode != GPUSHMEM_MLX5_CQE_REQ) return Outcome::ok;  // nothing completed yet (INVALID)
  const uint64_t done = Mem::load(&q.words->done);
  // The newest completed WQE starts at most one send queue's length before `done` or after it.
  const uint64_t start = gpushmem_mlx5_widen_counter(counter, done == 0 ? 0 : done - 1);
  Mem::raise(&q.words->done, start + 1);
  return Outcome::ok;
}

// Reserves n blocks (1 <= n <= wqebbs); *first receives the first. Waits while the send queue holds no room for
// them (blocks reserved before not yet consumed by the NIC), up to timeout_ns (0: for ever).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome reserve(const gpushmem_ibgda_qp_t &q, uint32_t n, uint64_t *first, uint64_t timeout_ns) {
  const uint64_t idx = Mem::fetch_add(&q.words->resv, n);
  *first = idx;
  // `done` is one past the first block of the newest completed WQE: every block below it is consumed (that
  // WQE's later blocks too, but its size is not known here, so they count as in use). The reservation rewrites
  // the blocks one send queue's length before it.
  if (idx + n <= q.wqebbs) return Outcome::ok;
  const uint64_t need = idx + n - q.wqebbs;  // done must reach this
  if (Mem::load(&q.words->done) >= need) return Outcome::ok;
  const uint64_t start = Mem::now_ns();
  uint32_t pause = 32;
  for (;;) {
    if (poll_cq<Mem>(q) == Outcome::error) return Outcome::error;
    if (Mem::load(&q.words->done) >= need) return Outcome::ok;
    // The blocks this reservation waits for may still be unrung (aggregated posts): ring what is published.
    if (Mem::load(&q.words->rung) < Mem::load(&q.words->ready)) {
      if (Mem::try_lock(&q.words->lock)) {
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
    if (timeout_ns != 0 && Mem::now_ns() - start > timeout_ns) return Outcome::timed_out;
    Mem::backoff(&pause);
  }
}

// Writes a built WQE into its reserved blocks, one 16-byte unit at a time.
template <class Mem>
GPUSHMEM_IBGDA_HD void write(const gpushmem_ibgda_qp_t &q, uint64_t first, const gpushmem_mlx5_wqe_t &w) {
  for (uint32_t k = 0; k < w.ds; ++k)
    Mem::store_unit(q.sq + gpushmem_mlx5_unit_offset(q.wqebbs, static_cast<uint32_t>(first), k), w.unit[k]);
}

// Rings the doorbell for everything published, unless another ringer already covered `upto`.
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

// Publishes the WQE at [first, first + n) once every WQE reserved before it is published, then rings as the
// header says.
template <class Mem>
GPUSHMEM_IBGDA_HD void publish(const gpushmem_ibgda_qp_t &q, uint64_t first, uint32_t n, bool aggregate) {
  uint32_t pause = 32;
  while (Mem::load(&q.words->ready) != first) Mem::backoff(&pause);
  Mem::store(&q.words->last_start, first);
  Mem::store(&q.words->ready, first + n);
  if (aggregate) return;
  const uint64_t end = first + n;
  const bool newest = Mem::load(&q.words->resv) == end;  // no later publisher will ring for this one
  if (newest || end - Mem::load(&q.words->rung) >= q.batch) ring<Mem>(q, end);
}

// Every WQE published before the call is complete at the NIC (its data moved, its fetched value delivered).
template <class Mem>
GPUSHMEM_IBGDA_HD Outcome quiet(const gpushmem_ibgda_qp_t &q, uint64_t timeout_ns) {
  const uint64_t ready = Mem::load(&q.words->ready);
  if (ready == 0) return Outcome::ok;
  const uint64_t last = Mem::load(&q.words->last_start);
  ring<Mem>(q, ready);
  const uint64_t start = Mem::now_ns();
  uint32_t pause = 32;
  for (;;) {
    if (poll_cq<Mem>(q) == Outcome::error) return Outcome::error;
    if (Mem::load(&q.words->done) > last) return Outcome::ok;
    if (timeout_ns != 0 && Mem::now_ns() - start > timeout_ns) return Outcome::timed_out;
    Mem::backoff(&pause);
  }
}

// Builds, reserves, writes and publishes one work request: build(gpushmem_mlx5_wqe_t *, const mlx5::Post &) fills
// it (its index is only known once reserved, so the WQE is built after). *index receives its first block.
template <class Mem, class Build>
GPUSHMEM_IBGDA_HD Outcome post(const gpushmem_ibgda_qp_t &q, uint32_t blocks, Build build, bool aggregate,
                               uint64_t timeout_ns, uint64_t *index = nullptr) {
  uint64_t first = 0;
  const Outcome o = reserve<Mem>(q, blocks, &first, timeout_ns);
  if (o != Outcome::ok) return o;
  gpushmem_mlx5_wqe_t w;
  build(&w, mlx5::Post{static_cast<uint32_t>(first), q.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE});
  write<Mem>(q, first, w);
  publish<Mem>(q, first, blocks, aggregate);
  if (index != nullptr) *index = first;
  return Outcome::ok;
}

}  // namespace gpushmem::ibgda
