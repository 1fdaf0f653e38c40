// gpushmemrun: starts N PEs of a gpushmem program on this host, joined by the tcp bootstrap.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "job.hpp"
#include "options.hpp"
#include "tcp_id.h"
#include "tcp_sock.h"

namespace {

bool random_cookie(uint64_t *out) {
  size_t got = 0;
  auto *p = reinterpret_cast<unsigned char *>(out);
  while (got < sizeof *out) {
    ssize_t n = getrandom(p + got, sizeof *out - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  gpushmemrun::Options opt;
  switch (gpushmemrun::parse_options(argc, argv, &opt)) {
    case gpushmemrun::Parsed::done:
      return 0;
    case gpushmemrun::Parsed::usage_error:
      return 2;
    case gpushmemrun::Parsed::run:
      break;
  }
  // Children are reaped with waitpid: an inherited SIG_IGN would make the kernel reap them for us.
  std::signal(SIGCHLD, SIG_DFL);

  // Listen here, before any rank exists, so that no rank can try to connect before rank 0 listens.
  int fd = tcp_listen(htonl(INADDR_LOOPBACK), 0);
  if (fd < 0) {
    std::fprintf(stderr, "gpushmemrun: cannot open the bootstrap socket on 127.0.0.1: %s\n", std::strerror(-fd));
    return 1;
  }
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  uint64_t cookie = 0;
  char id[128];
  if (getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0 || !random_cookie(&cookie) ||
      tcp_id_format(id, sizeof id, "127.0.0.1", ntohs(sa.sin_port), cookie) < 0) {
    std::fprintf(stderr, "gpushmemrun: cannot make the job's unique id: %s\n", std::strerror(errno));
    close(fd);
    return 1;
  }
  gpushmemrun::JobSpec spec;
  spec.n = opt.n;
  spec.timeout_s = opt.timeout_s;
  spec.argv = opt.program.data();
  spec.listen_fd = fd;
  spec.unique_id = id;
  return gpushmemrun::run_job(spec);
}
