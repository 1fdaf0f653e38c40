#include "job.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace gpushmemrun {
namespace {

constexpr int kKillGraceMs = 5000;  // SIGTERM, then this long, then SIGKILL
// After the first failure, failures reaped within this window compete for "the cause": when one PE dies, the
// bootstrap makes its peers exit 1 within milliseconds, and their zombies may be reaped first.
constexpr int kSettleMs = 200;
constexpr int kTimeoutStatus = 124;  // as timeout(1)
constexpr int kExecFailedStatus = 127;

long long now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// In the child between fork and exec: only async-signal-safe work matters little here (the launcher is
// single-threaded), but nothing may return.
[[noreturn]] void exec_rank(const JobSpec &spec, int rank, const sigset_t &old_mask, pid_t launcher) {
  // Die with the launcher, so a killed launcher leaves no orphans holding the job's sockets.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(1);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  setenv("GPUSHMEMRUN_RANK", std::to_string(rank).c_str(), 1);
  setenv("GPUSHMEMRUN_SIZE", std::to_string(spec.n).c_str(), 1);
  setenv("GPUSHMEMRUN_UNIQUEID", spec.unique_id.c_str(), 1);
  if (rank == 0) {
    fcntl(spec.listen_fd, F_SETFD, 0);  // the program inherits the listening socket
    setenv("GPUSHMEMRUN_LISTEN_FD", std::to_string(spec.listen_fd).c_str(), 1);
  } else {
    unsetenv("GPUSHMEMRUN_LISTEN_FD");  // e.g. from an enclosing gpushmemrun
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);  // one terminal reader: rank 0
  }
  execvp(spec.argv[0], spec.argv);
  int err = errno;
  std::fprintf(stderr, "gpushmemrun: rank %d: cannot run '%s': %s\n", rank, spec.argv[0], std::strerror(err));
  _exit(kExecFailedStatus);
}

class Job {
 public:
  explicit Job(const JobSpec &spec) : spec_(spec), pids_(static_cast<size_t>(spec.n), -1) {}

  int run() {
    sigemptyset(&watched_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched_, s);
    sigset_t old_mask;
    // Signals are taken synchronously with sigtimedwait: no handlers, no races with waitpid.
    sigprocmask(SIG_BLOCK, &watched_, &old_mask);
    if (spec_.timeout_s > 0) deadline_ms_ = now_ms() + spec_.timeout_s * 1000LL;
    pid_t self = getpid();
    for (int r = 0; r < spec_.n && !failing_; ++r) {
      pid_t pid = fork();
      if (pid == 0) exec_rank(spec_, r, old_mask, self);
      if (pid < 0) {
        std::fprintf(stderr, "gpushmemrun: could not start rank %d: fork: %s\n", r, std::strerror(errno));
        fail(1);
        break;
      }
      pids_[static_cast<size_t>(r)] = pid;
      ++live_;
      if (r == 0 && spec_.listen_fd >= 0) {
        close(spec_.listen_fd);  // rank 0 owns it now; later ranks must not inherit it
      }
    }
    supervise();
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return status_;
  }

 private:
  void signal_all(int sig) {
    for (pid_t pid : pids_)
      if (pid > 0) kill(pid, sig);
  }

  // The first failure decides the exit status; then the others are ended.
  void fail(int status) {
    if (failing_) return;
    failing_ = true;
    status_ = status;
    signal_all(SIGTERM);
    // A stopped rank (SIGSTOP, a debugger) takes the SIGTERM only once it runs again.
    signal_all(SIGCONT);
    kill_at_ms_ = now_ms() + kKillGraceMs;
  }

  std::string live_ranks() const {
    std::string s;
    for (size_t r = 0; r < pids_.size(); ++r)
      if (pids_[r] > 0) s += (s.empty() ? "" : " ") + std::to_string(r);
    return s;
  }

