#define _GNU_SOURCE
#include "tcp_admit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp_sock.h"

/* Dropped connections reported one by one; after that only their count, when everyone has joined. */
#define ADMIT_REPORTED 3

void tcp_admit_init(tcp_admit_t *a, const tcp_state_t *st) {
  memset(a, 0, sizeof *a);
  a->st = st;
  for (int i = 0; i < TCP_ADMIT_MAX; ++i) a->slot[i].fd = -1;
}

static void drop(tcp_admit_t *a, int i, const char *why) {
  tcp_admit_slot_t *s = &a->slot[i];
  if (++a->dropped <= ADMIT_REPORTED)
    tcp_log(a->st, GPUSHMEM_BOOTSTRAP_LOG_WARN, "ignored a connection to the tcp bootstrap at %s from %s: %s%s",
            a->st->id.addr_text, s->from, why, a->dropped == ADMIT_REPORTED ? " (further ones are only counted)" : "");
  close(s->fd);
  s->fd = -1;
}

/* The slot for a new connection: a free one, else the one closest to its deadline, dropped. */
static int free_slot(tcp_admit_t *a) {
  int victim = 0;
  for (int i = 0; i < TCP_ADMIT_MAX; ++i) {
    if (a->slot[i].fd < 0) return i;
    if (a->slot[i].deadline_ms < a->slot[victim].deadline_ms) victim = i;
  }
  drop(a, victim, "too many connections waiting to greet; the oldest makes room");
  return victim;
}

void tcp_admit_accept(tcp_admit_t *a, int listen_fd) {
  /* As many as there are free slots (at least one): a connection accepted now is never evicted by the same
     burst before its greeting could be read (the server reads waiting connections before accepting more). */
  int room = 0;
  for (int i = 0; i < TCP_ADMIT_MAX; ++i) room += a->slot[i].fd < 0;
  for (int taken = 0; taken < (room > 0 ? room : 1); ++taken) {
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    int fd = accept4(listen_fd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return; /* EAGAIN: all taken; ECONNABORTED, EINTR, EMFILE: poll tells us again */
    int i = free_slot(a);
    tcp_admit_slot_t *s = &a->slot[i];
    s->fd = fd;
    s->got = 0;
    s->deadline_ms = tcp_now_ms() + TCP_ADMIT_WAIT_MS;
    char ip[INET_ADDRSTRLEN] = "?";
    if (len >= sizeof peer && peer.sin_family == AF_INET) inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
    snprintf(s->from, sizeof s->from, "%s:%u", ip, (unsigned)ntohs(peer.sin_port));
  }
}

int tcp_admit_poll_fds(const tcp_admit_t *a, struct pollfd *p, int *who, int n) {
  for (int i = 0; i < TCP_ADMIT_MAX; ++i) {
    if (a->slot[i].fd < 0) continue;
    p[n] = (struct pollfd){.fd = a->slot[i].fd, .events = POLLIN};
    who[n++] = TCP_ADMIT_WHO(i);
  }
  return n;
}

int tcp_admit_read(tcp_admit_t *a, int i, tcp_hello_t *out) {
  tcp_admit_slot_t *s = &a->slot[i];
  if (s->fd < 0) return -1;
  for (;;) {
    if (s->got == sizeof s->buf) break;
    ssize_t n = recv(s->fd, s->buf + s->got, sizeof s->buf - s->got, 0);
    if (n == 0) return drop(a, i, "it closed before greeting"), -1;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
      return drop(a, i, strerror(errno)), -1;
    }
    s->got += (unsigned)n;
    if (s->got >= TCP_WIRE_HEADER_BYTES && s->got - (unsigned)n < TCP_WIRE_HEADER_BYTES) {
      tcp_frame_t f;
      if (tcp_frame_decode(s->buf, &f) != 0) return drop(a, i, "it does not speak the gpushmem tcp bootstrap"), -1;
      if (f.type != TCP_FRAME_HELLO || f.len != TCP_HELLO_BYTES)
        return drop(a, i, "its first frame is not a HELLO"), -1;
    }
  }
  /* A PE sends nothing after its HELLO until it is welcomed: more bytes mean it is no PE. */
  char extra;
  ssize_t more = recv(s->fd, &extra, 1, MSG_PEEK);
  if (more > 0) return drop(a, i, "it sent more than a HELLO before being welcomed"), -1;
  int fl = fcntl(s->fd, F_GETFL);
  if (fl < 0 || fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK) != 0) return drop(a, i, strerror(errno)), -1;
  const unsigned char *hello = s->buf + TCP_WIRE_HEADER_BYTES;
  out->fd = s->fd;
  out->cookie = tcp_get_u64(hello);
  out->rank = tcp_get_u32(hello + 8);
  out->size = tcp_get_u32(hello + 12);
  memcpy(out->from, s->from, sizeof out->from);
  tcp_set_nodelay(s->fd);
  s->fd = -1;
  return 1;
}

int64_t tcp_admit_expire(tcp_admit_t *a, int64_t now_ms) {
  int64_t next = -1;
  for (int i = 0; i < TCP_ADMIT_MAX; ++i) {
    if (a->slot[i].fd < 0) continue;
    if (now_ms >= a->slot[i].deadline_ms) {
      char why[64];
      snprintf(why, sizeof why, "no HELLO within %d ms (%u bytes came)", TCP_ADMIT_WAIT_MS, a->slot[i].got);
      drop(a, i, why);
      continue;
    }
    int64_t left = a->slot[i].deadline_ms - now_ms;
    if (next < 0 || left < next) next = left;
  }
  return next;
}

void tcp_admit_close_all(tcp_admit_t *a) {
  for (int i = 0; i < TCP_ADMIT_MAX; ++i)
    if (a->slot[i].fd >= 0) close(a->slot[i].fd), a->slot[i].fd = -1;
  if (a->dropped > ADMIT_REPORTED)
    tcp_log(a->st, GPUSHMEM_BOOTSTRAP_LOG_WARN, "the tcp bootstrap at %s ignored %lu connections that were no PE",
            a->st->id.addr_text, a->dropped);
  a->dropped = 0; /* reported once */
}
