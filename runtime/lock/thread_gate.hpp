// Threads of one PE and the distributed lock: the PE's copy of the lock word is one queue node, so under
// SHMEM_THREAD_MULTIPLE the threads of a PE first take turns at a process-local gate per lock word; only the
// thread that passed it joins the PE-wide queue. Lower thread levels skip the gate (calls never overlap).
#pragma once

#include <atomic>
#include <cstdint>

namespace gpushmem::lock {

class ThreadGate {
 public:
  // True if this thread passed the gate (no other thread of this PE holds or waits for the lock).
  bool try_enter();
  // Waits for the gate, reporting the wait like every blocking call; `lock` only names it in messages.
  void enter(const char *call, const void *lock);
  void leave();
  // True when the calling thread is the one that passed the gate.
  bool held_by_me() const;

 private:
  std::atomic<uintptr_t> owner_{0};  // 0: open; else the token of the thread that passed
};

// The gate of the lock word at `offset` in the symmetric heap (created on first use, never freed).
ThreadGate &gate_for(uint64_t offset);

}  // namespace gpushmem::lock
