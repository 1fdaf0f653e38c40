// The mlx5 formats (gpushmem/mlx5_format.h) and the WQE encoder and decoder (gpushmem/mlx5_wqe.hpp) that the
// IBGDA device producer and the NIC emulator share: every size, offset and constant against rdma-core's
// <infiniband/mlx5dv.h> where it is installed, each opcode built and read back at several sizes, WQEs that
// wrap around the send queue and its 16-bit index, the decoder's refusals with the NIC's syndromes, CQE
// validity in ring and collapsed mode, the doorbell's bytes and the masked atomics' semantics. Label emu.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "catch.hpp"
#include "gpushmem/mlx5_wqe.hpp"

#if defined(GPUSHMEM_TEST_HAVE_MLX5DV)
#include <infiniband/mlx5dv.h>
#endif

namespace mlx5 = gpushmem::mlx5;

namespace {

// The big-endian bytes of v, as the NIC reads them.
std::vector<uint8_t> be_bytes(uint64_t v, int n) {
  std::vector<uint8_t> b(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) b[static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
  return b;
}
std::vector<uint8_t> bytes_at(const void *p, size_t n) {
  const auto *c = static_cast<const uint8_t *>(p);
  return {c, c + n};
}

mlx5::Decoded decode(const mlx5::Wqe &w, uint32_t *synd) {
  mlx5::Decoded d;
  *synd = mlx5::decode(mlx5::WqeReader{&w}, &d);
  return d;
}

}  // namespace

#if defined(GPUSHMEM_TEST_HAVE_MLX5DV)
// Compile-time: the layouts are rdma-core's.
static_assert(sizeof(gpushmem_mlx5_ctrl_seg_t) == sizeof(mlx5_wqe_ctrl_seg) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, opmod_idx_opcode_be) ==
                      offsetof(mlx5_wqe_ctrl_seg, opmod_idx_opcode) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, qpn_ds_be) == offsetof(mlx5_wqe_ctrl_seg, qpn_ds) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, signature) == offsetof(mlx5_wqe_ctrl_seg, signature) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, dci_stream_channel_id_be) ==
                      offsetof(mlx5_wqe_ctrl_seg, dci_stream_channel_id) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, fm_ce_se) == offsetof(mlx5_wqe_ctrl_seg, fm_ce_se) &&
                  offsetof(gpushmem_mlx5_ctrl_seg_t, imm_be) == offsetof(mlx5_wqe_ctrl_seg, imm),
              "ctrl segment differs from rdma-core's");
static_assert(sizeof(gpushmem_mlx5_raddr_seg_t) == sizeof(mlx5_wqe_raddr_seg) &&
                  offsetof(gpushmem_mlx5_raddr_seg_t, rkey_be) == offsetof(mlx5_wqe_raddr_seg, rkey) &&
                  sizeof(gpushmem_mlx5_data_seg_t) == sizeof(mlx5_wqe_data_seg) &&
                  offsetof(gpushmem_mlx5_data_seg_t, lkey_be) == offsetof(mlx5_wqe_data_seg, lkey) &&
                  offsetof(gpushmem_mlx5_data_seg_t, addr_be) == offsetof(mlx5_wqe_data_seg, addr) &&
                  sizeof(gpushmem_mlx5_atomic_seg_t) == sizeof(mlx5_wqe_atomic_seg) &&
                  offsetof(gpushmem_mlx5_atomic_seg_t, compare_be) == offsetof(mlx5_wqe_atomic_seg, compare) &&
                  sizeof(mlx5_wqe_inl_data_seg) == 4,
              "data segments differ from rdma-core's");
