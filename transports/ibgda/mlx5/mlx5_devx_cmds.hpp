// The DevX commands the real-NIC provisioner sends to an mlx5 NIC (mlx5dv_devx_general_cmd, _obj_create,
// _obj_modify): QUERY_HCA_CAP, CREATE_CQ (collapsed, overrun ignored, 64-byte CQEs, buffer and doorbell record in
// a umem), CREATE_QP (RC, send queue and doorbell record in a umem, no receive queue) and the three transitions
// RST2INIT, INIT2RTR, RTR2RTS. rdma-core installs no layout of these commands (providers/mlx5/mlx5_ifc.h stays in
// its source tree), so each field used is listed here by its place: a bit offset from the command's start and a
// width, in the PRM's big-endian numbering (bit 0 is the most significant bit of byte 0). Builders take host
// values and return the command's bytes; no rdma-core header is needed, so the layouts are tested anywhere
// (tests/unit/test_mlx5_devx.cpp).
//
// Where each fact comes from (checked against each other where two sources have the struct):
//   rdma-core providers/mlx5/mlx5_ifc.h: the opcodes, struct mlx5_ifc_qpc_bits, mlx5_ifc_ads_bits,
//     mlx5_ifc_create_qp_in/out_bits, mlx5_ifc_rst2init/init2rtr/rtr2rts_qp_in_bits, mlx5_ifc_query_hca_cap_in/
//     out_bits, mlx5_ifc_cmd_hca_cap_bits, enum mlx5_cap_type, HCA_CAP_OPMOD_GET_CUR, MLX5_QPC_ST_RC,
//     MLX5_QPC_PM_STATE_MIGRATED;
//   NVIDIA/nvshmem src/modules/transport/common/mlx5_ifc.h: mlx5_ifc_create_qp_in_bits with wq_umem_offset
//     (rdma-core's copy leaves those 64 bits reserved); src/modules/transport/common/mlx5_prm.h (as DPDK's
//     drivers/common/mlx5/mlx5_prm.h): mlx5_ifc_cqc_bits, mlx5_ifc_create_cq_in_bits, MLX5_CQE_SIZE_64B;
//   DPDK drivers/common/mlx5/mlx5_prm.h MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ (Linux include/linux/mlx5/qp.h:
//     MLX5_ZERO_LEN_RQ): a QP without a receive queue;
//   the values IBGDA sets (NVIDIA/nvshmem src/modules/transport/ibgda/ibgda.cpp: ibgda_create_cq,
//     ibgda_create_qp, ibgda_qp_rst2init, ibgda_rc_init2rtr, ibgda_qp_rtr2rts) and rdma-core tests/mlx5_base.py
//     (create_cq, create_qp, to_rts): the same commands from Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpushmem::ibgda::mlx5nic::devx {

// One field: `bit` from the start of the command (or of the struct it belongs to), `width` bits.
struct Field {
  uint32_t bit;
  uint32_t width;
};
// A field of a struct that starts `base` bits into the command.
constexpr Field at(uint32_t base, Field f) {
  return Field{base + f.bit, f.width};
}

// Writes the low `f.width` bits of `value` (width <= 64) into the big-endian command buffer, leaving every
// other bit alone; reads them back.
void set(uint8_t *cmd, Field f, uint64_t value);
uint64_t get(const uint8_t *cmd, Field f);
// Copies f.width / 8 bytes (a byte-aligned field: a GID, a MAC's part) in wire order.
void set_bytes(uint8_t *cmd, Field f, const uint8_t *bytes);

// ---- opcodes (mlx5_ifc.h, the MLX5_CMD_OP_* enum) ----
constexpr uint16_t kQueryHcaCap = 0x100;
constexpr uint16_t kCreateCq = 0x400;
constexpr uint16_t kCreateQp = 0x500;
constexpr uint16_t kRst2InitQp = 0x502;
constexpr uint16_t kInit2RtrQp = 0x503;
constexpr uint16_t kRtr2RtsQp = 0x504;

