#include "ibgda/mlx5/mlx5_devx_cmds.hpp"

#include <cstdio>

namespace gpushmem::ibgda::mlx5nic::devx {

// Bit by bit: bit i of the field (0 its most significant) is bit (f.bit + i) of the buffer, counted from the most
// significant bit of byte 0. Slow and plain; commands are built a few hundred times per job.
void set(uint8_t *cmd, Field f, uint64_t value) {
  for (uint32_t i = 0; i < f.width; ++i) {
    const uint32_t pos = f.bit + i;
    const uint8_t mask = static_cast<uint8_t>(0x80u >> (pos % 8));
    const bool one = ((value >> (f.width - 1 - i)) & 1u) != 0;
    if (one)
      cmd[pos / 8] = static_cast<uint8_t>(cmd[pos / 8] | mask);
    else
      cmd[pos / 8] = static_cast<uint8_t>(cmd[pos / 8] & ~mask);
  }
}

uint64_t get(const uint8_t *cmd, Field f) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < f.width; ++i) {
    const uint32_t pos = f.bit + i;
    v = (v << 1) | ((cmd[pos / 8] >> (7 - pos % 8)) & 1u);
  }
  return v;
}

void set_bytes(uint8_t *cmd, Field f, const uint8_t *bytes) {
  for (uint32_t i = 0; i < f.width / 8; ++i) cmd[f.bit / 8 + i] = bytes[i];
}

std::vector<uint8_t> query_hca_cap_in() {
  std::vector<uint8_t> in(kQueryHcaCapInBytes, 0);
  set(in.data(), cmd::opcode, kQueryHcaCap);
  set(in.data(), cmd::op_mod, kCapGeneralCurrent);
  return in;
}

HcaCaps parse_hca_caps(const uint8_t *out) {
  auto cap = [out](Field f) { return static_cast<uint32_t>(get(out, at(hca_cap::kCapability, f))); };
  HcaCaps c;
  c.log_max_qp_sz = cap(hca_cap::log_max_qp_sz);
  c.log_max_cq_sz = cap(hca_cap::log_max_cq_sz);
  c.log_max_ra_req_qp = cap(hca_cap::log_max_ra_req_qp);
  c.log_max_ra_res_qp = cap(hca_cap::log_max_ra_res_qp);
  c.cqe_version = cap(hca_cap::cqe_version);
  c.log_bf_reg_size = cap(hca_cap::log_bf_reg_size);
  return c;
}

std::vector<uint8_t> create_cq_in(const CqParams &p) {
  std::vector<uint8_t> in(kCreateCqInBytes, 0);
  uint8_t *c = in.data();
  auto ctx = [](Field f) { return at(create_cq::kCqContext, f); };
  set(c, cmd::opcode, kCreateCq);
  set(c, create_cq::cq_umem_id, p.umem_id);
  set(c, create_cq::cq_umem_offset, p.umem_offset);
  set(c, create_cq::cq_umem_valid, 1);
  set(c, ctx(cqc::dbr_umem_valid), 1);
  set(c, ctx(cqc::dbr_umem_id), p.dbr_umem_id);
  set(c, ctx(cqc::dbr_addr), p.dbr_offset);
  set(c, ctx(cqc::cqe_sz), kCqeSize64);
  set(c, ctx(cqc::cc), 1);
  set(c, ctx(cqc::oi), 1);
  set(c, ctx(cqc::log_cq_size), p.log_cq_size);
  set(c, ctx(cqc::uar_page), p.uar_page);
  set(c, ctx(cqc::c_eqn), p.eqn);
  // log_page_size and page_offset stay 0: the umem describes the pages (rdma-core tests/mlx5_base.py: create_cq).
  return in;
}

std::vector<uint8_t> create_qp_in(const QpParams &p) {
  std::vector<uint8_t> in(kCreateQpInBytes, 0);
  uint8_t *c = in.data();
  auto ctx = [](Field f) { return at(qpc::kAt, f); };
  set(c, cmd::opcode, kCreateQp);
  set(c, create_qp::wq_umem_id, p.wq_umem_id);
  set(c, create_qp::wq_umem_offset, p.wq_umem_offset);
  set(c, create_qp::wq_umem_valid, 1);
  set(c, ctx(qpc::st), kQpStRc);
  set(c, ctx(qpc::pm_state), kPmStateMigrated);
  set(c, ctx(qpc::pd), p.pdn);
  set(c, ctx(qpc::uar_page), p.uar_page);
  set(c, ctx(qpc::cqn_snd), p.cqn);
  set(c, ctx(qpc::cqn_rcv), p.cqn);
  set(c, ctx(qpc::log_sq_size), p.log_sq_size);
  set(c, ctx(qpc::rq_type), kRqTypeZeroLength);
  set(c, ctx(qpc::log_rq_size), 0);
  set(c, ctx(qpc::cs_req), 0);  // no scatter to CQE: a completion carries no data
  set(c, ctx(qpc::cs_res), 0);
  set(c, ctx(qpc::dbr_umem_valid), 1);
  set(c, ctx(qpc::dbr_umem_id), p.dbr_umem_id);
  set(c, ctx(qpc::dbr_addr), p.dbr_offset);
  set(c, ctx(qpc::user_index), p.user_index);
  return in;
}