static_assert(sizeof(gpushmem_mlx5_cqe64_t) == sizeof(mlx5_cqe64) &&
                  offsetof(gpushmem_mlx5_cqe64_t, byte_cnt_be) == offsetof(mlx5_cqe64, byte_cnt) &&
                  offsetof(gpushmem_mlx5_cqe64_t, timestamp_be) == offsetof(mlx5_cqe64, timestamp) &&
                  offsetof(gpushmem_mlx5_cqe64_t, sop_drop_qpn_be) == offsetof(mlx5_cqe64, sop_drop_qpn) &&
                  offsetof(gpushmem_mlx5_cqe64_t, wqe_counter_be) == offsetof(mlx5_cqe64, wqe_counter) &&
                  offsetof(gpushmem_mlx5_cqe64_t, signature) == offsetof(mlx5_cqe64, signature) &&
                  offsetof(gpushmem_mlx5_cqe64_t, op_own) == offsetof(mlx5_cqe64, op_own),
              "CQE differs from rdma-core's");
static_assert(sizeof(gpushmem_mlx5_err_cqe_t) == sizeof(mlx5_err_cqe) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, srqn_be) == offsetof(mlx5_err_cqe, srqn) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, vendor_err_synd) == offsetof(mlx5_err_cqe, vendor_err_synd) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, syndrome) == offsetof(mlx5_err_cqe, syndrome) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, s_wqe_opcode_qpn_be) == offsetof(mlx5_err_cqe, s_wqe_opcode_qpn) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, wqe_counter_be) == offsetof(mlx5_err_cqe, wqe_counter) &&
                  offsetof(gpushmem_mlx5_err_cqe_t, op_own) == offsetof(mlx5_err_cqe, op_own),
              "error CQE differs from rdma-core's");
// Enumerators of two enums compared as numbers (rdma-core's are anonymous enums).
#define SAME(ours, theirs) (static_cast<long>(ours) == static_cast<long>(theirs))
static_assert(SAME(GPUSHMEM_MLX5_OP_NOP, MLX5_OPCODE_NOP) &&
                  SAME(GPUSHMEM_MLX5_OP_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE) &&
                  SAME(GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_WRITE_IMM) &&
                  SAME(GPUSHMEM_MLX5_OP_SEND, MLX5_OPCODE_SEND) &&
                  SAME(GPUSHMEM_MLX5_OP_RDMA_READ, MLX5_OPCODE_RDMA_READ) &&
                  SAME(GPUSHMEM_MLX5_OP_ATOMIC_CS, MLX5_OPCODE_ATOMIC_CS) &&
                  SAME(GPUSHMEM_MLX5_OP_ATOMIC_FA, MLX5_OPCODE_ATOMIC_FA) &&
                  SAME(GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS, MLX5_OPCODE_ATOMIC_MASKED_CS) &&
                  SAME(GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA, MLX5_OPCODE_ATOMIC_MASKED_FA),
              "opcodes differ from rdma-core's");
static_assert(SAME(GPUSHMEM_MLX5_CTRL_CQ_UPDATE, MLX5_WQE_CTRL_CQ_UPDATE) &&
                  SAME(GPUSHMEM_MLX5_CTRL_SOLICITED, MLX5_WQE_CTRL_SOLICITED) &&
                  SAME((GPUSHMEM_MLX5_FM_INITIATOR_SMALL << GPUSHMEM_MLX5_CTRL_FM_SHIFT),
                       MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE) &&
                  SAME((GPUSHMEM_MLX5_FM_FENCE_AND_SMALL << GPUSHMEM_MLX5_CTRL_FM_SHIFT), MLX5_WQE_CTRL_FENCE) &&
                  SAME(GPUSHMEM_MLX5_WQEBB, MLX5_SEND_WQE_BB) && SAME(GPUSHMEM_MLX5_WQEBB_SHIFT, MLX5_SEND_WQE_SHIFT) &&
                  SAME(GPUSHMEM_MLX5_INLINE_SEG, MLX5_INLINE_SEG) && SAME(GPUSHMEM_MLX5_DBR_RCV, MLX5_RCV_DBR) &&
                  SAME(GPUSHMEM_MLX5_DBR_SND, MLX5_SND_DBR),
              "ctrl flags, units or doorbell words differ from rdma-core's");
