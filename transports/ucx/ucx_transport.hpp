// The host network transport over UCX's UCP (design.md §5): one UCP context and one worker per PE, the
// host heap and the globals registered with ucp_mem_map, worker address + packed rkeys carried in the blob
// the core allgathers, endpoints per (channel, peer) created on first use so that a context's quiet
// flushes only that context's endpoints, rkeys unpacked per endpoint (UCX binds them to one).
//
// Threads: one mutex serialises every UCX call on the workers (created UCS_THREAD_MODE_SERIALIZED). A
// blocking operation drops the mutex between progress calls, so other threads get their turn. The
// progress thread (ucx_progress.cpp) keeps out while the application calls in: it drives the worker
// itself then, and two threads taking turns at one worker cost a lock hand-over per event. UCX over TCP emulates RMA
// and atomics with messages the *target* executes inside ucp_worker_progress: the progress thread
// (GPUSHMEM_PROGRESS_THREAD) and every host wait (runtime/sync/wait.hpp) drive it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "transport.hpp"
#include "ucx/ucx_agent.hpp"
#include "ucx/ucx_api.hpp"
#include "ucx/ucx_message.hpp"

namespace gpushmem::ucx {

struct Options {
  int my_pe = 0;
  int n_pes = 0;
  uint64_t job_key = 0;            // the same on every PE of the job (blobs of other jobs are refused)
  int hang_warn_s = 10;            // a blocking operation logs what it waits for at this interval (0: never)
  int64_t spin_us = 100;           // the progress thread polls this long after the last event before it naps
  int64_t nap_max_us = 1000;       // its longest nap while nothing arrives (the naps double up to it)
  uint64_t rndv_bytes = 60 << 10;  // runtime messages with more data than this go by rendezvous
  bool agent_stats = false;        // GPUSHMEM_PROXY_STATS: time this PE's service of peers' agent requests
  int fault_pe = -1;               // GPUSHMEM_FAULT_INJECT: the endpoint to this PE fails ...
  uint64_t fault_after = 0;        // ... at the fault_after-th operation to it (1: the first)
};

// The blob every PE allgathers: this header, then the worker address, then each region's packed rkey (none
// for an agent region: its operations travel as messages its owner's agent executes, ucx_agent.hpp; an agent
// region's one-sided part, transport::OneSided, has one).
inline constexpr uint32_t kBlobMagic = 0x58555347;  // "GSUX"
inline constexpr uint16_t kBlobVersion = 5;         // 5: agent regions with a one-sided part (rma_bytes)
struct BlobHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t agent_regions;  // bit r: region r is reached through the PE's memory agent
  uint32_t pe;
  uint32_t ucx_version;  // major << 16 | minor << 8 | release of the UCX library the PE loaded
  uint64_t job_key;
  uint64_t base[transport::kRegions];
  uint64_t size[transport::kRegions];
  uint32_t address_bytes;
  uint32_t rkey_bytes[transport::kRegions];
  uint64_t rma_bytes[transport::kRegions];  // an agent region's one-sided part (its first bytes; 0: none)
};
// The layout is part of the wire format (and the unit test spoils fields at these offsets).
static_assert(sizeof(BlobHeader) == 112 && offsetof(BlobHeader, version) == 4 && offsetof(BlobHeader, pe) == 8 &&
                  offsetof(BlobHeader, job_key) == 16 && offsetof(BlobHeader, address_bytes) == 72,
              "the blob header's layout changed: bump kBlobVersion and the unit test");

// Operations on an agent region move at most this many bytes per message: the target receives each into
// a bounce buffer of that size before its agent copies it into place.
inline constexpr size_t kAgentChunkBytes = 1 << 20;

class UcxTransport final : public transport::Transport {
 public:
  // Creates the UCP context and worker; nullptr (with the cause logged) when UCX cannot be used.
  static std::unique_ptr<UcxTransport> create(const Api *api, const Options &options);
  ~UcxTransport() override;

  const char *name() const override { return "ucx"; }
  bool reaches(int pe) const override;
  transport::Caps caps(int pe) const override;
  std::string describe(int pe) const override;

