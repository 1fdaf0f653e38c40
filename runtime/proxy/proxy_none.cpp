// A build without CUDA has no GPU heap, so no device code to serve: the proxy never starts.
#include "proxy/proxy_runtime.hpp"

namespace gpushmem::proxy_rt {

Status start(const char *) {
  return Status::ok;
}
void stop(const char *) {}
bool running() {
  return false;
}
bool reaches(int) {
  return false;
}
std::string device_path(int) {
  return "";
}
std::string describe() {
  return "no CPU proxy (built without CUDA)";
}

}  // namespace gpushmem::proxy_rt