// ---- command sizes in bytes (each struct's bits / 8) ----
constexpr size_t kQueryHcaCapInBytes = 0x80 / 8;     // mlx5_ifc_query_hca_cap_in_bits
constexpr size_t kQueryHcaCapOutBytes = 0x8080 / 8;  // mlx5_ifc_query_hca_cap_out_bits (capability union 0x8000)
constexpr size_t kCreateCqInBytes = 0x880 / 8;       // mlx5_ifc_create_cq_in_bits, without pas[]
constexpr size_t kCreateQpInBytes = 0x880 / 8;       // mlx5_ifc_create_qp_in_bits, without pas[]
constexpr size_t kModifyQpInBytes = 0x880 / 8;       // mlx5_ifc_{rst2init,init2rtr,rtr2rts}_qp_in_bits
constexpr size_t kOutBytes = 0x80 / 8;               // create_cq_out, create_qp_out and the *_qp_out structs

// ---- field tables ----
namespace cmd {  // every command's header and every command output's first words
constexpr Field opcode{0x00, 16};
constexpr Field op_mod{0x30, 16};
constexpr Field qpn{0x48, 24};  // the modify commands' QP (rst2init_qp_in and the others)
constexpr Field opt_param_mask{0x80, 32};
constexpr Field out_status{0x00, 8};
constexpr Field out_syndrome{0x20, 32};
constexpr Field out_object{0x48, 24};  // create_cq_out.cqn, create_qp_out.qpn
}  // namespace cmd

namespace hca_cap {  // mlx5_ifc_cmd_hca_cap_bits, at query_hca_cap_out.capability (bit 0x80)
constexpr uint32_t kCapability = 0x80;
constexpr Field log_max_qp_sz{0x88, 8};
constexpr Field log_max_cq_sz{0xc8, 8};
constexpr Field log_max_ra_req_qp{0x14a, 6};
constexpr Field log_max_ra_res_qp{0x15a, 6};
constexpr Field cqe_version{0x1fc, 4};
constexpr Field log_bf_reg_size{0x26b, 5};
}  // namespace hca_cap

namespace cqc {  // mlx5_ifc_cqc_bits (64 bytes), at create_cq_in.cq_context
constexpr Field dbr_umem_valid{0x06, 1};
constexpr Field cqe_sz{0x08, 3};
constexpr Field cc{0x0b, 1};  // collapsed: the NIC writes every CQE to entry 0
constexpr Field oi{0x0e, 1};  // overrun ignore: nobody consumes, so the CQ never counts as full
constexpr Field dbr_umem_id{0x20, 32};
constexpr Field page_offset{0x54, 6};
constexpr Field log_cq_size{0x63, 5};
constexpr Field uar_page{0x68, 24};
constexpr Field c_eqn{0xb8, 8};
constexpr Field log_page_size{0xc3, 5};
constexpr Field dbr_addr{0x1c0, 64};  // with dbr_umem_valid: the offset in the doorbell record's umem
}  // namespace cqc

namespace create_cq {  // mlx5_ifc_create_cq_in_bits
constexpr uint32_t kCqContext = 0x80;
constexpr Field cq_umem_offset{0x280, 64};
constexpr Field cq_umem_id{0x2c0, 32};
constexpr Field cq_umem_valid{0x2e0, 1};
}  // namespace create_cq

namespace ads {  // mlx5_ifc_ads_bits: an address path (0x160 bits)
constexpr Field pkey_index{0x10, 16};
constexpr Field grh{0x28, 1};
constexpr Field mlid{0x29, 7};
constexpr Field rlid{0x30, 16};
constexpr Field ack_timeout{0x40, 5};
constexpr Field src_addr_index{0x48, 8};
constexpr Field hop_limit{0x58, 8};
constexpr Field tclass{0x64, 8};
constexpr Field rgid_rip{0x80, 128};
constexpr Field dscp{0x10a, 6};
constexpr Field udp_sport{0x110, 16};
constexpr Field eth_prio{0x121, 3};
constexpr Field sl{0x124, 4};
constexpr Field vhca_port_num{0x128, 8};
constexpr Field rmac_47_32{0x130, 16};
constexpr Field rmac_31_0{0x140, 32};
}  // namespace ads

