// The provisioner of emulated IBGDA (design.md §4: a provisioner hands the device code its pointers and numbers):
// for one PE, a QP for each (peer, q) of the peers reached through IBGDA, whose send queue, doorbell record, doorbell
// word and collapsed CQ live in memory both the producers and the NIC emulator's thread reach, and whose producer
// words, bounce memory and tables live in the producers' memory; the local keys of the PE's heap and bounce memory
// (through the memory's copier when the emulator cannot map them), and each peer's rkey and remote base from the
// caller (the emulator's wire, TransportTarget, names a peer's heap by a key). The result is a gpushmem_ibgda_state_t
// in the producers' memory, what the device state's `ibgda` points at, and a NIC emulator serving every QP.
//
// Where the objects go is the caller's: the runtime gives pinned mapped host memory (shared) and device memory
// (producers, with CUDA copies as the copier); the tests give host memory for both.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/ibgda_qp.h"
#include "ibgda/emu/nic_emulator.hpp"

namespace gpushmem::ibgda::emu {

struct EmuMemory {
  // Zeroed memory the producers and the emulator both reach (the queues); nullptr when there is none.
  std::function<void *(size_t bytes)> shared;
  std::function<void(void *)> free_shared;
  // Zeroed memory only the producers reach (their words, bounce memory, the tables); nullptr when there is none.
  std::function<void *(size_t bytes)> producer;
  std::function<void(void *)> free_producer;
  // Writes `bytes` from host memory into producer memory; false if it could not.
  std::function<bool(void *dst, const void *src, size_t bytes)> to_producer;
  // How the emulator reaches producer memory (the bounce memory a WQE names); nullptr: it maps it.
  Copier *copier = nullptr;
};

struct EmuLayout {
  int n_pes = 0;
  std::vector<bool> peers;       // [n_pes]: reached through IBGDA
  uint32_t qps_per_peer = 4;     // GPUSHMEM_IBGDA_QPS_PER_PEER
  uint32_t wqebbs = 256;         // send queue blocks per QP (a power of two, 4 .. 32768)
  uint32_t batch = 8;            // GPUSHMEM_IBGDA_BATCH
  uint32_t bounce_bytes = 4096;  // per QP (a multiple of 64, at least 128)
  void *heap_base = nullptr;     // this PE's heap (its lkey covers [heap_base, heap_base + heap_bytes))
  uint64_t heap_bytes = 0;
  Copier *heap_copier = nullptr;  // how the emulator reaches the heap (nullptr: it maps it)
  uint64_t timeout_ns = 0;        // GPUSHMEM_DEVICE_TIMEOUT
  uint32_t first_qpn = 0x100;     // QP numbers count up from here
};

// One peer as the QPs to it see it: where its remote half goes, its heap's key and the base address WQEs use.
struct EmuPeer {
  Target *target = nullptr;
  uint32_t rkey = 0;
  uint64_t remote_base = 0;
};

class EmuProvisioner {
 public:
  EmuProvisioner(EmuMemory memory, EmulatorOptions options);
  ~EmuProvisioner();
  EmuProvisioner(const EmuProvisioner &) = delete;
  EmuProvisioner &operator=(const EmuProvisioner &) = delete;

  // Creates everything; peer(pe) is asked once per peer reached through IBGDA. *why says what failed otherwise.
  Status create(const EmuLayout &layout, const std::function<EmuPeer(int pe)> &peer, std::string *why);
  // The state for the device (in producer memory), and the host's copy of it (the tests read through it).
  const gpushmem_ibgda_state_t *device_state() const { return device_state_; }
  const gpushmem_ibgda_state_t &host_state() const { return host_state_; }
  // The QPs as the producers see them, in qps[] order (unused peers' entries zeroed), host copy.
  const std::vector<gpushmem_ibgda_qp_t> &qps() const { return qps_; }

  NicEmulator &emulator() { return *emulator_; }
  void start() { emulator_->start(); }
  void stop() { emulator_->stop(); }

 private:
  void *shared(size_t bytes);
  void *producer(size_t bytes);

  EmuMemory mem_;
  std::unique_ptr<NicEmulator> emulator_;
  KeyTable local_keys_;
  std::vector<void *> shared_blocks_, producer_blocks_;
  std::vector<gpushmem_ibgda_qp_t> qps_;
  gpushmem_ibgda_state_t host_state_{};
  const gpushmem_ibgda_state_t *device_state_ = nullptr;
};

}  // namespace gpushmem::ibgda::emu
