/* What each collective sends and gets back: the one place that defines the sizes on the wire. */
#include <stdint.h>

#include "tcp_state.h"

const char *tcp_op_name(int op) {
  switch (op) {
    case TCP_OP_ALLGATHER:
      return "allgather";
    case TCP_OP_ALLTOALL:
      return "alltoall";
    case TCP_OP_BCAST:
      return "bcast";
    case TCP_OP_BARRIER:
      return "barrier";
    case TCP_OP_FINALIZE:
      return "finalize";
  }
  return "unknown collective";
}

int tcp_coll_sizes_ok(int op, int size, uint64_t bytes) {
  uint64_t n = (uint64_t)size;
  if (bytes > TCP_WIRE_MAX_PAYLOAD) return 0;
  if ((op == TCP_OP_ALLGATHER || op == TCP_OP_ALLTOALL) && bytes != 0 && n > TCP_WIRE_MAX_PAYLOAD / bytes) return 0;
  /* rank 0 assembles the whole size x size matrix of an alltoall */
  if (op == TCP_OP_ALLTOALL && bytes != 0 && n * bytes > SIZE_MAX / n) return 0;
  return 1;
}

uint64_t tcp_coll_in_len(int op, int size, int rank, int root, uint64_t bytes) {
  switch (op) {
    case TCP_OP_ALLGATHER:
      return bytes;
    case TCP_OP_ALLTOALL:
      return (uint64_t)size * bytes;
    case TCP_OP_BCAST:
      return rank == root ? bytes : 0;
  }
  return 0;
}

uint64_t tcp_coll_out_len(int op, int size, int rank, int root, uint64_t bytes) {
  switch (op) {
    case TCP_OP_ALLGATHER:
    case TCP_OP_ALLTOALL:
      return (uint64_t)size * bytes;
    case TCP_OP_BCAST:
      return rank == root ? 0 : bytes;
  }
  return 0;
}
