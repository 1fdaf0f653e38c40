/*
 * The "tcp" bootstrap plugin: PEs meet over TCP at the address in a unique id. Rank, size and id come
 * from the core (shmemx_init_attr with a unique id) or from gpushmemrun's environment:
 *   GPUSHMEMRUN_RANK, GPUSHMEMRUN_SIZE, GPUSHMEMRUN_UNIQUEID, and for rank 0 GPUSHMEMRUN_LISTEN_FD.
 * The plugin reads its launcher's variables itself (the core's env table is for libgpushmem only).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcp_state.h"

static tcp_state_t *state_of(const gpushmem_bootstrap_t *b) {
  return b != NULL ? b->state : NULL;
}

/* Checks what every collective shares and runs it on the server or client side. */
static int run_coll(gpushmem_bootstrap_t *b, int op, int root, size_t bytes, const void *in, void *out) {
  tcp_state_t *st = state_of(b);
  if (st == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  if (!tcp_coll_sizes_ok(op, st->size, bytes)) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap %s of %zu bytes per PE over %d PEs is too large",
            tcp_op_name(op), bytes, st->size);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  return st->rank == 0 ? tcp_server_coll(st, op, root, bytes, in, out) : tcp_client_coll(st, op, root, bytes, in, out);
}

/* Blocks until every PE called it (or the timeout). Called by one thread at a time, in the same order on every
   PE. */
static int tcp_allgather(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  if (bytes != 0 && (in == NULL || out == NULL)) {
    tcp_log(state_of(b), GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap allgather: `in` or `out` is NULL with %zu bytes",
            bytes);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  return run_coll(b, TCP_OP_ALLGATHER, 0, bytes, in, out);
}

/* Same contract as allgather. */
static int tcp_alltoall(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  if (bytes != 0 && (in == NULL || out == NULL)) {
    tcp_log(state_of(b), GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap alltoall: `in` or `out` is NULL with %zu bytes",
            bytes);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  return run_coll(b, TCP_OP_ALLTOALL, 0, bytes, in, out);
}

/* Same contract as allgather; every PE passes the same root and bytes. */
static int tcp_bcast(gpushmem_bootstrap_t *b, void *buf, size_t bytes, int root) {
  tcp_state_t *st = state_of(b);
  if (st != NULL && (root < 0 || root >= st->size)) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap bcast: root %d is not a PE (0..%d)", root, st->size - 1);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (bytes != 0 && buf == NULL) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bootstrap bcast: `buf` is NULL with %zu bytes", bytes);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  return run_coll(b, TCP_OP_BCAST, root, bytes, buf, buf);
}

/* Same contract as allgather. */
static int tcp_barrier(gpushmem_bootstrap_t *b) {
  return run_coll(b, TCP_OP_BARRIER, 0, 0, NULL, NULL);
}

/* From any thread of any one PE; never returns. Every PE of the job prints why and exits with status. */
static void tcp_abort(gpushmem_bootstrap_t *b, int status, const char *why) {
  tcp_state_t *st = state_of(b);
  if (why == NULL || *why == '\0') why = "(no reason given)";
  if (st == NULL) {
    tcp_exit_now(status);
  }
  if (st->rank == 0) tcp_server_abort(st, status, why);
  tcp_client_abort(st, status, why);
}

/* Collective: a last barrier, then every socket and thread is released. The table must not be used after. */
static int tcp_finalize(gpushmem_bootstrap_t *b) {
  tcp_state_t *st = state_of(b);
  if (st == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  int rc = st->rank == 0 ? tcp_server_finalize(st) : tcp_client_finalize(st);
  b->state = NULL;
  free(st);
  return rc;
}

/* Parses a whole decimal int; returns 0 on success. */
static int parse_int(const char *text, long lo, long hi, int *out) {
  if (text == NULL || *text == '\0') return -1;
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* rank/size/id/listen fd from gpushmemrun's environment. ENOLAUNCHER when gpushmemrun did not start us. */
static int from_launcher(tcp_state_t *st, const char **id, int *listen_fd) {
  const char *rank = getenv("GPUSHMEMRUN_RANK"), *size = getenv("GPUSHMEMRUN_SIZE");
  const char *fd = getenv("GPUSHMEMRUN_LISTEN_FD");
  *id = getenv("GPUSHMEMRUN_UNIQUEID");
  if (*id == NULL && rank == NULL && size == NULL) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_INFO,
            "no unique id given and not started by gpushmemrun (GPUSHMEMRUN_UNIQUEID is not set)");
    return GPUSHMEM_BOOTSTRAP_ENOLAUNCHER;
  }
  if (parse_int(size, 1, 1 << 24, &st->size) != 0 || parse_int(rank, 0, st->size - 1, &st->rank) != 0 || *id == NULL) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "gpushmemrun's environment is incomplete or malformed: GPUSHMEMRUN_RANK='%s' GPUSHMEMRUN_SIZE='%s' "
            "GPUSHMEMRUN_UNIQUEID='%s' (want 0 <= rank < size and an id); start the program with gpushmemrun -n N",
            rank ? rank : "(unset)", size ? size : "(unset)", *id ? *id : "(unset)");
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  *listen_fd = -1;
  if (st->rank == 0 && fd != NULL && parse_int(fd, 0, 1 << 30, listen_fd) != 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_WARN, "GPUSHMEMRUN_LISTEN_FD='%s' is not a file descriptor; ignoring it", fd);
    *listen_fd = -1;
  }
  return GPUSHMEM_BOOTSTRAP_OK;
}

