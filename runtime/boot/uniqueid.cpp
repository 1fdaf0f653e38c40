// shmemx_get_uniqueid: makes the tcp bootstrap's unique id and keeps the socket rank 0 will listen on.
//
// Id text (parsed by bootstrap/tcp/tcp_id.c; keep the two in step):
//   "gpushmem-tcp1://<ipv4>:<port>/<cookie as 16 hex digits>"
#include "boot/uniqueid.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "core/log.hpp"
#include "env/env.hpp"
#include "shmemx.h"

namespace gpushmem::boot {
namespace {

constexpr const char *kCall = "shmemx_get_uniqueid";

// Listening sockets made by shmemx_get_uniqueid, by id text, until shmemx_init_attr takes them.
std::mutex g_registry_mutex;
std::map<std::string, int> &registry() {
  static std::map<std::string, int> fds;
  return fds;
}

// The first IPv4 address of an interface that is up: the one named `name`, or (name empty) the first that is
// not loopback. False when there is none.
bool interface_address(const std::string &name, in_addr *addr) {
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs *i = list; i != nullptr && !found; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_UP) == 0) continue;
    if (name.empty() ? (i->ifa_flags & IFF_LOOPBACK) != 0 : name != i->ifa_name) continue;
    *addr = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr;
    found = true;
  }
  freeifaddrs(list);
  return found;
}

// GPUSHMEM_BOOTSTRAP_TCP_ADDR: "" | "a.b.c.d" | "<interface>", each optionally ":port". The socket listens
// on that one address (never on every interface), and the id carries it. Empty: the first non-loopback
// interface that is up (other hosts must reach rank 0), else 127.0.0.1 (a one-host machine). Returns an
// empty string on success, else what is wrong.
std::string choose_tcp_addr(const std::string &text, in_addr *addr, uint16_t *port) {
  *port = 0;
  if (!text.empty() && interface_address(text, addr)) return "";  // a whole name first: aliases hold ':' (eth0:1)
  std::string host = text;
  size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    host = text.substr(0, colon);
    const std::string digits = text.substr(colon + 1);
    const bool number =
        !digits.empty() && digits.size() <= 5 && digits.find_first_not_of("0123456789") == std::string::npos;
    const long value = number ? std::stol(digits) : -1;
    if (value < 0 || value > 65535) return "the port is not a number 0..65535";
    *port = static_cast<uint16_t>(value);
  }
  if (host.empty()) {
    if (!interface_address("", addr)) inet_pton(AF_INET, "127.0.0.1", addr);
    return "";
  }
  if (inet_pton(AF_INET, host.c_str(), addr) == 1) {
    if (addr->s_addr == htonl(INADDR_ANY))
      return "0.0.0.0 would listen on every interface and is no address other PEs can dial; name one address "
             "or interface";
    return "";
  }
  if (interface_address(host, addr)) return "";
  return "'" + host + "' is neither an IPv4 address nor an interface of this host with an IPv4 address that is up";
}

bool random_cookie(uint64_t *out) {
  auto *p = reinterpret_cast<unsigned char *>(out);
  size_t got = 0;
  while (got < sizeof *out) {
    ssize_t n = getrandom(p + got, sizeof *out - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

// A close-on-exec listening socket on addr:port. Returns the fd (and the port it got) or -1 with errno set.
int open_listener(in_addr addr, uint16_t port, uint16_t *bound_port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // a fixed port left in TIME_WAIT
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr = addr;
  sa.sin_port = htons(port);
  socklen_t len = sizeof sa;
  if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  *bound_port = ntohs(sa.sin_port);
  return fd;
}

}  // namespace

int take_listen_fd(const char *id_text) {
  if (id_text == nullptr) return -1;
  std::lock_guard<std::mutex> hold(g_registry_mutex);
  auto it = registry().find(id_text);
  if (it == registry().end()) return -1;
  int fd = it->second;
  registry().erase(it);
  return fd;
}

}  // namespace gpushmem::boot

extern "C" __attribute__((visibility("default"))) int shmemx_get_uniqueid(shmemx_uniqueid_t *id) {
  using namespace gpushmem;
  using boot::kCall;
  if (id == nullptr) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "%s: argument `id` is NULL; pass the address of a shmemx_uniqueid_t "
                       "to fill",
                       kCall);
    return -1;
  }
  std::memset(id->internal, 0, sizeof id->internal);

  const std::string &addr_text = env::get().GPUSHMEM_BOOTSTRAP_TCP_ADDR;
  in_addr bind_addr{};
  uint16_t port = 0;
  std::string wrong = boot::choose_tcp_addr(addr_text, &bind_addr, &port);
  if (!wrong.empty()) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "%s: GPUSHMEM_BOOTSTRAP_TCP_ADDR='%s': %s. Set it to an IPv4 address or an interface of this "
                       "host that the other PEs reach (a.b.c.d or name, optionally :port)",
                       kCall, addr_text.c_str(), wrong.c_str());
    return -1;
  }
  char host[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &bind_addr, host, sizeof host);
  uint16_t bound_port = 0;
  int fd = boot::open_listener(bind_addr, port, &bound_port);
  if (fd < 0) {
    int err = errno;
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "%s: cannot listen on %s:%u: %s; set GPUSHMEM_BOOTSTRAP_TCP_ADDR to "
                       "an address or interface of this host (with a free port, or none)",
                       kCall, host, port, std::strerror(err));
    return -1;
  }
  uint64_t cookie = 0;
  if (!boot::random_cookie(&cookie)) {
    int err = errno;
    close(fd);
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "%s: getrandom failed: %s", kCall, std::strerror(err));
    return -1;
  }
  int n = std::snprintf(id->internal, sizeof id->internal, "gpushmem-tcp1://%s:%u/%016" PRIx64, host,
                        static_cast<unsigned>(bound_port), cookie);
  if (n < 0 || static_cast<size_t>(n) >= sizeof id->internal) {  // cannot happen with an IPv4 address
    close(fd);
    std::memset(id->internal, 0, sizeof id->internal);
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "%s: internal: the id does not fit in shmemx_uniqueid_t", kCall);
    return -1;
  }
  {
    std::lock_guard<std::mutex> hold(boot::g_registry_mutex);
    boot::registry()[id->internal] = fd;
  }
  GPUSHMEM_LOG_INFO(log::Subsys::bootstrap, "%s: made %s; this process must be rank 0 of the job", kCall, id->internal);
  return 0;
}
