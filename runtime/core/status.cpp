#include "core/status.hpp"

namespace gpushmem {

const char *status_name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::invalid_argument:
      return "invalid argument";
    case Status::not_supported:
      return "not supported";
    case Status::out_of_memory:
      return "out of memory";
    case Status::system_error:
      return "system error";
    case Status::bootstrap_error:
      return "bootstrap error";
    case Status::timeout:
      return "timeout";
    case Status::internal_error:
      return "internal error";
  }
  return "unknown status";
}

}  // namespace gpushmem
