/*
 * The tcp bootstrap's unique id: "gpushmem-tcp1://<ipv4>:<port>/<cookie as 16 hex digits>", NUL-terminated
 * in shmemx_uniqueid_t.internal. <ipv4>:<port> is where rank 0 listens; the cookie tells this job's
 * connections from strays. Made by shmemx_get_uniqueid (runtime/boot/uniqueid.cpp) and by gpushmemrun;
 * parsed here. Pure functions, thread-safe.
 */
#ifndef GPUSHMEM_TCP_ID_H
#define GPUSHMEM_TCP_ID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TCP_ID_PREFIX "gpushmem-tcp1://"

typedef struct tcp_id {
  uint32_t addr_be; /* IPv4 address, network byte order */
  uint16_t port;
  uint64_t cookie;
  char addr_text[24]; /* "a.b.c.d:port", for messages */
} tcp_id_t;

/* Parses an id. Returns 0, or -1 when text is not a well-formed id. */
int tcp_id_parse(const char *text, tcp_id_t *out);

/* Writes the id text for ipv4 (dotted quad), port and cookie into buf. Returns the length, or -1 when it
   does not fit or ipv4 is not an IPv4 address. */
int tcp_id_format(char *buf, size_t cap, const char *ipv4, uint16_t port, uint64_t cookie);

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_TCP_ID_H */
