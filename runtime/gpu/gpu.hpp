// The GPU side of the runtime as the rest of libgpushmem sees it: whether this PE's symmetric heap lives on
// a GPU, and the few operations host code needs on it. No CUDA types here: this header is included by files
// compiled without the CUDA headers, and a build without CUDA implements it in gpu/no_cuda.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/ibgda_qp.h"
#include "gpushmem/proxy_channel.h"
#include "gpushmem/team_state.h"

namespace gpushmem::transport {
class MemoryAgent;
}

namespace gpushmem::gpu {

// How this PE's GPU reaches another PE's GPU heap.
enum class Link : uint8_t {
  unreachable = 0,  // not mapped: other node, GPUs without peer access, or the peer's GPU is not visible here
  self = 1,         // this PE
  same_gpu = 2,     // another process on the same GPU
  nvlink = 3,       // another GPU, peer access with native atomics (NVLink / NVSwitch)
  pcie = 4,         // another GPU, peer access without native atomics (PCIe)
};
// "p2p-self", "p2p-same-gpu", "p2p-nvlink", "p2p-pcie", "unreachable".
const char *link_name(Link link);
inline bool is_p2p(Link link) {
  return link != Link::unreachable;
}

// What the put/get path reads without a lock. Written by init, grow and finalize only.
struct HeapView {
  char *base = nullptr;             // this PE's GPU heap; nullptr: host mode (shmem_malloc uses the host heap)
  std::atomic<uint64_t> mapped{0};  // bytes of every heap mapped now, internal area included (grows)
  uint64_t limit = 0;               // bytes reserved per heap: no symmetric address lies at or beyond base+limit
  std::vector<char *> peer_base;    // PE -> where its GPU heap is mapped in this process; nullptr: not mapped
  std::vector<Link> link;           // PE -> how it is reached
};

// Collective over every PE (shmem_init, after the topology, the peer channel and the host heap exist).
// Decides host or GPU mode for the whole job: the GPU heap is used only when every PE has a usable GPU
// and none set GPUSHMEM_DISABLE_CUDA. In GPU mode it picks and makes current the device, reserves the heap
// slots, maps the first chunk of every local PE, zeroes the internal area, uploads the device state and
// fills rt().gpu. Host mode returns ok with rt().gpu.base == nullptr. An error was logged where it happened.
Status init(const char *call, uint64_t symmetric_size);

// GPU mode only. Collective over every PE, called with identical arguments (shmem_malloc is collective and
// the allocators agree): maps at least `min_user_bytes` more of every local PE's heap, in steps of
// GPUSHMEM_GPU_HEAP_CHUNK, up to SHMEM_SYMMETRIC_SIZE. *added_user_bytes receives how much the
// allocator may grow (0: the heap is already at SHMEM_SYMMETRIC_SIZE). out_of_memory: some PE could not
// get the device memory; every PE then undid the step alike, so the allocators still agree.
Status grow(const char *call, uint64_t min_user_bytes, uint64_t *added_user_bytes);
// User bytes mapped now (at most SHMEM_SYMMETRIC_SIZE).
uint64_t user_bytes_mapped();

// GPU mode only. Copy / zero through the runtime's stream, synchronously (complete when they return).
// Any mix of host memory, device memory and mapped peer heaps. Thread safe.
Status copy(const char *call, void *dst, const void *src, size_t bytes);
Status zero(const char *call, void *dst, size_t bytes);
// GPU mode only. `rows` rows of `width` bytes, row i at dst + i * dst_pitch and src + i * src_pitch (pitches >=
// width), synchronously: the strided copy of iput / iget. Thread safe.
Status copy_2d(const char *call, void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
               size_t rows);
// GPU mode only. What a transfer between a GPU buffer and the network stages through (net/stage_pipeline.hpp): two
// pinned host buffers of kStageChunkBytes and a stream of its own, borrowed from a pool for one transfer and
// returned after it (freed at finalize). stage_copy_start starts a copy on the stage's stream (any mix of host and
// device memory); stage_copy_wait waits for the stage's copies. Thread safe (one stage per transfer).
inline constexpr size_t kStageChunkBytes = 1 << 20;
struct Stage {
  uint8_t *buf[2] = {nullptr, nullptr};
  void *stream = nullptr;  // cudaStream_t
};
Status borrow_stage(const char *call, Stage *out);
void return_stage(const Stage &stage);
Status stage_copy_start(const char *call, const Stage &stage, void *dst, const void *src, size_t bytes);
Status stage_copy_wait(const char *call, const Stage &stage);
// Whether host code cannot dereference `p`: device memory of a GPU (false in host mode). The network path
// stages such buffers through host memory.
bool device_memory(const void *p);
// GPU mode: the agent that executes the network's operations on this PE's GPU heap (gpu_agent.cpp); nullptr
// in host mode. It lives until gpu::finalize.
transport::MemoryAgent *heap_agent();
// GPU mode, when the network reaches other PEs: allocates now (at shmem_init) the pinned memory the agent and the
// staging of GPU buffers would otherwise allocate at their first use, on the proxy thread or in a progress call
// while a kernel runs (a page-locked allocation may wait for the GPU). Fails naming what could not be allocated.
Status prepare_network_buffers(const char *call);

// GPU mode: device code reaches the PEs `pes` through the CPU proxy's `count` channels (`table`, a device array,
// gpushmem/proxy_channel.h): marks them GPUSHMEM_PEER_PROXY and republishes the device state. A null table
// detaches the proxy again (before its channels are freed). not_supported in host mode.
Status attach_proxy(const char *call, const std::vector<int> &pes, const gpushmem_proxy_channel_t *table,
                    uint32_t count);
// GPU mode: device code reaches the PEs `pes` through IBGDA (`state`, device memory, gpushmem/ibgda_qp.h): marks
// them GPUSHMEM_PEER_IBGDA and republishes the device state. A null state detaches it (before its queues are freed).
Status attach_ibgda(const char *call, const std::vector<int> &pes, const gpushmem_ibgda_state_t *state);

// Waits for everything issued on the runtime's stream (shmem_quiet). Returns ok at once in host mode.
Status quiet(const char *call);

// Teams as device code sees them (GPU mode; ok at once in host mode). publish_team writes the team's entry in
// the device team table (slot t.slot) and zeroes this PE's device sync words of that slot, synchronously: call
// it while the team is created, before the synchronisation that ends the creation on every member, so no
// member's first device team sync can arrive before the words are zeroed. retire_team frees the entry.
Status publish_team(const char *call, const gpushmem_team_state_t &t);
Status retire_team(const char *call, int slot);

// shmem_global_exit, before the job ends: logs the sticky device error if a device call failed and nobody has
// reported it yet. A program that exits on a CUDA error its own CUDA runtime returned (a kernel trapped by a failed
// device call) would otherwise end without the device's report on stderr. No-op in host mode.
void report_device_error_at_exit();

// shmem_finalize, before its final barrier: waits for this PE's device work, so no kernel or copy of this
// process still touches a heap when the peers unmap it.
void drain(const char *call);
// shmem_finalize, after the final barrier: unmaps every heap, frees device memory, forgets the device state.
void finalize();

// Makes this PE's CUDA context current on the calling thread for the scope (another thread may hold
// another device's context, or none), and restores the previous one. No-op in host mode.
class ContextScope {
 public:
  ContextScope();
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;

 private:
  void *previous_ = nullptr;
  bool switched_ = false;
};

// What gpushmem-info prints: the GPUs this process sees and how a PE on GPU i reaches one on GPU j.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  uint64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  bool vmm = false;       // CUDA virtual memory management
  bool posix_fd = false;  // allocations exportable as POSIX file descriptors
  bool dma_buf = false;   // device memory exportable as a dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)
};
struct NodeReport {
  bool built_with_cuda = false;
  bool available = false;
  std::string why_not;                  // when !available
  std::string driver_version;           // "13.0"
  std::string runtime_version;          // of the CUDA runtime built into libgpushmem
  std::vector<DeviceInfo> devices;      // visible devices
  std::vector<std::vector<Link>> link;  // [i][j]: how a PE on device i reaches a PE on device j
};
NodeReport probe();

}  // namespace gpushmem::gpu
