// shmem_quiet, shmem_fence, shmem_barrier_all, shmem_sync_all.
#include "api/api_common.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"
#include "sync/quiet.hpp"

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_quiet(void) {
  api::require_running("shmem_quiet");
  sync::quiet_default("shmem_quiet");
}

GPUSHMEM_EXPORT void shmem_fence(void) {
  api::require_running("shmem_fence");
  sync::fence();
}

GPUSHMEM_EXPORT void shmem_barrier_all(void) {
  api::require_running("shmem_barrier_all");
  sync::barrier_all("shmem_barrier_all");  // its leading full fence is the quiet
}

GPUSHMEM_EXPORT void shmem_sync_all(void) {
  api::require_running("shmem_sync_all");
  sync::barrier_all("shmem_sync_all");
}
