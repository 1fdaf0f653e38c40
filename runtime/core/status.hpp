// Status codes returned by every internal function, and the one propagation macro.
#pragma once

#include "core/log.hpp"

namespace gpushmem {

enum class [[nodiscard]] Status : int{
    ok = 0,          invalid_argument, not_supported,  out_of_memory,
    system_error,  // a system call failed; errno was logged where it happened
    bootstrap_error, timeout,          internal_error,
};

const char *status_name(Status s);

}  // namespace gpushmem

// Propagates a non-ok Status, leaving a breadcrumb at debug level (the first detector already logged the
// observed cause).
#define GPUSHMEM_CHECK(expr)                                                                          \
  do {                                                                                                \
    ::gpushmem::Status gpushmem_check_s_ = (expr);                                                    \
    if (gpushmem_check_s_ != ::gpushmem::Status::ok) {                                                \
      GPUSHMEM_LOG_DEBUG(::gpushmem::log::Subsys::init, "%s:%d: %s -> %s", __FILE__, __LINE__, #expr, \
                         ::gpushmem::status_name(gpushmem_check_s_));                                 \
      return gpushmem_check_s_;                                                                       \
    }                                                                                                 \
  } while (0)