namespace qpc {  // mlx5_ifc_qpc_bits (232 bytes), at bit 0xc0 of create_qp_in and of the modify commands
constexpr uint32_t kAt = 0xc0;
constexpr Field st{0x08, 8};
constexpr Field pm_state{0x13, 2};
constexpr Field pd{0x28, 24};
constexpr Field mtu{0x40, 3};
constexpr Field log_msg_max{0x43, 5};
constexpr Field log_rq_size{0x49, 4};
constexpr Field no_sq{0x50, 1};
constexpr Field log_sq_size{0x51, 4};
constexpr Field counter_set_id{0x60, 8};
constexpr Field uar_page{0x68, 24};
constexpr Field user_index{0x88, 24};
constexpr Field log_page_size{0xa3, 5};
constexpr Field remote_qpn{0xa8, 24};
constexpr uint32_t kPrimaryPath = 0xc0;  // mlx5_ifc_ads_bits primary_address_path
constexpr Field log_ack_req_freq{0x380, 4};
constexpr Field log_sra_max{0x388, 3};
constexpr Field retry_count{0x38d, 3};
constexpr Field rnr_retry{0x390, 3};
constexpr Field next_send_psn{0x3c8, 24};
constexpr Field cqn_snd{0x3e8, 24};
constexpr Field log_rra_max{0x488, 3};
constexpr Field atomic_mode{0x48c, 4};
constexpr Field rre{0x490, 1};
constexpr Field rwe{0x491, 1};
constexpr Field rae{0x492, 1};
constexpr Field page_offset{0x494, 6};
constexpr Field min_rnr_nak{0x4a3, 5};
constexpr Field next_rcv_psn{0x4a8, 24};
constexpr Field cqn_rcv{0x4e8, 24};
constexpr Field dbr_addr{0x500, 64};  // with dbr_umem_valid: the offset in the doorbell record's umem
constexpr Field rq_type{0x565, 3};
constexpr Field cs_req{0x630, 8};
constexpr Field cs_res{0x638, 8};
constexpr Field dbr_umem_valid{0x683, 1};
constexpr Field dbr_umem_id{0x720, 32};
// A field of the primary address path, from the start of the QP context.
constexpr Field path(Field f) {
  return at(kPrimaryPath, f);
}
}  // namespace qpc

namespace create_qp {  // mlx5_ifc_create_qp_in_bits (NVSHMEM's, with the umem offset)
constexpr Field wq_umem_offset{0x800, 64};
constexpr Field wq_umem_id{0x840, 32};
constexpr Field wq_umem_valid{0x860, 1};
}  // namespace create_qp

// ---- values ----
constexpr uint32_t kCapGeneralCurrent = (0u << 1) | 1u;  // op_mod: MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR
constexpr uint32_t kCqeSize64 = 0;                       // MLX5_CQE_SIZE_64B
constexpr uint32_t kQpStRc = 0;                          // MLX5_QPC_ST_RC
constexpr uint32_t kPmStateMigrated = 3;                 // MLX5_QPC_PM_STATE_MIGRATED
constexpr uint32_t kRqTypeZeroLength = 3;                // no receive queue
constexpr uint32_t kAtomicModeUpTo8Bytes = 3;            // NVSHMEM's IBGDA_MLX5_QPC_ATOMIC_MODE_UP_TO_64BIT
constexpr uint32_t kLogMsgMax = 30;                      // the largest message an IB QP allows (NVSHMEM's choice)
constexpr uint32_t kMinRnrNak = 12;                      // NVSHMEM's IBGDA_MIN_RNR_NAK
constexpr uint32_t kHopLimit = 255;                      // NVSHMEM's IBGDA_GRH_HOP_LIMIT
constexpr uint32_t kRetryCount = 7;                      // transport retries, then an error CQE
constexpr uint32_t kRnrRetry = 7;                        // 7: retry forever on RNR (none come: no receives)
constexpr uint32_t kAckTimeout = 20;                     // 4.096 us * 2^20, about 4.3 s per retry
constexpr uint32_t kRoceV2SportBase = 0xc000;            // NVSHMEM's IBGDA_ROCE_V2_UDP_SPORT_BASE

