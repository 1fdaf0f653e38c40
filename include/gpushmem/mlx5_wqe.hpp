// The mlx5 WQE encoder and decoder, written once for the device producer (nvcc), the NIC emulator and the tests
// (host compiler): builders fill a gpushmem_mlx5_wqe_t with the units of one work request
// (gpushmem/mlx5_format.h lists the shapes), the decoder reads one back from a send queue, validates it as a
// NIC would (answering with the syndrome the NIC would report), and the apply functions give the atomics'
// semantics (what the target word becomes, what the initiator fetches). design.md §4 (IBGDA, NIC emulator).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "gpushmem/mlx5_format.h"

#if defined(__CUDACC__)
#define GPUSHMEM_MLX5_HD inline __host__ __device__
#else
#define GPUSHMEM_MLX5_HD inline
#endif

namespace gpushmem::mlx5 {

using Unit = gpushmem_mlx5_unit_t;
using Wqe = gpushmem_mlx5_wqe_t;

// Where a work request posts: its WQE index (the SQ producer index before it), its QP and the ctrl segment's
// flags (GPUSHMEM_MLX5_CTRL_CQ_UPDATE, fence mode << GPUSHMEM_MLX5_CTRL_FM_SHIFT).
struct Post {
  uint32_t index;
  uint32_t qpn;
  uint32_t flags;
};
// The initiator's buffer (a data segment) and the target's (the raddr segment).
struct Local {
  uint64_t addr;
  uint32_t lkey;
};
struct Remote {
  uint64_t addr;
  uint32_t rkey;
};

namespace detail {
GPUSHMEM_MLX5_HD void ctrl(Wqe *w, uint32_t opcode, uint32_t opmod, const Post &p, uint32_t ds, uint32_t imm_be = 0) {
  w->unit[0].ctrl = gpushmem_mlx5_ctrl(opcode, opmod, p.index, p.qpn, ds, p.flags, imm_be);
  w->ds = ds;
}
}  // namespace detail

GPUSHMEM_MLX5_HD void build_nop(Wqe *w, const Post &p) {
  detail::ctrl(w, GPUSHMEM_MLX5_OP_NOP, 0, p, 1);
}

// A data segment's length: 1 .. 2^31 bytes, 2^31 written as 0 (what an mlx5 NIC reads a 0 as). A zero-length
// transfer has no data segment: the builders below refuse it (a WRITE of nothing is an inline WRITE of 0 bytes).
GPUSHMEM_MLX5_HD bool data_length_ok(uint64_t bytes) {
  return bytes != 0 && bytes <= 0x80000000ull;
}

// RDMA WRITE of `bytes` (1 .. 2^31) from `src` to `dst`; with `imm_be` (already big-endian, as rdma-core takes it)
// as WRITE_IMM when `with_imm`. False (nothing built) for another length.
GPUSHMEM_MLX5_HD bool build_write(Wqe *w, const Post &p, const Remote &dst, const Local &src, uint64_t bytes,
                                  bool with_imm = false, uint32_t imm_be = 0) {
  if (!data_length_ok(bytes)) return false;
  detail::ctrl(w, with_imm ? GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM : GPUSHMEM_MLX5_OP_RDMA_WRITE, 0, p, 3,
               with_imm ? imm_be : 0);
  w->unit[1].raddr = gpushmem_mlx5_raddr(dst.addr, dst.rkey);
  w->unit[2].data = gpushmem_mlx5_data(static_cast<uint32_t>(bytes & 0x7fffffffu), src.lkey, src.addr);
  return true;
}

// RDMA WRITE with the payload inline (no local key): up to GPUSHMEM_MLX5_MAX_INLINE bytes; false (nothing
// built) above that.
GPUSHMEM_MLX5_HD bool build_write_inline(Wqe *w, const Post &p, const Remote &dst, const void *payload,
                                         uint32_t bytes) {
  if (bytes > GPUSHMEM_MLX5_MAX_INLINE) return false;
  const uint32_t ds = gpushmem_mlx5_inline_ds(bytes);
  detail::ctrl(w, GPUSHMEM_MLX5_OP_RDMA_WRITE, 0, p, ds);
  w->unit[1].raddr = gpushmem_mlx5_raddr(dst.addr, dst.rkey);
  for (uint32_t k = 2; k < ds; ++k) w->unit[k].words[0] = w->unit[k].words[1] = 0;
  const uint32_t header = gpushmem_mlx5_bswap32(bytes | GPUSHMEM_MLX5_INLINE_SEG);
  for (uint32_t b = 0; b < 4; ++b) w->unit[2].bytes[b] = static_cast<uint8_t>(header >> (8 * b));
  const auto *src = static_cast<const uint8_t *>(payload);
  for (uint32_t b = 0; b < bytes; ++b) w->unit[2 + (4 + b) / 16].bytes[(4 + b) % 16] = src[b];
  return true;
}

// RDMA READ of `bytes` (1 .. 2^31) from `src` (the target's) into `dst` (the initiator's). False (nothing built)
// for another length.
GPUSHMEM_MLX5_HD bool build_read(Wqe *w, const Post &p, const Remote &src, const Local &dst, uint64_t bytes) {
  if (!data_length_ok(bytes)) return false;
  detail::ctrl(w, GPUSHMEM_MLX5_OP_RDMA_READ, 0, p, 3);
  w->unit[1].raddr = gpushmem_mlx5_raddr(src.addr, src.rkey);
  w->unit[2].data = gpushmem_mlx5_data(static_cast<uint32_t>(bytes & 0x7fffffffu), dst.lkey, dst.addr);
  return true;
}

// 8-byte fetch-and-add and compare-and-swap; the old value lands at `fetch` (8 bytes).
GPUSHMEM_MLX5_HD void build_fetch_add(Wqe *w, const Post &p, const Remote &word, const Local &fetch, uint64_t add) {
  detail::ctrl(w, GPUSHMEM_MLX5_OP_ATOMIC_FA, 0, p, 4);
  w->unit[1].raddr = gpushmem_mlx5_raddr(word.addr, word.rkey);
  w->unit[2].atomic = gpushmem_mlx5_atomic(add, 0);
  w->unit[3].data = gpushmem_mlx5_data(8, fetch.lkey, fetch.addr);
}
GPUSHMEM_MLX5_HD void build_compare_swap(Wqe *w, const Post &p, const Remote &word, const Local &fetch,
                                         uint64_t compare, uint64_t swap) {
  detail::ctrl(w, GPUSHMEM_MLX5_OP_ATOMIC_CS, 0, p, 4);
  w->unit[1].raddr = gpushmem_mlx5_raddr(word.addr, word.rkey);
  w->unit[2].atomic = gpushmem_mlx5_atomic(swap, compare);
  w->unit[3].data = gpushmem_mlx5_data(8, fetch.lkey, fetch.addr);
}

// Masked (extended) atomics on a 4- or 8-byte word; false (nothing built) for another width.
//   fetch-add: each field of the word (a set bit in `boundary` marks a field's most significant bit) gets
//              its part of `add` without carrying into the next; boundary 0 is a plain add.
//   compare-swap: when (old ^ compare) & compare_mask is 0, the bits of swap_mask take swap's.
GPUSHMEM_MLX5_HD bool build_masked_fetch_add(Wqe *w, const Post &p, const Remote &word, const Local &fetch,
                                             uint32_t width, uint64_t add, uint64_t boundary) {
  if (width != 4 && width != 8) return false;
  detail::ctrl(w, GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA,
               width == 4 ? GPUSHMEM_MLX5_OPMOD_EXT_AMO_4 : GPUSHMEM_MLX5_OPMOD_EXT_AMO_8, p, 4);
  w->unit[1].raddr = gpushmem_mlx5_raddr(word.addr, word.rkey);
  if (width == 4)
    w->unit[2].masked32 = gpushmem_mlx5_masked32(static_cast<uint32_t>(add), static_cast<uint32_t>(boundary), 0, 0);
  else
    w->unit[2].atomic = gpushmem_mlx5_atomic(add, boundary);
  w->unit[3].data = gpushmem_mlx5_data(width, fetch.lkey, fetch.addr);
  return true;
}
GPUSHMEM_MLX5_HD bool build_masked_compare_swap(Wqe *w, const Post &p, const Remote &word, const Local &fetch,
                                                uint32_t width, uint64_t swap, uint64_t compare, uint64_t swap_mask,
                                                uint64_t compare_mask) {
  if (width != 4 && width != 8) return false;
  const uint32_t ds = width == 4 ? 4 : 5;
  detail::ctrl(w, GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS,
               width == 4 ? GPUSHMEM_MLX5_OPMOD_EXT_AMO_4 : GPUSHMEM_MLX5_OPMOD_EXT_AMO_8, p, ds);
  w->unit[1].raddr = gpushmem_mlx5_raddr(word.addr, word.rkey);
  if (width == 4) {
    w->unit[2].masked32 = gpushmem_mlx5_masked32(static_cast<uint32_t>(swap), static_cast<uint32_t>(compare),
                                                 static_cast<uint32_t>(swap_mask), static_cast<uint32_t>(compare_mask));
  } else {
    w->unit[2].atomic = gpushmem_mlx5_atomic(swap, compare);
    w->unit[3].atomic = gpushmem_mlx5_atomic(swap_mask, compare_mask);
  }
  w->unit[ds - 1].data = gpushmem_mlx5_data(width, fetch.lkey, fetch.addr);
  return true;
}

// ---- decoding (the emulator's view of a posted WQE) ----

struct Decoded {
  uint32_t opcode = 0, opmod = 0, index = 0, qpn = 0, ds = 0, fence_mode = 0;
  bool signaled = false;
  uint32_t imm_be = 0;
  uint64_t raddr = 0;  // the target's address and key (not NOP)
  uint32_t rkey = 0;
  uint64_t laddr = 0;  // the initiator's buffer (WRITE source, READ destination, the atomics' fetch buffer)
  uint32_t lkey = 0;
  uint64_t bytes = 0;         // WRITE / READ length (a data segment's 0 is 2^31); atomics: the word's width
  bool is_inline = false;     // a WRITE whose payload follows its inline header (unit 2, byte 4 on)
  uint64_t swap_add = 0;      // FA: the addend; CS: the swap value
  uint64_t compare = 0;       // CS: the expected value; masked FA: the field boundary
  uint64_t swap_mask = 0;     // masked CS
  uint64_t compare_mask = 0;  // masked CS
};

// Decodes the WQE whose units read_unit(k) returns (k = 0 .. ds-1; read_unit may wrap around the ring) and
// validates it as the NIC would: GPUSHMEM_MLX5_SYND_OK, or LOCAL_QP_OP (an opcode, opmod or unit count that does
// not make a WQE this format knows) or LOCAL_LENGTH (a length that does not fit its WQE or its operation). The
// caller checks what needs the QP's context (index, QPN, keys, bounds).
template <class ReadUnit>
GPUSHMEM_MLX5_HD uint32_t decode(ReadUnit read_unit, Decoded *d) {
  *d = Decoded{};
  const Unit u0 = read_unit(0u);
  d->opcode = gpushmem_mlx5_ctrl_opcode(&u0.ctrl);
  d->opmod = gpushmem_mlx5_ctrl_opmod(&u0.ctrl);
  d->index = gpushmem_mlx5_ctrl_index(&u0.ctrl);
  d->qpn = gpushmem_mlx5_ctrl_qpn(&u0.ctrl);
  d->ds = gpushmem_mlx5_ctrl_ds(&u0.ctrl);
  d->fence_mode = gpushmem_mlx5_ctrl_fence_mode(&u0.ctrl);
  d->signaled = gpushmem_mlx5_ctrl_signaled(&u0.ctrl) != 0;
  d->imm_be = u0.ctrl.imm_be;
  if (d->ds == 0 || d->ds > GPUSHMEM_MLX5_MAX_DS) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
  if (d->opcode == GPUSHMEM_MLX5_OP_NOP) return d->opmod == 0 ? GPUSHMEM_MLX5_SYND_OK : GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
  if (d->ds < 3) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
  const Unit u1 = read_unit(1u);
  d->raddr = gpushmem_mlx5_bswap64(u1.raddr.raddr_be);
  d->rkey = gpushmem_mlx5_bswap32(u1.raddr.rkey_be);
  const Unit u2 = read_unit(2u);
  const auto take_data = [d](const Unit &u) {
    const uint32_t count = gpushmem_mlx5_bswap32(u.data.byte_count_be);
    d->bytes = count != 0 ? count : 0x80000000ull;
    d->lkey = gpushmem_mlx5_bswap32(u.data.lkey_be);
    d->laddr = gpushmem_mlx5_bswap64(u.data.addr_be);
  };
  switch (d->opcode) {
    case GPUSHMEM_MLX5_OP_RDMA_WRITE:
    case GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM:
    case GPUSHMEM_MLX5_OP_RDMA_READ: {
      if (d->opmod != 0) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
      const uint32_t count = gpushmem_mlx5_bswap32(u2.data.byte_count_be);
      if ((count & GPUSHMEM_MLX5_INLINE_SEG) != 0) {
        if (d->opcode == GPUSHMEM_MLX5_OP_RDMA_READ) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;  // reads land locally
        d->is_inline = true;
        d->bytes = count & ~GPUSHMEM_MLX5_INLINE_SEG;
        return d->bytes <= (d->ds - 2u) * 16u - 4u ? GPUSHMEM_MLX5_SYND_OK : GPUSHMEM_MLX5_SYND_LOCAL_LENGTH;
      }
      if (d->ds != 3) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
      take_data(u2);
      return GPUSHMEM_MLX5_SYND_OK;
    }
    case GPUSHMEM_MLX5_OP_ATOMIC_CS:
    case GPUSHMEM_MLX5_OP_ATOMIC_FA: {
      if (d->opmod != 0 || d->ds != 4) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
      d->swap_add = gpushmem_mlx5_bswap64(u2.atomic.swap_add_be);
      d->compare = gpushmem_mlx5_bswap64(u2.atomic.compare_be);
      take_data(read_unit(3u));
      return d->bytes == 8 ? GPUSHMEM_MLX5_SYND_OK : GPUSHMEM_MLX5_SYND_LOCAL_LENGTH;
    }
    case GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA:
    case GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS: {
      const bool cs = d->opcode == GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS;
      uint32_t width = 0;
      if (d->opmod == GPUSHMEM_MLX5_OPMOD_EXT_AMO_4) width = 4;
      if (d->opmod == GPUSHMEM_MLX5_OPMOD_EXT_AMO_8) width = 8;
      if (width == 0 || d->ds != (cs && width == 8 ? 5u : 4u)) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
      if (width == 4) {
        d->swap_add = gpushmem_mlx5_bswap32(u2.masked32.w0_be);
        d->compare = gpushmem_mlx5_bswap32(u2.masked32.w1_be);
        if (cs) {
          d->swap_mask = gpushmem_mlx5_bswap32(u2.masked32.w2_be);
          d->compare_mask = gpushmem_mlx5_bswap32(u2.masked32.w3_be);
        }
      } else {
        d->swap_add = gpushmem_mlx5_bswap64(u2.atomic.swap_add_be);
        d->compare = gpushmem_mlx5_bswap64(u2.atomic.compare_be);
        if (cs) {
          const Unit u3 = read_unit(3u);
          d->swap_mask = gpushmem_mlx5_bswap64(u3.atomic.swap_add_be);
          d->compare_mask = gpushmem_mlx5_bswap64(u3.atomic.compare_be);
        }
      }
      take_data(read_unit(d->ds - 1u));
      return d->bytes == width ? GPUSHMEM_MLX5_SYND_OK : GPUSHMEM_MLX5_SYND_LOCAL_LENGTH;
    }
    default:
      return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;
  }
}

// Byte b of an inline WRITE's payload (b < bytes), read through the same unit reader.
template <class ReadUnit>
GPUSHMEM_MLX5_HD uint8_t inline_byte(ReadUnit read_unit, uint32_t b) {
  return read_unit(2u + (4u + b) / 16u).bytes[(4u + b) % 16u];
}

// A unit reader for the WQE at `index` of a send queue of `wqebbs` (a power of two) blocks at `sq`.
struct RingReader {
  const uint8_t *sq;
  uint32_t wqebbs;
  uint32_t index;
  GPUSHMEM_MLX5_HD Unit operator()(uint32_t k) const {
    Unit u{};
    const uint8_t *at = sq + gpushmem_mlx5_unit_offset(wqebbs, index, k);
    for (uint32_t b = 0; b < 16; ++b) u.bytes[b] = at[b];
    return u;
  }
};
// A unit reader for a WQE built in a Wqe.
struct WqeReader {
  const Wqe *w;
  GPUSHMEM_MLX5_HD Unit operator()(uint32_t k) const { return w->unit[k < GPUSHMEM_MLX5_MAX_DS ? k : 0]; }
};

// ---- the atomics' semantics (what the emulator applies and the tests expect) ----

// The new value of a `width`-byte word holding `old` after a masked fetch-add (fields per `boundary`).
GPUSHMEM_MLX5_HD uint64_t apply_masked_fetch_add(uint64_t old, uint64_t add, uint64_t boundary, uint32_t width) {
  const uint64_t all = width == 4 ? 0xffffffffull : ~0ull;
  uint64_t result = 0;
  uint64_t lo = 0;  // the lowest bit of the current field
  for (uint32_t bit = 0; bit < width * 8; ++bit) {
    if (((boundary >> bit) & 1u) != 0 || bit == width * 8 - 1) {
      const uint64_t field = (bit == 63 ? ~0ull : ((1ull << (bit + 1)) - 1)) & ~((1ull << lo) - 1);
      result |= ((old & field) + (add & field)) & field;
      lo = bit + 1;
    }
  }
  return result & all;
}
// The new value after a masked compare-swap.
GPUSHMEM_MLX5_HD uint64_t apply_masked_compare_swap(uint64_t old, uint64_t swap, uint64_t compare, uint64_t swap_mask,
                                                    uint64_t compare_mask, uint32_t width) {
  const uint64_t all = width == 4 ? 0xffffffffull : ~0ull;
  if (((old ^ compare) & compare_mask & all) != 0) return old & all;
  return ((old & ~swap_mask) | (swap & swap_mask)) & all;
}

}  // namespace gpushmem::mlx5
