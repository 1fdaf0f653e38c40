#include "ibgda/emu/nic_emulator.hpp"

#include <sched.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace gpushmem::ibgda::emu {

namespace {

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void nap(uint64_t ns) {
  timespec t = {static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&t, nullptr);
}

}  // namespace

NicEmulator::NicEmulator(EmulatorOptions options) : opt_(std::move(options)) {
  cqe_delay_ns_.store(opt_.cqe_delay_ns, std::memory_order_relaxed);
  doorbell_delay_ns_.store(opt_.doorbell_delay_ns, std::memory_order_relaxed);
}

NicEmulator::~NicEmulator() {
  stop();
}

uint32_t NicEmulator::add_qp(const QpConfig &qp) {
  std::lock_guard<std::mutex> lock(serve_mu_);
  auto q = std::make_unique<Qp>();
  q->cfg = qp;
  qps_.push_back(std::move(q));
  return static_cast<uint32_t>(qps_.size() - 1);
}

void NicEmulator::start() {
  if (thread_.joinable()) return;
  stop_.store(false, std::memory_order_release);
  thread_ = std::thread([this] { loop(); });
}

void NicEmulator::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  thread_.join();
}

void NicEmulator::loop() {
  uint64_t nap_ns = 1000, last_work = now_ns(), last_serve = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    if (opt_.serve) {
      const uint64_t now = now_ns();
      if (now - last_serve >= opt_.serve_every_ns) {
        last_serve = now;
        opt_.serve();
      }
    }
    if (poll_once() != 0) {
      nap_ns = 1000;
      last_work = now_ns();
      continue;
    }
    // Poll on for spin_ns after the last work (a nap costs tens of microseconds of timer slack), then nap.
    if (now_ns() - last_work < opt_.spin_ns) {
      sched_yield();
      continue;
    }
    nap(nap_ns);
    nap_ns = nap_ns * 2 < opt_.nap_max_ns ? nap_ns * 2 : opt_.nap_max_ns;
  }
}

size_t NicEmulator::poll_once() {
  std::lock_guard<std::mutex> lock(serve_mu_);
  size_t n = 0;
  const uint64_t now = now_ns();
  for (auto &q : qps_) n += serve(*q, now);
  return n;
}

size_t NicEmulator::serve(Qp &q, uint64_t now) {
  if (q.stalled.load(std::memory_order_acquire)) return 0;
  const QpConfig &c = q.cfg;
  // The record is the truth: acquire, so the WQEs it covers are read after it.
  const uint32_t record = std::atomic_ref<uint32_t>(c.dbrec[GPUSHMEM_MLX5_DBR_SND]).load(std::memory_order_acquire);
  const auto pi16 = static_cast<uint16_t>(gpushmem_mlx5_bswap32(record) & 0xffffu);
  const auto ahead = static_cast<uint16_t>(pi16 - static_cast<uint16_t>(q.ci));
  if (ahead > c.wqebbs) {
    // Behind the consumer index, or more than the ring holds: not a producer index (a record that went back).
    if (pi16 != q.seen_pi) bad_records_.fetch_add(1, std::memory_order_relaxed);
    q.seen_pi = pi16;
    return 0;
  }
  if (pi16 != q.seen_pi) {
    // The doorbell delay counts from the first move the emulator has not served, not from the newest one.
    if (static_cast<uint16_t>(q.ci) == q.seen_pi) q.moved_ns = now;
    q.seen_pi = pi16;
    doorbells_.fetch_add(1, std::memory_order_relaxed);
  }
  const uint64_t delay = doorbell_delay_ns_.load(std::memory_order_relaxed);
  if (delay != 0 && now - q.moved_ns < delay) return 0;
  const uint64_t pi = q.ci + ahead;
  size_t done = 0;
  while (q.ci < pi) {
    const auto index = static_cast<uint32_t>(q.ci);
    const mlx5::RingReader reader{c.sq, c.wqebbs, index};
    mlx5::Decoded d;
    uint32_t synd = mlx5::decode(reader, &d);
    const uint64_t left = pi - q.ci;
    // A WQE's blocks, never past the record (a malformed unit count, or a WQE not all published).
    const uint64_t blocks = synd == GPUSHMEM_MLX5_SYND_OK ? gpushmem_mlx5_wqebbs(d.ds) : 1u;
    const uint64_t step = blocks < left ? blocks : left;
    if (q.error) {
      // After an error every WQE completes with WR_FLUSH, signaled or not.
      complete(q, index, d.opcode, GPUSHMEM_MLX5_SYND_WR_FLUSH, 0);
      flushed_.fetch_add(1, std::memory_order_relaxed);
      trace(q, index, d, GPUSHMEM_MLX5_SYND_WR_FLUSH);
      q.ci += step;
      ++done;
      continue;
    }
    if (synd == GPUSHMEM_MLX5_SYND_OK) {
      if (d.index != (index & 0xffffu) || d.qpn != (c.qpn & 0xffffffu) || blocks > left)
        synd = GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;  // not the WQE expected here, not this QP's, or not all published
    }
    if (synd == GPUSHMEM_MLX5_SYND_OK) {
      {
        std::lock_guard<std::mutex> lock(knobs_mu_);
        if (q.bad_rkey_index == static_cast<int64_t>(index & 0xffffu) && d.opcode != GPUSHMEM_MLX5_OP_NOP) {
          q.bad_rkey_index = -1;
          synd = GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
        }
      }
      if (synd == GPUSHMEM_MLX5_SYND_OK) synd = execute(q, d, index);
    }
    trace(q, index, d, synd);
    if (synd != GPUSHMEM_MLX5_SYND_OK) {
      q.error = true;
      q.error_syndrome = synd;
      q.error_index = index & 0xffffu;
      errors_.fetch_add(1, std::memory_order_relaxed);
      complete(q, index, d.opcode, synd, 0);
    } else {
      wqes_.fetch_add(1, std::memory_order_relaxed);
      if (d.signaled) complete(q, index, d.opcode, synd, d.opcode == GPUSHMEM_MLX5_OP_NOP ? 0 : d.bytes);
    }
    q.ci += step;
    ++done;
  }
  return done;
}

