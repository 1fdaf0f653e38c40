// A send queue, its doorbell record and completion queue in host memory, and a host producer that posts to them
// the way the IBGDA device code will: the WQE built with gpushmem/mlx5_wqe.hpp, stored one 16-byte unit at a
// time, then the doorbell record's send word (release), then the doorbell. For the NIC emulator's tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "gpushmem/mlx5_wqe.hpp"
#include "ibgda/emu/nic_emulator.hpp"

namespace gpushmem::test {

class EmuQp {
 public:
  EmuQp(uint32_t qpn, uint32_t wqebbs, uint32_t cqes, bool collapsed, const ibgda::emu::KeyTable *local_keys,
        ibgda::emu::Target *peer)
      : sq_(static_cast<uint8_t *>(std::aligned_alloc(64, size_t{wqebbs} * 64))),
        cq_(static_cast<uint8_t *>(std::aligned_alloc(64, size_t{cqes} * 64))) {
    std::memset(sq_, 0, size_t{wqebbs} * 64);
    std::memset(cq_, 0xff, size_t{cqes} * 64);  // as the NIC's CQ starts: every entry INVALID
    cfg_.qpn = qpn;
    cfg_.sq = sq_;
    cfg_.wqebbs = wqebbs;
    cfg_.dbrec = dbrec_;
    cfg_.doorbell = &doorbell_;
    cfg_.cq = cq_;
    cfg_.cqes = cqes;
    cfg_.collapsed = collapsed;
    cfg_.local_keys = local_keys;
    cfg_.peer = peer;
  }
  ~EmuQp() {
    std::free(sq_);
    std::free(cq_);
  }
  EmuQp(const EmuQp &) = delete;
  EmuQp &operator=(const EmuQp &) = delete;

  const ibgda::emu::QpConfig &config() const { return cfg_; }
  uint32_t qpn() const { return cfg_.qpn; }
  uint64_t producer_index() const { return pi_; }

  // Posts one WQE built by build(Wqe *, const mlx5::Post &) at the producer index, waiting for room in the
  // send queue (completions seen in the collapsed CQ) first when `signaled_flow` is set. Returns its index.
  template <class Build>
  uint32_t post(Build build, uint32_t flags = GPUSHMEM_MLX5_CTRL_CQ_UPDATE, bool ring_doorbell = true) {
    mlx5::Wqe w{};
    const auto index = static_cast<uint32_t>(pi_);
    build(&w, mlx5::Post{index, cfg_.qpn, flags});
    const uint32_t blocks = gpushmem_mlx5_wqebbs(w.ds);
    while (pi_ + blocks - completed_ > cfg_.wqebbs) {  // the send queue is full
      if (!refresh_completed()) return ~0u;            // and the QP failed: nothing will make room
    }
    for (uint32_t k = 0; k < w.ds; ++k)
      std::memcpy(sq_ + gpushmem_mlx5_unit_offset(cfg_.wqebbs, index, k), &w.unit[k], 16);
    pi_ += blocks;
    if (ring_doorbell) ring();
    return index;
  }
  // Publishes everything posted so far: the record (release, after the WQEs), then the doorbell.
  void ring() {
    std::atomic_ref<uint32_t>(dbrec_[GPUSHMEM_MLX5_DBR_SND])
        .store(gpushmem_mlx5_dbr_send_value(static_cast<uint32_t>(pi_)), std::memory_order_release);
    std::atomic_ref<uint64_t>(doorbell_).store(gpushmem_mlx5_doorbell_value(static_cast<uint32_t>(pi_), cfg_.qpn),
                                               std::memory_order_release);
  }

  // The collapsed CQ's entry 0: its last word (counter, signature, op_own), read with acquire.
  void last_cqe(uint16_t *counter, uint8_t *op_own) const {
    const uint32_t last =
        std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(cq_ + 60)).load(std::memory_order_acquire);
    uint8_t b[4];
    std::memcpy(b, &last, 4);
    *counter = static_cast<uint16_t>((b[0] << 8) | b[1]);
    *op_own = b[3];
  }
  // Waits (up to ~10 s) until the collapsed CQ reports the WQE at `index` or a later one, or an error; returns
  // the CQE opcode (GPUSHMEM_MLX5_CQE_REQ when it completed).
  uint32_t wait(uint32_t index) {
    for (int spin = 0; spin < 10000000; ++spin) {
      uint16_t counter;
      uint8_t op_own;
      last_cqe(&counter, &op_own);
      const uint32_t opcode = gpushmem_mlx5_cqe_opcode(op_own);
      if (opcode == GPUSHMEM_MLX5_CQE_REQ_ERR) return opcode;
      if (opcode == GPUSHMEM_MLX5_CQE_REQ && static_cast<uint16_t>(counter - static_cast<uint16_t>(index)) < 0x8000u) {
        completed_ = index + 1u > completed_ ? index + 1u : completed_;
        return opcode;
      }
      if (spin > 1000) std::this_thread::yield();
    }
    return GPUSHMEM_MLX5_CQE_INVALID;
  }
  const uint8_t *cq() const { return cq_; }

 private:
  // Reads the collapsed CQ's entry (entry 0: for flow control only the collapsed mode's counter is exact; in ring
  // mode entry 0 is a lap behind at worst, which only makes the producer wait longer). False once an error CQE is
  // there.
  bool refresh_completed() {
    uint16_t counter;
    uint8_t op_own;
    last_cqe(&counter, &op_own);
    if (gpushmem_mlx5_cqe_opcode(op_own) == GPUSHMEM_MLX5_CQE_REQ_ERR) return false;
    if (gpushmem_mlx5_cqe_opcode(op_own) == GPUSHMEM_MLX5_CQE_REQ) {
      const uint64_t done = gpushmem_mlx5_widen_counter(counter, completed_) + 1;
      if (done > completed_) completed_ = done;
    }
    std::this_thread::yield();
    return true;
  }

  uint8_t *sq_;
  uint8_t *cq_;
  alignas(8) uint32_t dbrec_[2] = {0, 0};
  uint64_t doorbell_ = 0;
  ibgda::emu::QpConfig cfg_;
  uint64_t pi_ = 0;
  uint64_t completed_ = 0;  // WQEBBs known complete (flow control)
};

}  // namespace gpushmem::test
