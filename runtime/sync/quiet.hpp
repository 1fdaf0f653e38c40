// Quiet and fence of the host API, shared by shmem_quiet / shmem_fence and their ctx forms.
#pragma once

#include <atomic>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"
#include "net/net.hpp"

namespace gpushmem::sync {

// Completes what the calling thread issued: host-heap puts are complete once their stores are globally
// visible, which a full fence guarantees (it drains this core's store buffer); GPU-heap transfers are
// synchronous copies, so nothing of them is left.
inline void quiet_stores() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// A context's quiet: the stores, then the context's network operations (channel `chan`; nothing to do when
// no PE is reached through the network).
inline void quiet_channel(const char *call, uint32_t chan) {
  quiet_stores();
  if (net::active() != nullptr) [[unlikely]]
    net::quiet(call, chan);
}

// The default context's quiet: the stores and its network operations, then the runtime's CUDA stream
// drained too (GPU mode).
inline void quiet_default(const char *call) {
  quiet_channel(call, 0);
  if (gpu::quiet(call) != Status::ok) api::fail(call, "the runtime's CUDA stream failed (see above)");
}

// Orders earlier puts before later ones to each PE: a release fence keeps the compiler and the CPU from
// moving later stores above earlier ones; the network transport orders its own.
inline void fence(const char *call = "shmem_fence", uint32_t chan = 0) {
  std::atomic_thread_fence(std::memory_order_release);
  if (net::active() != nullptr) [[unlikely]]
    net::fence(call, chan);
}

}  // namespace gpushmem::sync
