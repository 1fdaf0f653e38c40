// The NIC emulator's memory: registered regions named by keys (what mlx5 memory keys are to a real NIC), and
// the target side of a QP, which executes the remote half of a work request (the data a WRITE lands, a READ
// fetches, an atomic updates) with the checks a responder makes. design.md §4 (NIC emulator).
//
// Addresses are virtual addresses inside a region, as with an mlx5 memory region registered at its address.
// Atomics treat the target word in the host's byte order (a ConnectX in host-endianness atomic mode, which the
// real-NIC provisioner must check) and are atomic with other atomics on the same word from any thread (CPU
// atomic operations on the memory itself); the fetched old value is returned in host order as well.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gpushmem/mlx5_wqe.hpp"

namespace gpushmem::ibgda::emu {

// What a key allows (ibv_access_flags' meaning; local reads are always allowed).
enum Access : uint32_t {
  kLocalWrite = 1u << 0,
  kRemoteWrite = 1u << 1,
  kRemoteRead = 1u << 2,
  kRemoteAtomic = 1u << 3,
  kAllAccess = kLocalWrite | kRemoteWrite | kRemoteRead | kRemoteAtomic,
};

// How the emulator's thread reaches a local region it cannot load from and store to itself (GPU memory, which the
// host has no mapping of): copies between the region and host memory, each complete when it returns (the GPU heap's:
// copies on a stream of the PE's device). false: the copy failed (the WQE completes with LOCAL_ACCESS).
class Copier {
 public:
  virtual ~Copier() = default;
  virtual bool to_host(void *dst, const void *region_src, uint64_t bytes) = 0;
  virtual bool from_host(void *region_dst, const void *src, uint64_t bytes) = 0;
};

class KeyTable {
 public:
  // Registers [base, base + bytes) and returns its key (never 0). With a copier, the region is reached only through
  // it (load / store); resolve() refuses it.
  uint32_t add(void *base, uint64_t bytes, uint32_t access, Copier *copier = nullptr);
  void remove(uint32_t key);
  // The host pointer of [addr, addr + bytes) under `key`, or nullptr when the key is unknown, the range is not
  // inside its region, or the key lacks `need`.
  uint8_t *resolve(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const;

  // The local half of a work request, whatever the region: GPUSHMEM_MLX5_SYND_OK, LOCAL_PROT (an unknown key, a
  // range outside its region, a missing right) or LOCAL_ACCESS (its copier failed).
  // load: *out points at `bytes` of [addr, addr + bytes): the region itself, or `scratch` filled through the copier.
  uint32_t load(uint32_t key, uint64_t addr, uint64_t bytes, std::vector<uint8_t> *scratch, const uint8_t **out) const;
  // store: `bytes` from src into [addr, addr + bytes) (needs kLocalWrite).
  uint32_t store(uint32_t key, uint64_t addr, const uint8_t *src, uint64_t bytes) const;
  // Whether key covers [addr, addr + bytes) with `need`.
  bool allows(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const;

 private:
  struct Region {
    uint8_t *base;
    uint64_t bytes;
    uint32_t access;
    Copier *copier;
  };
  // The region of [addr, addr + bytes) under key with `need`, or nullptr.
  const Region *find(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const;
  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Region> regions_;
  uint32_t next_ = 0x1000;
};

// The remote half of a QP's work requests. Each call returns GPUSHMEM_MLX5_SYND_OK or the syndrome the
// initiator's CQE reports (REMOTE_ACCESS for an unknown rkey, a range outside its region or a missing right).
class Target {
 public:
  virtual ~Target() = default;
  virtual uint32_t write(uint32_t rkey, uint64_t raddr, const uint8_t *src, uint32_t bytes) = 0;
  virtual uint32_t read(uint32_t rkey, uint64_t raddr, uint8_t *dst, uint32_t bytes) = 0;
  // ATOMIC_FA / ATOMIC_CS / MASKED_FA / MASKED_CS as decoded; *old receives the word before it.
  virtual uint32_t atomic(const mlx5::Decoded &d, uint64_t *old) = 0;
};

// A target in this process: the peer's memory is reachable here (the emulated NIC of a PE whose peer's heap is
// mapped, or a test's buffers), its keys in `keys`.
class LocalTarget final : public Target {
 public:
  explicit LocalTarget(const KeyTable *keys) : keys_(keys) {}
  uint32_t write(uint32_t rkey, uint64_t raddr, const uint8_t *src, uint32_t bytes) override;
  uint32_t read(uint32_t rkey, uint64_t raddr, uint8_t *dst, uint32_t bytes) override;
  uint32_t atomic(const mlx5::Decoded &d, uint64_t *old) override;

 private:
  const KeyTable *keys_;
};

// Applies an atomic work request to the word at `word` (d.bytes wide, aligned) atomically; returns the old value.
uint64_t apply_atomic(uint8_t *word, const mlx5::Decoded &d);

}  // namespace gpushmem::ibgda::emu
