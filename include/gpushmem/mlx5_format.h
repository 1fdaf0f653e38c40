/*
 * The mlx5 formats a GPU producer (IBGDA), the NIC emulator and the tests agree on: send WQE segments, opcodes,
 * the ctrl segment's flags, CQEs and the doorbell record. One definition, included by the host compiler (the
 * emulator, the real-NIC provisioner, tests) and by nvcc (the device producer). design.md §4 (IBGDA, NIC
 * emulator); every layout is rdma-core's <infiniband/mlx5dv.h> (transports-notes.md §1), and
 * tests/unit/test_mlx5_format.cpp checks each size, offset and constant against that header where it is
 * installed.
 *
 * Units: a send queue is a power-of-two ring of 64-byte WQE basic blocks (WQEBBs); a WQE is 1..n 16-byte
 * units ("DS"), WQEBB-aligned at its start, and continues into the next slot index (which may wrap to the
 * ring's start). Segments never straddle a 16-byte unit, so a WQE is written and read one unit at a time:
 * unit k of the WQE at index i lives at byte ((i * 64 + k * 16) mod ring_bytes).
 *
 * Byte order: every multi-byte field on the wire is big-endian; struct fields holding wire values end in
 * _be. The hosts are little-endian (as the rest of gpushmem assumes); the helpers below swap.
 *
 * What is built here (the shapes of transports-notes.md §1.3, RC only):
 *   WRITE         ctrl + raddr + data                          DS 3
 *   WRITE inline  ctrl + raddr + inline header + payload       DS 2 + ceil((4 + bytes) / 16)
 *   WRITE_IMM     as WRITE, the immediate in the ctrl segment
 *   READ          ctrl + raddr + data (local destination)      DS 3
 *   ATOMIC_CS/FA  ctrl + raddr + atomic + data (fetch buffer)  DS 4, 8-byte operands
 *   MASKED_FA     ctrl + raddr + masked + data                 DS 4, 4- or 8-byte (opmod 0x08 / 0x09)
 *   MASKED_CS     4 B: ctrl + raddr + masked + data            DS 4
 *                 8 B: ctrl + raddr + {swap, compare} + {swap mask, compare mask} + data   DS 5
 *   NOP           ctrl                                         DS 1
 */
#ifndef GPUSHMEM_MLX5_FORMAT_H
#define GPUSHMEM_MLX5_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GPUSHMEM_MLX5_INLINE static inline constexpr __host__ __device__
#elif defined(__cplusplus)
#define GPUSHMEM_MLX5_INLINE static inline constexpr
#else
#define GPUSHMEM_MLX5_INLINE static inline
#endif

/* A zeroed struct in C and C++ alike. */
#ifdef __cplusplus
#define GPUSHMEM_MLX5_ZERO \
  {}
#else
#define GPUSHMEM_MLX5_ZERO \
  { 0 }
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gpushmem/mlx5_format.h assumes a little-endian host"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- units ---- */
#define GPUSHMEM_MLX5_WQEBB 64u              /* MLX5_SEND_WQE_BB */
#define GPUSHMEM_MLX5_WQEBB_SHIFT 6u         /* MLX5_SEND_WQE_SHIFT */
#define GPUSHMEM_MLX5_DS_BYTES 16u           /* one "DS" unit */
#define GPUSHMEM_MLX5_MAX_DS 8u              /* the largest WQE built here: two WQEBBs */
#define GPUSHMEM_MLX5_INLINE_SEG 0x80000000u /* MLX5_INLINE_SEG: set in an inline segment's byte count */
/* The longest inline payload of a WQE built here: 8 units - ctrl - raddr, less the 4-byte header. */
#define GPUSHMEM_MLX5_MAX_INLINE (GPUSHMEM_MLX5_MAX_DS * 16u - 32u - 4u)
/* The device's inline put (shmem_p): payload that keeps the WQE at 3 units, like NVSHMEM's. */
#define GPUSHMEM_MLX5_INLINE_P_BYTES 12u

/* ---- opcodes (MLX5_OPCODE_*) ---- */
enum gpushmem_mlx5_opcode {
  GPUSHMEM_MLX5_OP_NOP = 0x00,
  GPUSHMEM_MLX5_OP_RDMA_WRITE = 0x08,
  GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM = 0x09,
  GPUSHMEM_MLX5_OP_SEND = 0x0a,
  GPUSHMEM_MLX5_OP_RDMA_READ = 0x10,
  GPUSHMEM_MLX5_OP_ATOMIC_CS = 0x11,
  GPUSHMEM_MLX5_OP_ATOMIC_FA = 0x12,
  GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS = 0x14,
  GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA = 0x15
};