uint32_t NicEmulator::execute(Qp &q, const mlx5::Decoded &d, uint32_t index) {
  const QpConfig &c = q.cfg;
  if (d.opcode == GPUSHMEM_MLX5_OP_NOP) return GPUSHMEM_MLX5_SYND_OK;
  if (c.peer == nullptr || c.local_keys == nullptr) return GPUSHMEM_MLX5_SYND_LOCAL_QP_OP;  // not connected
  switch (d.opcode) {
    case GPUSHMEM_MLX5_OP_RDMA_WRITE:
    case GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM: {
      if (d.is_inline) {
        uint8_t payload[GPUSHMEM_MLX5_MAX_INLINE];
        const mlx5::RingReader reader{c.sq, c.wqebbs, index};
        for (uint32_t b = 0; b < d.bytes; ++b) payload[b] = mlx5::inline_byte(reader, b);
        return c.peer->write(d.rkey, d.raddr, payload, d.bytes);
      }
      const uint8_t *src = nullptr;
      if (const uint32_t synd = c.local_keys->load(d.lkey, d.laddr, d.bytes, &scratch_, &src);
          synd != GPUSHMEM_MLX5_SYND_OK)
        return synd;
      return c.peer->write(d.rkey, d.raddr, src, d.bytes);
    }
    case GPUSHMEM_MLX5_OP_RDMA_READ: {
      // Straight into a region the emulator reaches; through the scratch buffer and the copier otherwise.
      if (uint8_t *dst = c.local_keys->resolve(d.lkey, d.laddr, d.bytes, kLocalWrite))
        return c.peer->read(d.rkey, d.raddr, dst, d.bytes);
      if (scratch_.size() < d.bytes) scratch_.resize(d.bytes);
      const uint32_t synd = c.peer->read(d.rkey, d.raddr, scratch_.data(), d.bytes);
      if (synd != GPUSHMEM_MLX5_SYND_OK) return synd;
      return c.local_keys->store(d.lkey, d.laddr, scratch_.data(), d.bytes);
    }
    default: {  // the atomics (the decoder let nothing else through)
      // The local key is checked before the remote word changes, as a NIC checks its local segment first.
      if (!c.local_keys->allows(d.lkey, d.laddr, d.bytes, kLocalWrite)) return GPUSHMEM_MLX5_SYND_LOCAL_PROT;
      uint64_t old = 0;
      const uint32_t synd = c.peer->atomic(d, &old);
      if (synd != GPUSHMEM_MLX5_SYND_OK) return synd;
      uint8_t fetched[8];
      if (d.bytes == 4) {
        const auto v = static_cast<uint32_t>(old);
        std::memcpy(fetched, &v, 4);
      } else {
        std::memcpy(fetched, &old, 8);
      }
      return c.local_keys->store(d.lkey, d.laddr, fetched, d.bytes);
    }
  }
}

