/*
 * Ranks 1..size-1 of the tcp bootstrap. The calling thread sends contributions; a reader thread owns every
 * read of the socket: it posts collective results to a one-slot mailbox, and it ends this process when
 * rank 0 aborts the job or goes away without finalizing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcp_sock.h"
#include "tcp_state.h"

typedef struct tcp_client {
  tcp_state_t *st;
  int fd;
  pthread_t reader;
  pthread_mutex_t send_lock; /* the calling thread and an aborting thread both write */
  pthread_mutex_t lock;      /* the mailbox and the flags below */
  pthread_cond_t cond;
  int has_result;
  tcp_frame_t result;
  unsigned char *payload;
  int finalizing;    /* FINALIZE sent: rank 0 closing is expected from now on */
  int server_closed; /* the reader saw the connection end */
  int failed_status; /* nonzero: a collective failed; later ones fail at once */
  char fail_msg[TCP_WIRE_MAX_TEXT];
} tcp_client_t;

static void cli_server_gone(tcp_client_t *c, int rc) {
  pthread_mutex_lock(&c->lock);
  /* Finalize or abort is in charge: tell the waiting caller. Otherwise the caller must not wake up and
     carry on as if this were an ordinary error: the job is over. */
  int expected = c->finalizing || atomic_load(&c->st->aborting);
  if (expected) {
    c->server_closed = 1;
    pthread_cond_broadcast(&c->cond);
  }
  pthread_mutex_unlock(&c->lock);
  if (expected) return;
  if (atomic_exchange(&c->st->aborting, 1)) tcp_park();
  if (rc == -EPROTO)
    tcp_say(c->st, "PE 0 (tcp bootstrap) sent data this PE does not understand; ending the job");
  else
    tcp_say(c->st, "PE 0 (tcp bootstrap) disconnected without shmem_finalize; ending the job");
  tcp_exit_now(1);
}

static void *cli_reader(void *arg) {
  tcp_client_t *c = arg;
  for (;;) {
    tcp_frame_t f;
    int rc = tcp_recv_header(c->fd, &f, -1);
    if (rc != 0) {
      cli_server_gone(c, rc);
      return NULL;
    }
    if (f.type == TCP_FRAME_ABORT) {
      char why[TCP_WIRE_MAX_TEXT];
      if (tcp_recv_text(c->fd, f.len, why, sizeof why, tcp_now_ms() + TCP_ABORT_LINGER_MS) != 0)
        snprintf(why, sizeof why, "(reason lost)");
      if (atomic_exchange(&c->st->aborting, 1)) tcp_park();
      tcp_say(c->st, "job aborted by PE %u with status %d: %s", f.seq, f.arg, why);
      tcp_exit_now(f.arg);
    }
    if (f.type != TCP_FRAME_RESULT) {
      cli_server_gone(c, -EPROTO);
      return NULL;
    }
    unsigned char *data = f.len != 0 ? malloc((size_t)f.len) : NULL;
    if (f.len != 0 && data == NULL) {
      if (atomic_exchange(&c->st->aborting, 1)) tcp_park();
      tcp_say(c->st, "out of memory for a %llu-byte tcp bootstrap result; ending the job", (unsigned long long)f.len);
      tcp_exit_now(1);
    }
    rc = f.len != 0 ? tcp_read_all(c->fd, data, (size_t)f.len, -1) : 0;
    if (rc != 0) {
      free(data);
      cli_server_gone(c, rc);
      return NULL;
    }
    pthread_mutex_lock(&c->lock);
    free(c->payload); /* an answer nobody waited for (its caller timed out) */
    c->result = f;
    c->payload = data;
    c->has_result = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
  }
}

static void cli_destroy(tcp_client_t *c) {
  if (c->fd >= 0) close(c->fd);
  free(c->payload);
  pthread_cond_destroy(&c->cond);
  pthread_mutex_destroy(&c->lock);
  pthread_mutex_destroy(&c->send_lock);
  free(c);
}

/* One attempt: connect, greet, read the answer. Returns the fd, or -errno; REJECT is reported as -EACCES with
   the reason in why. */
static int cli_join(tcp_state_t *st, int64_t deadline, char *why, size_t cap) {
  int fd = tcp_connect_once(st->id.addr_be, st->id.port, deadline);
  if (fd < 0) return fd;
  unsigned char hello[TCP_HELLO_BYTES];
  tcp_put_u64(hello, st->id.cookie);
  tcp_put_u32(hello + 8, (uint32_t)st->rank);
  tcp_put_u32(hello + 12, (uint32_t)st->size);
  tcp_frame_t f = {.type = TCP_FRAME_HELLO, .len = sizeof hello};
  int rc = tcp_send_frame(fd, &f, hello);
  if (rc == 0) rc = tcp_recv_header(fd, &f, deadline);
  if (rc == TCP_EOF) rc = -ECONNRESET;
  if (rc == 0 && f.type == TCP_FRAME_REJECT) {
    rc = tcp_recv_text(fd, f.len, why, cap, deadline);
    rc = -EACCES;
  } else if (rc == 0 && f.type != TCP_FRAME_WELCOME) {
    rc = -EPROTO;
  }
  if (rc != 0) {
    close(fd);
    return rc;
  }
  return fd;
}

