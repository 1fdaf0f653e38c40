/*
 * Socket helpers of the tcp bootstrap: whole-buffer reads and writes (EINTR and partial I/O handled),
 * frames, listening and connecting with deadlines. Every function is thread-safe for distinct fds;
 * callers serialise writers of one fd themselves.
 *
 * Deadlines are absolute tcp_now_ms() values; a negative deadline means "no deadline".
 * Errors are returned as -errno (-ETIMEDOUT when a deadline passed).
 */
#ifndef GPUSHMEM_TCP_SOCK_H
#define GPUSHMEM_TCP_SOCK_H

#include <stddef.h>
#include <stdint.h>

#include "tcp_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned by the read functions when the peer closed the connection (also mid-frame). */
#define TCP_EOF 1

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t tcp_now_ms(void);

/* Writes a then b completely (either may be empty). Never raises SIGPIPE. Returns 0 or -errno. */
int tcp_write_all(int fd, const void *a, size_t alen, const void *b, size_t blen);

/* Reads exactly len bytes. Returns 0, TCP_EOF, or -errno. */
int tcp_read_all(int fd, void *buf, size_t len, int64_t deadline_ms);

/* Reads and drops len bytes. Same returns as tcp_read_all. */
int tcp_discard(int fd, uint64_t len, int64_t deadline_ms);

/* Sends one frame (header from *f, payload of f->len bytes). Returns 0 or -errno. */
int tcp_send_frame(int fd, const tcp_frame_t *f, const void *payload);

/* Reads one frame header. Returns 0, TCP_EOF, -EPROTO (not our protocol), or -errno. */
int tcp_recv_header(int fd, tcp_frame_t *f, int64_t deadline_ms);

/* Reads a text payload of len bytes into buf (NUL-terminated, truncated to cap-1, the rest dropped). */
int tcp_recv_text(int fd, uint64_t len, char *buf, size_t cap, int64_t deadline_ms);

/* A listening IPv4 socket on addr_be:port (network order address; INADDR_ANY allowed, port 0: any).
   Close-on-exec. Returns the fd or -errno. */
int tcp_listen(uint32_t addr_be, uint16_t port);

/* One connection attempt to addr_be:port that gives up at the deadline. Returns a blocking, close-on-exec
   fd with TCP_NODELAY set, or -errno. */
int tcp_connect_once(uint32_t addr_be, uint16_t port, int64_t deadline_ms);

/* Disables Nagle: bootstrap messages are small and latency-bound. */
void tcp_set_nodelay(int fd);

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_TCP_SOCK_H */
