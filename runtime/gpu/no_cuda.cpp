// gpu/gpu.hpp for a build without CUDA: every PE runs in host mode.
#include "gpu/gpu.hpp"

namespace gpushmem::gpu {

Status init(const char *call, uint64_t) {
  GPUSHMEM_LOG_INFO(log::Subsys::init, "%s: built without CUDA: no GPU is used", call);
  return Status::ok;
}

Status grow(const char *, uint64_t, uint64_t *added_user_bytes) {
  *added_user_bytes = 0;
  return Status::not_supported;
}

uint64_t user_bytes_mapped() {
  return 0;
}

Status copy(const char *, void *, const void *, size_t) {
  return Status::not_supported;
}

Status zero(const char *, void *, size_t) {
  return Status::not_supported;
}

Status copy_2d(const char *, void *, size_t, const void *, size_t, size_t, size_t) {
  return Status::not_supported;
}

Status borrow_stage(const char *, Stage *) {
  return Status::not_supported;
}

void return_stage(const Stage &) {}

Status stage_copy_start(const char *, const Stage &, void *, const void *, size_t) {
  return Status::not_supported;
}

Status stage_copy_wait(const char *, const Stage &) {
  return Status::not_supported;
}

bool device_memory(const void *) {
  return false;
}

transport::MemoryAgent *heap_agent() {
  return nullptr;
}

Status prepare_network_buffers(const char *) {
  return Status::ok;
}

Status quiet(const char *) {
  return Status::ok;
}

Status attach_proxy(const char *, const std::vector<int> &, const gpushmem_proxy_channel_t *, uint32_t) {
  return Status::not_supported;
}

Status attach_ibgda(const char *, const std::vector<int> &, const gpushmem_ibgda_state_t *) {
  return Status::not_supported;
}

Status publish_team(const char *, const gpushmem_team_state_t &) {
  return Status::ok;
}

Status retire_team(const char *, int) {
  return Status::ok;
}

void drain(const char *) {}

void finalize() {}

void report_device_error_at_exit() {}

ContextScope::ContextScope() = default;
ContextScope::~ContextScope() = default;

NodeReport probe() {
  NodeReport report;
  report.why_not = "this gpushmem was built without CUDA (GPUSHMEM_WITH_CUDA=OFF)";
  return report;
}

}  // namespace gpushmem::gpu
