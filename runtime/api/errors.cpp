#include <cstdarg>
#include <cstdio>

#include "api/api_common.hpp"

namespace gpushmem::api {

void fail(const char *call, const char *fmt, ...) {
  char message[1024];
  int n = std::snprintf(message, sizeof message, "%s: ", call);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(message + n, sizeof message - static_cast<size_t>(n), fmt, ap);
  va_end(ap);
  GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s", message);
  // Every PE's launcher output repeats this reason, so it names the PE.
  char why[96];
  std::snprintf(why, sizeof why, "an OpenSHMEM call failed on PE %d (its error is above)", rt().my_pe);
  abort_job(1, why);
}

void fail_not_initialized(const char *call) {
  int phase = rt().phase.load(std::memory_order_acquire);
  const char *why =
      phase == static_cast<int>(Phase::finalized) ? "called after shmem_finalize" : "called before shmem_init";
  GPUSHMEM_LOG_ERROR(log::Subsys::init,
                     "%s: %s; every OpenSHMEM call must come between shmem_init and "
                     "shmem_finalize",
                     call, why);
  std::fflush(nullptr);
  _exit(1);
}

}  // namespace gpushmem::api