/* Extended (masked) atomics carry their operand size in opmod (the ctrl segment's top byte). */
#define GPUSHMEM_MLX5_OPMOD_EXT_AMO_4 0x08u
#define GPUSHMEM_MLX5_OPMOD_EXT_AMO_8 0x09u

/* ---- the ctrl segment's fm_ce_se byte ---- */
#define GPUSHMEM_MLX5_CTRL_SOLICITED (1u << 1) /* MLX5_WQE_CTRL_SOLICITED */
#define GPUSHMEM_MLX5_CTRL_CQ_UPDATE (2u << 2) /* MLX5_WQE_CTRL_CQ_UPDATE: a CQE for this WQE */
#define GPUSHMEM_MLX5_CTRL_CE_MASK (3u << 2)
#define GPUSHMEM_MLX5_CTRL_FM_SHIFT 5u /* fence mode: bits 7..5, one of the values below */
enum gpushmem_mlx5_fence_mode {
  GPUSHMEM_MLX5_FM_NONE = 0,
  GPUSHMEM_MLX5_FM_INITIATOR_SMALL = 1, /* MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE */
  GPUSHMEM_MLX5_FM_FENCE = 2,           /* NVSHMEM's FM_FENCE */
  GPUSHMEM_MLX5_FM_STRONG_ORDERING = 3,
  GPUSHMEM_MLX5_FM_FENCE_AND_SMALL = 4 /* rdma-core's MLX5_WQE_CTRL_FENCE */
};

/* ---- CQE opcodes (op_own bits 7..4) and error syndromes ---- */
enum gpushmem_mlx5_cqe_opcode {
  GPUSHMEM_MLX5_CQE_REQ = 0,
  GPUSHMEM_MLX5_CQE_RESP_WR_IMM = 1,
  GPUSHMEM_MLX5_CQE_RESP_SEND = 2,
  GPUSHMEM_MLX5_CQE_REQ_ERR = 13,
  GPUSHMEM_MLX5_CQE_RESP_ERR = 14,
  GPUSHMEM_MLX5_CQE_INVALID = 15
};
enum gpushmem_mlx5_syndrome {
  GPUSHMEM_MLX5_SYND_OK = 0x00, /* not a syndrome: what the decoder returns for a well-formed WQE */
  GPUSHMEM_MLX5_SYND_LOCAL_LENGTH = 0x01,
  GPUSHMEM_MLX5_SYND_LOCAL_QP_OP = 0x02,
  GPUSHMEM_MLX5_SYND_LOCAL_PROT = 0x04,
  GPUSHMEM_MLX5_SYND_WR_FLUSH = 0x05,
  GPUSHMEM_MLX5_SYND_BAD_RESP = 0x10,
  GPUSHMEM_MLX5_SYND_LOCAL_ACCESS = 0x11,
  GPUSHMEM_MLX5_SYND_REMOTE_INVAL_REQ = 0x12,
  GPUSHMEM_MLX5_SYND_REMOTE_ACCESS = 0x13,
  GPUSHMEM_MLX5_SYND_REMOTE_OP = 0x14,
  GPUSHMEM_MLX5_SYND_TRANSPORT_RETRY_EXC = 0x15,
  GPUSHMEM_MLX5_SYND_RNR_RETRY_EXC = 0x16,
  GPUSHMEM_MLX5_SYND_REMOTE_ABORTED = 0x22
};

/* ---- doorbell record words (two BE32: receive, send) and the CQ's ---- */
#define GPUSHMEM_MLX5_DBR_RCV 0u   /* MLX5_RCV_DBR */
#define GPUSHMEM_MLX5_DBR_SND 1u   /* MLX5_SND_DBR: BE32(sq producer index & 0xffff) */
#define GPUSHMEM_MLX5_CQ_SET_CI 0u /* MLX5_CQ_SET_CI (rdma-core providers/mlx5, not mlx5dv.h): BE32(ci & 0xffffff) */
#define GPUSHMEM_MLX5_CQ_ARM_DB 1u /* MLX5_CQ_ARM_DB */

