/*
 * Wire format of the tcp bootstrap. Every message is one frame: a fixed 32-byte header, big-endian,
 * then `len` payload bytes. Payloads of collectives are the caller's opaque bytes.
 *
 *   magic u32 | type u16 | op u16 | seq u32 | arg i32 | bytes u64 | len u64
 */
#ifndef GPUSHMEM_TCP_WIRE_H
#define GPUSHMEM_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TCP_WIRE_MAGIC 0x47534231u /* "GSB1": a stray peer speaking another protocol is caught at once */
#define TCP_WIRE_HEADER_BYTES 32
/* Bootstrap data is small; anything larger is a corrupt or foreign header, not a real request. */
#define TCP_WIRE_MAX_PAYLOAD ((uint64_t)1 << 36)
/* Longest abort reason or error text carried in a frame. */
#define TCP_WIRE_MAX_TEXT 2048

enum tcp_frame_type {
  TCP_FRAME_HELLO = 1,   /* client -> server: payload cookie u64, rank u32, size u32 */
  TCP_FRAME_WELCOME = 2, /* server -> client: the client is part of the job */
  TCP_FRAME_REJECT = 3,  /* server -> client: payload is the reason */
  TCP_FRAME_COLL = 4,    /* client -> server: a contribution to collective number `seq` */
  TCP_FRAME_RESULT = 5,  /* server -> client: that collective's result; arg < 0: failed, payload is why */
  TCP_FRAME_ABORT = 6    /* either way: end the job with status `arg`; seq = origin PE, payload is why */
};

enum tcp_coll_op { TCP_OP_ALLGATHER = 1, TCP_OP_ALLTOALL, TCP_OP_BCAST, TCP_OP_BARRIER, TCP_OP_FINALIZE };

#define TCP_HELLO_BYTES 16

typedef struct tcp_frame {
  uint16_t type;  /* tcp_frame_type */
  uint16_t op;    /* COLL, RESULT: tcp_coll_op */
  uint32_t seq;   /* COLL, RESULT: collective number (1, 2, ...); ABORT: the PE that started the abort */
  int32_t arg;    /* COLL: bcast root; RESULT: status; ABORT: exit status */
  uint64_t bytes; /* COLL, RESULT: the block size every PE passed */
  uint64_t len;   /* payload bytes following the header */
} tcp_frame_t;

static inline void tcp_put_u16(unsigned char *p, uint16_t v) {
  p[0] = (unsigned char)(v >> 8);
  p[1] = (unsigned char)v;
}
static inline void tcp_put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (24 - 8 * i));
}
static inline void tcp_put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (56 - 8 * i));
}
static inline uint16_t tcp_get_u16(const unsigned char *p) {
  return (uint16_t)((p[0] << 8) | p[1]);
}
static inline uint32_t tcp_get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | p[i];
  return v;
}
static inline uint64_t tcp_get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

static inline void tcp_frame_encode(const tcp_frame_t *f, unsigned char out[TCP_WIRE_HEADER_BYTES]) {
  tcp_put_u32(out, TCP_WIRE_MAGIC);
  tcp_put_u16(out + 4, f->type);
  tcp_put_u16(out + 6, f->op);
  tcp_put_u32(out + 8, f->seq);
  tcp_put_u32(out + 12, (uint32_t)f->arg);
  tcp_put_u64(out + 16, f->bytes);
  tcp_put_u64(out + 24, f->len);
}

/* Returns 0, or -1 when the magic is wrong or the payload length is implausible. */
static inline int tcp_frame_decode(const unsigned char in[TCP_WIRE_HEADER_BYTES], tcp_frame_t *f) {
  if (tcp_get_u32(in) != TCP_WIRE_MAGIC) return -1;
  f->type = tcp_get_u16(in + 4);
  f->op = tcp_get_u16(in + 6);
  f->seq = tcp_get_u32(in + 8);
  f->arg = (int32_t)tcp_get_u32(in + 12);
  f->bytes = tcp_get_u64(in + 16);
  f->len = tcp_get_u64(in + 24);
  return f->len > TCP_WIRE_MAX_PAYLOAD ? -1 : 0;
}

#endif /* GPUSHMEM_TCP_WIRE_H */
