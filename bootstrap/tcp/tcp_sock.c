#define _GNU_SOURCE
#include "tcp_sock.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int64_t tcp_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for `events` or the deadline passes. Returns 0, -ETIMEDOUT or -errno. */
static int wait_ready(int fd, short events, int64_t deadline_ms) {
  if (deadline_ms < 0) return 0;
  for (;;) {
    int64_t left = deadline_ms - tcp_now_ms();
    if (left <= 0) return -ETIMEDOUT;
    struct pollfd p = {.fd = fd, .events = events, .revents = 0};
    int n = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
    if (n > 0) return 0; /* ready, or an error/hangup the next read reports */
    if (n < 0 && errno != EINTR) return -errno;
  }
}

int tcp_write_all(int fd, const void *a, size_t alen, const void *b, size_t blen) {
  struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
  struct iovec *v = iov;
  int cnt = 2;
  while (cnt > 0 && v->iov_len == 0) ++v, --cnt;
  while (cnt > 0) {
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = v;
    m.msg_iovlen = (size_t)cnt;
    ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL); /* a dead peer is an error to report, not a SIGPIPE */
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    size_t done = (size_t)n;
    while (cnt > 0 && done >= v->iov_len) done -= v->iov_len, ++v, --cnt;
    if (cnt > 0) v->iov_base = (char *)v->iov_base + done, v->iov_len -= done;
    while (cnt > 0 && v->iov_len == 0) ++v, --cnt;
  }
  return 0;
}

int tcp_read_all(int fd, void *buf, size_t len, int64_t deadline_ms) {
  char *p = buf;
  while (len > 0) {
    int w = wait_ready(fd, POLLIN, deadline_ms);
    if (w != 0) return w;
    ssize_t n = recv(fd, p, len, 0);
    if (n == 0) return TCP_EOF;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET) return TCP_EOF; /* the peer died with unread data: the same as a close */
      return -errno;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int tcp_discard(int fd, uint64_t len, int64_t deadline_ms) {
  char sink[4096];
  while (len > 0) {
    size_t chunk = len < sizeof sink ? (size_t)len : sizeof sink;
    int rc = tcp_read_all(fd, sink, chunk, deadline_ms);
    if (rc != 0) return rc;
    len -= chunk;
  }
  return 0;
}

int tcp_send_frame(int fd, const tcp_frame_t *f, const void *payload) {
  unsigned char hdr[TCP_WIRE_HEADER_BYTES];
  tcp_frame_encode(f, hdr);
  return tcp_write_all(fd, hdr, sizeof hdr, payload, (size_t)f->len);
}

int tcp_recv_header(int fd, tcp_frame_t *f, int64_t deadline_ms) {
  unsigned char hdr[TCP_WIRE_HEADER_BYTES];
  int rc = tcp_read_all(fd, hdr, sizeof hdr, deadline_ms);
  if (rc != 0) return rc;
  return tcp_frame_decode(hdr, f) == 0 ? 0 : -EPROTO;
}

int tcp_recv_text(int fd, uint64_t len, char *buf, size_t cap, int64_t deadline_ms) {
  size_t keep = len < cap - 1 ? (size_t)len : cap - 1;
  int rc = tcp_read_all(fd, buf, keep, deadline_ms);
  buf[rc == 0 ? keep : 0] = '\0';
  if (rc != 0) return rc;
  return tcp_discard(fd, len - keep, deadline_ms);
}

void tcp_set_nodelay(int fd) {
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int tcp_listen(uint32_t addr_be, uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  int one = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* rebinding a port left in TIME_WAIT */
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = addr_be;
  sa.sin_port = htons(port);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

int tcp_connect_once(uint32_t addr_be, uint16_t port, int64_t deadline_ms) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = addr_be;
  sa.sin_port = htons(port);
  int err = 0;
  /* Non-blocking connect so an unreachable host cannot hold us past the deadline (a kernel SYN timeout
     is minutes). */
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) {
      err = -errno;
    } else {
      err = wait_ready(fd, POLLOUT, deadline_ms < 0 ? tcp_now_ms() + 60000 : deadline_ms);
      if (err == 0) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0) soerr = errno;
        err = -soerr;
      }
    }
  }
  if (err == 0) {
    /* With nobody listening on a local port in the ephemeral range, the kernel can pick that very port as
       our source and connect the socket to itself; it would then hold the port the server needs. */
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    if (getsockname(fd, (struct sockaddr *)&me, &len) == 0 && me.sin_port == sa.sin_port &&
        me.sin_addr.s_addr == sa.sin_addr.s_addr)
      err = -ECONNREFUSED;
  }
  if (err != 0) {
    close(fd);
    return err;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    err = -errno;
    close(fd);
    return err;
  }
  tcp_set_nodelay(fd);
  return fd;
}