/* ---- segments (16 bytes each unless said) ---- */
typedef struct gpushmem_mlx5_ctrl_seg { /* mlx5_wqe_ctrl_seg */
  uint32_t opmod_idx_opcode_be;         /* opmod << 24 | wqe index (16 bits) << 8 | opcode */
  uint32_t qpn_ds_be;                   /* qpn << 8 | DS count */
  uint8_t signature;
  uint8_t dci_stream_channel_id_be[2]; /* bytes 9..10: unaligned in the real layout, so kept as bytes */
  uint8_t fm_ce_se;
  uint32_t imm_be;
} gpushmem_mlx5_ctrl_seg_t;

typedef struct gpushmem_mlx5_raddr_seg { /* mlx5_wqe_raddr_seg */
  uint64_t raddr_be;
  uint32_t rkey_be;
  uint32_t reserved;
} gpushmem_mlx5_raddr_seg_t;

typedef struct gpushmem_mlx5_data_seg { /* mlx5_wqe_data_seg */
  uint32_t byte_count_be;
  uint32_t lkey_be;
  uint64_t addr_be;
} gpushmem_mlx5_data_seg_t;

typedef struct gpushmem_mlx5_atomic_seg { /* mlx5_wqe_atomic_seg; 8-byte masked FA: {add, field boundary} */
  uint64_t swap_add_be;
  uint64_t compare_be;
} gpushmem_mlx5_atomic_seg_t;

typedef struct gpushmem_mlx5_masked32_seg { /* 4-byte masked atomics: CS {swap, compare, swap mask, compare
                                               mask}; FA {add, field boundary, 0, 0} */
  uint32_t w0_be, w1_be, w2_be, w3_be;
} gpushmem_mlx5_masked32_seg_t;

/* One 16-byte unit of a WQE, as the producer stores it (one vector store) and the consumer reads it. */
typedef union gpushmem_mlx5_unit {
  gpushmem_mlx5_ctrl_seg_t ctrl;
  gpushmem_mlx5_raddr_seg_t raddr;
  gpushmem_mlx5_data_seg_t data;
  gpushmem_mlx5_atomic_seg_t atomic;
  gpushmem_mlx5_masked32_seg_t masked32;
  uint8_t bytes[16];
  uint64_t words[2];
} gpushmem_mlx5_unit_t;

/* A WQE under construction: its units in order; `ds` of them are used. */
typedef struct gpushmem_mlx5_wqe {
  gpushmem_mlx5_unit_t unit[GPUSHMEM_MLX5_MAX_DS];
  uint32_t ds;
} gpushmem_mlx5_wqe_t;

/* ---- completion queue entries (64 bytes) ---- */
typedef struct gpushmem_mlx5_cqe64 { /* mlx5_cqe64: the fields a send-side poller and the emulator use */
  uint8_t rsvd0[44];
  uint32_t byte_cnt_be;     /* 44 */
  uint64_t timestamp_be;    /* 48 */
  uint32_t sop_drop_qpn_be; /* 56: qpn in the low 24 bits */
  uint16_t wqe_counter_be;  /* 60: the index of the WQE this completes */
  uint8_t signature;        /* 62 */
  uint8_t op_own;           /* 63: opcode << 4 | format << 2 | solicited << 1 | owner */
} gpushmem_mlx5_cqe64_t;

typedef struct gpushmem_mlx5_err_cqe { /* mlx5_err_cqe */
  uint8_t rsvd0[32];
  uint32_t srqn_be;             /* 32 */
  uint8_t rsvd1[18];            /* 36 */
  uint8_t vendor_err_synd;      /* 54 */
  uint8_t syndrome;             /* 55: enum gpushmem_mlx5_syndrome */
  uint32_t s_wqe_opcode_qpn_be; /* 56: the failed WQE's opcode << 24 | qpn */
  uint16_t wqe_counter_be;      /* 60 */
  uint8_t signature;
  uint8_t op_own;
} gpushmem_mlx5_err_cqe_t;

