// The one internal interface between the runtime and the ways bytes reach another PE (design.md §2).
//
// Three users shape it: the host API (runtime/), the CPU proxy service and the IBGDA set-up (later issues).
// A transport says which PEs it reaches and with what; registers this PE's symmetric regions and hands the
// core one opaque, versioned blob (endpoint address + remote keys) that the core allgathers through the
// bootstrap and gives back to connect(); then moves bytes with non-blocking operations that return
// completion tokens, and completes them with quiet / fence / progress. Errors are sticky per peer.
//
// The load/store reach (transports/p2p/) is the fast path: the runtime asks it for a pointer first and never
// makes a virtual call for a mapped peer. Everything else goes through an object of this interface.
//
// Threads: every member may be called from any thread at once (SHMEM_THREAD_MULTIPLE) unless it says
// otherwise; set-up (register_region, local_blob, connect) and finalize run on the thread in shmem_init /
// shmem_finalize only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace gpushmem::transport {

// The symmetric regions of a PE. A remote location is (region, offset from the region's start): the core
// computes it from this PE's own address of the object (same offset on every PE).
enum class Region : uint8_t {
  heap = 0,      // the host heap mapping: internal area, user heap and the runtime's team tail
  globals = 1,   // the executable's global and static variables (heap/data_segment.hpp)
  gpu_heap = 2,  // the GPU heap (GPU mode): device memory, reached through its MemoryAgent where the
                 // network cannot reach it itself (no GPUDirect)
};
inline constexpr int kRegions = 3;

struct RemoteRef {
  Region region;
  uint64_t offset;
};

// What a transport can do for one peer.
struct Caps {
  bool rma = false;                    // put / get
  bool amo32 = false, amo64 = false;   // 4- and 8-byte atomics
  bool fetching_amo = false;           // atomics that return the old value
  bool remote_ordering = false;        // fence orders puts without completing them
  bool needs_target_progress = false;  // the target's CPU must call progress() for operations to land
  bool device_initiated = false;       // GPU code can post to it (proxy, ibgda)
};

// Atomic operations on a 4- or 8-byte word. The fetching ones store the old value at `fetch`.
enum class AmoOp : uint8_t {
  load,   // fetch: old value only
  store,  // set: no old value
  swap,
  cswap,  // compare-and-swap: `compare` is the expected value
  add,
  and_,
  or_,
  xor_,
};
const char *amo_op_name(AmoOp op);

// Memory the network cannot read or write itself (a GPU heap without GPUDirect): the target's transport
// hands each operation on it to this agent, which executes it with the memory's own means (copies through
// the GPU's copy engines, GPU system-scope atomics, so they stay atomic with the device's own atomics).
// Offsets are from the region's start. Every call is complete when it returns (written data visible to
// the region's other users), and is made with the transport's lock held, from whichever thread progresses
// the transport (an application thread in a wait, or the progress thread).
class MemoryAgent {
 public:
  virtual ~MemoryAgent() = default;
  // Bytes of the region usable now (a heap grows): operations beyond are refused.
  virtual uint64_t usable_bytes() const = 0;
  [[nodiscard]] virtual Status write(uint64_t offset, const void *src, size_t bytes) = 0;
  [[nodiscard]] virtual Status read(uint64_t offset, void *dst, size_t bytes) = 0;
  // An atomic of `width` (4 or 8) bytes (operand, compare as in Transport::amo); *old receives the word's
  // value before it (zero-extended), for every op.
  [[nodiscard]] virtual Status atomic(uint64_t offset, AmoOp op, size_t width, uint64_t operand, uint64_t compare,
                                      uint64_t *old) = 0;
  // A short description for logs ("GPU 0's heap").
  virtual std::string name() const = 0;
  // Deferred writes, for an agent whose writes cost most in completing them (a GPU's copy and stream sync):
  // post_write queues a write whose source may be reused when it returns; complete_writes makes every posted
  // write visible. The transport completes them before it acknowledges them and before the agent's next read
  // or atomic. Default: a posted write is complete at once.
  [[nodiscard]] virtual Status post_write(uint64_t offset, const void *src, size_t bytes) {
    return write(offset, src, bytes);
  }
  [[nodiscard]] virtual Status complete_writes() { return Status::ok; }
};

// The part of an agent region the network reaches itself (a GPU heap with a UCX built with CUDA): puts and gets
// entirely within its first `bytes` bytes go one-sided, everything else (atomics and signals always, so they stay
// atomic with the memory's own atomics; puts and gets beyond, e.g. to heap grown since) through the agent.
// `device_memory`: the bytes are GPU memory (registered as such).
struct OneSided {
  size_t bytes = 0;
  bool device_memory = false;
};

// Names one operation for completion: done once the channel's completed count passes `index`. Blocking
// forms are a token plus wait(). Channels are the runtime's ordering and quiet domains: 0 is the default
// context, others are communication contexts (ctx slot numbers).
struct Token {
  uint32_t channel = 0;
  uint64_t index = 0;
};

// How far an operation must have gone before the call returns.
enum class Completion : uint8_t {
  none,   // nbi: the source may be read until the next quiet of the channel
  local,  // the source buffer may be reused (shmem_put's return)
};

// One piece of a message: `bytes` bytes from local `src` to `dst` on the target.
struct Segment {
  RemoteRef dst;
  const void *src;
  size_t bytes;
};

// What a message does to its 64-bit signal word once every segment it carries is in place.
enum class SignalOp : uint8_t {
  raise,  // the word becomes `value` unless it is larger already (the values sent to one word only grow)
  add,    // `value` is added
};

