// Deterministic allocator over offsets. Every PE performs the same sequence of calls, so every PE gets the
// same offsets: that is what makes shmem_malloc symmetric. It knows nothing about memory or PEs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace gpushmem::heap {

class Allocator {
 public:
  static constexpr size_t kDefaultAlignment = 64;  // a cache line; also satisfies every OpenSHMEM type

  // Manages [base_offset, base_offset + size).
  void reset(uint64_t base_offset, uint64_t size);

  // First fit. Returns false when no free range can hold `size` bytes at `alignment` (a power of two).
  // Zero-byte requests get a distinct one-byte block so every live allocation has a unique offset.
  bool allocate(uint64_t size, uint64_t alignment, uint64_t *offset);
  // Appends `bytes` of free space at the end of the managed range (the GPU heap mapped more memory); it
  // merges with a free block that ends there.
  void grow(uint64_t bytes);
  // How many bytes grow() must append for allocate(size, alignment) to succeed at the end of the range (the
  // caller asks after allocate failed). UINT64_MAX when no growth can help (bad alignment, overflow).
  uint64_t shortfall(uint64_t size, uint64_t alignment) const;
  // Returns false when `offset` is not the start of a live allocation.
  bool release(uint64_t offset);
  // Size of the live allocation starting at `offset`, or 0.
  uint64_t size_of(uint64_t offset) const;
  // Live allocation containing `offset`: its start and size, or false.
  bool find(uint64_t offset, uint64_t *start, uint64_t *size) const;

  uint64_t bytes_free() const;
  uint64_t largest_free() const;
  uint64_t bytes_used() const { return used_; }
  size_t live_allocations() const { return live_.size(); }
  uint64_t capacity() const { return size_; }

 private:
  void insert_free(uint64_t offset, uint64_t size);

  uint64_t base_ = 0;
  uint64_t size_ = 0;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> size, coalesced
  std::map<uint64_t, uint64_t> live_;  // offset -> size
};

}  // namespace gpushmem::heap