/* ---- byte order ---- */
/* A CQE syndrome's name, as rdma-core's ibv_wc_status names its meaning. */
GPUSHMEM_MLX5_INLINE const char *gpushmem_mlx5_syndrome_name(uint32_t syndrome) {
  switch (syndrome) {
    case GPUSHMEM_MLX5_SYND_OK:
      return "ok";
    case GPUSHMEM_MLX5_SYND_LOCAL_LENGTH:
      return "LOCAL_LENGTH_ERR";
    case GPUSHMEM_MLX5_SYND_LOCAL_QP_OP:
      return "LOCAL_QP_OP_ERR";
    case GPUSHMEM_MLX5_SYND_LOCAL_PROT:
      return "LOCAL_PROT_ERR";
    case GPUSHMEM_MLX5_SYND_WR_FLUSH:
      return "WR_FLUSH_ERR";
    case GPUSHMEM_MLX5_SYND_BAD_RESP:
      return "BAD_RESP_ERR";
    case GPUSHMEM_MLX5_SYND_LOCAL_ACCESS:
      return "LOCAL_ACCESS_ERR";
    case GPUSHMEM_MLX5_SYND_REMOTE_INVAL_REQ:
      return "REMOTE_INVAL_REQ_ERR";
    case GPUSHMEM_MLX5_SYND_REMOTE_ACCESS:
      return "REMOTE_ACCESS_ERR";
    case GPUSHMEM_MLX5_SYND_REMOTE_OP:
      return "REMOTE_OP_ERR";
    case GPUSHMEM_MLX5_SYND_TRANSPORT_RETRY_EXC:
      return "TRANSPORT_RETRY_EXC_ERR";
    case GPUSHMEM_MLX5_SYND_RNR_RETRY_EXC:
      return "RNR_RETRY_EXC_ERR";
    case GPUSHMEM_MLX5_SYND_REMOTE_ABORTED:
      return "REMOTE_ABORTED_ERR";
    default:
      return "UNKNOWN_SYNDROME";
  }
}

