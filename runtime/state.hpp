// The process-wide runtime state: who we are, who our peers are, and where every reachable heap is.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "boot/loader.hpp"
#include "gpu/gpu.hpp"
#include "heap/allocator.hpp"
#include "heap/data_segment.hpp"
#include "heap/host_heap.hpp"
#include "node/peer_channel.hpp"
#include "node/topology.hpp"
#include "p2p/p2p_transport.hpp"

namespace gpushmem {

enum class Phase : int { not_started = 0, running = 1, finalized = 2 };

struct Runtime {
  std::atomic<int> phase{static_cast<int>(Phase::not_started)};
  int my_pe = -1;
  int n_pes = 0;
  int thread_level = 0;
  int pid = 0;  // the process that called shmem_init (a child of fork() is not a PE)

  boot::Plugin bootstrap;
  node::Topology topology;    // which PEs share this node
  node::PeerChannel channel;  // sockets to node-local PEs: fd passing, liveness, global exit
  heap::HostHeap heap;        // this PE's heap (its peers' mappings: p2p below)
  heap::Allocator allocator;  // offsets within the user part of the heap (identical on every PE)

  // The load/store reach (transports/p2p): p2p.heap_base(pe) is PE pe's host heap in this process,
  // p2p.globals_base(pe) its copy of the globals (nullptr: not mapped here). The host barrier uses the heap
  // words in GPU mode too.
  p2p::P2pTransport p2p;
  // The program's global and static variables (heap/data_segment.hpp).
  heap::DataSegment data;
  bool data_shared = false;      // every PE of this node maps every other's globals
  bool data_everywhere = false;  // every PE of the job has the same globals: the network reaches them too
  // The GPU symmetric heap (gpu.base == nullptr: host mode, shmem_malloc allocates from the host heap).
  gpu::HeapView gpu;
  bool all_pes_mapped = false;  // every PE's host heap is mapped here (no PE needs the network)
  bool oversubscribed = false;  // more PEs on this node than cores this process may run on
  bool error_checks = true;     // compiled in and GPUSHMEM_ERROR_CHECKS
  bool test_coll_rma = false;   // GPUSHMEM_TEST_COLL_RMA: host team collectives on host buffers through RMA too
};

Runtime &rt();

inline bool running() {
  return rt().phase.load(std::memory_order_acquire) == static_cast<int>(Phase::running);
}

// Ends every PE of the job with `status` after logging `why` (the caller already named the call).
[[noreturn]] void abort_job(int status, const char *why);

}  // namespace gpushmem
