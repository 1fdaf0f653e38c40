#include "state.hpp"

#include <unistd.h>

#include <cstdio>

namespace gpushmem {

Runtime &rt() {
  static Runtime *r = new Runtime();  // never destroyed: atexit handlers and the watchdog may still use it
  return *r;
}

void abort_job(int status, const char *why) {
  Runtime &r = rt();
  r.channel.broadcast_exit(status);
  if (r.bootstrap.table.abort != nullptr) r.bootstrap.table.abort(&r.bootstrap.table, status, why);
  GPUSHMEM_LOG_ERROR(log::Subsys::init, "job aborted: %s", why);
  std::fflush(nullptr);
  _exit(status);
}

}  // namespace gpushmem
