// A build without CUDA has no device code: IBGDA never starts (GPUSHMEM_TRANSPORTS=ibgda then means ucx for the
// host).
#include "ibgda/ibgda_runtime.hpp"

namespace gpushmem::ibgda_rt {

Status start(const char *) {
  return Status::ok;
}
void stop(const char *) {}
void release() {}
bool running() {
  return false;
}
bool reaches(int) {
  return false;
}
std::string device_path(int) {
  return "";
}
bool serves_network() {
  return false;
}

}  // namespace gpushmem::ibgda_rt
