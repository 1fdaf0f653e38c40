// The real-NIC provisioner of IBGDA (design.md §4: a provisioner hands the device code its pointers and numbers):
// for one PE, on one mlx5 NIC through rdma-core's DevX, an RC queue pair for each (peer, q) of the peers reached
// through IBGDA, connected to that peer's partner QP, with the same gpushmem_ibgda_state_t the emulated
// provisioner (emu/emu_provisioner.hpp) builds, so device code cannot tell them apart:
//   - each QP's send queue, doorbell record and collapsed CQ (one 64-byte entry rewritten in place) in GPU memory,
//     one allocation registered with the NIC as a DevX umem through a dma-buf of it (nvidia-peermem when the
//     driver exports no dma-buf);
//   - each QP's doorbell on a UAR page of its own where libmlx5 gives one (MLX5DV_UAR_ALLOC_TYPE_NC_DEDICATED),
//     else the shared non-cached page, else a BlueFlame page, mapped into the GPU (cudaHostRegister IoMemory);
//   - producer words, bounce memory (with its lkey), locks and the device tables in GPU memory;
//   - the mapped part of this PE's GPU heap registered as one memory region (ibv_reg_dmabuf_mr, else ibv_reg_mr
//     through nvidia-peermem); its rkey and base, each peer's QP numbers and addresses (InfiniBand LID, or RoCE GID
//     and MAC) exchanged through the bootstrap (mlx5_exchange.hpp).
// create() is collective over every PE (three allgathers, the same on each whatever fails where); a failure
// anywhere makes every PE's create() fail with the first reason, and each releases what it made.
//
// What it does not do: register heap memory mapped after create() (the device's keys cover the heap as it was);
// InfiniBand across subnets (no GRH), DC transport, BlueFlame WQE copies, more than one NIC per PE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/ibgda_qp.h"
#include "ibgda/mlx5/mlx5_exchange.hpp"
#include "ibgda/mlx5/mlx5_gpu_ops.hpp"

namespace gpushmem::ibgda::mlx5nic {

struct Mlx5Layout {
  int my_pe = 0;
  int n_pes = 0;
  std::vector<bool> peers;       // [n_pes]: reached through IBGDA
  uint32_t qps_per_peer = 4;     // GPUSHMEM_IBGDA_QPS_PER_PEER
  uint32_t wqebbs = 256;         // GPUSHMEM_IBGDA_SQ_BLOCKS: a power of two, 64 .. 32768
  uint32_t batch = 8;            // GPUSHMEM_IBGDA_BATCH
  uint32_t bounce_bytes = 4096;  // per QP (a multiple of 64, at least 128)
  void *heap_base = nullptr;     // this PE's GPU heap and the part of it to register (host-page multiples)
  uint64_t heap_bytes = 0;
  uint64_t timeout_ns = 0;  // GPUSHMEM_DEVICE_TIMEOUT
  std::string hca;          // GPUSHMEM_HCA ("": choose)
  std::string gpu_bus_id;   // the GPU's PCI address, for the nearest NIC ("": unknown)
  int gid_index = -1;       // GPUSHMEM_IBGDA_GID_INDEX (-1: the first RoCE v2 IPv4 GID)
  std::string sysfs_root = "/sys";
  // false: this PE knows already it cannot (*local_why, the NIC check's verdict): it only takes part in the
  // exchange, so that the others learn it and every PE refuses alike.
  bool local_ok = true;
  std::string local_why;
};

// Where the queues live in the one GPU allocation the NIC sees (offsets in bytes): send queues, then CQs (wqebbs
// entries each, 0xff at start), then a 64-byte slot of doorbell records per QP (the QP's two words at 0, the CQ's
// at 32). Every send queue and CQ starts on a 4 KiB page; the total is a multiple of 64 KiB.
struct ControlPlan {
  uint32_t n_qps = 0;
  size_t sq_bytes = 0;
  size_t cq_bytes = 0;
  size_t dbr_at = 0;
  size_t total = 0;
  size_t sq(uint32_t k) const { return k * sq_bytes; }
  size_t cq(uint32_t k) const { return n_qps * sq_bytes + k * cq_bytes; }
  size_t qp_dbr(uint32_t k) const { return dbr_at + size_t{k} * 64; }
  size_t cq_dbr(uint32_t k) const { return dbr_at + size_t{k} * 64 + 32; }
};
ControlPlan plan_control(uint32_t n_qps, uint32_t wqebbs);

class Mlx5Provisioner {
 public:
  explicit Mlx5Provisioner(GpuOps gpu);
  ~Mlx5Provisioner();  // releases everything, in the reverse order of its making (in the GPU's context)
  Mlx5Provisioner(const Mlx5Provisioner &) = delete;
  Mlx5Provisioner &operator=(const Mlx5Provisioner &) = delete;

  // Collective (see above). ok, or a Status with *why naming the call, the device and what to change; what was
  // made is released before it returns.
  Status create(const Mlx5Layout &layout, const Allgather &allgather, std::string *why);
  // After create: the state for the device (in GPU memory) and the host's copy of it.
  const gpushmem_ibgda_state_t *device_state() const { return device_state_; }
  const gpushmem_ibgda_state_t &host_state() const { return host_state_; }
  // The QPs as the producers see them, in qps[] order (unused entries zeroed), host copy.
  const std::vector<gpushmem_ibgda_qp_t> &qps() const { return qps_; }
  // One line for the log: the device, why it was chosen, port and addressing, how the GPU memory reached the NIC.
  const std::string &summary() const { return summary_; }
  // The ibv device name ("mlx5_0").
  const std::string &device() const { return device_; }

 private:
  struct Impl;
  void release();
  bool build_tables(const Mlx5Layout &l, const std::vector<PeerCard> &cards, std::string *why);

  GpuOps gpu_;
  std::unique_ptr<Impl> impl_;
  std::vector<gpushmem_ibgda_qp_t> qps_;
  gpushmem_ibgda_state_t host_state_{};
  const gpushmem_ibgda_state_t *device_state_ = nullptr;
  std::string summary_;
  std::string device_;
};

}  // namespace gpushmem::ibgda::mlx5nic