class Transport {
 public:
  virtual ~Transport() = default;

  // "ucx", "p2p", ...
  virtual const char *name() const = 0;
  // Whether connect() reached `pe` (after connect). PEs this transport was not asked to reach are false.
  virtual bool reaches(int pe) const = 0;
  virtual Caps caps(int pe) const = 0;
  // One line describing how `pe` is reached (for gpushmem-info --peers and SHMEM_INFO), e.g. "ucx tcp".
  virtual std::string describe(int pe) const = 0;

  // Set-up, collective in the order the core calls them: register every region, then hand over the blob,
  // then connect with every PE's blob (blobs[pe]; the own one included). `peers[pe]` says which PEs this
  // transport must reach. A blob that is not this transport's, of another version or another job, is an
  // error naming the PE.
  // `agent`: the region's memory is reached through it, not by the network itself (the transport keeps
  // the pointer; the agent outlives the transport's finalize). A transport that cannot serve agent regions
  // returns not_supported. `one_sided` (agent regions): the part the network may also reach itself.
  [[nodiscard]] virtual Status register_region(Region region, void *base, size_t bytes, MemoryAgent *agent = nullptr,
                                               OneSided one_sided = {}) = 0;
  [[nodiscard]] virtual Status local_blob(std::vector<uint8_t> *out) = 0;
  [[nodiscard]] virtual Status connect(const std::vector<std::vector<uint8_t>> &blobs,
                                       const std::vector<bool> &peers) = 0;

  // Non-blocking operations. `token` (may be null) names the operation for wait(). Failures are logged
  // with the observed cause (the PE, the operation) and returned; the peer's error word is set.
  [[nodiscard]] virtual Status put(uint32_t channel, int pe, RemoteRef dst, const void *src, size_t bytes,
                                   Completion completion, Token *token) = 0;
  // Complete (dst written) when it returns.
  [[nodiscard]] virtual Status get(uint32_t channel, int pe, void *dst, RemoteRef src, size_t bytes) = 0;
  // width 4 or 8. operand: the value to add / store / swap in (low `width` bytes); compare: cswap's
  // expected value. fetch == nullptr for the non-fetching forms (store, add, and, or, xor): posted, complete
  // at the channel's next quiet. A fetching one is complete when it returns.
  [[nodiscard]] virtual Status amo(uint32_t channel, int pe, RemoteRef dst, AmoOp op, size_t width, uint64_t operand,
                                   uint64_t compare, void *fetch) = 0;
  // The payload, then the 64-bit signal word set (`add` false) or added to: a PE that sees the signal sees
  // the payload. Complete locally when it returns (source reusable); remotely at the next quiet.
  [[nodiscard]] virtual Status put_signal(uint32_t channel, int pe, RemoteRef dst, const void *src, size_t bytes,
                                          RemoteRef signal, uint64_t value, bool add) = 0;

  // The runtime's signalling (collectives, barriers): writes every segment to `pe`, then applies the signal,
  // so a PE that sees the signal's new value sees every segment. Ordered only against what it carries:
  // messages to one PE may be applied in any order, and not after the channel's earlier operations (callers
  // quiet first where they need that). Sources reusable at return; complete at the target at the channel's
  // next quiet. Transports that can carry it as one message do (ucx: an active message the target applies);
  // this default is a put per segment, then a fenced signal.
  [[nodiscard]] virtual Status send_message(uint32_t channel, int pe, const Segment *segments, size_t n,
                                            RemoteRef signal, uint64_t value, SignalOp op);

  // Waits until the operation `token` names is complete at its target.
  [[nodiscard]] virtual Status wait(const Token &token) = 0;
  // Completes every operation issued on `channel` (at their targets). kAllChannels: every channel but
  // kRuntimeChannel.
  static constexpr uint32_t kAllChannels = ~0u;
  // The runtime's own synchronisation (barrier arrivals, collectives' signals and data, lock words): ordered
  // like the default channel's operations (the same endpoints), but no quiet of the application waits for
  // them, since each algorithm completes its own steps; quiet(kRuntimeChannel) does (shmem_finalize).
  static constexpr uint32_t kRuntimeChannel = ~0u - 1;
  [[nodiscard]] virtual Status quiet(uint32_t channel) = 0;
  // Orders the operations issued on `channel` before the ones issued after, to each PE.
  [[nodiscard]] virtual Status fence(uint32_t channel) = 0;
  // Drives outstanding operations and serves remote ones aimed at this PE. Never blocks; returns whether
  // anything happened. `try_only`: return at once if another thread is inside the transport.
  virtual bool progress(bool try_only) = 0;
  // An application thread starts / stops driving progress() itself (a host wait): a progress thread may
  // step back meanwhile instead of competing for the cores. Calls pair up; any thread.
  virtual void enter_wait() {}
  virtual void leave_wait() {}
  // Whether this transport can read and write device memory itself (a UCX built with CUDA support), so that GPU
  // heaps could be reached one-sided instead of through their memory agents; a description of what it found
  // ("its memory types: host, cuda, ..."). Debian's UCX has no CUDA support.
  virtual bool reaches_gpu_memory() const { return false; }
  virtual std::string memory_types() const { return "host"; }

  // Sticky per-peer error: nonzero once an operation to or from `pe` failed or the peer was lost.
  virtual int peer_error(int pe) const = 0;
  // Why `pe` was lost (empty when it was not).
  virtual std::string peer_error_text(int pe) const = 0;

  // Collective-free teardown: completes what is outstanding and releases everything. Called after the last
  // barrier of shmem_finalize.
  virtual void finalize() = 0;
};

}  // namespace gpushmem::transport
