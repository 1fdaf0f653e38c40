// The runtime's side of the network: which transport reaches each PE (p2p when its heap is mapped here,
// else ucx), the set-up at shmem_init, and the calls the host API makes for PEs it cannot load and store.
// The load/store path never comes here: callers ask for a pointer first (api::remote_addr, coll::peer_ptr)
// and only a PE without one reaches these functions, out of line.
//
// Every function that moves data names the API call in its messages and ends the job when the transport
// fails (the transport logged the observed cause first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "transport.hpp"

namespace gpushmem::net {

// How PE pe is reached from this PE.
enum class Kind : uint8_t {
  self,         // this PE
  p2p,          // its heap is mapped here (shared memory on this node)
  network,      // through the network transport
  unreachable,  // neither (set-up refused it; never left so after a successful shmem_init)
};

// Collective over every PE, inside shmem_init once the node's heaps are mapped: chooses the transport of
// every peer the load/store reach does not cover, sets up and connects the network transport, and starts
// the progress thread (GPUSHMEM_PROGRESS_THREAD). Ends start-up naming the PEs it cannot reach and what to
// install when UCX is missing. `globals_everywhere`: every PE of the job runs the same executable with
// symmetric globals (the globals are registered too).
[[nodiscard]] Status init(const char *call, bool globals_everywhere);
// Before the last barrier of shmem_finalize: losing peers from now on is not an error.
void prepare_finalize();
// After it: completes, closes and frees everything.
void finalize();

// Whether GPUSHMEM_TRANSPORTS lets node-local PEs map each other's memory (p2p listed, or nothing set).
bool p2p_allowed();
// Whether GPUSHMEM_TRANSPORTS lists ibgda: device code reaches the network's PEs through IBGDA (ibgda_runtime.hpp).
bool ibgda_listed();

Kind kind(int pe);
// One line per peer for SHMEM_INFO and gpushmem-info --peers: the transport and why.
std::string describe(int pe);
// PE pe's host identity (GPUSHMEM_HOSTNAME, or hostname/boot id).
std::string host_of(int pe);
namespace detail {
extern transport::Transport *g_active;  // set once connected at shmem_init, cleared at shmem_finalize
}
// The network transport, or nullptr when no PE needs one (one load: the host API's hot paths test it).
inline transport::Transport *active() {
  return detail::g_active;
}

// The channel of the runtime's own synchronisation (barrier arrivals, collectives, lock words): the
// application's quiets do not wait for it (transport.hpp).
inline constexpr uint32_t kRuntimeChan = transport::Transport::kRuntimeChannel;

// The remote location of symmetric `sym` (this PE's address; heap or globals).
transport::RemoteRef ref(const void *sym);

// The host API's operations for a PE reached through the network. `chan` is the communication context
// (0: SHMEM_CTX_DEFAULT). put: `nbi` leaves `src` in use until the next quiet, otherwise it may be reused
// on return.
void put(const char *call, uint32_t chan, int pe, const void *sym_dest, const void *src, size_t bytes, bool nbi);
void get(const char *call, uint32_t chan, int pe, void *dest, const void *sym_src, size_t bytes);
// An atomic of `width` (4 or 8) bytes; `fetch` receives the old value for the fetching ones (else nullptr).
void amo(const char *call, uint32_t chan, int pe, const void *sym, transport::AmoOp op, size_t width, uint64_t operand,
         uint64_t compare, void *fetch);
void put_signal(const char *call, uint32_t chan, int pe, const void *sym_dest, const void *src, size_t bytes,
                const uint64_t *sym_sig, uint64_t value, bool add);
// The runtime's signalling (Transport::send_message): the segments (their `dst` from ref()), then the 64-bit
// word `sym_sig` raised to or added `value`, as one message where the transport can.
void send_message(const char *call, uint32_t chan, int pe, const transport::Segment *segments, size_t n,
                  const uint64_t *sym_sig, uint64_t value, transport::SignalOp op);

// Marks the calling thread as progressing the network itself for its lifetime (a host wait), so a
// progress thread may step back. Nothing when no PE is reached through the network.
class WaitScope {
 public:
  WaitScope() : t_(active()) {
    if (t_ != nullptr) [[unlikely]]
      t_->enter_wait();
  }
  ~WaitScope() {
    if (t_ != nullptr) [[unlikely]]
      t_->leave_wait();
  }
  WaitScope(const WaitScope &) = delete;
  WaitScope &operator=(const WaitScope &) = delete;

 private:
  transport::Transport *t_;
};

// Completes the network operations of `chan` (transport::Transport::kAllChannels: of every channel).
// Nothing to do (and no call) when no PE is reached through the network.
void quiet(const char *call, uint32_t chan);
void fence(const char *call, uint32_t chan);
// Progresses the network once if no other thread is inside it: every host wait calls this.
void poll();
// Whether peer pe was lost (its endpoint failed), and why.
bool peer_lost(int pe);
std::string peer_lost_text(int pe);

}  // namespace gpushmem::net
