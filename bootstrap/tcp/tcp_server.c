/*
 * Rank 0 of the tcp bootstrap: one thread accepts the other ranks, then polls their sockets, assembles
 * each collective from every PE's contribution (rank 0's own comes from tcp_server_coll) and sends every
 * PE its result. It also watches liveness: a peer that disconnects without finalizing, or that aborts,
 * ends the whole job.
 *
 * Locking: `lock` guards the server state and is held by the thread except while it sits in poll().
 * A peer's fd only changes with its send_lock held, so an aborting thread can write to it without `lock`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp_admit.h"
#include "tcp_sock.h"
#include "tcp_state.h"

/* After finalize, how long rank 0 waits for the others to close their sockets. */
#define SRV_STOP_WAIT_MS 10000

typedef struct srv_peer {
  int fd;                    /* -1: not connected yet, or closed after its finalize */
  int finalizing;            /* its FINALIZE contribution came: a close is expected from now on */
  char from[32];             /* "a.b.c.d:port" it connected from; empty until it joins */
  pthread_mutex_t send_lock; /* the thread and an aborting thread both write to fd */
} srv_peer_t;

typedef struct srv_coll {
  int active;
  uint32_t seq;
  int op, root, first_rank;
  uint64_t bytes;
  int64_t deadline_ms;
  int n_arrived;
  unsigned char *arrived; /* by rank */
  unsigned char *buf;     /* allgather: size blocks; alltoall: size x size blocks; bcast: the root's block */
} srv_coll_t;

typedef struct tcp_server {
  tcp_state_t *st;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* everyone connected; rank 0's result ready */
  pthread_t thread;
  int thread_started;
  int listen_fd;
  tcp_admit_t admit;     /* connections that have not greeted yet */
  unsigned long refused; /* connections that greeted and were turned away */
  int wake[2];           /* rank 0's calling thread wakes the poll thread to recompute its deadline */
  srv_peer_t *peers;
  int n_connected;
  int connected;
  int quit;     /* leave the poll loop now */
  int stopping; /* finalized: leave once every peer has closed, or at stop_deadline_ms */
  int64_t stop_deadline_ms;
  srv_coll_t coll;
  uint32_t done_seq;
  int failed_status; /* nonzero: a collective failed and the job's bootstrap is unusable */
  char fail_msg[TCP_WIRE_MAX_TEXT];
  /* rank 0's own call in progress */
  int local_waiting;
  int local_done;
  void *local_out;
  int local_status;
  char local_msg[TCP_WIRE_MAX_TEXT];
} tcp_server_t;

static void srv_wake(tcp_server_t *s) {
  ssize_t ignored = write(s->wake[1], "w", 1); /* a full pipe already holds a wake-up */
  (void)ignored;
}

static int srv_send(tcp_server_t *s, int r, const tcp_frame_t *f, const void *payload) {
  pthread_mutex_lock(&s->peers[r].send_lock);
  int fd = s->peers[r].fd;
  int rc = fd >= 0 ? tcp_send_frame(fd, f, payload) : -EPIPE;
  pthread_mutex_unlock(&s->peers[r].send_lock);
  return rc;
}

static void srv_set_fd(tcp_server_t *s, int r, int fd) {
  pthread_mutex_lock(&s->peers[r].send_lock);
  if (s->peers[r].fd >= 0) close(s->peers[r].fd);
  s->peers[r].fd = fd;
  pthread_mutex_unlock(&s->peers[r].send_lock);
}

/* Sends ABORT to every peer but `except`, then waits (briefly) until they have closed, so the frame
   reaches them before our own exit could reset the connections. */
