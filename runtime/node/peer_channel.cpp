#include "node/peer_channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "env/env.hpp"

namespace gpushmem::node {

enum FrameType : uint32_t { kHello = 1, kFd = 2, kGoodbye = 3, kExit = 4 };

struct PeerChannel::Frame {
  uint32_t type;
  int32_t value;  // hello: sender's local index; goodbye: 1 if finalized; exit: status
};

namespace {

constexpr int kKeyBytes = 16;
// How long a PE waits, after a local PE ended without shmem_finalize, for a job abort that explains it.
constexpr int kAbortGraceMs = 500;

void abstract_address(const char *key_hex, int local, sockaddr_un *addr, socklen_t *len) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  // Leading NUL: Linux abstract namespace, nothing appears in the file system and nothing is left behind.
  int n = std::snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "gpushmem/%s/%d", key_hex, local);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

bool send_frame(int sock, const void *frame, size_t bytes, int fd_to_pass) {
  iovec iov{const_cast<void *>(frame), bytes};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd_to_pass >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd_to_pass, sizeof(int));
  }
  for (;;) {
    ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(bytes)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

// Reads one frame (SOCK_SEQPACKET keeps frames whole). Returns bytes read, 0 on close, -1 on error.
ssize_t recv_frame(int sock, void *frame, size_t bytes, int *fd_out) {
  iovec iov{frame, bytes};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  // ECONNRESET: the peer closed its end while a frame it sent earlier is still queued here (Linux reports
  // the reset once, before the queued frames): read on, the goodbye frame is what tells a clean exit apart.
  do {
    n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && (errno == EINTR || errno == ECONNRESET));
  *fd_out = -1;
  if (n > 0) {
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(fd_out, CMSG_DATA(c), sizeof(int));
  }
  return n;
}

}  // namespace

Status PeerChannel::connect(gpushmem_bootstrap_t *boot, const Topology &topo) {
  local_pes_ = topo.local_pes;
  my_local_ = topo.local_rank;
  const int n = topo.local_size;
  socks_.assign(n, -1);
  received_fds_.assign(n, {});
  state_ = new std::vector<std::atomic<int>>(n);
  for (auto &s : *state_) s.store(static_cast<int>(PeerState::connected));

  unsigned char key[kKeyBytes] = {0};
  if (boot->rank == 0 && getrandom(key, sizeof key, 0) != static_cast<ssize_t>(sizeof key)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: getrandom failed: %s", std::strerror(errno));
    return Status::system_error;
  }
  if (boot->bcast(boot, key, sizeof key, 0) != GPUSHMEM_BOOTSTRAP_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: broadcast of the node key failed (bootstrap %s)", boot->name);
    return Status::bootstrap_error;
  }
  // The job key, then the node's number: virtual hosts (GPUSHMEM_HOSTNAME) on one machine share its socket
  // namespace, so each node's names must differ from another's.
  char key_hex[2 * kKeyBytes + 16];
  for (int i = 0; i < kKeyBytes; ++i) std::snprintf(key_hex + 2 * i, 3, "%02x", key[i]);
  std::snprintf(key_hex + 2 * kKeyBytes, 16, "/%d", topo.node_of[static_cast<size_t>(boot->rank)]);

  int listen_fd = -1;
  if (n > 1) {
    listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un addr;
    socklen_t len;
    abstract_address(key_hex, my_local_, &addr, &len);
    if (listen_fd < 0 || bind(listen_fd, reinterpret_cast<sockaddr *>(&addr), len) != 0 || listen(listen_fd, n) != 0) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: cannot create the node-local socket: %s",
                         std::strerror(errno));
      if (listen_fd >= 0) ::close(listen_fd);
      return Status::system_error;
    }
  }
  // Everyone listens before anyone connects.
  if (boot->barrier(boot) != GPUSHMEM_BOOTSTRAP_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: bootstrap barrier failed (bootstrap %s)", boot->name);
    if (listen_fd >= 0) ::close(listen_fd);
    return Status::bootstrap_error;
  }
  Status s = n > 1 ? accept_and_connect(key_hex, topo, listen_fd) : Status::ok;
  if (listen_fd >= 0) ::close(listen_fd);
  if (s != Status::ok) return s;
  // Each peer's process id, as the kernel vouches for it (0 where this PE cannot see it, as from another
  // pid namespace): what is_stopped() looks up.
  pids_.assign(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (i != my_local_ && getsockopt(socks_[i], SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) pids_[i] = cred.pid;
  }
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: pipe2 failed: %s", std::strerror(errno));
    return Status::system_error;
  }
  watchdog_ = std::thread([this] { watchdog_loop(); });
  return Status::ok;
}

