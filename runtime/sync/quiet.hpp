// Quiet and fence of the host API, shared by shmem_quiet / shmem_fence and their ctx forms.
#pragma once

#include <atomic>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"

namespace gpushmem::sync {

// Completes what the calling thread issued: host-heap puts are complete once their stores are globally
// visible, which a full fence guarantees (it drains this core's store buffer); GPU-heap transfers are
// synchronous copies, so nothing of them is left.
inline void quiet_stores() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// The default context's quiet: the stores, then the runtime's CUDA stream drained too (GPU mode).
inline void quiet_default(const char *call) {
  quiet_stores();
  if (gpu::quiet(call) != Status::ok) api::fail(call, "the runtime's CUDA stream failed (see above)");
}

// Orders earlier puts before later ones to each PE: a release fence keeps the compiler and the CPU from
// moving later stores above earlier ones.
inline void fence() {
  std::atomic_thread_fence(std::memory_order_release);
}

}  // namespace gpushmem::sync
