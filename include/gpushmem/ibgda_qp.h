/*
 * An IBGDA queue pair as its producers see it: the NIC's objects (send queue, doorbell record, doorbell, the
 * collapsed CQ's entry) and the producers' own words. One definition, included by the host compiler (the
 * provisioners, the emulator's tests) and by nvcc (the device producer, gpushmem/ibgda_producer.hpp). design.md
 * §4 (IBGDA).
 *
 * Indices count 64-byte send-queue blocks (WQEBBs), monotonic 64-bit; the NIC sees their low 16 bits.
 *   resv        reserved: a producer takes n blocks with an atomic add (a ticket: first come, first served),
 *               then waits until the NIC has consumed the blocks they rewrite. Every reserved block gets
 *               published, unless the QP fails (error below).
 *   ready       published, in reservation order: every WQE below it is written. A producer publishes its
 *               WQE once ready equals its start, so the doorbell record never covers a block being written.
 *   last_start  the first block of the newest published WQE: what a quiet waits to see completed.
 *   rung        what the doorbell record (and the doorbell after it) covers. Raised under `lock` only, so the
 *               record never goes back.
 *   done        one past the first block of the newest WQE the CQ reported complete (a lower bound of the
 *               blocks the NIC has consumed: room for reservations, and what quiet compares).
 *   owed        the end of the newest plain (not aggregated) WQE: a publisher that leaves its doorbell to a
 *               later one raises it before publishing, and an aggregated publisher after it rings up to it.
 *   doorbells   doorbells written (the batching tests read it).
 *   error, error_index  the first error CQE a producer saw (syndrome, its WQE's block index), or
 *               GPUSHMEM_IBGDA_ERROR_TIMED_OUT when a producer gave up waiting for the NIC with blocks reserved
 *               that will never be published: sticky; every later post, publish and quiet on the QP returns the
 *               error.
 * Every WQE is posted with CQ_UPDATE: the collapsed CQ's counter then always names the newest completed WQE.
 * A send queue must hold at least two of the largest WQEs posted to it (4 blocks here): `done` counts only a
 * completed WQE's first block, so a reservation never waits for the rest of the newest one.
 */
#ifndef GPUSHMEM_IBGDA_QP_H
#define GPUSHMEM_IBGDA_QP_H

#include <stddef.h>
#include <stdint.h>

/* words.error when a producer timed out holding a reservation (above any 8-bit syndrome). */
#define GPUSHMEM_IBGDA_ERROR_TIMED_OUT 0x100u

typedef struct gpushmem_ibgda_qp_words {
  uint64_t resv;
  uint64_t ready;
  uint64_t last_start;
  uint64_t rung;
  uint64_t done;
  uint64_t owed;
  uint64_t doorbells;
  uint64_t error_index;
  uint32_t lock;  /* 0 free, 1 held: who raises `rung` and writes the record and the doorbell */
  uint32_t error; /* 0, or the syndrome of the first error CQE a producer saw (sticky) */
} gpushmem_ibgda_qp_words_t;

typedef struct gpushmem_ibgda_qp {
  uint8_t *sq;        /* wqebbs blocks of 64 bytes */
  uint32_t *dbrec;    /* [GPUSHMEM_MLX5_DBR_RCV], [GPUSHMEM_MLX5_DBR_SND], big-endian */
  uint64_t *doorbell; /* the doorbell register (UAR), or the emulator's wake-up word */
  uint8_t *cqe;       /* the collapsed CQ's entry 0 (64 bytes) */
  gpushmem_ibgda_qp_words_t *words;
  uint32_t wqebbs; /* a power of two, 4 to 32768 (the CQ's 16-bit counter is widened forward) */
  uint32_t qpn;
  uint32_t batch; /* GPUSHMEM_IBGDA_BATCH: a publisher that is not the newest rings once this many blocks
                     wait unrung */
  uint32_t reserved;
} gpushmem_ibgda_qp_t;

/* What device code needs to reach PEs through IBGDA (the device state's `ibgda`, NULL when no peer is): filled
   by the provisioner (transports/ibgda). A work request to PE pe goes to qps[pe * qps_per_peer + w %
   qps_per_peer], w the issuing warp's global number; a symmetric address `sym` of this PE's GPU heap is
   remote_base[pe] + (sym - heap_base) under rkeys[pe] there. Local buffers in this PE's GPU heap go under
   heap_lkey; others travel inline (small) or through the issuing QP's share of `bounce` (bounce_bytes a QP,
   under bounce_lkey), which bounce_locks[qp] guards; its first 8 bytes take the old values nobody reads. */
typedef struct gpushmem_ibgda_state {
  const gpushmem_ibgda_qp_t *qps; /* device array [n_pes * qps_per_peer] */
  const uint32_t *rkeys;          /* device array [n_pes] */
  const uint64_t *remote_base;    /* device array [n_pes] */
  uint8_t *bounce;                /* device memory: bounce_bytes per QP, in qps' order */
  uint32_t *bounce_locks;         /* device array [n_pes * qps_per_peer]: 0 free, 1 held */
  uint32_t qps_per_peer;
  uint32_t heap_lkey;
  uint32_t bounce_lkey;
  uint32_t bounce_bytes; /* a multiple of 64, at least 128 */
  uint64_t timeout_ns;   /* GPUSHMEM_DEVICE_TIMEOUT: a wait for the NIC that takes longer stops the kernel */
} gpushmem_ibgda_state_t;

#ifdef __cplusplus
static_assert(sizeof(gpushmem_ibgda_state_t) == 64 && offsetof(gpushmem_ibgda_state_t, qps_per_peer) == 40,
              "ibgda state layout changed");
#else
_Static_assert(sizeof(gpushmem_ibgda_state_t) == 64, "ibgda state layout changed");
#endif

#ifdef __cplusplus
static_assert(sizeof(gpushmem_ibgda_qp_words_t) == 72 && offsetof(gpushmem_ibgda_qp_words_t, lock) == 64,
              "ibgda qp words layout changed");
static_assert(sizeof(gpushmem_ibgda_qp_t) == 56 && offsetof(gpushmem_ibgda_qp_t, wqebbs) == 40,
              "ibgda qp layout changed");
#else
_Static_assert(sizeof(gpushmem_ibgda_qp_words_t) == 72, "ibgda qp words layout changed");
_Static_assert(sizeof(gpushmem_ibgda_qp_t) == 56, "ibgda qp layout changed");
#endif

#endif /* GPUSHMEM_IBGDA_QP_H */