Status PeerChannel::accept_and_connect(const char *key_hex, const Topology &topo, int listen_fd) {
  const int n = topo.local_size;
  // Connect to every peer with a smaller local index; accept the rest.
  for (int peer = 0; peer < my_local_; ++peer) {
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un addr;
    socklen_t len;
    abstract_address(key_hex, peer, &addr, &len);
    if (s < 0 || ::connect(s, reinterpret_cast<sockaddr *>(&addr), len) != 0) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: cannot connect to local PE %d: %s", topo.local_pes[peer],
                         std::strerror(errno));
      if (s >= 0) ::close(s);
      return Status::system_error;
    }
    Frame hello{kHello, my_local_};
    if (!send_frame(s, &hello, sizeof hello, -1)) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: cannot greet local PE %d: %s", topo.local_pes[peer],
                         std::strerror(errno));
      ::close(s);
      return Status::system_error;
    }
    socks_[peer] = s;
  }
  const int timeout_ms = static_cast<int>(env::get().GPUSHMEM_BOOTSTRAP_TIMEOUT) * 1000;
  for (int accepted = 0; accepted < n - 1 - my_local_; ++accepted) {
    pollfd p{listen_fd, POLLIN, 0};
    int r;
    do {
      r = poll(&p, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: timed out after %lld s waiting for %d local PE(s) to connect",
                         static_cast<long long>(env::get().GPUSHMEM_BOOTSTRAP_TIMEOUT), n - 1 - my_local_ - accepted);
      return Status::timeout;
    }
    int s = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    Frame hello{};
    int ignored_fd;
    if (s < 0 || recv_frame(s, &hello, sizeof hello, &ignored_fd) != sizeof hello || hello.type != kHello ||
        hello.value <= my_local_ || hello.value >= n || socks_[hello.value] != -1) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: bad greeting on the node-local socket");
      if (s >= 0) ::close(s);
      return Status::internal_error;
    }
    socks_[hello.value] = s;
  }
  return Status::ok;
}

Status PeerChannel::exchange_fds(int my_fd, std::vector<int> *fds) {
  const int n = static_cast<int>(socks_.size());
  fds->assign(n, -1);
  Frame f{kFd, 0};
  for (int peer = 0; peer < n; ++peer) {
    if (peer == my_local_) continue;
    if (!send_frame(socks_[peer], &f, sizeof f, my_fd)) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "cannot send a descriptor (heap or globals) to local PE %d: %s",
                         local_pes_[peer], std::strerror(errno));
      return Status::system_error;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(env::get().GPUSHMEM_BOOTSTRAP_TIMEOUT);
  std::unique_lock<std::mutex> lock(mu_);
  for (int peer = 0; peer < n; ++peer) {
    if (peer == my_local_) continue;
    bool ok = cv_.wait_until(lock, deadline, [&] {
      return !received_fds_[peer].empty() || (*state_)[peer].load() != static_cast<int>(PeerState::connected);
    });
    if (!ok || received_fds_[peer].empty()) {
      GPUSHMEM_LOG_ERROR(log::Subsys::node, "no descriptor (heap or globals) arrived from local PE %d (%s)",
                         local_pes_[peer], ok ? "it left" : "timed out");
      return ok ? Status::system_error : Status::timeout;
    }
    (*fds)[peer] = received_fds_[peer].front();
    received_fds_[peer].pop_front();
  }
  return Status::ok;
}

void PeerChannel::watchdog_loop() {
  const int n = static_cast<int>(socks_.size());
  std::vector<pollfd> fds;
  std::vector<int> who;
  for (;;) {
    fds.clear();
    who.clear();
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    who.push_back(-1);
    for (int peer = 0; peer < n; ++peer) {
      if (socks_[peer] < 0) continue;
      fds.push_back({socks_[peer], POLLIN, 0});
      who.push_back(peer);
    }
    int r = poll(fds.data(), fds.size(), -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return;
    if (fds[0].revents != 0) return;  // close() asked us to stop
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      int peer = who[i];
      Frame f{};
      int fd = -1;
      ssize_t got = recv_frame(socks_[peer], &f, sizeof f, &fd);
      if (got == static_cast<ssize_t>(sizeof f)) {
        handle_frame(peer, f, fd);
      } else {
        peer_closed(peer);
      }
    }
  }
}

