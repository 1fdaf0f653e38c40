#include "state.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace gpushmem {

Runtime &rt() {
  static Runtime *r = new Runtime();  // never destroyed: atexit handlers and the watchdog may still use it
  return *r;
}

void abort_job(int status, const char *why) {
  // Once per process: under SHMEM_THREAD_MULTIPLE several threads may fail at once, and the bootstrap's abort
  // (MPI_Abort, ...) and the exit frames must not run twice concurrently. Later callers already logged their
  // own error; they wait here for the first one to end the process.
  static std::atomic<bool> ending{false};
  thread_local bool this_thread_ending = false;
  if (this_thread_ending) _exit(status);  // the abort path itself failed: end now
  this_thread_ending = true;
  if (ending.exchange(true, std::memory_order_acq_rel))
    for (;;) pause();
  Runtime &r = rt();
  r.channel.broadcast_exit(status);
  if (r.bootstrap.table.abort != nullptr) r.bootstrap.table.abort(&r.bootstrap.table, status, why);
  GPUSHMEM_LOG_ERROR(log::Subsys::init, "job aborted: %s", why);
  std::fflush(nullptr);
  _exit(status);
}

}  // namespace gpushmem
