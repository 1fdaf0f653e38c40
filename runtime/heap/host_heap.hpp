// The symmetric heap in host memory: one memfd segment per PE, shared with the PEs of the same node by
// passing its descriptor, and mapped by each of them (transports/p2p).
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.hpp"
#include "heap/internal_area.hpp"

namespace gpushmem::node {
class PeerChannel;
}

namespace gpushmem::heap {

class HostHeap {
 public:
  // Every PE's heap starts at an address with this alignment, the largest shmem_align honours.
  static constexpr uint64_t kBaseAlignment = 1ull << 30;

  // Creates and maps this PE's segment of `bytes` (the internal area plus the user heap) followed by
  // `runtime_tail` bytes the runtime keeps for itself (team synchronisation areas). size() covers only the
  // first `bytes`: symmetric-address checks never accept the tail.
  Status create(uint64_t bytes, uint64_t runtime_tail = 0);
  void destroy();

  char *base() const { return base_; }
  uint64_t size() const { return size_; }
  InternalArea *internal() const { return reinterpret_cast<InternalArea *>(base_); }
  // The whole mapping: size() plus the runtime tail (what a network transport registers).
  uint64_t mapped_bytes() const { return mapped_; }
  // The memfd behind the mapping: the node's PEs map it too (transports/p2p).
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  char *base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t mapped_ = 0;  // size_ plus the runtime tail
};

}  // namespace gpushmem::heap