void PeerChannel::handle_frame(int local, const Frame &f, int fd) {
  switch (f.type) {
    case kFd: {
      std::lock_guard<std::mutex> lock(mu_);
      received_fds_[local].push_back(fd);
      cv_.notify_all();
      return;
    }
    case kGoodbye:
      (*state_)[local].store(
          static_cast<int>(f.value != 0 ? PeerState::finalized : PeerState::exited_without_finalize));
      return;
    case kExit:
      GPUSHMEM_LOG_INFO(log::Subsys::node, "PE %d called shmem_global_exit(%d): exiting", local_pes_[local], f.value);
      std::fflush(nullptr);
      _exit(f.value);
    default:
      if (fd >= 0) ::close(fd);
      GPUSHMEM_LOG_WARN(log::Subsys::node, "ignoring unknown frame type %u from local PE %d", f.type,
                        local_pes_[local]);
  }
}

void PeerChannel::peer_closed(int local) {
  ::close(socks_[local]);
  int state = (*state_)[local].load();
  {
    std::lock_guard<std::mutex> lock(mu_);
    socks_[local] = -1;
    if (closing_) return;
  }
  if (state == static_cast<int>(PeerState::connected)) {
    // A local PE that ends without shmem_finalize may have been ended by the job's abort (another PE's
    // shmem_global_exit or failure), which is on its way here too: the bootstrap then ends this PE with the
    // job's status and names the PE that caused it. Give that message a moment before calling this a crash
    // (otherwise this PE exits 1 and blames a PE that only obeyed the abort).
    std::this_thread::sleep_for(std::chrono::milliseconds(kAbortGraceMs));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closing_) return;
    }
    (*state_)[local].store(static_cast<int>(PeerState::crashed));
    GPUSHMEM_LOG_ERROR(log::Subsys::node,
                       "local PE %d ended without shmem_finalize (crashed or was killed); ending this PE too instead "
                       "of waiting for it",
                       local_pes_[local]);
    std::fflush(nullptr);
    _exit(1);
  }
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

void PeerChannel::say_goodbye(bool finalized) {
  Frame f{kGoodbye, finalized ? 1 : 0};
  for (int s : socks_)
    if (s >= 0) send_frame(s, &f, sizeof f, -1);
}

void PeerChannel::broadcast_exit(int status) {
  {
    // The peers are about to exit on our word: their sockets closing is expected, not a crash.
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  Frame f{kExit, status};
  for (int s : socks_)
    if (s >= 0) send_frame(s, &f, sizeof f, -1);
}

void PeerChannel::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  if (watchdog_.joinable()) {
    char c = 1;
    ssize_t ignored = write(stop_pipe_[1], &c, 1);
    (void)ignored;
    watchdog_.join();
  }
  for (int &s : socks_) {
    if (s >= 0) ::close(s);
    s = -1;
  }
  for (int &p : stop_pipe_) {
    if (p >= 0) ::close(p);
    p = -1;
  }
  for (auto &q : received_fds_) {
    for (int fd : q) ::close(fd);
    q.clear();
  }
}

bool PeerChannel::is_stopped(int pe, int *pid) const {
  for (size_t i = 0; i < local_pes_.size() && i < pids_.size(); ++i) {
    if (local_pes_[i] != pe || pids_[i] <= 0) continue;
    *pid = pids_[i];
    char path[64], text[512];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pids_[i]));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (got <= 0) return false;
    text[got] = '\0';
    // "pid (comm) S ...": the state follows the last ')' (comm may hold any character).
    const char *close_paren = std::strrchr(text, ')');
    return close_paren != nullptr && close_paren[1] == ' ' && (close_paren[2] == 'T' || close_paren[2] == 't');
  }
  return false;
}

PeerState PeerChannel::state_of(int pe) const {
  for (size_t i = 0; i < local_pes_.size(); ++i)
    if (local_pes_[i] == pe && state_ != nullptr) return static_cast<PeerState>((*state_)[i].load());
  return PeerState::connected;
}

}  // namespace gpushmem::node