static_assert(SAME(GPUSHMEM_MLX5_CQE_REQ, MLX5_CQE_REQ) && SAME(GPUSHMEM_MLX5_CQE_RESP_WR_IMM, MLX5_CQE_RESP_WR_IMM) &&
                  SAME(GPUSHMEM_MLX5_CQE_RESP_SEND, MLX5_CQE_RESP_SEND) &&
                  SAME(GPUSHMEM_MLX5_CQE_REQ_ERR, MLX5_CQE_REQ_ERR) &&
                  SAME(GPUSHMEM_MLX5_CQE_RESP_ERR, MLX5_CQE_RESP_ERR) &&
                  SAME(GPUSHMEM_MLX5_CQE_INVALID, MLX5_CQE_INVALID),
              "CQE opcodes differ from rdma-core's");
static_assert(SAME(GPUSHMEM_MLX5_SYND_LOCAL_LENGTH, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_LOCAL_QP_OP, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_LOCAL_PROT, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_WR_FLUSH, MLX5_CQE_SYNDROME_WR_FLUSH_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_BAD_RESP, MLX5_CQE_SYNDROME_BAD_RESP_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_LOCAL_ACCESS, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_REMOTE_INVAL_REQ, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_REMOTE_ACCESS, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_REMOTE_OP, MLX5_CQE_SYNDROME_REMOTE_OP_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_TRANSPORT_RETRY_EXC, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_RNR_RETRY_EXC, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR) &&
                  SAME(GPUSHMEM_MLX5_SYND_REMOTE_ABORTED, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR),
              "syndromes differ from rdma-core's");

TEST_CASE("mlx5: the builders' segments are the bytes rdma-core's setters write", "[mlx5]") {
  mlx5_wqe_ctrl_seg theirs{};
  mlx5dv_set_ctrl_seg(&theirs, 0xbeef, MLX5_OPCODE_ATOMIC_MASKED_CS, 0x09, 0x123456, MLX5_WQE_CTRL_CQ_UPDATE, 5, 0,
                      0xa1b2c3d4u);
  const gpushmem_mlx5_ctrl_seg_t ours =
      gpushmem_mlx5_ctrl(MLX5_OPCODE_ATOMIC_MASKED_CS, 0x09, 0xbeef, 0x123456, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0xa1b2c3d4u);
  CHECK(bytes_at(&ours, 16) == bytes_at(&theirs, 16));
  mlx5_wqe_data_seg data{};
  mlx5dv_set_data_seg(&data, 4096, 0x55aa, 0x7f0012345678ull);
  const gpushmem_mlx5_data_seg_t our_data = gpushmem_mlx5_data(4096, 0x55aa, 0x7f0012345678ull);
  CHECK(bytes_at(&our_data, 16) == bytes_at(&data, 16));
}
#else
TEST_CASE("mlx5: rdma-core's mlx5dv.h is not installed here: layouts checked against the notes only", "[mlx5]") {
  SUCCEED("no <infiniband/mlx5dv.h>: install libibverbs-dev (rdma-core) to compare with rdma-core's layouts");
}
#endif

TEST_CASE("mlx5: the ctrl segment's fields on the wire", "[mlx5]") {
  const gpushmem_mlx5_ctrl_seg_t c =
      gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_RDMA_WRITE, 0, 0x1234, 0xabcdef, 3,
                         GPUSHMEM_MLX5_CTRL_CQ_UPDATE | (GPUSHMEM_MLX5_FM_FENCE << 5), 0);
  // opmod 0, index 0x1234, opcode 0x08 | qpn 0xabcdef, ds 3: big-endian
  CHECK(bytes_at(&c, 8) == std::vector<uint8_t>{0x00, 0x12, 0x34, 0x08, 0xab, 0xcd, 0xef, 0x03});
  CHECK(gpushmem_mlx5_ctrl_index(&c) == 0x1234);
  CHECK(gpushmem_mlx5_ctrl_qpn(&c) == 0xabcdef);
  CHECK(gpushmem_mlx5_ctrl_fence_mode(&c) == GPUSHMEM_MLX5_FM_FENCE);
  CHECK(gpushmem_mlx5_ctrl_signaled(&c));
  // The 16-bit index wraps: WQE 0x10005 says 5.
  const gpushmem_mlx5_ctrl_seg_t w = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_NOP, 0, 0x10005, 1, 1, 0, 0);
  CHECK(gpushmem_mlx5_ctrl_index(&w) == 5);
  CHECK_FALSE(gpushmem_mlx5_ctrl_signaled(&w));
}

