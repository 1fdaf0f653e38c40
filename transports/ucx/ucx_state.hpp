// The transport's per-peer and per-channel state, shared by the files of ucx/ (private to this folder).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ucx/ucx_agent.hpp"
#include "ucx/ucx_transport.hpp"

namespace gpushmem::ucx {

inline constexpr unsigned kDiscardSlots = 64;
// Messages up to this size are copied into one buffer (UCX's short protocol takes them, and they complete
// at once).
inline constexpr size_t kMessageCopyBytes = 2048;

inline const char *region_name(transport::Region r) {
  return r == transport::Region::heap      ? "symmetric heap"
         : r == transport::Region::globals ? "global variables"
                                           : "GPU heap";
}

struct UcxTransport::Peer {
  bool wanted = false;
  std::vector<uint8_t> address;
  uint64_t base[transport::kRegions] = {};
  uint64_t size[transport::kRegions] = {};
  std::vector<uint8_t> rkey[transport::kRegions];
  uint16_t agent_regions = 0;                    // BlobHeader::agent_regions
  uint64_t rma_bytes[transport::kRegions] = {};  // BlobHeader::rma_bytes
  std::atomic<int> error{0};
  std::string error_text;  // guarded by mu_
};

struct UcxTransport::Channel {
  // Channel 0's is the PE's worker (the one peers' requests arrive at); every other channel (a context)
  // has a worker of its own, so that its quiet is one worker flush that waits for nothing else.
  ucp_worker_h worker = nullptr;
  bool own_worker = false;
  std::vector<ucp_ep_h> ep;                           // by PE; nullptr until first use
  std::vector<ucp_rkey_h> rkey[transport::kRegions];  // by PE, unpacked on ep[pe]
  bool written = false;                               // an operation wrote a peer since the last quiet
  bool runtime_written = false;                       // kRuntimeChannel's operations (channel 0 only)
  uint64_t issued = 0;                                // operations issued on the channel
  uint64_t completed = 0;                             // issued count at the last completed quiet
  uint64_t discard[kDiscardSlots] = {};               // reply buffers of posted swaps (never read)
  unsigned next_discard = 0;
  uint64_t agent_outstanding = 0;   // posted agent requests not acknowledged yet (ucx_agent_serve.cpp)
  std::string agent_error;          // the first refused or failed one since the last quiet
  bool flush_before_agent = false;  // a fence follows RMA the next agent request must not overtake
  // One-sided RMA or atomics issued since the channel's last worker flush: an agent put-with-signal (payload and
  // signal in one message, on another lane) flushes first, so its signal lands after them, as the one-sided
  // put_signal's fence orders them.
  bool rma_unflushed = false;
};

// A request that arrived, with its payload (a bounce buffer of at most kAgentChunkBytes), and then the
// reply it gets, kept until UCX has sent it.
struct UcxTransport::AgentWork {
  UcxTransport *self = nullptr;
  agent::Request request{};
  std::vector<uint8_t> data;
  const char *bad = nullptr;  // refused before execution (too long, lost on the way)
  agent::Reply reply{};
  std::vector<uint8_t> reply_data;
  uint64_t arrived_ns = 0;  // Options::agent_stats: when its message (or its rendezvous data) was in
};

// The sender's wait for one reply.
struct UcxTransport::AgentWait {
  UcxTransport *self = nullptr;
  void *dst = nullptr;  // a get's destination
  size_t bytes = 0;
  bool done = false;
  bool receiving = false;  // its data is being received into dst (rendezvous)
  uint8_t outcome = 0;
  uint64_t value = 0;
};

}  // namespace gpushmem::ucx