static void srv_broadcast_abort(tcp_server_t *s, int status, int origin, const char *why, int except) {
  int size = s->st->size;
  tcp_frame_t f = {.type = TCP_FRAME_ABORT, .seq = (uint32_t)origin, .arg = status, .len = strlen(why)};
  struct pollfd *p = calloc((size_t)size, sizeof *p);
  int n = 0;
  for (int r = 1; r < size; ++r) {
    if (tcp_lock_for(&s->peers[r].send_lock, TCP_ABORT_LINGER_MS) != 0) continue; /* stuck writer: skip */
    int fd = s->peers[r].fd;
    if (fd >= 0) {
      if (r != except) (void)tcp_send_frame(fd, &f, why);
      shutdown(fd, SHUT_WR);
      if (p != NULL) p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    pthread_mutex_unlock(&s->peers[r].send_lock);
  }
  int64_t deadline = tcp_now_ms() + TCP_ABORT_LINGER_MS;
  int open = n;
  while (open > 0 && tcp_now_ms() < deadline) {
    if (poll(p, (nfds_t)n, (int)(deadline - tcp_now_ms())) <= 0) continue;
    for (int i = 0; i < n; ++i) {
      if (p[i].fd < 0 || p[i].revents == 0) continue;
      char sink[4096];
      ssize_t got = recv(p[i].fd, sink, sizeof sink, MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) p[i].fd = -1, --open;
    }
  }
  free(p);
}

/* A peer went away or broke the protocol outside finalize: tell everyone else and end the job. */
__attribute__((noreturn)) static void srv_end_job(tcp_server_t *s, int lost, const char *fmt, ...) {
  if (atomic_exchange(&s->st->aborting, 1)) tcp_park(); /* another thread is already ending the job */
  char why[TCP_WIRE_MAX_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  tcp_say(s->st, "%s", why);
  srv_broadcast_abort(s, 1, 0, why, lost);
  tcp_exit_now(1);
}

static void srv_peer_gone(tcp_server_t *s, int r, int rc) {
  if (rc == -EPROTO) srv_end_job(s, r, "PE %d sent data the tcp bootstrap does not understand; ending the job", r);
  srv_end_job(s, r, "PE %d (tcp bootstrap) disconnected without shmem_finalize; ending the job", r);
}

static void srv_coll_reset(tcp_server_t *s) {
  free(s->coll.arrived);
  free(s->coll.buf);
  memset(&s->coll, 0, sizeof s->coll);
}

/* Fails the current collective (if any) and every later one: each PE that arrived gets `status` and the
   message; the others get it when they arrive. */
__attribute__((format(printf, 3, 4))) static void srv_fail(tcp_server_t *s, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->fail_msg, sizeof s->fail_msg, fmt, ap);
  va_end(ap);
  s->failed_status = status;
  if (s->coll.active) {
    tcp_frame_t f = {.type = TCP_FRAME_RESULT,
                     .op = (uint16_t)s->coll.op,
                     .seq = s->coll.seq,
                     .arg = status,
                     .bytes = s->coll.bytes,
                     .len = strlen(s->fail_msg)};
    for (int r = 1; r < s->st->size; ++r)
      if (s->coll.arrived[r]) (void)srv_send(s, r, &f, s->fail_msg); /* a dead peer shows up in poll */
  }
  if (s->local_waiting && !s->local_done) {
    s->local_done = 1;
    s->local_status = status;
    snprintf(s->local_msg, sizeof s->local_msg, "%s", s->fail_msg);
    pthread_cond_broadcast(&s->cond);
  }
  srv_coll_reset(s);
}

static void srv_reply_failed(tcp_server_t *s, int r, const tcp_frame_t *req) {
  tcp_frame_t f = {.type = TCP_FRAME_RESULT,
                   .op = req->op,
                   .seq = req->seq,
                   .arg = s->failed_status,
                   .bytes = req->bytes,
                   .len = strlen(s->fail_msg)};
  (void)srv_send(s, r, &f, s->fail_msg);
}

static void describe(char *buf, size_t cap, int op, uint32_t seq, uint64_t bytes, int root) {
  if (op == TCP_OP_BCAST)
    snprintf(buf, cap, "%s #%u (%llu bytes, root %d)", tcp_op_name(op), seq, (unsigned long long)bytes, root);
  else if (op == TCP_OP_ALLGATHER || op == TCP_OP_ALLTOALL)
    snprintf(buf, cap, "%s #%u (%llu bytes per PE)", tcp_op_name(op), seq, (unsigned long long)bytes);
  else
    snprintf(buf, cap, "%s #%u", tcp_op_name(op), seq);
}

/* Joins rank r to the current collective, starting it if r is first. Returns 0, or -1 after failing it. */
static int srv_join(tcp_server_t *s, int r, int op, int root, uint64_t bytes, uint32_t seq) {
  srv_coll_t *c = &s->coll;
  int size = s->st->size;
  if (!c->active) {
    size_t n = (size_t)size;
    size_t buf_len = op == TCP_OP_ALLGATHER  ? n * bytes
                     : op == TCP_OP_ALLTOALL ? n * n * bytes
                     : op == TCP_OP_BCAST    ? bytes
                                             : 0;
    c->arrived = calloc(n, 1);
    c->buf = buf_len ? malloc(buf_len) : NULL;
    c->active = 1;
    c->seq = seq;
    c->op = op;
    c->root = root;
    c->bytes = bytes;
    c->first_rank = r;
    c->deadline_ms = tcp_now_ms() + (int64_t)s->st->timeout_s * 1000;
    if (c->arrived == NULL || (buf_len && c->buf == NULL)) {
      srv_fail(s, GPUSHMEM_BOOTSTRAP_EIO, "PE 0 is out of memory assembling bootstrap %s #%u (%zu bytes)",
               tcp_op_name(op), seq, buf_len);
      return -1;
    }
    if (seq != s->done_seq + 1) {
      srv_fail(s, GPUSHMEM_BOOTSTRAP_EIO,
               "PE %d started bootstrap collective #%u but #%u was next; the PEs' "
               "bootstrap calls are out of step",
               r, seq, s->done_seq + 1);
      return -1;
    }
    return 0;
  }
  if (c->seq != seq || c->op != op || c->bytes != bytes || (op == TCP_OP_BCAST && c->root != root)) {
    char a[128], b[128];
    describe(a, sizeof a, c->op, c->seq, c->bytes, c->root);
    describe(b, sizeof b, op, seq, bytes, root);
    srv_fail(s, GPUSHMEM_BOOTSTRAP_EINVAL,
             "bootstrap collectives do not match across PEs: PE %d called %s but PE %d called %s; every PE must "
             "make the same bootstrap calls with the same sizes in the same order",
             c->first_rank, a, r, b);
    return -1;
  }
  if (c->arrived[r]) {
    srv_fail(s, GPUSHMEM_BOOTSTRAP_EIO, "PE %d joined bootstrap %s #%u twice", r, tcp_op_name(op), seq);
    return -1;
  }
  return 0;
}

/* Where rank r's contribution lands in the assembly buffer (NULL when it sends none). */
static unsigned char *srv_slot(const tcp_server_t *s, int r) {
  const srv_coll_t *c = &s->coll;
  switch (c->op) {
    case TCP_OP_ALLGATHER:
      return c->buf + (size_t)r * c->bytes;
    case TCP_OP_ALLTOALL:
      return c->buf + (size_t)r * (size_t)s->st->size * c->bytes;
    case TCP_OP_BCAST:
      return r == c->root ? c->buf : NULL;
  }
  return NULL;
}

/* Rank r's share of the result, gathered into tmp for an alltoall (column r of the matrix). */
static const unsigned char *srv_result_for(const tcp_server_t *s, int r, unsigned char *tmp, uint64_t *len) {
  const srv_coll_t *c = &s->coll;
  int size = s->st->size;
  *len = tcp_coll_out_len(c->op, size, r, c->root, c->bytes);
  if (*len == 0) return NULL;
  if (c->op != TCP_OP_ALLTOALL) return c->buf;
  for (int i = 0; i < size; ++i)
    memcpy(tmp + (size_t)i * c->bytes, c->buf + ((size_t)i * (size_t)size + (size_t)r) * c->bytes, c->bytes);
  return tmp;
}

static void srv_complete(tcp_server_t *s) {
  srv_coll_t *c = &s->coll;
  int size = s->st->size;
  unsigned char *tmp = NULL;
  if (c->op == TCP_OP_ALLTOALL && c->bytes != 0 && (tmp = malloc((size_t)size * c->bytes)) == NULL) {
    srv_fail(s, GPUSHMEM_BOOTSTRAP_EIO, "PE 0 is out of memory sending the results of bootstrap alltoall #%u", c->seq);
    return;
  }
  for (int r = 1; r < size; ++r) {
    uint64_t len;
    const unsigned char *data = srv_result_for(s, r, tmp, &len);
    tcp_frame_t f = {.type = TCP_FRAME_RESULT, .op = (uint16_t)c->op, .seq = c->seq, .bytes = c->bytes, .len = len};
    int rc = srv_send(s, r, &f, data);
    if (rc != 0 && !s->peers[r].finalizing) {
      if (rc == -EAGAIN || rc == -EWOULDBLOCK)
        srv_end_job(s, r, "PE %d took no bootstrap data for %d s (stopped or hung); ending the job", r,
                    s->st->timeout_s);
      srv_peer_gone(s, r, rc);
    }
  }
  if (s->local_waiting && !s->local_done) {
    uint64_t len;
    const unsigned char *data = srv_result_for(s, 0, tmp, &len);
    if (len != 0) memcpy(s->local_out, data, (size_t)len);
    s->local_done = 1;
    s->local_status = GPUSHMEM_BOOTSTRAP_OK;
    pthread_cond_broadcast(&s->cond);
  }
  free(tmp);
  s->done_seq = c->seq;
  srv_coll_reset(s);
}

static void srv_arrived(tcp_server_t *s, int r) {
  s->coll.arrived[r] = 1;
  if (++s->coll.n_arrived == s->st->size) srv_complete(s);
}

static void srv_timeout(tcp_server_t *s) {
  char missing[512], came[512], what[128];
  srv_coll_t *c = &s->coll;
  tcp_format_ranks(missing, sizeof missing, c->arrived, s->st->size, 0);
  tcp_format_ranks(came, sizeof came, c->arrived, s->st->size, 1);
  describe(what, sizeof what, c->op, c->seq, c->bytes, c->root);
  srv_fail(s, GPUSHMEM_BOOTSTRAP_ETIMEDOUT,
           "bootstrap %s timed out after %d s: PE(s) %s did not call it (PE(s) %s did); look for a hang or a "
           "crash there, or raise GPUSHMEM_BOOTSTRAP_TIMEOUT",
           what, s->st->timeout_s, missing, came);
}

static void srv_on_coll(tcp_server_t *s, int r, const tcp_frame_t *f) {
  int fd = s->peers[r].fd;
  int64_t deadline = tcp_now_ms() + (int64_t)s->st->timeout_s * 1000;
  if (f->op == TCP_OP_FINALIZE) s->peers[r].finalizing = 1;
  int bad = f->op < TCP_OP_ALLGATHER || f->op > TCP_OP_FINALIZE || !tcp_coll_sizes_ok(f->op, s->st->size, f->bytes) ||
            (f->op == TCP_OP_BCAST && (f->arg < 0 || f->arg >= s->st->size)) ||
            f->len != tcp_coll_in_len(f->op, s->st->size, r, f->arg, f->bytes);
  if (bad) srv_peer_gone(s, r, -EPROTO);
  int rc;
  if (s->failed_status != 0 || srv_join(s, r, f->op, f->arg, f->bytes, f->seq) != 0) {
    rc = tcp_discard(fd, f->len, deadline);
    if (rc != 0) srv_peer_gone(s, r, rc);
    srv_reply_failed(s, r, f);
    return;
  }
  if (f->len != 0 && (rc = tcp_read_all(fd, srv_slot(s, r), (size_t)f->len, deadline)) != 0) srv_peer_gone(s, r, rc);
  srv_arrived(s, r);
}

static void srv_on_abort(tcp_server_t *s, int r, const tcp_frame_t *f) {
  char why[TCP_WIRE_MAX_TEXT];
  int rc = tcp_recv_text(s->peers[r].fd, f->len, why, sizeof why, tcp_now_ms() + TCP_ABORT_LINGER_MS);
  if (rc != 0) snprintf(why, sizeof why, "(reason lost)");
  if (atomic_exchange(&s->st->aborting, 1)) tcp_park();
  tcp_say(s->st, "job aborted by PE %d with status %d: %s", r, f->arg, why);
  srv_broadcast_abort(s, f->arg, r, why, r);
  tcp_exit_now(f->arg);
}

static void srv_on_readable(tcp_server_t *s, int r) {
  tcp_frame_t f;
  int rc = tcp_recv_header(s->peers[r].fd, &f, tcp_now_ms() + (int64_t)s->st->timeout_s * 1000);
  if (rc != 0) {
    if (s->peers[r].finalizing && rc != -EPROTO) {
      srv_set_fd(s, r, -1); /* a finalized peer leaving: expected */
      return;
    }
    srv_peer_gone(s, r, rc);
  }
  switch (f.type) {
    case TCP_FRAME_COLL:
      srv_on_coll(s, r, &f);
      return;
    case TCP_FRAME_ABORT:
      srv_on_abort(s, r, &f);
      return;
  }
  srv_peer_gone(s, r, -EPROTO);
}

/* Refusals reported one by one; after that only counted. */
#define SRV_REFUSALS_REPORTED 3

static void srv_reject(tcp_server_t *s, int fd, const char *why) {
  tcp_frame_t f = {.type = TCP_FRAME_REJECT, .len = strlen(why)};
  (void)tcp_send_frame(fd, &f, why);
  close(fd);
  if (++s->refused <= SRV_REFUSALS_REPORTED)
    tcp_log(s->st, GPUSHMEM_BOOTSTRAP_LOG_WARN, "refused a connection to the tcp bootstrap at %s: %s%s",
            s->st->id.addr_text, why,
            s->refused == SRV_REFUSALS_REPORTED ? " (further refusals are not reported)" : "");
}

/* A connection that greeted: welcome it as its rank, or refuse it. A second claim of a rank that has joined
   ends the job: one of the two is not the PE it says it is, and the real one must hear of it. */
static void srv_admit(tcp_server_t *s, const tcp_hello_t *h) {
  char why[256];
  if (h->cookie != s->st->id.cookie) {
    snprintf(why, sizeof why,
             "PE %lld has the unique id of another job (cookie differs); pass every PE the id "
             "that PE 0 was given",
             (long long)h->rank);
  } else if (h->size != s->st->size) {
    snprintf(why, sizeof why, "PE %lld says the job has %lld PEs but PE 0 has %d; pass every PE the same size",
             (long long)h->rank, (long long)h->size, s->st->size);
  } else if (h->rank < 1 || h->rank >= s->st->size) {
    snprintf(why, sizeof why, "rank %lld is out of range 1..%d", (long long)h->rank, s->st->size - 1);
  } else if (s->peers[h->rank].from[0] != '\0') { /* joined once (its socket may have closed since) */
    int r = (int)h->rank;
    snprintf(why, sizeof why,
             "rank %d of the job was claimed twice, from %s and then from %s; every PE needs a distinct rank (and "
             "the unique id must stay private to the job); ending the job",
             r, s->peers[r].from, h->from);
    srv_reject(s, h->fd, why);
    srv_end_job(s, -1, "%s", why);
  } else {
    struct timeval tv = {.tv_sec = s->st->timeout_s};
    /* A peer that stops reading (stopped process) must not block the server thread forever. */
    (void)setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    tcp_frame_t w = {.type = TCP_FRAME_WELCOME};
    if (tcp_send_frame(h->fd, &w, NULL) != 0) {
      close(h->fd);
      return;
    }
    srv_set_fd(s, (int)h->rank, h->fd);
    memcpy(s->peers[h->rank].from, h->from, sizeof s->peers[h->rank].from);
    /* The socket stays open until finalize: a later claim of a rank that joined (the real PE, after an
       impostor) must be seen and end the job, not be refused by the kernel while the PE retries unheard. */
    if (++s->n_connected == s->st->size - 1) {
      s->connected = 1;
      pthread_cond_broadcast(&s->cond);
    }
    return;
  }
  srv_reject(s, h->fd, why);
}

static void *srv_main(void *arg) {
  tcp_server_t *s = arg;
  int size = s->st->size;
  size_t cap = (size_t)size + 2 + TCP_ADMIT_MAX;
  struct pollfd *p = calloc(cap, sizeof *p);
  int *who = calloc(cap, sizeof *who);
  if (p == NULL || who == NULL) tcp_exit_now((tcp_say(s->st, "out of memory in the tcp bootstrap thread"), 1));
  pthread_mutex_lock(&s->lock);
  while (!s->quit) {
    int n = 0, open = 0;
    if (s->stopping && s->listen_fd >= 0) { /* finalized: nobody may join any more */
      close(s->listen_fd);
      s->listen_fd = -1;
      tcp_admit_close_all(&s->admit);
    }
    p[n] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
    who[n++] = -1;
    int64_t greet = tcp_admit_expire(&s->admit, tcp_now_ms()); /* before polling: it closes what it drops */
    n = tcp_admit_poll_fds(&s->admit, p, who, n);
    /* The listen socket last: greetings that came are read before new connections may evict anyone. */
    if (s->listen_fd >= 0) p[n] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN}, who[n++] = -2;
    for (int r = 1; r < size; ++r)
      if (s->peers[r].fd >= 0) p[n] = (struct pollfd){.fd = s->peers[r].fd, .events = POLLIN}, who[n++] = r, ++open;
    int64_t now = tcp_now_ms(), wait = -1;
    if (s->stopping) {
      if (open == 0 || now >= s->stop_deadline_ms) break;
      wait = s->stop_deadline_ms - now;
    }
    if (s->coll.active && (wait < 0 || s->coll.deadline_ms - now < wait))
      wait = s->coll.deadline_ms > now ? s->coll.deadline_ms - now : 0;
    if (greet >= 0 && (wait < 0 || greet < wait)) wait = greet;
    pthread_mutex_unlock(&s->lock);
    int rc = poll(p, (nfds_t)n, wait < 0 || wait > INT_MAX ? -1 : (int)wait);
    int err = errno;
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&s->st->aborting)) {
      pthread_mutex_unlock(&s->lock);
      tcp_park(); /* the aborting thread owns the sockets now and is about to exit */
    }
    if (rc < 0 && err != EINTR) {
      tcp_log(s->st, GPUSHMEM_BOOTSTRAP_LOG_WARN, "poll in the tcp bootstrap thread failed: %s", strerror(err));
      pthread_mutex_unlock(&s->lock);
      usleep(10000);
      pthread_mutex_lock(&s->lock);
      continue;
    }
    for (int i = 0; rc > 0 && i < n; ++i) {
      if (p[i].revents == 0) continue;
      if (who[i] == -1) {
        char sink[64];
        while (read(s->wake[0], sink, sizeof sink) > 0) {
        }
      } else if (who[i] == -2) {
        if (s->listen_fd >= 0) tcp_admit_accept(&s->admit, s->listen_fd);
      } else if (who[i] <= TCP_ADMIT_WHO(0)) {
        tcp_hello_t h;
        if (s->listen_fd >= 0 && tcp_admit_read(&s->admit, TCP_ADMIT_SLOT(who[i]), &h) == 1) srv_admit(s, &h);
      } else if (s->peers[who[i]].fd == p[i].fd) {
        srv_on_readable(s, who[i]);
      }
    }
    if (s->coll.active && tcp_now_ms() >= s->coll.deadline_ms) srv_timeout(s);
  }
  pthread_mutex_unlock(&s->lock);
  free(p);
  free(who);
  return NULL;
}