TEST_CASE("mlx5: every opcode is built and read back", "[mlx5]") {
  const mlx5::Post post{0x4321, 0x000abc, GPUSHMEM_MLX5_CTRL_CQ_UPDATE};
  const mlx5::Remote remote{0x7f00deadbee0ull, 0x11223344u};
  const mlx5::Local local{0x5500aa00ull, 0x99887766u};
  mlx5::Wqe w{};
  uint32_t synd = 0xff;

  SECTION("NOP") {
    mlx5::build_nop(&w, post);
    const mlx5::Decoded d = decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
    CHECK((d.opcode == GPUSHMEM_MLX5_OP_NOP && d.ds == 1 && d.index == 0x4321 && d.qpn == 0xabc && d.signaled));
  }
  SECTION("WRITE and READ at several sizes") {
    for (uint64_t bytes : {1ull, 8ull, 4096ull, 1ull << 30, 1ull << 31}) {  // 2^31 travels as 0
      REQUIRE(mlx5::build_write(&w, post, remote, local, bytes));
      mlx5::Decoded d = decode(w, &synd);
      CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
      CHECK((d.opcode == GPUSHMEM_MLX5_OP_RDMA_WRITE && d.ds == 3 && d.bytes == bytes && !d.is_inline));
      CHECK((d.raddr == remote.addr && d.rkey == remote.rkey && d.laddr == local.addr && d.lkey == local.lkey));
      REQUIRE(mlx5::build_read(&w, post, remote, local, bytes));
      d = decode(w, &synd);
      CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
      CHECK((d.opcode == GPUSHMEM_MLX5_OP_RDMA_READ && d.ds == 3 && d.bytes == bytes && d.raddr == remote.addr));
    }
    CHECK(gpushmem_mlx5_wqebbs(3) == 1);
    CHECK(w.unit[2].data.byte_count_be == 0);  // the last one, 2^31, as the NIC reads a 0
    // No data segment carries nothing, or more than 2^31: refused (a WRITE of nothing is an inline WRITE).
    CHECK_FALSE(mlx5::build_write(&w, post, remote, local, 0));
    CHECK_FALSE(mlx5::build_read(&w, post, remote, local, (1ull << 31) + 1));
  }
  SECTION("WRITE_IMM keeps its immediate") {
    mlx5::build_write(&w, post, remote, local, 64, true, gpushmem_mlx5_bswap32(0xcafe));
    const mlx5::Decoded d = decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
    CHECK((d.opcode == GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM && gpushmem_mlx5_bswap32(d.imm_be) == 0xcafe));
  }
  SECTION("inline WRITE of every length") {
    uint8_t payload[GPUSHMEM_MLX5_MAX_INLINE];
    for (uint32_t i = 0; i < sizeof payload; ++i) payload[i] = static_cast<uint8_t>(0x30 + i);
    for (uint32_t bytes = 0; bytes <= GPUSHMEM_MLX5_MAX_INLINE; ++bytes) {
      REQUIRE(mlx5::build_write_inline(&w, post, remote, payload, bytes));
      const mlx5::Decoded d = decode(w, &synd);
      REQUIRE(synd == GPUSHMEM_MLX5_SYND_OK);
      CHECK((d.is_inline && d.bytes == bytes && d.ds == gpushmem_mlx5_inline_ds(bytes) && d.raddr == remote.addr));
      std::vector<uint8_t> got;
      for (uint32_t b = 0; b < bytes; ++b) got.push_back(mlx5::inline_byte(mlx5::WqeReader{&w}, b));
      CHECK(got == std::vector<uint8_t>(payload, payload + bytes));
    }
    CHECK(gpushmem_mlx5_inline_ds(GPUSHMEM_MLX5_INLINE_P_BYTES) == 3);  // shmem_p stays in 3 units
    CHECK_FALSE(mlx5::build_write_inline(&w, post, remote, payload, GPUSHMEM_MLX5_MAX_INLINE + 1));
  }
  SECTION("fetch-add and compare-swap") {
    mlx5::build_fetch_add(&w, post, remote, local, 0x0123456789abcdefull);
    mlx5::Decoded d = decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
    CHECK((d.opcode == GPUSHMEM_MLX5_OP_ATOMIC_FA && d.ds == 4 && d.swap_add == 0x0123456789abcdefull && d.bytes == 8 &&
           d.laddr == local.addr));
    mlx5::build_compare_swap(&w, post, remote, local, 7, 9);
    d = decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
    CHECK((d.opcode == GPUSHMEM_MLX5_OP_ATOMIC_CS && d.compare == 7 && d.swap_add == 9));
  }
  SECTION("masked atomics, 4 and 8 bytes") {
    for (uint32_t width : {4u, 8u}) {
      REQUIRE(mlx5::build_masked_fetch_add(&w, post, remote, local, width, 0x00010001, 0x00008000));
      mlx5::Decoded d = decode(w, &synd);
      CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
      CHECK((d.opcode == GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA && d.ds == 4 && d.bytes == width &&
             d.swap_add == 0x00010001 && d.compare == 0x00008000));
      REQUIRE(mlx5::build_masked_compare_swap(&w, post, remote, local, width, 0xf0f0f0f0, 0x12345678, 0xff00ff00,
                                              0x0000ffff));
      d = decode(w, &synd);
      CHECK(synd == GPUSHMEM_MLX5_SYND_OK);
      CHECK((d.opcode == GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS && d.ds == (width == 4 ? 4u : 5u) && d.bytes == width &&
             d.swap_add == 0xf0f0f0f0 && d.compare == 0x12345678 && d.swap_mask == 0xff00ff00 &&
             d.compare_mask == 0x0000ffff && d.laddr == local.addr));
      CHECK(gpushmem_mlx5_wqebbs(d.ds) == (width == 4 ? 1u : 2u));
    }
    CHECK_FALSE(mlx5::build_masked_fetch_add(&w, post, remote, local, 2, 1, 0));
  }
}

