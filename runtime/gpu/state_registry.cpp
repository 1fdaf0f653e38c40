#include "gpu/state_registry.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "gpu/gpu.hpp"

namespace gpushmem::gpu {
namespace {

struct Registry {
  std::mutex mu;  // also serialises the updaters' calls: each copies into its TU's __constant__ state
  std::vector<gpushmemi_device_state_updater_t> updaters;
  size_t application_updaters = 0;  // registered by the application's own CUDA files
  gpushmem_device_state_t state{};
  bool valid = false;
};

// Never destroyed: static initialisers of other libraries register before anything here is constructed,
// and their destructors may run after ours.
Registry &registry() {
  static Registry *r = new Registry();
  return *r;
}

}  // namespace

void publish(const gpushmem_device_state_t &state) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.state = state;
  r.valid = true;
  ContextScope in_pe_context;
  for (gpushmemi_device_state_updater_t update : r.updaters) update(&r.state);
}

void retract() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.valid = false;
  r.state = gpushmem_device_state_t{};
}

size_t application_registrations() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.application_updaters;
}

namespace {

int add_updater(gpushmemi_device_state_updater_t updater, bool from_application) {
  if (updater == nullptr) return 0;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (std::find(r.updaters.begin(), r.updaters.end(), updater) == r.updaters.end()) {
    r.updaters.push_back(updater);
    if (from_application) ++r.application_updaters;
  }
  // A translation unit registered after shmem_init (a library loaded later) gets the current state now.
  if (r.valid) {
    ContextScope in_pe_context;
    updater(&r.state);
  }
  return 0;
}

}  // namespace
}  // namespace gpushmem::gpu

// Exported: <shmem.h>'s device part calls one of these from every CUDA translation unit's static initialiser.
extern "C" __attribute__((visibility("default"))) int gpushmemi_register_device_state(
    gpushmemi_device_state_updater_t updater) {
  return gpushmem::gpu::add_updater(updater, true);
}

extern "C" __attribute__((visibility("default"))) int gpushmemi_register_library_device_state(
    gpushmemi_device_state_updater_t updater) {
  return gpushmem::gpu::add_updater(updater, false);
}