  Status register_region(transport::Region region, void *base, size_t bytes, transport::MemoryAgent *agent = nullptr,
                         transport::OneSided one_sided = {}) override;
  Status local_blob(std::vector<uint8_t> *out) override;
  Status connect(const std::vector<std::vector<uint8_t>> &blobs, const std::vector<bool> &peers) override;

  Status put(uint32_t channel, int pe, transport::RemoteRef dst, const void *src, size_t bytes,
             transport::Completion completion, transport::Token *token) override;
  Status get(uint32_t channel, int pe, void *dst, transport::RemoteRef src, size_t bytes) override;
  Status amo(uint32_t channel, int pe, transport::RemoteRef dst, transport::AmoOp op, size_t width, uint64_t operand,
             uint64_t compare, void *fetch) override;
  Status put_signal(uint32_t channel, int pe, transport::RemoteRef dst, const void *src, size_t bytes,
                    transport::RemoteRef signal, uint64_t value, bool add) override;
  Status send_message(uint32_t channel, int pe, const transport::Segment *segments, size_t n,
                      transport::RemoteRef signal, uint64_t value, transport::SignalOp op) override;
  Status wait(const transport::Token &token) override;
  Status quiet(uint32_t channel) override;
  Status fence(uint32_t channel) override;
  bool progress(bool try_only) override;
  bool reaches_gpu_memory() const override { return cuda_memory_; }
  std::string memory_types() const override { return memory_types_; }
  void enter_wait() override { waiters_.fetch_add(1, std::memory_order_relaxed); }
  void leave_wait() override { waiters_.fetch_sub(1, std::memory_order_relaxed); }
  int peer_error(int pe) const override;
  std::string peer_error_text(int pe) const override;
  void finalize() override;

  // After connect(), collective in two rounds with a barrier between: creates and flushes the default
  // channel's endpoints to the PEs above this one (higher), then to those below, so that no pair connects
  // to each other at the same moment. Peers must progress meanwhile (the progress thread).
  Status wire_up(bool higher);

  // The progress thread (ucx_progress.cpp): serves operations aimed at this PE while the application
  // computes. Polls, with naps of growing length while nothing happens.
  Status start_progress_thread();
  bool progress_thread_running() const { return progress_thread_.joinable(); }
  void stop_progress_thread();
  // Stops error reports for peers that go away (set at shmem_finalize, before the last barrier).
  void set_closing() { closing_.store(true, std::memory_order_release); }
  // Options::agent_stats: per kind of request this PE's memory agents served for peers, how many, how long
  // they waited between their arrival and their service, and how long the agent took (one line each).
  std::vector<std::string> agent_stats_report() const;

  // Whether a context made from `config` uses UCX's new protocol stack (UCX_PROTO_ENABLE, UCX's default
  // from 1.16); this transport's endpoints have no peer-failure mode then.
  static bool uses_new_protocols(const Api *api, const ucp_config_t *config);

 private:
  struct Peer;
  struct Channel;
  struct ErrorArg {
    UcxTransport *self;
    int pe;
  };