TEST_CASE("mlx5: a WQE that wraps around the send queue reads back whole", "[mlx5]") {
  constexpr uint32_t kWqebbs = 4;
  std::vector<uint8_t> sq(kWqebbs * GPUSHMEM_MLX5_WQEBB, 0xee);
  mlx5::Wqe w{};
  const uint32_t index = 0x10003;  // the last block of the ring, and the 16-bit index wraps too
  REQUIRE(mlx5::build_masked_compare_swap(&w, {index, 77, 0}, {0x1000, 5}, {0x2000, 6}, 8, 1, 2, 3, 4));
  REQUIRE(w.ds == 5);
  for (uint32_t k = 0; k < w.ds; ++k)  // as a producer stores it: one unit at a time
    std::memcpy(sq.data() + gpushmem_mlx5_unit_offset(kWqebbs, index, k), &w.unit[k], 16);
  // Units 0..3 fill block 3, unit 4 is the start of block 0.
  CHECK(gpushmem_mlx5_unit_offset(kWqebbs, index, 4) == 0);
  CHECK(sq[16] == 0xee);  // nothing else was written
  mlx5::Decoded d;
  CHECK(mlx5::decode(mlx5::RingReader{sq.data(), kWqebbs, index}, &d) == GPUSHMEM_MLX5_SYND_OK);
  CHECK((d.index == 3 && d.qpn == 77 && d.swap_add == 1 && d.compare == 2 && d.swap_mask == 3 && d.compare_mask == 4 &&
         d.laddr == 0x2000 && d.lkey == 6 && d.raddr == 0x1000 && d.rkey == 5));
}