void NicEmulator::complete(Qp &q, uint32_t index, uint32_t opcode, uint32_t syndrome, uint32_t bytes) {
  const QpConfig &c = q.cfg;
  if (const uint64_t delay = cqe_delay_ns_.load(std::memory_order_relaxed); delay != 0) nap(delay);
  const uint64_t n = q.cqe_count++;
  const uint32_t slot = c.collapsed ? 0u : static_cast<uint32_t>(n & (c.cqes - 1));
  const uint8_t owner = c.collapsed ? 0 : ((n & c.cqes) != 0 ? 1 : 0);
  uint8_t entry[64] = {};
  if (syndrome == GPUSHMEM_MLX5_SYND_OK) {
    gpushmem_mlx5_cqe64_t e{};
    e.byte_cnt_be = gpushmem_mlx5_bswap32(bytes);
    e.sop_drop_qpn_be = gpushmem_mlx5_bswap32(c.qpn & 0xffffffu);
    e.wqe_counter_be = gpushmem_mlx5_bswap16(static_cast<uint16_t>(index));
    e.op_own = static_cast<uint8_t>((GPUSHMEM_MLX5_CQE_REQ << 4) | owner);
    std::memcpy(entry, &e, 64);
  } else {
    gpushmem_mlx5_err_cqe_t e{};
    e.syndrome = static_cast<uint8_t>(syndrome);
    e.s_wqe_opcode_qpn_be = gpushmem_mlx5_bswap32(((opcode & 0xffu) << 24) | (c.qpn & 0xffffffu));
    e.wqe_counter_be = gpushmem_mlx5_bswap16(static_cast<uint16_t>(index));
    e.op_own = static_cast<uint8_t>((GPUSHMEM_MLX5_CQE_REQ_ERR << 4) | owner);
    std::memcpy(entry, &e, 64);
  }
  uint8_t *cqe = c.cq + static_cast<size_t>(slot) * 64;
  // Everything but the last word (as relaxed atomic words: a poller may read the entry meanwhile), then the last
  // word (counter, signature, op_own) with release: a poller that sees the new counter or owner sees the rest,
  // and the data the WQE moved before it.
  for (int w = 0; w < 7; ++w) {
    uint64_t v;
    std::memcpy(&v, entry + w * 8, 8);
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(cqe + w * 8)).store(v, std::memory_order_relaxed);
  }
  uint32_t word, last;
  std::memcpy(&word, entry + 56, 4);
  std::memcpy(&last, entry + 60, 4);
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(cqe + 56)).store(word, std::memory_order_relaxed);
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(cqe + 60)).store(last, std::memory_order_release);
  cqes_.fetch_add(1, std::memory_order_relaxed);
}

void NicEmulator::trace(const Qp &q, uint32_t index, const mlx5::Decoded &d, uint32_t syndrome) const {
  if (!opt_.trace) return;
  char line[256];
  std::snprintf(line, sizeof line,
                "emu: qpn 0x%x wqe %u %s %llu B raddr 0x%llx rkey 0x%x laddr 0x%llx lkey 0x%x%s -> %s", q.cfg.qpn,
                index & 0xffffu, opcode_name(d.opcode), static_cast<unsigned long long>(d.bytes),
                static_cast<unsigned long long>(d.raddr), d.rkey, static_cast<unsigned long long>(d.laddr), d.lkey,
                d.signaled ? " signaled" : "", syndrome_name(syndrome));
  opt_.trace(line);
}

void NicEmulator::stall(uint32_t qpn, bool stalled) {
  std::lock_guard<std::mutex> lock(knobs_mu_);
  for (auto &q : qps_)
    if (q->cfg.qpn == qpn) q->stalled.store(stalled, std::memory_order_release);
}

void NicEmulator::bad_rkey_once(uint32_t qpn, uint32_t wqe_index) {
  std::lock_guard<std::mutex> lock(knobs_mu_);
  for (auto &q : qps_)
    if (q->cfg.qpn == qpn) q->bad_rkey_index = wqe_index & 0xffffu;
}

void NicEmulator::set_cqe_delay(uint64_t ns) {
  cqe_delay_ns_.store(ns, std::memory_order_relaxed);
}
void NicEmulator::set_doorbell_delay(uint64_t ns) {
  doorbell_delay_ns_.store(ns, std::memory_order_relaxed);
}

EmulatorCounters NicEmulator::counters() const {
  EmulatorCounters c;
  c.wqes = wqes_.load(std::memory_order_relaxed);
  c.cqes = cqes_.load(std::memory_order_relaxed);
  c.errors = errors_.load(std::memory_order_relaxed);
  c.flushed = flushed_.load(std::memory_order_relaxed);
  c.doorbells = doorbells_.load(std::memory_order_relaxed);
  c.bad_records = bad_records_.load(std::memory_order_relaxed);
  return c;
}

bool NicEmulator::in_error(uint32_t qpn, uint32_t *syndrome, uint32_t *wqe_index) const {
  std::lock_guard<std::mutex> lock(serve_mu_);
  for (const auto &q : qps_)
    if (q->cfg.qpn == qpn && q->error) {
      if (syndrome != nullptr) *syndrome = q->error_syndrome;
      if (wqe_index != nullptr) *wqe_index = q->error_index;
      return true;
    }
  return false;
}

const char *NicEmulator::opcode_name(uint32_t opcode) {
  switch (opcode) {
    case GPUSHMEM_MLX5_OP_NOP:
      return "NOP";
    case GPUSHMEM_MLX5_OP_RDMA_WRITE:
      return "WRITE";
    case GPUSHMEM_MLX5_OP_RDMA_WRITE_IMM:
      return "WRITE_IMM";
    case GPUSHMEM_MLX5_OP_RDMA_READ:
      return "READ";
    case GPUSHMEM_MLX5_OP_ATOMIC_CS:
      return "ATOMIC_CS";
    case GPUSHMEM_MLX5_OP_ATOMIC_FA:
      return "ATOMIC_FA";
    case GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS:
      return "MASKED_CS";
    case GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA:
      return "MASKED_FA";
  }
  return "UNKNOWN_OPCODE";
}

const char *NicEmulator::syndrome_name(uint32_t syndrome) {
  return gpushmem_mlx5_syndrome_name(syndrome);
}

}  // namespace gpushmem::ibgda::emu
