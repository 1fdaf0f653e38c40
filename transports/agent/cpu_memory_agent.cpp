#include "agent/cpu_memory_agent.hpp"

#include <cstring>

#include "agent/cpu_atomic.hpp"

namespace gpushmem::transport {

Status CpuMemoryAgent::write(uint64_t offset, const void *src, size_t bytes) {
  if (offset > usable_bytes() || bytes > usable_bytes() - offset) return Status::invalid_argument;
  std::memcpy(base_ + offset, src, bytes);
  std::atomic_thread_fence(std::memory_order_release);
  writes_.fetch_add(1, std::memory_order_relaxed);
  return Status::ok;
}

Status CpuMemoryAgent::post_write(uint64_t offset, const void *src, size_t bytes) {
  if (!deferred_) return write(offset, src, bytes);
  if (offset > usable_bytes() || bytes > usable_bytes() - offset) return Status::invalid_argument;
  const auto *p = static_cast<const uint8_t *>(src);
  pending_.emplace_back(offset, std::vector<uint8_t>(p, p + bytes));
  ++posted_;
  return Status::ok;
}

Status CpuMemoryAgent::complete_writes() {
  if (pending_.empty()) return Status::ok;
  Status s = Status::ok;
  for (const auto &[offset, data] : pending_)
    if (Status w = write(offset, data.data(), data.size()); w != Status::ok && s == Status::ok) s = w;
  pending_.clear();  // applied or failed: none of them is applied twice
  ++completions_;
  return s;
}

Status CpuMemoryAgent::read(uint64_t offset, void *dst, size_t bytes) {
  if (offset > usable_bytes() || bytes > usable_bytes() - offset) return Status::invalid_argument;
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(dst, base_ + offset, bytes);
  reads_.fetch_add(1, std::memory_order_relaxed);
  return Status::ok;
}

Status CpuMemoryAgent::atomic(uint64_t offset, AmoOp op, size_t width, uint64_t operand, uint64_t compare,
                              uint64_t *old) {
  if ((width != 4 && width != 8) || offset % width != 0 || offset > usable_bytes() || width > usable_bytes() - offset)
    return Status::invalid_argument;
  *old = cpu_atomic(base_ + offset, op, width, operand, compare);
  atomics_.fetch_add(1, std::memory_order_relaxed);
  return Status::ok;
}

}  // namespace gpushmem::transport
