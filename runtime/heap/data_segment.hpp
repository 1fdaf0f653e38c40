// The executable's global and static variables as symmetric data objects (OpenSHMEM 1.5 §3): the
// writable part of the program's data segment (.data and .bss, after the read-only-after-relocation part)
// is moved, at the same addresses and with the same contents, onto a memfd that the PEs of the node
// share and map as they do the heap. Every PE runs the same executable, so a variable sits at the same
// offset from the segment's start on every PE, whatever address the loader chose.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.hpp"

namespace gpushmem::node {
class PeerChannel;
}

namespace gpushmem::heap {

class DataSegment {
 public:
  // Finds the segment and moves it onto a memfd. Must run before other threads may write the program's
  // globals (the pages are copied, then replaced). Leaves size() == 0, with the reason logged at INFO,
  // when the program has no such segment or the move fails; the program then runs as before, with its
  // globals private.
  void create();
  // At shmem_finalize (the peers' mappings are transports/p2p's). This PE's own segment stays where it is,
  // on its memfd: the program keeps using its globals, and a child of a later fork() still gets private
  // copies.
  void destroy();
  // In a child of fork(): private pages again, with the same contents; the segment is then empty.
  bool make_private_after_fork();

  char *start() const { return start_; }
  uint64_t size() const { return size_; }
  // Whether [p, p + bytes) lies inside the segment (bytes 1: whether p does).
  bool contains(const void *p, uint64_t bytes) const {
    const uint64_t off = reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(start_);
    return off < size_ && bytes <= size_ - off;
  }
  // Equal on two PEs of a node exactly when they run the same executable with a segment of the same size
  // (0 without a segment): only then are their variables at the same offsets.
  uint64_t fingerprint() const { return fingerprint_; }
  // The memfd holding the segment: the node's PEs with the same fingerprint map it (transports/p2p).
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  char *start_ = nullptr;
  uint64_t size_ = 0;
  uint64_t fingerprint_ = 0;
};

}  // namespace gpushmem::heap