  void reap() {
    int ws = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
      int rank = -1;
      for (size_t r = 0; r < pids_.size(); ++r)
        if (pids_[r] == pid) rank = static_cast<int>(r), pids_[r] = -1;
      if (rank < 0) continue;
      --live_;
      if (failing_) continue;  // ranks ending after the cause was chosen were ended by it
      if ((WIFEXITED(ws) && WEXITSTATUS(ws) != 0) || WIFSIGNALED(ws)) {
        if (failures_.empty()) settle_at_ms_ = now_ms() + kSettleMs;
        failures_.push_back({rank, ws});
      }
    }
  }

  // Picks the cause among the failures seen so far: a PE killed by a signal explains the others' exits;
  // otherwise the first reaped. Reports it and ends the other ranks.
  void choose_cause() {
    const Failure *cause = &failures_.front();
    for (const Failure &f : failures_)
      if (WIFSIGNALED(f.wait_status)) {
        cause = &f;
        break;
      }
    int ws = cause->wait_status;
    if (WIFSIGNALED(ws)) {
      std::fprintf(stderr, "gpushmemrun: rank %d killed by signal %s\n", cause->rank,
                   signal_name(WTERMSIG(ws)).c_str());
      fail(128 + WTERMSIG(ws));
    } else {
      std::fprintf(stderr, "gpushmemrun: rank %d exited with status %d\n", cause->rank, WEXITSTATUS(ws));
      fail(WEXITSTATUS(ws));
    }
  }

  void on_signal(int sig) {
    if (sig == SIGCHLD) return;
    int count = ++received_[sig == SIGHUP ? 0 : sig == SIGINT ? 1 : 2];
    if (count > 1 && sig != SIGHUP) {
      std::fprintf(stderr, "gpushmemrun: %s again; killing ranks %s\n", signal_name(sig).c_str(), live_ranks().c_str());
      signal_all(SIGKILL);
      return;
    }
    std::fprintf(stderr, "gpushmemrun: forwarding %s to ranks %s\n", signal_name(sig).c_str(), live_ranks().c_str());
    signal_all(sig);
  }

  void supervise() {
    while (true) {
      reap();
      long long now = now_ms();
      if (!failing_ && !failures_.empty() && (live_ == 0 || now >= settle_at_ms_)) choose_cause();
      if (live_ == 0) return;
      if (deadline_ms_ >= 0 && now >= deadline_ms_) {
        deadline_ms_ = -1;
        std::fprintf(stderr, "gpushmemrun: the job ran past --timeout %d s; ending ranks %s\n", spec_.timeout_s,
                     live_ranks().c_str());
        if (!failing_) fail(kTimeoutStatus);
      }
      if (kill_at_ms_ >= 0 && now >= kill_at_ms_) {
        kill_at_ms_ = -1;
        std::fprintf(stderr, "gpushmemrun: ranks %s still run %d s after SIGTERM; sending SIGKILL\n",
                     live_ranks().c_str(), kKillGraceMs / 1000);
        signal_all(SIGKILL);
      }
      long long wait = 1000;  // also a safety net should a SIGCHLD be missed
      for (long long at : {deadline_ms_, kill_at_ms_, failing_ || failures_.empty() ? -1 : settle_at_ms_})
        if (at >= 0 && at - now < wait) wait = at - now < 0 ? 0 : at - now;
      timespec ts = {static_cast<time_t>(wait / 1000), static_cast<long>(wait % 1000) * 1000000};
      int sig = sigtimedwait(&watched_, nullptr, &ts);
      if (sig > 0) on_signal(sig);
    }
  }

  struct Failure {
    int rank;
    int wait_status;
  };

  const JobSpec &spec_;
  std::vector<Failure> failures_;  // reaped before the cause was chosen
  long long settle_at_ms_ = -1;
  std::vector<pid_t> pids_;
  sigset_t watched_{};
  int live_ = 0;
  bool failing_ = false;
  int status_ = 0;
  long long deadline_ms_ = -1;
  long long kill_at_ms_ = -1;
  int received_[3] = {0, 0, 0};
};

}  // namespace

int run_job(const JobSpec &spec) {
  return Job(spec).run();
}

}  // namespace gpushmemrun