static void srv_destroy(tcp_server_t *s) {
  if (s->thread_started) {
    pthread_mutex_lock(&s->lock);
    s->quit = 1;
    pthread_mutex_unlock(&s->lock);
    srv_wake(s);
    pthread_join(s->thread, NULL);
  }
  for (int r = 1; s->peers != NULL && r < s->st->size; ++r) {
    if (s->peers[r].fd >= 0) close(s->peers[r].fd);
    pthread_mutex_destroy(&s->peers[r].send_lock);
  }
  if (s->listen_fd >= 0) close(s->listen_fd);
  tcp_admit_close_all(&s->admit);
  if (s->wake[0] >= 0) close(s->wake[0]);
  if (s->wake[1] >= 0) close(s->wake[1]);
  srv_coll_reset(s);
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->lock);
  free(s->peers);
  free(s);
}

/* The inherited or given socket must be a listening one; say why not otherwise. */
static int usable_listen_fd(const tcp_state_t *st, int fd) {
  int on = 0;
  socklen_t len = sizeof on;
  if (fcntl(fd, F_GETFD) < 0 || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) != 0 || !on) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_WARN,
            "listen fd %d given to PE 0 is not a listening socket; binding port %u of the unique id instead", fd,
            st->id.port);
    return 0;
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC); /* programs the application runs must not inherit it */
  return 1;
}