TEST_CASE("mlx5: the decoder refuses what a NIC refuses, with its syndrome", "[mlx5]") {
  const mlx5::Post post{1, 2, 0};
  mlx5::Wqe w{};
  uint32_t synd = 0;
  SECTION("an unknown opcode") {
    mlx5::build_write(&w, post, {1, 1}, {1, 1}, 8);
    w.unit[0].ctrl = gpushmem_mlx5_ctrl(0x3f, 0, 1, 2, 3, 0, 0);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP);
  }
  SECTION("a unit count that does not fit the opcode") {
    mlx5::build_write(&w, post, {1, 1}, {1, 1}, 8);
    for (uint32_t ds : {0u, 2u, 4u, GPUSHMEM_MLX5_MAX_DS + 1}) {
      w.unit[0].ctrl = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_RDMA_WRITE, 0, 1, 2, ds, 0, 0);
      (void)decode(w, &synd);
      CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP);
    }
    mlx5::build_fetch_add(&w, post, {8, 1}, {8, 1}, 1);
    w.unit[0].ctrl = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_ATOMIC_FA, 0, 1, 2, 3, 0, 0);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP);
  }
  SECTION("an inline payload longer than its units") {
    const uint8_t payload[12] = {};
    REQUIRE(mlx5::build_write_inline(&w, post, {1, 1}, payload, 12));
    const uint32_t header = gpushmem_mlx5_bswap32(13u | GPUSHMEM_MLX5_INLINE_SEG);
    std::memcpy(w.unit[2].bytes, &header, 4);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_LENGTH);
  }
  SECTION("an inline READ") {
    const uint8_t payload[4] = {};
    REQUIRE(mlx5::build_write_inline(&w, post, {1, 1}, payload, 4));
    w.unit[0].ctrl = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_RDMA_READ, 0, 1, 2, 3, 0, 0);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP);
  }
  SECTION("an atomic whose fetch buffer is not its width") {
    mlx5::build_fetch_add(&w, post, {8, 1}, {8, 1}, 1);
    w.unit[3].data = gpushmem_mlx5_data(4, 1, 8);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_LENGTH);
  }
  SECTION("a masked atomic with an unknown operand size") {
    REQUIRE(mlx5::build_masked_fetch_add(&w, post, {8, 1}, {8, 1}, 8, 1, 0));
    w.unit[0].ctrl = gpushmem_mlx5_ctrl(GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA, 0x0a, 1, 2, 4, 0, 0);
    (void)decode(w, &synd);
    CHECK(synd == GPUSHMEM_MLX5_SYND_LOCAL_QP_OP);
  }
}