__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v1(const gpushmem_bootstrap_args_t *args,
                                                                             gpushmem_bootstrap_t *out) {
  if (args == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  tcp_state_t *st = calloc(1, sizeof *st);
  if (st == NULL) return GPUSHMEM_BOOTSTRAP_EIO;
  st->log = args->log;
  st->rank = -1;
  atomic_init(&st->aborting, 0);
  if (args->abi_version != GPUSHMEM_BOOTSTRAP_ABI_VERSION || args->struct_size < sizeof *args) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "tcp plugin built for bootstrap ABI %d got a core with ABI %u (%u-byte "
            "args); install the plugin that came with this libgpushmem",
            GPUSHMEM_BOOTSTRAP_ABI_VERSION, args->abi_version, args->struct_size);
    free(st);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  const char *id = NULL;
  int listen_fd = -1, rc = GPUSHMEM_BOOTSTRAP_OK;
  if (args->rank >= 0) {
    st->rank = args->rank;
    st->size = args->size;
    id = args->unique_id;
    listen_fd = args->listen_fd;
    if (st->size < 1 || st->rank >= st->size || id == NULL) {
      tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
              "tcp bootstrap: rank %d, size %d and unique id %s do not make a PE "
              "(want 0 <= rank < size and the id from shmemx_get_uniqueid)",
              st->rank, st->size, id ? id : "NULL");
      rc = GPUSHMEM_BOOTSTRAP_EINVAL;
    }
  } else {
    rc = from_launcher(st, &id, &listen_fd);
  }
  if (rc == GPUSHMEM_BOOTSTRAP_OK && tcp_id_parse(id, &st->id) != 0) {
    tcp_log(st, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "tcp bootstrap: '%.150s' is not a unique id (want " TCP_ID_PREFIX
            "<ipv4>:<port>/<16 hex digits>, as shmemx_get_uniqueid or gpushmemrun make it)",
            id);
    rc = GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    if (listen_fd >= 0 && args->rank >= 0) close(listen_fd); /* the core handed it over */
    free(st);
    return rc;
  }
  st->timeout_s = args->timeout_s > 0 ? args->timeout_s : TCP_DEFAULT_TIMEOUT_S;
  if (st->rank == 0) {
    rc = tcp_server_start(st, listen_fd);
  } else {
    if (listen_fd >= 0) close(listen_fd); /* ours to release; only rank 0 listens */
    rc = tcp_client_start(st);
  }
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    free(st);
    return rc;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->name = "tcp";
  out->rank = st->rank;
  out->size = st->size;
  out->state = st;
  out->allgather = tcp_allgather;
  out->alltoall = tcp_alltoall;
  out->bcast = tcp_bcast;
  out->barrier = tcp_barrier;
  out->abort = tcp_abort;
  out->finalize = tcp_finalize;
  return GPUSHMEM_BOOTSTRAP_OK;
}