/* Binds the id's address and port (that interface only). A socket that just closed on that port (the launcher's copy,
   or connections queued on it) can hold it for a moment: EADDRINUSE is retried for a few seconds. */
static int listen_on_id_port(const tcp_state_t *st) {
  int64_t deadline = tcp_now_ms() + 5000;
  for (useconds_t pause_us = 1000;; pause_us = pause_us < 100000 ? pause_us * 2 : pause_us) {
    int fd = tcp_listen(st->id.addr_be, st->id.port);
    if (fd != -EADDRINUSE || tcp_now_ms() >= deadline) return fd;
    usleep(pause_us);
  }
}

int tcp_server_start(tcp_state_t *st, int listen_fd) {
  tcp_server_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    if (listen_fd >= 0) close(listen_fd);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  s->st = st;
  s->listen_fd = -1;
  tcp_admit_init(&s->admit, st);
  s->wake[0] = s->wake[1] = -1;
  pthread_mutex_init(&s->lock, NULL);
  tcp_cond_init(&s->cond);
  s->peers = calloc((size_t)st->size, sizeof *s->peers);
  if (s->peers == NULL) {
    if (listen_fd >= 0) close(listen_fd);
    srv_destroy(s);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  for (int r = 1; r < st->size; ++r) {
    s->peers[r].fd = -1;
    pthread_mutex_init(&s->peers[r].send_lock, NULL);
  }
  if (listen_fd >= 0 && usable_listen_fd(st, listen_fd)) s->listen_fd = listen_fd; /* ours from here on */
  if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "PE 0: pipe2 for the tcp bootstrap thread failed: %s", strerror(errno));
    srv_destroy(s);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  if (st->size == 1) {
    if (s->listen_fd >= 0) close(s->listen_fd); /* nobody will connect */
    s->listen_fd = -1;
    s->connected = 1;
  } else if (s->listen_fd < 0 && (s->listen_fd = listen_on_id_port(st)) < 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "PE 0 could not listen on port %u of the unique id (%s): %s; make the id with shmemx_get_uniqueid in "
            "this process (it keeps the socket open), or pick a free port",
            st->id.port, st->id.addr_text, strerror(-s->listen_fd));
    s->listen_fd = -1;
    srv_destroy(s);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  if (s->listen_fd >= 0) {
    int fl = fcntl(s->listen_fd, F_GETFL); /* accept must never block the thread: a connection can go away */
    if (fl >= 0) (void)fcntl(s->listen_fd, F_SETFL, fl | O_NONBLOCK);
  }
  int rc = tcp_start_thread(&s->thread, srv_main, s);
  if (rc != 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "PE 0 could not start the tcp bootstrap thread: %s", strerror(rc));
    srv_destroy(s);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  s->thread_started = 1;

  int64_t deadline = tcp_now_ms() + (int64_t)st->timeout_s * 1000;
  pthread_mutex_lock(&s->lock);
  while (!s->connected)
    if (tcp_cond_wait_until(&s->cond, &s->lock, deadline) == ETIMEDOUT) break;
  int ok = s->connected;
  if (!ok) {
    unsigned char *joined = calloc((size_t)st->size, 1);
    char missing[512] = "?";
    if (joined != NULL) {
      joined[0] = 1;
      for (int r = 1; r < st->size; ++r) joined[r] = s->peers[r].fd >= 0;
      tcp_format_ranks(missing, sizeof missing, joined, st->size, 0);
      free(joined);
    }
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "only %d of %d PEs joined the tcp bootstrap at %s within %d s; missing PE(s) %s. Start every PE with "
            "the same unique id and size, or raise GPUSHMEM_BOOTSTRAP_TIMEOUT",
            s->n_connected + 1, st->size, st->id.addr_text, st->timeout_s, missing);
  }
  pthread_mutex_unlock(&s->lock);
  if (!ok) {
    srv_destroy(s);
    return GPUSHMEM_BOOTSTRAP_ETIMEDOUT;
  }
  st->server = s;
  return GPUSHMEM_BOOTSTRAP_OK;
}

