// Whether a watched thread is inside one of the runtime's blocking CUDA calls (the CPU proxy's watchdog).
//
// The proxy thread names a word of its own (watch_this_thread); the runtime's CUDA calls that can block on the
// context's lock (staging copies, the GPU heap agent's copies, writes and atomics) mark it while they run
// (InCudaCall). A proxy thread stuck inside one waits for CUDA's context lock, which another thread of the process
// holds while it waits for the GPU: a synchronous copy queued behind a kernel that waits on this proxy, or a kernel's
// first launch under lazy loading (device/README.md). The word counts entries: odd while inside, so the watchdog,
// which reads it from another thread, tells one long call from many short ones.
#pragma once

#include <atomic>
#include <cstdint>

namespace gpushmem::cuda_watch {

inline thread_local std::atomic<uint64_t> *t_word = nullptr;  // this thread's word, if it is watched
inline thread_local unsigned t_depth = 0;                     // nested marks: only the outermost counts

// The calling thread's CUDA calls mark `word` from now on (nullptr: no longer).
inline void watch_this_thread(std::atomic<uint64_t> *word) {
  t_word = word;
}

// Marks the calling thread as inside a CUDA call that may block, for the scope's lifetime.
class InCudaCall {
 public:
  InCudaCall() {
    if (t_word != nullptr && t_depth++ == 0) t_word->fetch_add(1, std::memory_order_relaxed);  // odd: inside
  }
  ~InCudaCall() {
    if (t_word != nullptr && --t_depth == 0) t_word->fetch_add(1, std::memory_order_relaxed);  // even: out
  }
  InCudaCall(const InCudaCall &) = delete;
  InCudaCall &operator=(const InCudaCall &) = delete;
};

}  // namespace gpushmem::cuda_watch
