// The device team table: one gpushmem_team_state_t per team slot in device memory (device state `teams`), and
// each slot's device sync words in this PE's GPU internal area (include/gpushmem/device/internal_area.cuh).
// Team creation and destruction on the host keep both in step (runtime/team/).
#include <cstddef>

#include "core/log.hpp"
#include "gpu/cuda_loader.hpp"
#include "gpu/gpu.hpp"
#include "gpu/session.hpp"
#include "gpushmem/device/internal_area.cuh"
#include "state.hpp"

namespace gpushmem::gpu {

namespace {

constexpr size_t kTableBytes = sizeof(gpushmem_team_state_t) * GPUSHMEM_MAX_TEAMS;
constexpr const char *kAdvice = "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU";

// Writes slot `slot` of the table (and, when `zero_words`, this PE's sync words of that slot), synchronously.
Status write_slot(const char *call, Session &s, int slot, const gpushmem_team_state_t &entry, bool zero_words) {
  if (slot < 0 || slot >= GPUSHMEM_MAX_TEAMS) {
    GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: team slot %d is outside the device team table (0..%d)", call, slot,
                       GPUSHMEM_MAX_TEAMS - 1);
    return Status::invalid_argument;
  }
  ContextScope in_pe_context;
  cudaError_t e = cudaMemcpyAsync(s.d_teams + slot, &entry, sizeof entry, cudaMemcpyHostToDevice, s.stream);
  if (e == cudaSuccess && zero_words) {
    char *words = rt().gpu.base + offsetof(device::internal_area, team_sync) +
                  static_cast<size_t>(slot) * sizeof(device::team_sync_words);
    e = cudaMemsetAsync(words, 0, sizeof(device::team_sync_words), s.stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
  if (e != cudaSuccess) return rt_failed(e, call, kAdvice, "updating team slot %d of the device team table", slot);
  return Status::ok;
}

}  // namespace

Status create_team_table(const char *call, Session &s) {
  cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&s.d_teams), kTableBytes);
  if (e != cudaSuccess)
    return rt_failed(e, call, "the GPU is out of memory; free device memory or run fewer PEs per GPU",
                     "cudaMalloc(%zu bytes) for the device team table", kTableBytes);
  e = cudaMemsetAsync(s.d_teams, 0, kTableBytes, s.stream);  // size 0: every slot free
  if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
  if (e != cudaSuccess) return rt_failed(e, call, kAdvice, "zeroing the device team table");
  return Status::ok;
}

void free_team_table(Session &s) {
  if (s.d_teams != nullptr) (void)cudaFree(s.d_teams);
  s.d_teams = nullptr;
}

Status publish_team(const char *call, const gpushmem_team_state_t &t) {
  Session *s = session();
  if (s == nullptr) return Status::ok;
  return write_slot(call, *s, t.slot, t, true);
}

Status retire_team(const char *call, int slot) {
  Session *s = session();
  if (s == nullptr) return Status::ok;
  const gpushmem_team_state_t free_entry{};
  return write_slot(call, *s, slot, free_entry, false);
}

}  // namespace gpushmem::gpu