namespace {

std::vector<uint8_t> modify_in(uint16_t opcode, uint32_t qpn, uint32_t port) {
  std::vector<uint8_t> in(kModifyQpInBytes, 0);
  set(in.data(), cmd::opcode, opcode);
  set(in.data(), cmd::qpn, qpn);
  set(in.data(), at(qpc::kAt, qpc::path(ads::vhca_port_num)), port);
  return in;
}

}  // namespace

std::vector<uint8_t> rst2init_qp_in(uint32_t qpn, uint32_t port) {
  std::vector<uint8_t> in = modify_in(kRst2InitQp, qpn, port);
  uint8_t *c = in.data();
  auto ctx = [](Field f) { return at(qpc::kAt, f); };
  set(c, ctx(qpc::rwe), 1);
  set(c, ctx(qpc::rre), 1);
  set(c, ctx(qpc::rae), 1);
  set(c, ctx(qpc::atomic_mode), kAtomicModeUpTo8Bytes);
  set(c, ctx(qpc::pm_state), kPmStateMigrated);
  set(c, ctx(qpc::path(ads::pkey_index)), 0);
  set(c, ctx(qpc::counter_set_id), 0);
  return in;
}

std::vector<uint8_t> init2rtr_qp_in(const RtrParams &p) {
  std::vector<uint8_t> in = modify_in(kInit2RtrQp, p.qpn, p.port);
  uint8_t *c = in.data();
  auto ctx = [](Field f) { return at(qpc::kAt, f); };
  set(c, ctx(qpc::mtu), p.mtu);
  set(c, ctx(qpc::log_msg_max), kLogMsgMax);
  set(c, ctx(qpc::remote_qpn), p.remote_qpn);
  set(c, ctx(qpc::next_rcv_psn), 0);  // both ends start at PSN 0 (RTR2RTS sets next_send_psn 0)
  set(c, ctx(qpc::min_rnr_nak), kMinRnrNak);
  set(c, ctx(qpc::log_rra_max), p.log_rra_max);
  if (!p.roce) {
    set(c, ctx(qpc::path(ads::rlid)), p.rlid);
    set(c, ctx(qpc::path(ads::mlid)), 0);
    set(c, ctx(qpc::path(ads::grh)), 0);
    set(c, ctx(qpc::path(ads::sl)), 0);
  } else {
    // RoCE always carries a GRH (the grh bit is InfiniBand's); the MAC splits into its top 16 and low 32 bits.
    set_bytes(c, ctx(qpc::path(ads::rgid_rip)), p.rgid);
    set_bytes(c, ctx(qpc::path(ads::rmac_47_32)), p.rmac);
    set_bytes(c, ctx(qpc::path(ads::rmac_31_0)), p.rmac + 2);
    set(c, ctx(qpc::path(ads::src_addr_index)), p.src_addr_index);
    set(c, ctx(qpc::path(ads::hop_limit)), kHopLimit);
    set(c, ctx(qpc::path(ads::udp_sport)), p.udp_sport);
    set(c, ctx(qpc::path(ads::eth_prio)), 0);
    set(c, ctx(qpc::path(ads::dscp)), 0);
  }
  return in;
}

std::vector<uint8_t> rtr2rts_qp_in(const RtsParams &p) {
  std::vector<uint8_t> in = modify_in(kRtr2RtsQp, p.qpn, p.port);
  uint8_t *c = in.data();
  auto ctx = [](Field f) { return at(qpc::kAt, f); };
  set(c, ctx(qpc::log_ack_req_freq), 0);
  set(c, ctx(qpc::log_sra_max), p.log_sra_max);
  set(c, ctx(qpc::next_send_psn), 0);
  set(c, ctx(qpc::retry_count), kRetryCount);
  set(c, ctx(qpc::rnr_retry), kRnrRetry);
  set(c, ctx(qpc::path(ads::ack_timeout)), kAckTimeout);
  return in;
}

std::string out_text(const uint8_t *out) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "status 0x%02x syndrome 0x%08x", static_cast<unsigned>(get(out, cmd::out_status)),
                static_cast<unsigned>(get(out, cmd::out_syndrome)));
  return buf;
}

}  // namespace gpushmem::ibgda::mlx5nic::devx
