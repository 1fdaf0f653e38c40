// Unix-domain sockets between the PEs of one node. They carry file descriptors (heap segments), and
// because the kernel closes them when a process dies they double as a liveness signal: a peer whose
// socket closes without saying goodbye has crashed, and this PE ends instead of waiting for it forever.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/bootstrap_plugin.h"
#include "node/topology.hpp"

namespace gpushmem::node {

enum class PeerState : int { connected = 0, finalized = 1, exited_without_finalize = 2, crashed = 3 };

class PeerChannel {
 public:
  PeerChannel() = default;
  PeerChannel(const PeerChannel &) = delete;
  PeerChannel &operator=(const PeerChannel &) = delete;

  // Collective over the bootstrap: connects every pair of PEs on this node (abstract-namespace sockets
  // named by a random job key, so nothing is created in the file system) and starts the watchdog.
  Status connect(gpushmem_bootstrap_t *boot, const Topology &topo);

  // Collective over the node: sends `my_fd` to every local peer and receives theirs. (*fds)[local index]
  // is the peer's descriptor, owned by the caller; the own slot holds -1.
  Status exchange_fds(int my_fd, std::vector<int> *fds);

  // Before a clean exit: tells peers this PE is leaving on purpose (finalized or returned from main).
  void say_goodbye(bool finalized);
  // Tells every local peer to exit with `status` (shmem_global_exit); returns at once.
  void broadcast_exit(int status);
  // Stops the watchdog and closes the sockets.
  void close();

  // What became of a local peer (by world PE number).
  PeerState state_of(int pe) const;
  // Whether local peer `pe` is stopped now (SIGSTOP, or a debugger's tracing stop), from /proc; *pid gets
  // its process id. False for a PE of another node or one whose process this PE cannot see.
  bool is_stopped(int pe, int *pid) const;
  const std::vector<int> &local_pes() const { return local_pes_; }

 private:
  struct Frame;
  void watchdog_loop();
  void handle_frame(int local, const Frame &f, int fd);
  void peer_closed(int local);
  Status accept_and_connect(const char *key_hex, const Topology &topo, int listen_fd);

  std::vector<int> socks_;  // by local index; -1 for this PE
  std::vector<int> local_pes_;
  std::vector<pid_t> pids_;  // by local index; 0 for this PE and where unknown
  int my_local_ = 0;
  int stop_pipe_[2] = {-1, -1};
  std::thread watchdog_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::deque<int>> received_fds_;  // by local index
  std::vector<std::atomic<int>> *state_ = nullptr;
  bool closing_ = false;
};

}  // namespace gpushmem::node