TEST_CASE("mlx5: CQE validity, collapsed counters and doorbell bytes", "[mlx5]") {
  SECTION("ring mode: the owner bit flips every lap") {
    constexpr uint32_t cnt = 8;
    const uint8_t lap0 = static_cast<uint8_t>(GPUSHMEM_MLX5_CQE_REQ << 4);
    const uint8_t lap1 = static_cast<uint8_t>(lap0 | 1);
    CHECK(gpushmem_mlx5_cqe_valid(lap0, 3, cnt));
    CHECK_FALSE(gpushmem_mlx5_cqe_valid(lap0, 3 + cnt, cnt));  // last lap's entry, not yet rewritten
    CHECK(gpushmem_mlx5_cqe_valid(lap1, 3 + cnt, cnt));
    CHECK(gpushmem_mlx5_cqe_valid(lap0, 3 + 2 * cnt, cnt));
    CHECK_FALSE(gpushmem_mlx5_cqe_valid(0xf0, 3, cnt));  // INVALID: the buffer's initial 0xff
    CHECK_FALSE(gpushmem_mlx5_cqe_valid(0xf1, 3 + cnt, cnt));
  }
  SECTION("collapsed mode: the 16-bit counter widened near the consumer's index") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 10000; ++i) {
      const uint64_t truth = rng() >> 8;
      const int64_t off = static_cast<int64_t>(rng() % 65535) - 32767;
      const uint64_t near = truth + static_cast<uint64_t>(off);
      REQUIRE(gpushmem_mlx5_widen_counter(static_cast<uint16_t>(truth), near) == truth);
    }
  }
  SECTION("an error CQE names the syndrome, the WQE and its QP") {
    gpushmem_mlx5_err_cqe_t e{};
    e.syndrome = GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
    e.s_wqe_opcode_qpn_be = gpushmem_mlx5_bswap32((GPUSHMEM_MLX5_OP_RDMA_WRITE << 24) | 0x00abcd);
    e.wqe_counter_be = gpushmem_mlx5_bswap16(0x1234);
    e.op_own = static_cast<uint8_t>(GPUSHMEM_MLX5_CQE_REQ_ERR << 4);
    const auto *raw = reinterpret_cast<const uint8_t *>(&e);
    CHECK(raw[55] == 0x13);
    CHECK(bytes_at(raw + 56, 4) == std::vector<uint8_t>{0x08, 0x00, 0xab, 0xcd});
    CHECK(bytes_at(raw + 60, 2) == std::vector<uint8_t>{0x12, 0x34});
    CHECK(gpushmem_mlx5_cqe_opcode(raw[63]) == GPUSHMEM_MLX5_CQE_REQ_ERR);
  }
  SECTION("doorbell record and doorbell") {
    const uint32_t dbr = gpushmem_mlx5_dbr_send_value(0x12345);
    CHECK(bytes_at(&dbr, 4) == be_bytes(0x2345, 4));  // 16 bits of the producer index
    const uint64_t db = gpushmem_mlx5_doorbell_value(0x0102, 0x0a0b0c);
    CHECK(bytes_at(&db, 8) == std::vector<uint8_t>{0x00, 0x01, 0x02, 0x00, 0x0a, 0x0b, 0x0c, 0x00});
  }
}

TEST_CASE("mlx5: the masked atomics' semantics", "[mlx5]") {
  SECTION("fetch-add without a boundary is an add that wraps at the width") {
    CHECK(mlx5::apply_masked_fetch_add(0xffffffffull, 2, 0, 4) == 1);
    CHECK(mlx5::apply_masked_fetch_add(~0ull, 2, 0, 8) == 1);
    CHECK(mlx5::apply_masked_fetch_add(40, 2, 0, 8) == 42);
  }
  SECTION("fields do not carry into each other") {
    // two 16-bit fields (boundary bit 15 ends the low one): 0x0001ffff + 0x00010001 = 0x00020000
    CHECK(mlx5::apply_masked_fetch_add(0x0001ffffull, 0x00010001ull, 0x00008000ull, 4) == 0x00020000ull);
    // 8-bit fields in 8 bytes
    CHECK(mlx5::apply_masked_fetch_add(0x01ff01ff01ff01ffull, 0x0101010101010101ull, 0x8080808080808080ull, 8) ==
          0x0200020002000200ull);
  }
  SECTION("compare-swap under masks: the bitwise operations and a plain swap") {
    const uint64_t old = 0xf0f0f0f0f0f0f0f0ull, v = 0x00ff00ff00ff00ffull;
    CHECK(mlx5::apply_masked_compare_swap(old, 0, 0, ~v, 0, 8) == (old & v));   // and
    CHECK(mlx5::apply_masked_compare_swap(old, v, 0, v, 0, 8) == (old | v));    // or
    CHECK(mlx5::apply_masked_compare_swap(old, v, 0, ~0ull, 0, 8) == v);        // swap / set
    CHECK(mlx5::apply_masked_compare_swap(old, v, old, ~0ull, ~0ull, 8) == v);  // compare-swap that matches
    CHECK(mlx5::apply_masked_compare_swap(old, v, 1, ~0ull, ~0ull, 8) == old);  // and one that does not
    CHECK(mlx5::apply_masked_compare_swap(0x12345678ull, 0xffffffffull, 0, 0x0000ffffull, 0, 4) == 0x1234ffffull);
  }
}
