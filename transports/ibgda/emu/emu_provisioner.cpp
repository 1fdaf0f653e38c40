#include "ibgda/emu/emu_provisioner.hpp"

#include <cstring>

namespace gpushmem::ibgda::emu {

EmuProvisioner::EmuProvisioner(EmuMemory memory, EmulatorOptions options)
    : mem_(std::move(memory)), emulator_(std::make_unique<NicEmulator>(std::move(options))) {}

EmuProvisioner::~EmuProvisioner() {
  emulator_->stop();
  emulator_.reset();  // before the queues it reads go
  for (void *p : shared_blocks_) mem_.free_shared(p);
  for (void *p : producer_blocks_) mem_.free_producer(p);
}

void *EmuProvisioner::shared(size_t bytes) {
  void *p = mem_.shared(bytes);
  if (p != nullptr) shared_blocks_.push_back(p);
  return p;
}

void *EmuProvisioner::producer(size_t bytes) {
  void *p = mem_.producer(bytes);
  if (p != nullptr) producer_blocks_.push_back(p);
  return p;
}

Status EmuProvisioner::create(const EmuLayout &l, const std::function<EmuPeer(int pe)> &peer, std::string *why) {
  auto refuse = [why](const char *text) {
    *why = text;
    return Status::invalid_argument;
  };
  if (!qps_.empty()) return refuse("the QPs exist already (create runs once)");
  if (l.n_pes < 1 || l.peers.size() != static_cast<size_t>(l.n_pes)) return refuse("peers must list every PE");
  if (l.qps_per_peer < 1 || l.qps_per_peer > 64) return refuse("qps_per_peer must be 1 to 64");
  if (l.wqebbs < 4 || l.wqebbs > 32768 || (l.wqebbs & (l.wqebbs - 1)) != 0)
    return refuse("wqebbs must be a power of two from 4 to 32768");
  if (l.batch < 1) return refuse("batch must be at least 1");
  if (l.bounce_bytes < 128 || l.bounce_bytes % 64 != 0) return refuse("bounce_bytes must be a multiple of 64, >= 128");
  if (l.heap_base == nullptr || l.heap_bytes == 0) return refuse("the heap is empty");
  if (static_cast<uint64_t>(l.n_pes) * l.qps_per_peer > 0xffffu) return refuse("more than 65535 QPs");

  const size_t n_qps = static_cast<size_t>(l.n_pes) * l.qps_per_peer;
  std::vector<uint32_t> rkeys(static_cast<size_t>(l.n_pes), 0);
  std::vector<uint64_t> remote_base(static_cast<size_t>(l.n_pes), 0);
  auto *bounce = static_cast<uint8_t *>(producer(n_qps * l.bounce_bytes));
  auto *locks = static_cast<uint32_t *>(producer(n_qps * sizeof(uint32_t)));
  if (bounce == nullptr || locks == nullptr) return refuse("no memory for the bounce buffers");
  const uint32_t heap_lkey = local_keys_.add(l.heap_base, l.heap_bytes, kLocalWrite, l.heap_copier);
  const uint32_t bounce_lkey = local_keys_.add(bounce, n_qps * l.bounce_bytes, kLocalWrite, mem_.copier);

  qps_.assign(n_qps, gpushmem_ibgda_qp_t{});
  uint32_t qpn = l.first_qpn;
  for (int pe = 0; pe < l.n_pes; ++pe) {
    if (!l.peers[static_cast<size_t>(pe)]) continue;
    const EmuPeer p = peer(pe);
    if (p.target == nullptr) return refuse("a peer reached through IBGDA has no target");
    rkeys[static_cast<size_t>(pe)] = p.rkey;
    remote_base[static_cast<size_t>(pe)] = p.remote_base;
    for (uint32_t q = 0; q < l.qps_per_peer; ++q) {
      // One shared block a QP: the send queue, then its CQ's one entry, then the doorbell record and the doorbell.
      const size_t sq_bytes = size_t{l.wqebbs} * 64;
      auto *block = static_cast<uint8_t *>(shared(sq_bytes + 128));
      auto *words = static_cast<gpushmem_ibgda_qp_words_t *>(producer(sizeof(gpushmem_ibgda_qp_words_t)));
      if (block == nullptr || words == nullptr) return refuse("no memory for a QP");
      uint8_t *cqe = block + sq_bytes;
      std::memset(cqe, 0xff, 64);  // as the NIC's CQ starts: INVALID
      gpushmem_ibgda_qp_t &qp = qps_[static_cast<size_t>(pe) * l.qps_per_peer + q];
      qp.sq = block;
      qp.cqe = cqe;
      qp.dbrec = reinterpret_cast<uint32_t *>(cqe + 64);
      qp.doorbell = reinterpret_cast<uint64_t *>(cqe + 72);
      qp.words = words;
      qp.wqebbs = l.wqebbs;
      qp.qpn = qpn++;
      qp.batch = l.batch;
      QpConfig c;
      c.qpn = qp.qpn;
      c.sq = qp.sq;
      c.wqebbs = qp.wqebbs;
      c.dbrec = qp.dbrec;
      c.doorbell = qp.doorbell;
      c.cq = qp.cqe;
      c.cqes = 1;
      c.collapsed = true;
      c.local_keys = &local_keys_;
      c.peer = p.target;
      emulator_->add_qp(c);
    }
  }

  auto *dev_qps = static_cast<gpushmem_ibgda_qp_t *>(producer(n_qps * sizeof(gpushmem_ibgda_qp_t)));
  auto *dev_rkeys = static_cast<uint32_t *>(producer(rkeys.size() * sizeof(uint32_t)));
  auto *dev_bases = static_cast<uint64_t *>(producer(remote_base.size() * sizeof(uint64_t)));
  auto *dev_state = static_cast<gpushmem_ibgda_state_t *>(producer(sizeof(gpushmem_ibgda_state_t)));
  if (dev_qps == nullptr || dev_rkeys == nullptr || dev_bases == nullptr || dev_state == nullptr)
    return refuse("no memory for the tables");
  host_state_ = gpushmem_ibgda_state_t{};
  host_state_.qps = dev_qps;
  host_state_.rkeys = dev_rkeys;
  host_state_.remote_base = dev_bases;
  host_state_.bounce = bounce;
  host_state_.bounce_locks = locks;
  host_state_.qps_per_peer = l.qps_per_peer;
  host_state_.heap_lkey = heap_lkey;
  host_state_.bounce_lkey = bounce_lkey;
  host_state_.bounce_bytes = l.bounce_bytes;
  host_state_.timeout_ns = l.timeout_ns;
  if (!mem_.to_producer(dev_qps, qps_.data(), n_qps * sizeof(gpushmem_ibgda_qp_t)) ||
      !mem_.to_producer(dev_rkeys, rkeys.data(), rkeys.size() * sizeof(uint32_t)) ||
      !mem_.to_producer(dev_bases, remote_base.data(), remote_base.size() * sizeof(uint64_t)) ||
      !mem_.to_producer(dev_state, &host_state_, sizeof host_state_))
    return refuse("could not write the tables into the producers' memory");
  device_state_ = dev_state;
  return Status::ok;
}

}  // namespace gpushmem::ibgda::emu