GPUSHMEM_MLX5_INLINE uint16_t gpushmem_mlx5_bswap16(uint16_t v) {
  return (uint16_t)((v >> 8) | (v << 8));
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_bswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
GPUSHMEM_MLX5_INLINE uint64_t gpushmem_mlx5_bswap64(uint64_t v) {
  return ((uint64_t)gpushmem_mlx5_bswap32((uint32_t)v) << 32) | gpushmem_mlx5_bswap32((uint32_t)(v >> 32));
}

/* ---- ring arithmetic ---- */
/* Byte offset of unit k of the WQE at index `idx` in a ring of `wqebbs` (a power of two) blocks. */
GPUSHMEM_MLX5_INLINE uint64_t gpushmem_mlx5_unit_offset(uint32_t wqebbs, uint32_t idx, uint32_t k) {
  return (((uint64_t)idx << GPUSHMEM_MLX5_WQEBB_SHIFT) + (uint64_t)k * GPUSHMEM_MLX5_DS_BYTES) &
         (((uint64_t)wqebbs << GPUSHMEM_MLX5_WQEBB_SHIFT) - 1u);
}
/* WQEBBs a WQE of `ds` units occupies. */
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_wqebbs(uint32_t ds) {
  return (ds * GPUSHMEM_MLX5_DS_BYTES + 63u) / 64u;
}
/* Units of an inline WRITE of `bytes` payload. */
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_inline_ds(uint32_t bytes) {
  return 2u + (4u + bytes + 15u) / 16u;
}

/* ---- segment builders (wire values from host values) ---- */
GPUSHMEM_MLX5_INLINE gpushmem_mlx5_ctrl_seg_t gpushmem_mlx5_ctrl(uint32_t opcode, uint32_t opmod, uint32_t wqe_idx,
                                                                 uint32_t qpn, uint32_t ds, uint32_t fm_ce_se,
                                                                 uint32_t imm_be) {
  gpushmem_mlx5_ctrl_seg_t c = GPUSHMEM_MLX5_ZERO;
  c.opmod_idx_opcode_be =
      gpushmem_mlx5_bswap32(((opmod & 0xffu) << 24) | ((wqe_idx & 0xffffu) << 8) | (opcode & 0xffu));
  c.qpn_ds_be = gpushmem_mlx5_bswap32(((qpn & 0xffffffu) << 8) | (ds & 0x3fu));
  c.fm_ce_se = (uint8_t)fm_ce_se;
  c.imm_be = imm_be;
  return c;
}
GPUSHMEM_MLX5_INLINE gpushmem_mlx5_raddr_seg_t gpushmem_mlx5_raddr(uint64_t raddr, uint32_t rkey) {
  gpushmem_mlx5_raddr_seg_t r = GPUSHMEM_MLX5_ZERO;
  r.raddr_be = gpushmem_mlx5_bswap64(raddr);
  r.rkey_be = gpushmem_mlx5_bswap32(rkey);
  return r;
}
GPUSHMEM_MLX5_INLINE gpushmem_mlx5_data_seg_t gpushmem_mlx5_data(uint32_t bytes, uint32_t lkey, uint64_t addr) {
  gpushmem_mlx5_data_seg_t d = GPUSHMEM_MLX5_ZERO;
  d.byte_count_be = gpushmem_mlx5_bswap32(bytes);
  d.lkey_be = gpushmem_mlx5_bswap32(lkey);
  d.addr_be = gpushmem_mlx5_bswap64(addr);
  return d;
}
GPUSHMEM_MLX5_INLINE gpushmem_mlx5_atomic_seg_t gpushmem_mlx5_atomic(uint64_t swap_add, uint64_t compare) {
  gpushmem_mlx5_atomic_seg_t a = GPUSHMEM_MLX5_ZERO;
  a.swap_add_be = gpushmem_mlx5_bswap64(swap_add);
  a.compare_be = gpushmem_mlx5_bswap64(compare);
  return a;
}
GPUSHMEM_MLX5_INLINE gpushmem_mlx5_masked32_seg_t gpushmem_mlx5_masked32(uint32_t w0, uint32_t w1, uint32_t w2,
                                                                         uint32_t w3) {
  gpushmem_mlx5_masked32_seg_t m = GPUSHMEM_MLX5_ZERO;
  m.w0_be = gpushmem_mlx5_bswap32(w0);
  m.w1_be = gpushmem_mlx5_bswap32(w1);
  m.w2_be = gpushmem_mlx5_bswap32(w2);
  m.w3_be = gpushmem_mlx5_bswap32(w3);
  return m;
}

/* ---- ctrl segment fields (host values from wire values) ---- */
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_opcode(const gpushmem_mlx5_ctrl_seg_t *c) {
  return gpushmem_mlx5_bswap32(c->opmod_idx_opcode_be) & 0xffu;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_opmod(const gpushmem_mlx5_ctrl_seg_t *c) {
  return gpushmem_mlx5_bswap32(c->opmod_idx_opcode_be) >> 24;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_index(const gpushmem_mlx5_ctrl_seg_t *c) {
  return (gpushmem_mlx5_bswap32(c->opmod_idx_opcode_be) >> 8) & 0xffffu;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_qpn(const gpushmem_mlx5_ctrl_seg_t *c) {
  return gpushmem_mlx5_bswap32(c->qpn_ds_be) >> 8;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_ds(const gpushmem_mlx5_ctrl_seg_t *c) {
  return gpushmem_mlx5_bswap32(c->qpn_ds_be) & 0x3fu;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_ctrl_fence_mode(const gpushmem_mlx5_ctrl_seg_t *c) {
  return (uint32_t)c->fm_ce_se >> GPUSHMEM_MLX5_CTRL_FM_SHIFT;
}
GPUSHMEM_MLX5_INLINE int gpushmem_mlx5_ctrl_signaled(const gpushmem_mlx5_ctrl_seg_t *c) {
  return (c->fm_ce_se & GPUSHMEM_MLX5_CTRL_CE_MASK) == GPUSHMEM_MLX5_CTRL_CQ_UPDATE;
}

/* ---- doorbells ---- */
/* The send word of the QP's doorbell record after posting up to producer index `pi`. */
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_dbr_send_value(uint32_t pi) {
  return gpushmem_mlx5_bswap32(pi & 0xffffu);
}
/* The 8 bytes written to the doorbell register (UAR) after the record: {BE32(pi << 8), BE32(qpn << 8)}, as one
   64-bit little-endian store (the first word at the lower address). The NIC takes the index from the record. */
GPUSHMEM_MLX5_INLINE uint64_t gpushmem_mlx5_doorbell_value(uint32_t pi, uint32_t qpn) {
  return (uint64_t)gpushmem_mlx5_bswap32((pi & 0xffffu) << 8) |
         ((uint64_t)gpushmem_mlx5_bswap32((qpn & 0xffffffu) << 8) << 32);
}

/* ---- CQEs ---- */
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_cqe_opcode(uint8_t op_own) {
  return (uint32_t)op_own >> 4;
}
GPUSHMEM_MLX5_INLINE uint32_t gpushmem_mlx5_cqe_owner(uint8_t op_own) {
  return op_own & 1u;
}
/* Ring mode (owner bits): CQE number n of a ring of `cqe_cnt` (a power of two) entries is the NIC's newest
   write when its opcode is not INVALID and its owner bit equals the lap parity of n. */
GPUSHMEM_MLX5_INLINE int gpushmem_mlx5_cqe_valid(uint8_t op_own, uint64_t n, uint32_t cqe_cnt) {
  return gpushmem_mlx5_cqe_opcode(op_own) != GPUSHMEM_MLX5_CQE_INVALID &&
         gpushmem_mlx5_cqe_owner(op_own) == ((n & cqe_cnt) != 0 ? 1u : 0u);
}
/* Collapsed mode (what IBGDA uses: the NIC always rewrites entry 0): the 64-bit index of the newest completed
   WQE, from its 16-bit counter and a 64-bit index `near` at most 2^15 before or after it. */
GPUSHMEM_MLX5_INLINE uint64_t gpushmem_mlx5_widen_counter(uint16_t counter, uint64_t near) {
  return near + (uint64_t)(int64_t)(int16_t)(uint16_t)(counter - (uint16_t)near);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- layout: pinned here, checked against rdma-core by tests/unit/test_mlx5_format.cpp ---- */
#ifdef __cplusplus
static_assert(sizeof(gpushmem_mlx5_ctrl_seg_t) == 16 && offsetof(gpushmem_mlx5_ctrl_seg_t, qpn_ds_be) == 4 &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, signature) == 8 &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, fm_ce_se) == 11 &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, imm_be) == 12,
              "mlx5 ctrl segment layout");
static_assert(sizeof(gpushmem_mlx5_raddr_seg_t) == 16 && sizeof(gpushmem_mlx5_data_seg_t) == 16 &&
                  sizeof(gpushmem_mlx5_atomic_seg_t) == 16 && sizeof(gpushmem_mlx5_masked32_seg_t) == 16 &&
                  sizeof(gpushmem_mlx5_unit_t) == 16,
              "mlx5 segments are 16-byte units");
static_assert(sizeof(gpushmem_mlx5_cqe64_t) == 64 && offsetof(gpushmem_mlx5_cqe64_t, byte_cnt_be) == 44 &&
                  offsetof(gpushmem_mlx5_cqe64_t, timestamp_be) == 48 &&
                  offsetof(gpushmem_mlx5_cqe64_t, sop_drop_qpn_be) == 56 &&
                  offsetof(gpushmem_mlx5_cqe64_t, wqe_counter_be) == 60 &&
                  offsetof(gpushmem_mlx5_cqe64_t, op_own) == 63,
              "mlx5 CQE layout");
static_assert(sizeof(gpushmem_mlx5_err_cqe_t) == 64 && offsetof(gpushmem_mlx5_err_cqe_t, vendor_err_synd) == 54 &&
                  offsetof(gpushmem_mlx5_err_cqe_t, syndrome) == 55 &&
                  offsetof(gpushmem_mlx5_err_cqe_t, s_wqe_opcode_qpn_be) == 56 &&
                  offsetof(gpushmem_mlx5_err_cqe_t, wqe_counter_be) == 60,
              "mlx5 error CQE layout");
static_assert(gpushmem_mlx5_bswap32(0x11223344u) == 0x44332211u &&
                  gpushmem_mlx5_bswap64(0x1122334455667788ull) == 0x8877665544332211ull,
              "byte swaps");
static_assert(gpushmem_mlx5_inline_ds(GPUSHMEM_MLX5_INLINE_P_BYTES) == 3 && gpushmem_mlx5_inline_ds(13) == 4 &&
                  gpushmem_mlx5_inline_ds(GPUSHMEM_MLX5_MAX_INLINE) == GPUSHMEM_MLX5_MAX_DS,
              "inline WRITE sizes");
static_assert(gpushmem_mlx5_widen_counter(0x0002, 0x1fffeull) == 0x20002ull &&
                  gpushmem_mlx5_widen_counter(0xfffe, 0x20001ull) == 0x1fffeull,
              "collapsed CQ counter widening across a 16-bit wrap");
#else
_Static_assert(sizeof(gpushmem_mlx5_ctrl_seg_t) == 16 && sizeof(gpushmem_mlx5_cqe64_t) == 64 &&
                   sizeof(gpushmem_mlx5_err_cqe_t) == 64,
               "mlx5 layouts");
#endif

#endif /* GPUSHMEM_MLX5_FORMAT_H */
