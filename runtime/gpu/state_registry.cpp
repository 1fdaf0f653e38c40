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

}  // namespace gpushmem::gpu

// Exported: <shmem.h>'s device part calls it from every CUDA translation unit's static initialiser.
extern "C" __attribute__((visibility("default"))) int gpushmemi_register_device_state(
    gpushmemi_device_state_updater_t updater) {
  if (updater == nullptr) return 0;
  gpushmem::gpu::Registry &r = gpushmem::gpu::registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (std::find(r.updaters.begin(), r.updaters.end(), updater) == r.updaters.end()) r.updaters.push_back(updater);
  // A translation unit registered after shmem_init (a library loaded later) gets the current state now.
  if (r.valid) {
    gpushmem::gpu::ContextScope in_pe_context;
    updater(&r.state);
  }
  return 0;
}