int tcp_server_coll(tcp_state_t *st, int op, int root, uint64_t bytes, const void *in, void *out) {
  tcp_server_t *s = st->server;
  int status = GPUSHMEM_BOOTSTRAP_OK;
  char msg[TCP_WIRE_MAX_TEXT];
  pthread_mutex_lock(&s->lock);
  uint32_t seq = ++st->seq;
  if (s->failed_status != 0) {
    status = s->failed_status;
    snprintf(msg, sizeof msg, "bootstrap %s refused: the tcp bootstrap failed earlier: %.*s", tcp_op_name(op),
             (int)sizeof msg / 2, s->fail_msg);
  } else if (srv_join(s, 0, op, root, bytes, seq) != 0) {
    status = s->failed_status;
    snprintf(msg, sizeof msg, "%s", s->fail_msg);
  } else {
    uint64_t in_len = tcp_coll_in_len(op, st->size, 0, root, bytes);
    if (in_len != 0) memcpy(srv_slot(s, 0), in, (size_t)in_len);
    s->local_waiting = 1;
    s->local_done = 0;
    s->local_out = out;
    srv_arrived(s, 0);
    srv_wake(s); /* the thread times the collective from its start */
    int64_t deadline = tcp_now_ms() + (int64_t)(st->timeout_s + TCP_REPLY_GRACE_S) * 1000;
    while (!s->local_done)
      if (tcp_cond_wait_until(&s->cond, &s->lock, deadline) == ETIMEDOUT) break;
    if (s->local_done) {
      status = s->local_status;
      snprintf(msg, sizeof msg, "%s", s->local_msg);
    } else {
      status = GPUSHMEM_BOOTSTRAP_ETIMEDOUT;
      snprintf(msg, sizeof msg, "the tcp bootstrap thread of PE 0 did not finish %s #%u within %d s", tcp_op_name(op),
               seq, st->timeout_s + TCP_REPLY_GRACE_S);
      srv_fail(s, status, "%s", msg);
    }
    s->local_waiting = 0;
    s->local_out = NULL;
  }
  pthread_mutex_unlock(&s->lock);
  if (status != GPUSHMEM_BOOTSTRAP_OK) tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "%s", msg);
  return status;
}

void tcp_server_abort(tcp_state_t *st, int status, const char *why) {
  if (atomic_exchange(&st->aborting, 1)) tcp_park(); /* a watcher thread is already ending the job */
  tcp_say(st, "job aborted by PE 0 with status %d: %s", status, why);
  srv_broadcast_abort(st->server, status, 0, why, -1);
  tcp_exit_now(status);
}

int tcp_server_finalize(tcp_state_t *st) {
  tcp_server_t *s = st->server;
  int rc = tcp_server_coll(st, TCP_OP_FINALIZE, 0, 0, NULL, NULL);
  pthread_mutex_lock(&s->lock);
  s->stopping = 1;
  /* Even after a failed finalize the others still send theirs and close; leaving first would look to them
     like a crash of PE 0. */
  s->stop_deadline_ms = tcp_now_ms() + SRV_STOP_WAIT_MS;
  pthread_mutex_unlock(&s->lock);
  srv_wake(s);
  pthread_join(s->thread, NULL);
  s->thread_started = 0;
  srv_destroy(s);
  st->server = NULL;
  return rc;
}