int tcp_client_start(tcp_state_t *st) {
  int64_t deadline = tcp_now_ms() + (int64_t)st->timeout_s * 1000;
  int64_t backoff_ms = 10;
  int fd, attempts = 0, last_err = 0;
  char why[256] = "";
  /* Rank 0 may not be listening yet: retry refused or reset connections with a growing pause. */
  for (;;) {
    ++attempts;
    fd = cli_join(st, deadline, why, sizeof why);
    if (fd < 0 && (fd != -ETIMEDOUT || last_err == 0)) last_err = -fd; /* not the attempt our deadline cut */
    if (fd >= 0 || fd == -EACCES || fd == -EPROTO || tcp_now_ms() >= deadline) break;
    int64_t left = deadline - tcp_now_ms();
    int64_t pause_ms = backoff_ms < left ? backoff_ms : left;
    if (pause_ms > 0) {
      struct timespec ts = {.tv_sec = pause_ms / 1000, .tv_nsec = (long)(pause_ms % 1000) * 1000000};
      nanosleep(&ts, NULL);
    }
    backoff_ms = backoff_ms * 2 > 500 ? 500 : backoff_ms * 2;
  }
  if (fd == -EACCES) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "PE %d was refused by the tcp bootstrap server (PE 0) at %s: %s",
            st->rank, st->id.addr_text, why);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (fd == -EPROTO) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "PE %d: the process at %s (the unique id's address) does not speak the gpushmem tcp bootstrap; check "
            "the unique id",
            st->rank, st->id.addr_text);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  if (fd < 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "PE %d could not join the tcp bootstrap server (PE 0) at %s within %d s (%d attempts, last error: %s); "
            "check that PE 0 runs with the same unique id and that this host reaches that address "
            "(GPUSHMEM_BOOTSTRAP_TCP_ADDR on PE 0 chooses it), or raise GPUSHMEM_BOOTSTRAP_TIMEOUT",
            st->rank, st->id.addr_text, st->timeout_s, attempts, strerror(last_err));
    return GPUSHMEM_BOOTSTRAP_ETIMEDOUT;
  }

  tcp_client_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    close(fd);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  c->st = st;
  c->fd = fd;
  pthread_mutex_init(&c->send_lock, NULL);
  pthread_mutex_init(&c->lock, NULL);
  tcp_cond_init(&c->cond);
  int rc = tcp_start_thread(&c->reader, cli_reader, c);
  if (rc != 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "PE %d could not start the tcp bootstrap reader thread: %s", st->rank,
            strerror(rc));
    cli_destroy(c);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  st->client = c;
  return GPUSHMEM_BOOTSTRAP_OK;
}

__attribute__((format(printf, 3, 4))) static int cli_fail(tcp_client_t *c, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->fail_msg, sizeof c->fail_msg, fmt, ap);
  va_end(ap);
  c->failed_status = status;
  tcp_log(c->st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "%s", c->fail_msg);
  return status;
}

