// Everything this PE holds on its GPU between shmem_init and shmem_finalize (GPU mode only). Private to
// runtime/gpu; the rest of the runtime uses gpu/gpu.hpp.
#pragma once

#include <atomic>
#include <vector>

#include "gpu/cuda_loader.hpp"
#include "gpu/device_select.hpp"
#include "gpu/gpu_heap.hpp"
#include "gpushmem/device_error.h"
#include "gpushmem/ibgda_qp.h"

namespace gpushmem::gpu {

struct Session {
  const Driver *d = nullptr;
  Device device;
  cudaStream_t stream = nullptr;  // the runtime's own: host RMA on GPU addresses, zeroing, copies
  GpuHeap heap;
  uint64_t symmetric_size = 0;               // SHMEM_SYMMETRIC_SIZE: the user part never grows beyond it
  uint64_t granularity = 0;                  // the largest of every PE's, so every PE's chunks have the same size
  uint64_t chunk_bytes = 0;                  // GPUSHMEM_GPU_HEAP_CHUNK rounded up to the granularity
  std::vector<bool> reach;                   // by node-local index: map that PE's heap here
  char **d_peer_base = nullptr;              // device copy of rt().gpu.peer_base
  uint8_t *d_peer_transport = nullptr;       // device array of enum gpushmem_peer_transport
  gpushmem_team_state_t *d_teams = nullptr;  // device array [GPUSHMEM_MAX_TEAMS]: the team table (device_teams.cpp)
  const gpushmem_proxy_channel_t *d_proxy_channels = nullptr;  // attach_proxy: the proxy's device table
  uint32_t proxy_channel_count = 0;
  const gpushmem_ibgda_state_t *d_ibgda = nullptr;    // attach_ibgda: the IBGDA state (device memory)
  gpushmem_device_error_t *h_device_error = nullptr;  // the sticky device error (device_error.cpp): host view
  gpushmem_device_error_t *d_device_error = nullptr;  // ... and the device's
};

// nullptr in host mode and outside init..finalize.
Session *session();

// gpu_agent.cpp: frees what the GPU heap's agent holds (finalize, in the session's context).
void release_heap_agent();
// stage_buffers.cpp: frees the pool of staging buffers and streams (finalize, in the session's context).
void release_stages();

// device_teams.cpp: the device team table, all slots free (init); freed with the session (finalize).
Status create_team_table(const char *call, Session &s);
void free_team_table(Session &s);

// cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream) for the threads that serve the network (memory
// agent, staging): asks CUDA to run it beside this process's running kernels, which a plain small copy from host
// memory may wait for (the kernel may be waiting for this very copy). `stream` is not the legacy default stream.
cudaError_t copy_beside_kernels(void *dst, const void *src, size_t bytes, cudaStream_t stream);

}  // namespace gpushmem::gpu
