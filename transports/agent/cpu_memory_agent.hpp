// A MemoryAgent over host memory: the CPU copies and applies CPU atomics. It stands in for a GPU heap where
// there is no GPU (the emulation tests of the agent path, label emu), and counts what it was asked to do so
// a test can tell the operations reached the agent rather than the network's own RMA.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "transport.hpp"

namespace gpushmem::transport {

class CpuMemoryAgent final : public MemoryAgent {
 public:
  CpuMemoryAgent(void *base, uint64_t bytes) : base_(static_cast<char *>(base)), bytes_(bytes) {}

  uint64_t usable_bytes() const override { return usable_.load(std::memory_order_acquire); }
  Status write(uint64_t offset, const void *src, size_t bytes) override;
  Status read(uint64_t offset, void *dst, size_t bytes) override;
  Status atomic(uint64_t offset, AmoOp op, size_t width, uint64_t operand, uint64_t compare, uint64_t *old) override;
  std::string name() const override { return "host memory (CPU agent)"; }
  // With set_deferred(true) a posted write is only applied at complete_writes (as a GPU agent's copies complete
  // at its stream sync), so a test sees whether the transport completes posted writes before it acknowledges
  // them or reads and applies atomics after them.
  Status post_write(uint64_t offset, const void *src, size_t bytes) override;
  Status complete_writes() override;
  void set_deferred(bool on) { deferred_ = on; }
  uint64_t posted() const { return posted_; }
  uint64_t completions() const { return completions_; }

  // Limits the usable bytes (a heap that has not grown yet); at most the buffer's size.
  void set_usable(uint64_t bytes) { usable_.store(bytes < bytes_ ? bytes : bytes_, std::memory_order_release); }
  uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }
  uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }
  uint64_t atomics() const { return atomics_.load(std::memory_order_relaxed); }

 private:
  char *base_;
  uint64_t bytes_;
  std::atomic<uint64_t> usable_{bytes_};
  std::atomic<uint64_t> writes_{0}, reads_{0}, atomics_{0};
  bool deferred_ = false;  // the transport's lock guards the rest
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> pending_;
  uint64_t posted_ = 0, completions_ = 0;
};

}  // namespace gpushmem::transport
