// The GPU symmetric heap of the node's PEs, as seen from this process: one reserved virtual-address range
// with a slot per node-local PE (this PE's own heap is slot[local_rank]), backed chunk by chunk with
// shareable physical memory. Every chunk of every local PE is mapped at the same offset of its slot, so
// `slot(peer) + offset` reaches the peer's byte at `offset`. Private to runtime/gpu.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/cuda_loader.hpp"

namespace gpushmem::node {
class PeerChannel;
}

namespace gpushmem::gpu {

class GpuHeap {
 public:
  // Slot starts are aligned to this, so shmem_align is symmetric up to it (as on the host heap).
  static constexpr uint64_t kSlotAlignment = 1ull << 30;

  GpuHeap() = default;
  GpuHeap(const GpuHeap &) = delete;
  GpuHeap &operator=(const GpuHeap &) = delete;

  // Reserves `local_size` slots of `slot_bytes` (a multiple of the allocation granularity) for device
  // `device`. Maps nothing yet.
  Status reserve(const char *call, const Driver *d, CUdevice device, int my_local, int local_size, uint64_t slot_bytes);

  // Collective over the node (every local PE, same `bytes`): creates `bytes` (a multiple of the granularity)
  // of device memory at the end of this PE's mapped part, passes it to every local peer as a file
  // descriptor, and maps the peers' new chunks at the same offset of their slots where reach[local] is
  // true. The chunk is recorded even when a step fails (an error was logged; a PE that failed to create
  // its chunk sends no descriptor, so its peers do not wait): the caller agrees with every PE whether to
  // keep it, and drop_last_chunk() undoes it everywhere otherwise.
  Status add_chunk(const char *call, node::PeerChannel &channel, const std::vector<bool> &reach, uint64_t bytes);
  // Unmaps and releases the newest chunk of every slot.
  void drop_last_chunk(const char *call);
  // Unmaps and releases everything and returns the address range. Device work touching it must be over.
  void destroy(const char *call);

  char *slot(int local) const { return reinterpret_cast<char *>(va_ + static_cast<CUdeviceptr>(local) * stride_); }
  uint64_t mapped() const { return mapped_; }
  uint64_t slot_bytes() const { return slot_bytes_; }

 private:
  struct Piece {
    int local = -1;
    CUmemGenericAllocationHandle handle = 0;
    bool have_handle = false;
    bool mapped = false;
  };
  struct Chunk {
    uint64_t offset = 0;
    uint64_t bytes = 0;
    std::vector<Piece> pieces;
  };

  // Maps `handle` at `offset` of slot `local` and gives this PE's device read/write access.
  Status map_piece(const char *call, Piece *piece, uint64_t offset, uint64_t bytes);
  void release_chunk(const char *call, Chunk *chunk);

  const Driver *d_ = nullptr;
  CUdevice device_ = 0;
  int my_local_ = 0;
  int local_size_ = 0;
  CUdeviceptr va_ = 0;
  uint64_t stride_ = 0;
  uint64_t slot_bytes_ = 0;
  uint64_t mapped_ = 0;
  std::vector<Chunk> chunks_;
};

}  // namespace gpushmem::gpu
