// Per-thread scratch objects that stay valid while the process exits. exit() destroys the calling thread's
// thread_local objects before it runs the on_exit / atexit handlers, and the library's handler may still
// finalize (runtime/api/init.cpp): a thread_local container would be used after its destructor. These live
// on the heap behind a trivially destructible thread_local pointer; a POSIX key frees them when a thread
// ends (pthread_exit or return from its start routine), which does not happen to the main thread at exit().
#pragma once

#include <pthread.h>

namespace gpushmem::core {

// This thread's T (value-initialized on first use). One per T: give each use its own T (a struct).
template <class T>
T &thread_scratch() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    (void)pthread_key_create(&k, [](void *p) { delete static_cast<T *>(p); });
    return k;
  }();
  thread_local T *mine = nullptr;
  if (mine == nullptr) [[unlikely]] {
    mine = new T();
    (void)pthread_setspecific(key, mine);
  }
  return *mine;
}

}  // namespace gpushmem::core
