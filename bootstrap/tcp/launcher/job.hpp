// Starting and supervising the N processes of one gpushmemrun job.
#pragma once

#include <string>
#include <vector>

namespace gpushmemrun {

struct JobSpec {
  int n = 0;
  int timeout_s = 0;      // 0: no limit
  char **argv = nullptr;  // program and arguments, nullptr-terminated
  int listen_fd = -1;     // the bootstrap's listening socket: handed to rank 0 only, closed here after
  std::string unique_id;
};

// Forks the ranks, forwards SIGINT/SIGTERM/SIGHUP to them and waits for all of them. When one fails (non-zero
// exit or killed by a signal) it says which, sends SIGTERM to the others (SIGKILL 5 s later) and returns that
// rank's status (128 + signal for a signal); 124 when --timeout ran out; 0 when every rank exited 0.
int run_job(const JobSpec &spec);

}  // namespace gpushmemrun
