// The remote half of an emulated QP carried by a network transport (ucx/ between nodes or virtual hosts): the
// target PE's transport is the emulator's responder there (its memory agent, for a GPU heap). An rkey names a
// (PE, region) pair and the address range the initiator uses for it; a WRITE completes once the data is in place
// at the target (the transport's remote completion), a READ once the data is here, an atomic once its old value
// is. Atomics are the transport's, so they are atomic with every other network atomic on the word; the masked
// forms are compare-and-swap loops over it. design.md §4 (NIC emulator: the wire).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "ibgda/emu/emu_memory.hpp"
#include "transport.hpp"

namespace gpushmem::ibgda::emu {

class TransportTarget final : public Target {
 public:
  TransportTarget(transport::Transport *t, uint32_t channel) : t_(t), channel_(channel) {}

  // The rkey for `bytes` of `pe`'s `region`, which the initiator addresses as [base, base + bytes).
  uint32_t add_key(int pe, transport::Region region, uint64_t base, uint64_t bytes, uint32_t access);

  uint32_t write(uint32_t rkey, uint64_t raddr, const uint8_t *src, uint32_t bytes) override;
  uint32_t read(uint32_t rkey, uint64_t raddr, uint8_t *dst, uint32_t bytes) override;
  uint32_t atomic(const mlx5::Decoded &d, uint64_t *old) override;

 private:
  struct Key {
    int pe;
    transport::Region region;
    uint64_t base, bytes;
    uint32_t access;
  };
  // The target of [raddr, raddr + bytes) under rkey, or false (an unknown key, a range outside it, a missing
  // right).
  bool resolve(uint32_t rkey, uint64_t raddr, uint64_t bytes, uint32_t need, int *pe, transport::RemoteRef *ref) const;
  // The syndrome a NIC reports for a transport failure: the peer lost -> TRANSPORT_RETRY_EXC, else REMOTE_OP.
  uint32_t failed(int pe) const;

  transport::Transport *t_;
  uint32_t channel_;
  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Key> keys_;
  uint32_t next_ = 0x2000;
};

}  // namespace gpushmem::ibgda::emu