// ---- capabilities ----
struct HcaCaps {
  uint32_t log_max_qp_sz = 0;  // the longest send queue, log2 of WQEBBs
  uint32_t log_max_cq_sz = 0;
  uint32_t log_max_ra_req_qp = 0;  // RDMA reads and atomics a QP may have outstanding, log2
  uint32_t log_max_ra_res_qp = 0;  // ... and may answer
  uint32_t cqe_version = 0;
  uint32_t log_bf_reg_size = 0;
};
std::vector<uint8_t> query_hca_cap_in();
HcaCaps parse_hca_caps(const uint8_t *out);

// ---- CREATE_CQ: collapsed, overrun ignored, 64-byte CQEs, buffer and doorbell record in umems ----
struct CqParams {
  uint32_t umem_id = 0;  // the CQ buffer's umem and where the buffer starts in it
  uint64_t umem_offset = 0;
  uint32_t dbr_umem_id = 0;  // the doorbell record's umem and where the record starts in it
  uint64_t dbr_offset = 0;
  uint32_t log_cq_size = 0;
  uint32_t uar_page = 0;
  uint32_t eqn = 0;
};
std::vector<uint8_t> create_cq_in(const CqParams &p);

// ---- CREATE_QP: RC, send queue and doorbell record in umems, no receive queue ----
struct QpParams {
  uint32_t pdn = 0;
  uint32_t uar_page = 0;  // the page holding the doorbell the producers write
  uint32_t cqn = 0;       // the send CQ (also named as the receive CQ: nothing is received)
  uint32_t log_sq_size = 0;
  uint32_t wq_umem_id = 0;
  uint64_t wq_umem_offset = 0;
  uint32_t dbr_umem_id = 0;
  uint64_t dbr_offset = 0;
  uint32_t user_index = 0;
};
std::vector<uint8_t> create_qp_in(const QpParams &p);

// ---- the transitions ----
// RESET -> INIT: remote read, write and atomics (up to 8 bytes) allowed, the port, P_Key index 0.
std::vector<uint8_t> rst2init_qp_in(uint32_t qpn, uint32_t port);

struct RtrParams {
  uint32_t qpn = 0;
  uint32_t port = 1;
  uint32_t mtu = 0;  // enum ibv_mtu's value: 1 (256) .. 5 (4096), as the PRM numbers them
  uint32_t remote_qpn = 0;
  uint32_t log_rra_max = 0;
  bool roce = false;
  // InfiniBand (roce false): the peer's LID, no GRH.
  uint32_t rlid = 0;
  // RoCE: the peer's GID, the next hop's MAC, the local GID index; udp_sport 0 for RoCE v1.
  uint8_t rgid[16] = {};
  uint8_t rmac[6] = {};
  uint32_t src_addr_index = 0;
  uint32_t udp_sport = 0;
};
std::vector<uint8_t> init2rtr_qp_in(const RtrParams &p);

struct RtsParams {
  uint32_t qpn = 0;
  uint32_t port = 1;
  uint32_t log_sra_max = 0;
};
std::vector<uint8_t> rtr2rts_qp_in(const RtsParams &p);

// What a command's output says: "status 0x.. syndrome 0x.." (both 0 when it worked).
std::string out_text(const uint8_t *out);

}  // namespace gpushmem::ibgda::mlx5nic::devx
