// The NIC emulator: what an mlx5 NIC does with a send queue that a GPU warp (or a test's host thread) fills, so
// that IBGDA's device code runs unchanged where there is no NIC. design.md §4 (NIC emulator),
// transports-notes.md §11.8.
//
// For each registered QP, one host thread (the emulator's) watches the send word of the QP's doorbell record,
// the truth (the doorbell register write is only a wake-up), and takes every WQE between its consumer index
// and the producer index recorded there, in order:
//   - decodes and validates it (gpushmem/mlx5_wqe.hpp's decoder, then the WQE index against the expected one,
//     the QPN, the local key and range); a violation completes it with an error CQE carrying the NIC's
//     syndrome, puts the QP in the error state, and every later WQE completes with WR_FLUSH, as on hardware;
//   - executes it: the local half here (loads and stores, or the region's Copier for memory the host cannot map,
//     such as a GPU heap), the remote half through the QP's Target (emu_memory.hpp);
//   - writes a CQE for a WQE with CQ_UPDATE (and for every error or flushed WQE), only after the data is in
//     place: collapsed mode (entry 0 always, what IBGDA polls) or ring mode (owner bit per lap).
// Fault knobs: a doorbell delay, a stalled QP, an rkey made bad for one WQE, slow CQEs. A trace line per WQE.
// Its speed is the emulator's, never IBGDA's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ibgda/emu/emu_memory.hpp"

namespace gpushmem::ibgda::emu {

// A QP as the producer sees it (the pointers and numbers a provisioner hands the device code) and what the
// emulator needs besides: where its local keys and its peer are.
struct QpConfig {
  uint32_t qpn = 0;       // 24 bits
  uint8_t *sq = nullptr;  // the send queue: `wqebbs` 64-byte blocks (a power of two)
  uint32_t wqebbs = 0;
  uint32_t *dbrec = nullptr;     // the doorbell record: [GPUSHMEM_MLX5_DBR_RCV], [GPUSHMEM_MLX5_DBR_SND] (BE32)
  uint64_t *doorbell = nullptr;  // the doorbell register the producer writes after the record (may be null)
  uint8_t *cq = nullptr;         // the completion queue: `cqes` 64-byte entries (a power of two)
  uint32_t cqes = 0;
  bool collapsed = true;                 // every CQE to entry 0 (IBGDA's mode); false: a ring with owner bits
  const KeyTable *local_keys = nullptr;  // the lkeys this QP's WQEs may name
  Target *peer = nullptr;                // the remote half of its work requests
};

struct EmulatorOptions {
  uint64_t doorbell_delay_ns = 0;  // a doorbell is noticed this long after its record moved
  uint64_t cqe_delay_ns = 0;       // each CQE is written this long after its WQE executed
  uint64_t spin_ns = 200000;       // the thread polls this long after the last WQE before it naps
  uint64_t nap_max_ns = 20000;     // its longest nap while no doorbell moves
  // One line per WQE ("emu: qpn 0x12 wqe 5 WRITE 8 B raddr 0x... rkey 0x... -> ok") when set.
  std::function<void(const std::string &)> trace;
  // Called by the thread between its polls, at most every serve_every_ns, when set: the runtime serves the network
  // there (peers' requests on this PE's GPU heap, the remote halves of their work requests), as the CPU proxy's
  // thread does, so they need not wait for the transport's progress thread to wake.
  std::function<void()> serve;
  uint64_t serve_every_ns = 5000;
};

struct EmulatorCounters {
  uint64_t wqes = 0;         // executed successfully
  uint64_t cqes = 0;         // written (errors and flushes included)
  uint64_t errors = 0;       // WQEs completed with an error syndrome other than WR_FLUSH
  uint64_t flushed = 0;      // WQEs completed with WR_FLUSH after an error
  uint64_t doorbells = 0;    // record moves noticed
  uint64_t bad_records = 0;  // record values behind the consumer index or beyond the ring (ignored)
};

class NicEmulator {
 public:
  explicit NicEmulator(EmulatorOptions options = {});
  ~NicEmulator();
  NicEmulator(const NicEmulator &) = delete;
  NicEmulator &operator=(const NicEmulator &) = delete;

  // Registers a QP (before start, or while stopped); returns its number in this emulator. The CQ buffer should
  // start as the NIC's does: every byte 0xff (opcode INVALID).
  uint32_t add_qp(const QpConfig &qp);

  void start();
  void stop();
  // One pass over every QP: takes what their doorbell records published. Returns the WQEs it completed or
  // executed. The thread's body; tests drive it directly.
  size_t poll_once();

  // Fault knobs (thread safe).
  void stall(uint32_t qpn, bool stalled);                // a stalled QP takes nothing until released
  void bad_rkey_once(uint32_t qpn, uint32_t wqe_index);  // that WQE (index mod 2^16) fails as with an unknown rkey
  void set_cqe_delay(uint64_t ns);
  void set_doorbell_delay(uint64_t ns);

  EmulatorCounters counters() const;
  // Whether a QP is in the error state, and the syndrome and WQE index (low 16 bits) that put it there: the
  // first error, which a collapsed CQ's entry no longer shows once later WQEs were flushed.
  bool in_error(uint32_t qpn, uint32_t *syndrome = nullptr, uint32_t *wqe_index = nullptr) const;

  static const char *opcode_name(uint32_t opcode);
  static const char *syndrome_name(uint32_t syndrome);

 private:
  struct Qp {
    QpConfig cfg;
    uint64_t ci = 0;         // WQEBBs taken (monotonic)
    uint64_t cqe_count = 0;  // CQEs written (ring mode's lap parity)
    uint16_t seen_pi = 0;    // the record's last value noticed
    uint64_t moved_ns = 0;   // when it last moved (the doorbell delay counts from there)
    bool error = false;
    uint32_t error_syndrome = 0;
    uint32_t error_index = 0;
    std::atomic<bool> stalled{false};
    int64_t bad_rkey_index = -1;  // guarded by knobs_mu_
  };
  size_t serve(Qp &q, uint64_t now);
  // Executes one valid WQE; returns its syndrome.
  uint32_t execute(Qp &q, const mlx5::Decoded &d, uint32_t index);
  void complete(Qp &q, uint32_t index, uint32_t opcode, uint32_t syndrome, uint32_t bytes);
  void trace(const Qp &q, uint32_t index, const mlx5::Decoded &d, uint32_t syndrome) const;
  void loop();

  EmulatorOptions opt_;
  std::vector<std::unique_ptr<Qp>> qps_;
  std::vector<uint8_t> scratch_;  // the local half of a WQE on a region reached through a copier
  mutable std::mutex knobs_mu_;
  std::atomic<uint64_t> cqe_delay_ns_{0}, doorbell_delay_ns_{0};
  std::atomic<uint64_t> wqes_{0}, cqes_{0}, errors_{0}, flushed_{0}, doorbells_{0}, bad_records_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex serve_mu_;  // one pass at a time (the thread, or a test calling poll_once)
};

}  // namespace gpushmem::ibgda::emu
