/*
 * Private state of the tcp bootstrap and the functions its parts share.
 *
 * Topology: a star. Rank 0 runs the server (tcp_server.c): a thread that accepts the other ranks, then
 * polls their sockets, assembles every collective and answers each rank. Other ranks are clients
 * (tcp_client.c): the calling thread sends its contribution, a reader thread owns the socket's reads
 * and hands results over through a mailbox. Both watch liveness: a peer that goes away without
 * finalizing ends the job.
 */
#ifndef GPUSHMEM_TCP_STATE_H
#define GPUSHMEM_TCP_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gpushmem/bootstrap_plugin.h"
#include "tcp_id.h"
#include "tcp_wire.h"

#define TCP_DEFAULT_TIMEOUT_S 120
/* Extra seconds a caller waits beyond the collective timeout: the server's own timeout answers first
   and names the missing PEs; this only catches a server that stopped answering altogether. */
#define TCP_REPLY_GRACE_S 5
/* How long an aborting process waits for its peers to take the ABORT frame before it exits. */
#define TCP_ABORT_LINGER_MS 2000

struct tcp_server;
struct tcp_client;

typedef struct tcp_state {
  int rank;
  int size;
  int timeout_s;
  tcp_id_t id;
  gpushmem_bootstrap_log_fn log;
  uint32_t seq;              /* collectives this PE has started (the next one is seq + 1) */
  atomic_int aborting;       /* set first thing by whoever ends the job, so watcher threads stand aside */
  struct tcp_server *server; /* rank 0 */
  struct tcp_client *client; /* other ranks */
} tcp_state_t;

/* ---- tcp_log.c ---- */
/* Through the core's log callback (stderr when there is none). */
__attribute__((format(printf, 3, 4))) void tcp_log(const tcp_state_t *st, int level, const char *fmt, ...);
/* Prints "gpushmem[PE r]: <message>" on stderr in one write. */
__attribute__((format(printf, 2, 3))) void tcp_say(const tcp_state_t *st, const char *fmt, ...);
/* Flushes stdio and _exits with status: how a watcher thread or abort() ends this process. */
__attribute__((noreturn)) void tcp_exit_now(int status);
/* Writes "2-3, 7" for the ranks whose flag is `want` in flags[0..n). */
void tcp_format_ranks(char *buf, size_t cap, const unsigned char *flags, int n, int want);

/* ---- tcp_coll.c ---- */
const char *tcp_op_name(int op);
/* 1 when a collective of `bytes` per PE fits a frame and rank 0's assembly buffer; check before the two below,
   which do not guard against overflow. */
int tcp_coll_sizes_ok(int op, int size, uint64_t bytes);
/* Bytes rank `rank` sends for a collective, and bytes it gets back. */
uint64_t tcp_coll_in_len(int op, int size, int rank, int root, uint64_t bytes);
uint64_t tcp_coll_out_len(int op, int size, int rank, int root, uint64_t bytes);

/* ---- tcp_server.c (rank 0) ---- */
/* Starts the server thread on listen_fd (or binds the id's port when listen_fd < 0) and waits until every
   other rank has connected, or the timeout. */
int tcp_server_start(tcp_state_t *st, int listen_fd);
/* Rank 0's part of a collective: blocks until every PE contributed and the results went out, or it failed. */
int tcp_server_coll(tcp_state_t *st, int op, int root, uint64_t bytes, const void *in, void *out);
__attribute__((noreturn)) void tcp_server_abort(tcp_state_t *st, int status, const char *why);
int tcp_server_finalize(tcp_state_t *st);

/* ---- tcp_client.c (ranks 1..size-1) ---- */
/* Connects to rank 0 (retrying until the timeout) and joins the job. */
int tcp_client_start(tcp_state_t *st);
int tcp_client_coll(tcp_state_t *st, int op, int root, uint64_t bytes, const void *in, void *out);
__attribute__((noreturn)) void tcp_client_abort(tcp_state_t *st, int status, const char *why);
int tcp_client_finalize(tcp_state_t *st);

/* ---- tcp_thread.c ---- */
/* pthread_create with every signal blocked in the new thread, so the application's signal handling stays
   on its own threads. Returns 0 or an errno value. */
int tcp_start_thread(pthread_t *thread, void *(*fn)(void *), void *arg);
/* A condition variable timed on CLOCK_MONOTONIC (the clock of tcp_now_ms). */
int tcp_cond_init(pthread_cond_t *cond);
/* pthread_cond_timedwait until the tcp_now_ms() deadline. Returns 0 or ETIMEDOUT. */
int tcp_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, int64_t deadline_ms);
/* Locks m, giving up after ms milliseconds (abort paths must not wait on a stuck writer). 0 or ETIMEDOUT. */
int tcp_lock_for(pthread_mutex_t *m, int ms);
/* Blocks the calling thread for good: used by a watcher thread while another thread ends the process. */
__attribute__((noreturn)) void tcp_park(void);

#endif /* GPUSHMEM_TCP_STATE_H */
