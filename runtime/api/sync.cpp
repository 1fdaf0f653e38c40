// shmem_quiet, shmem_fence, shmem_barrier_all, shmem_sync_all.
#include <atomic>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_quiet(void) {
  api::require_running("shmem_quiet");
  // Load/store puts are complete once their stores are globally visible: a full fence drains this core's
  // store buffer, which is all that completion means on this path.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // GPU-heap transfers are copies on the runtime's stream: complete once it has drained.
  if (gpu::quiet("shmem_quiet") != Status::ok) api::fail("shmem_quiet", "the runtime's CUDA stream failed (see above)");
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
