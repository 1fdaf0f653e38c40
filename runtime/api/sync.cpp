// shmem_quiet, shmem_fence, shmem_barrier_all, shmem_sync_all.
#include <atomic>

#include "api/api_common.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_quiet(void) {
  api::require_running("shmem_quiet");
  // Load/store puts are complete once their stores are globally visible: a full fence drains this core's
  // store buffer, which is all that completion means on this path.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

GPUSHMEM_EXPORT void shmem_fence(void) {
  api::require_running("shmem_fence");
  // Orders earlier puts before later ones to each PE: a release fence keeps the compiler and the CPU from
  // moving later stores above earlier ones.
  std::atomic_thread_fence(std::memory_order_release);
}

GPUSHMEM_EXPORT void shmem_barrier_all(void) {
  api::require_running("shmem_barrier_all");
  sync::barrier_all("shmem_barrier_all");  // its leading full fence is the quiet
}

GPUSHMEM_EXPORT void shmem_sync_all(void) {
  api::require_running("shmem_sync_all");
  sync::barrier_all("shmem_sync_all");
}
