#include "lock/thread_gate.hpp"

#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "sync/wait.hpp"

namespace gpushmem::lock {
namespace {

// A token unique to each live thread: the address of a thread-local object.
uintptr_t my_token() {
  static thread_local char token;
  return reinterpret_cast<uintptr_t>(&token);
}

}  // namespace

bool ThreadGate::try_enter() {
  uintptr_t open = 0;
  return owner_.compare_exchange_strong(open, my_token(), std::memory_order_acquire);
}

void ThreadGate::enter(const char *call, const void *lock) {
  if (try_enter()) return;
  char what[128];
  std::snprintf(what, sizeof what, "another thread of this PE to release the lock at %p (threads of a PE take turns)",
                lock);
  sync::wait_until([&] { return try_enter(); }, call, -1, what);
}

void ThreadGate::leave() {
  owner_.store(0, std::memory_order_release);
}

bool ThreadGate::held_by_me() const {
  return owner_.load(std::memory_order_relaxed) == my_token();
}

ThreadGate &gate_for(uint64_t offset) {
  // Locks are not a hot path: one mutex over the table is enough. Gates are never freed, so a reference
  // stays valid without the mutex.
  static std::mutex mutex;
  static std::unordered_map<uint64_t, std::unique_ptr<ThreadGate>> gates;
  std::lock_guard<std::mutex> guard(mutex);
  std::unique_ptr<ThreadGate> &gate = gates[offset];
  if (!gate) gate = std::make_unique<ThreadGate>();
  return *gate;
}

}  // namespace gpushmem::lock