int tcp_client_coll(tcp_state_t *st, int op, int root, uint64_t bytes, const void *in, void *out) {
  tcp_client_t *c = st->client;
  /* A finalize still goes out after a failure, so rank 0 knows our close is no crash. */
  if (c->failed_status != 0 && op != TCP_OP_FINALIZE) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap %s refused: the tcp bootstrap failed earlier: %s",
            tcp_op_name(op), c->fail_msg);
    return c->failed_status;
  }
  uint32_t seq = ++st->seq;
  tcp_frame_t f = {.type = TCP_FRAME_COLL,
                   .op = (uint16_t)op,
                   .seq = seq,
                   .arg = root,
                   .bytes = bytes,
                   .len = tcp_coll_in_len(op, st->size, st->rank, root, bytes)};
  if (op == TCP_OP_FINALIZE) {
    pthread_mutex_lock(&c->lock);
    c->finalizing = 1;
    pthread_mutex_unlock(&c->lock);
  }
  pthread_mutex_lock(&c->send_lock);
  int rc = tcp_send_frame(c->fd, &f, in);
  pthread_mutex_unlock(&c->send_lock);
  if (rc != 0)
    return cli_fail(c, GPUSHMEM_BOOTSTRAP_EIO, "PE %d could not send bootstrap %s #%u to PE 0 at %s: %s", st->rank,
                    tcp_op_name(op), seq, st->id.addr_text, strerror(-rc));

  int64_t deadline = tcp_now_ms() + (int64_t)(st->timeout_s + TCP_REPLY_GRACE_S) * 1000;
  pthread_mutex_lock(&c->lock);
  while (!c->has_result && !c->server_closed)
    if (tcp_cond_wait_until(&c->cond, &c->lock, deadline) == ETIMEDOUT) break;
  int got = c->has_result, closed = c->server_closed;
  tcp_frame_t r = c->result;
  unsigned char *data = c->payload;
  c->has_result = 0;
  c->payload = NULL;
  pthread_mutex_unlock(&c->lock);

  int status = GPUSHMEM_BOOTSTRAP_OK;
  if (!got && closed) {
    status = cli_fail(c, GPUSHMEM_BOOTSTRAP_EIO,
                      "PE 0 (the tcp bootstrap server at %s) closed the connection during "
                      "%s #%u",
                      st->id.addr_text, tcp_op_name(op), seq);
  } else if (!got) {
    status = cli_fail(c, GPUSHMEM_BOOTSTRAP_ETIMEDOUT,
                      "no answer from PE 0 (the tcp bootstrap server at %s) for %d s "
                      "during %s #%u; PE 0 may be stopped or its host unreachable",
                      st->id.addr_text, st->timeout_s + TCP_REPLY_GRACE_S, tcp_op_name(op), seq);
  } else if (r.seq != seq || r.op != op) {
    status = cli_fail(c, GPUSHMEM_BOOTSTRAP_EIO, "PE %d waited for the result of %s #%u but PE 0 answered %s #%u",
                      st->rank, tcp_op_name(op), seq, tcp_op_name(r.op), r.seq);
  } else if (r.arg < 0) {
    char why[TCP_WIRE_MAX_TEXT];
    size_t n = r.len < sizeof why - 1 ? (size_t)r.len : sizeof why - 1;
    memcpy(why, data, n);
    why[n] = '\0';
    status = cli_fail(c, r.arg, "%s", why);
  } else if (r.len != tcp_coll_out_len(op, st->size, st->rank, root, bytes)) {
    status = cli_fail(c, GPUSHMEM_BOOTSTRAP_EIO, "PE 0 answered %s #%u with %llu bytes, not the %llu expected",
                      tcp_op_name(op), seq, (unsigned long long)r.len,
                      (unsigned long long)tcp_coll_out_len(op, st->size, st->rank, root, bytes));
  } else if (r.len != 0) {
    memcpy(out, data, (size_t)r.len);
  }
  free(data);
  return status;
}

void tcp_client_abort(tcp_state_t *st, int status, const char *why) {
  tcp_client_t *c = st->client;
  if (atomic_exchange(&st->aborting, 1)) tcp_park(); /* the reader is already ending the job */
  tcp_say(st, "job aborted by PE %d with status %d: %s", st->rank, status, why);
  tcp_frame_t f = {.type = TCP_FRAME_ABORT, .seq = (uint32_t)st->rank, .arg = status, .len = strlen(why)};
  if (tcp_lock_for(&c->send_lock, TCP_ABORT_LINGER_MS) == 0) {
    (void)tcp_send_frame(c->fd, &f, why);
    pthread_mutex_unlock(&c->send_lock);
  }
  shutdown(c->fd, SHUT_WR);
  /* Rank 0 forwards the abort, then exits: its close tells us everyone has been told. */
  int64_t deadline = tcp_now_ms() + TCP_ABORT_LINGER_MS;
  int closed = 0, finalizing = 0;
  if (tcp_lock_for(&c->lock, TCP_ABORT_LINGER_MS) == 0) {
    while (!c->server_closed)
      if (tcp_cond_wait_until(&c->cond, &c->lock, deadline) == ETIMEDOUT) break;
    closed = c->server_closed;
    finalizing = c->finalizing;
    pthread_mutex_unlock(&c->lock);
  }
  /* The reader saw the close and is returning: join it, so no thread is left behind unjoined (TSan reports
     that as a leak). A reader that did not see it may be stuck, and a finalize on another thread joins it
     itself: exit without it then. */
  if (closed && !finalizing) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += TCP_ABORT_LINGER_MS / 1000 + 1;
    (void)pthread_timedjoin_np(c->reader, NULL, &until);
  }
  tcp_exit_now(status);
}

int tcp_client_finalize(tcp_state_t *st) {
  tcp_client_t *c = st->client;
  int rc = tcp_client_coll(st, TCP_OP_FINALIZE, 0, 0, NULL, NULL);
  pthread_mutex_lock(&c->lock);
  c->finalizing = 1; /* also after a failed finalize: our own shutdown below must not end the job */
  pthread_mutex_unlock(&c->lock);
  shutdown(c->fd, SHUT_RDWR); /* wakes the reader with an end of stream */
  pthread_join(c->reader, NULL);
  cli_destroy(c);
  st->client = NULL;
  return rc;
}
