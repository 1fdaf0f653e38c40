/*
 * Rank 0's door: connections to the tcp bootstrap that have not yet said who they are.
 *
 * Every accepted connection waits here, non-blocking, until its HELLO frame (header and 16-byte payload)
 * has arrived whole; bytes are taken as they come, so many connections greet at once and none holds up
 * another. A connection that sends anything else (another frame type, a foreign magic, a wrong length),
 * closes, or has not greeted within TCP_ADMIT_WAIT_MS is closed and forgotten: nothing a connection sends
 * before its HELLO has any effect on the job. When the table is full, the connection closest to its
 * deadline makes room for the new one, so idle connections cannot lock real PEs out.
 *
 * Not thread-safe: the server thread owns it.
 */
#ifndef GPUSHMEM_TCP_ADMIT_H
#define GPUSHMEM_TCP_ADMIT_H

#include <poll.h>
#include <stdint.h>

#include "tcp_state.h"
#include "tcp_wire.h"

/* How long a new connection may take to greet. A real PE sends its HELLO right after connecting. */
#define TCP_ADMIT_WAIT_MS 3000
/* Connections waiting to greet at once. */
#define TCP_ADMIT_MAX 64

typedef struct tcp_admit_slot {
  int fd; /* -1: free */
  int64_t deadline_ms;
  unsigned got; /* bytes of header + HELLO payload read so far */
  unsigned char buf[TCP_WIRE_HEADER_BYTES + TCP_HELLO_BYTES];
  char from[32]; /* "a.b.c.d:port" of the other end, for messages */
} tcp_admit_slot_t;

typedef struct tcp_admit {
  const tcp_state_t *st; /* for messages */
  tcp_admit_slot_t slot[TCP_ADMIT_MAX];
  unsigned long dropped; /* connections closed without a HELLO */
} tcp_admit_t;

/* A complete greeting: the connection (blocking again) and what it claims. */
typedef struct tcp_hello {
  int fd;
  uint64_t cookie;
  int64_t rank, size;
  char from[32];
} tcp_hello_t;

void tcp_admit_init(tcp_admit_t *a, const tcp_state_t *st);

/* Accepts every connection waiting on listen_fd (non-blocking) into the table. */
void tcp_admit_accept(tcp_admit_t *a, int listen_fd);

/* Appends a pollfd (POLLIN) per waiting connection; who[i] = TCP_ADMIT_WHO(slot). Returns the new count. */
#define TCP_ADMIT_WHO(slot) (-100 - (slot))
#define TCP_ADMIT_SLOT(who) (-100 - (who))
int tcp_admit_poll_fds(const tcp_admit_t *a, struct pollfd *p, int *who, int n);

/* The connection in `slot` is readable: reads what it sent. Returns 1 with *out filled once its HELLO is
   whole (the slot is free again and the fd is the caller's), 0 while it is still incomplete, -1 when the
   connection was dropped. */
int tcp_admit_read(tcp_admit_t *a, int slot, tcp_hello_t *out);

/* Drops connections past their deadline. Returns the milliseconds until the next deadline, or -1 if none
   waits. */
int64_t tcp_admit_expire(tcp_admit_t *a, int64_t now_ms);

/* Closes every waiting connection (everyone has joined, or the server stops). */
void tcp_admit_close_all(tcp_admit_t *a);

#endif /* GPUSHMEM_TCP_ADMIT_H */
