#include "heap/allocator.hpp"

#include <cstdint>
#include <iterator>

namespace gpushmem::heap {

void Allocator::reset(uint64_t base_offset, uint64_t size) {
  base_ = base_offset;
  size_ = size;
  used_ = 0;
  free_.clear();
  live_.clear();
  if (size > 0) free_[base_offset] = size;
}

bool Allocator::allocate(uint64_t size, uint64_t alignment, uint64_t *offset) {
  if (alignment == 0) alignment = kDefaultAlignment;
  if ((alignment & (alignment - 1)) != 0) return false;
  if (size == 0) size = 1;
  // Round sizes up so neighbouring allocations never share a cache line (false sharing between PEs).
  uint64_t rounded = (size + kDefaultAlignment - 1) & ~(kDefaultAlignment - 1);
  if (rounded < size) return false;  // overflow
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = it->first, len = it->second;
    uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
    if (aligned < start || aligned - start > len || len - (aligned - start) < rounded) continue;
    free_.erase(it);
    if (aligned > start) free_[start] = aligned - start;
    uint64_t tail = start + len - (aligned + rounded);
    if (tail > 0) free_[aligned + rounded] = tail;
    live_[aligned] = rounded;
    used_ += rounded;
    *offset = aligned;
    return true;
  }
  return false;
}

void Allocator::grow(uint64_t bytes) {
  if (bytes == 0) return;
  const uint64_t end = base_ + size_;
  size_ += bytes;
  insert_free(end, bytes);
}

uint64_t Allocator::shortfall(uint64_t size, uint64_t alignment) const {
  if (alignment == 0) alignment = kDefaultAlignment;
  if ((alignment & (alignment - 1)) != 0) return UINT64_MAX;
  if (size == 0) size = 1;
  uint64_t rounded = (size + kDefaultAlignment - 1) & ~(kDefaultAlignment - 1);
  if (rounded < size) return UINT64_MAX;
  const uint64_t end = base_ + size_;
  // A new block goes where the free block that touches the end starts, or at the end itself.
  uint64_t start = end;
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == end) start = last->first;
  }
  uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
  if (aligned < start || aligned + rounded < aligned) return UINT64_MAX;
  return aligned + rounded > end ? aligned + rounded - end : 0;
}

void Allocator::insert_free(uint64_t offset, uint64_t size) {
  auto next = free_.lower_bound(offset);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    free_.erase(next);
  }
  free_[offset] = size;
}

bool Allocator::release(uint64_t offset) {
  auto it = live_.find(offset);
  if (it == live_.end()) return false;
  uint64_t size = it->second;
  live_.erase(it);
  used_ -= size;
  insert_free(offset, size);
  return true;
}

uint64_t Allocator::size_of(uint64_t offset) const {
  auto it = live_.find(offset);
  return it == live_.end() ? 0 : it->second;
}

bool Allocator::find(uint64_t offset, uint64_t *start, uint64_t *size) const {
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return false;
  --it;
  if (offset >= it->first + it->second) return false;
  *start = it->first;
  *size = it->second;
  return true;
}

uint64_t Allocator::bytes_free() const {
  return size_ - used_;
}

uint64_t Allocator::largest_free() const {
  uint64_t best = 0;
  for (const auto &[off, len] : free_)
    if (len > best) best = len;
  return best;
}

}  // namespace gpushmem::heap