  UcxTransport(const Api *api, const Options &options);
  // A context channel that never issued an operation: it has no worker, and quiet and fence must not make
  // one (a UCX worker per context destroyed: 4 MiB of shared memory and a socket each).
  bool never_used_locked(uint32_t id) const;
  Channel &channel_locked(uint32_t id);
  // The endpoint and rkey of `region` for `pe` on channel `c` (created on first use). Mutex held.
  Status endpoint_locked(Channel &c, int pe, transport::Region region, ucp_ep_h *ep, ucp_rkey_h *rkey);
  // The endpoint alone (created on first use; GPUSHMEM_FAULT_INJECT counts here).
  Status ep_locked(Channel &c, int pe, ucp_ep_h *ep);
  // Where an operation on `ref` of PE pe goes: channel c's endpoint, the rkey unpacked on it, the address.
  struct Target {
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t raddr;
  };
  Status target_locked(Channel &c, int pe, transport::RemoteRef ref, Target *out);
  // Records an operation that writes or updates a peer's memory and is not complete there yet: the
  // channel's next quiet flushes it (kRuntimeChannel's: only quiet(kRuntimeChannel)).
  void note_written_locked(Channel &c, uint32_t channel);
  // After issuing on channel c: every 16th issue progresses the workers once (note_app_progress), so a PE
  // that only issues still serves its peers.
  void issued_locked(Channel &c);
  // Ends an issued operation: waits for `request` (`wait`), or lets it complete in the background.
  Status finish_locked(std::unique_lock<std::mutex> &lock, Channel &c, void *request, bool wait, const char *what,
                       int pe);
  Status check_range(const char *op, int pe, transport::RemoteRef ref, size_t bytes) const;
  // Waits for `request` (a ucs_status_ptr_t of an operation issued on `worker`) with the lock held on entry
  // and exit, progressing `worker` and the PE's own; the lock is dropped between progress calls. `what` and
  // `pe` name the operation in messages (pe -1: several PEs, as a quiet).
  Status wait_request_locked(std::unique_lock<std::mutex> &lock, ucp_worker_h worker, void *request, const char *what,
                             int pe);
  // An application thread progresses the worker (a wait, a progress call, every 16th issue): the progress
  // thread keeps out of the worker while this goes on. Calls that progress nothing must not say so.
  void note_app_progress() { app_progress_.fetch_add(1, std::memory_order_relaxed); }
  // Orders the channel's earlier operations before its later ones (a flush under the new protocol stack).
  Status fence_locked(std::unique_lock<std::mutex> &lock, Channel &c, const char *what, int pe);
  Status issue_amo_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                          transport::RemoteRef dst, ucp_atomic_op_t op, size_t width, uint64_t operand, void *reply,
                          bool wait, const char *what);
  // and / or / xor through a compare-and-swap loop, for UCX transports that do not offer them.
  Status emulate_bitwise_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                transport::RemoteRef dst, transport::AmoOp op, size_t width, uint64_t operand,
                                void *fetch);
  Status fail_op(const char *what, int pe, ucs_status_t status);
  // The lowest PE whose endpoint failed, or -1.
  int first_lost_peer() const;
  static void on_endpoint_error(void *arg, ucp_ep_h ep, ucs_status_t status);
  // Marks `pe` lost (sticky) with `why`, once; logs it unless the job is closing. Mutex held.
  void lose_peer_locked(int pe, const std::string &why);
  // The receiving side of send_message (ucx_message.hpp): runs inside ucp_worker_progress of worker_.
  static ucs_status_t on_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                 const ucp_am_recv_param_t *param);
  // A rendezvous message (head in the active message's header): receives its payloads into place, and
  // applies its signal once they are in (on_received).
  message::Regions regions() const;  // where this PE's registered regions lie
  void receive_rendezvous(const void *header, size_t header_length, void *data, size_t length);
  struct Receive;
  static void on_received(void *request, ucs_status_t status, size_t length, void *user_data);
  void progress_loop();
  void release_locked();
  // Progresses `worker` once; on the PE's own worker, then executes the agent requests that arrived
  // (ucx_agent_serve.cpp). Every progress call of this transport goes through here. Returns the events.
  unsigned progress_worker_locked(ucp_worker_h worker);

  // Agent regions (ucx_agent_serve.cpp). Whether PE pe reaches `region` through its memory agent.
  bool agent_region(int pe, transport::Region region) const;
  // Whether a put or get of `bytes` at `ref` goes through the agent: an agent region outside its one-sided part.
  bool agent_data(int pe, transport::RemoteRef ref, size_t bytes) const;
  struct AgentWork;
  struct AgentWait;
  // Sends one request to pe on channel c (header `r`, `data` the payload), and waits for its send to
  // complete locally. Posted requests (r.id 0) are counted in c.agent_outstanding until acknowledged.
  Status agent_send_locked(std::unique_lock<std::mutex> &lock, Channel &c, int pe, agent::Request &r, const void *data,
                           size_t bytes);
  agent::Request agent_request(agent::Kind kind, uint32_t channel, transport::RemoteRef ref) const;
  Status agent_put_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                          transport::RemoteRef dst, const void *src, size_t bytes);
  Status agent_get_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe, void *dst,
                          transport::RemoteRef src, size_t bytes);
  Status agent_amo_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                          transport::RemoteRef dst, transport::AmoOp op, size_t width, uint64_t operand,
                          uint64_t compare, void *fetch);
  Status agent_put_signal_locked(std::unique_lock<std::mutex> &lock, Channel &c, uint32_t channel, int pe,
                                 transport::RemoteRef dst, const void *src, size_t bytes, transport::RemoteRef signal,
                                 uint64_t value, bool add);
  // Waits until `done` holds, progressing like wait_request_locked (the replies arrive at worker_); fails
  // naming `what` if PE pe (-1: any PE) is lost meanwhile.
  template <typename Done>
  Status agent_wait_locked(std::unique_lock<std::mutex> &lock, Channel &c, Done done, const char *what, int pe);
  // Every acknowledgement of channel c's posted agent requests is in (quiet, fence).
  Status agent_drain_locked(std::unique_lock<std::mutex> &lock, Channel &c, const char *what);
  static ucs_status_t on_agent_request(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                       const ucp_am_recv_param_t *param);
  static ucs_status_t on_agent_reply(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                     const ucp_am_recv_param_t *param);
  static void on_agent_data(void *request, ucs_status_t status, size_t length, void *user_data);
  static void on_agent_reply_data(void *request, ucs_status_t status, size_t length, void *user_data);
  static void on_agent_reply_sent(void *request, ucs_status_t status, void *user_data);
  Status set_agent_handlers();
  void serve_agent_locked();
  agent::Regions agent_regions() const;
  // progress_loop and start_progress_thread live in ucx_progress.cpp.

  const Api *api_;
  Options opt_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  bool new_protocols_ = false;  // UCX's new protocol stack (endpoints without peer-failure mode)
  size_t max_am_header_ = 0;    // the largest active-message header worker_ sends (a rendezvous head)
  bool cpu_atomics_ = false;    // UCX_ATOMIC_MODE=cpu: UCX's atomics agree with node-local CPU atomics
  ucp_mem_h memh_[transport::kRegions] = {};
  transport::MemoryAgent *agent_[transport::kRegions] = {};  // regions this PE serves through an agent
  size_t rma_bytes_[transport::kRegions] = {};               // ... and the part of them peers reach one-sided
  void *region_base_[transport::kRegions] = {};
  size_t region_bytes_[transport::kRegions] = {};
  std::vector<Peer> peers_;
  std::unordered_map<uint32_t, std::unique_ptr<Channel>> channels_;
  std::vector<std::unique_ptr<ErrorArg>> error_args_;
  mutable std::mutex mu_;
  std::atomic<bool> closing_{false};
  std::atomic<bool> stop_{false};
  bool cuda_memory_ = false;               // the context's memory types include CUDA device memory
  std::string memory_types_ = "host";      // the context's memory types, named
  std::atomic<int> waiters_{0};            // application threads progressing the worker themselves (their waits)
  std::atomic<uint64_t> app_progress_{0};  // application progress calls (the progress thread watches it change)
  unsigned issued_since_progress_ = 0;     // guarded by mu_
  uint64_t fault_ops_ = 0;                 // operations to opt_.fault_pe so far; guarded by mu_
  // Agent requests that arrived, in order, to execute after the progress call (guarded by mu_), and the
  // sender's side: its waits for replies by id.
  std::deque<std::unique_ptr<AgentWork>> agent_work_;
  std::unordered_map<uint64_t, AgentWait *> agent_waits_;
  uint64_t next_agent_id_ = 1;
  struct AgentStats {  // Options::agent_stats, guarded by mu_
    uint64_t count = 0, queued_ns = 0, queued_max_ns = 0, served_ns = 0, served_max_ns = 0;
  };
  AgentStats agent_stats_[5];  // by agent::Kind
  AgentStats complete_stats_;  // completions of posted puts (count: batches; served: time in complete_writes)
  std::thread progress_thread_;
};

}  // namespace gpushmem::ucx
