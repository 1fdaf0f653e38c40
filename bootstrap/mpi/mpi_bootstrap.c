/*
 * The "mpi" bootstrap: PEs are the ranks of an MPI communicator.
 *
 * The communicator is the application's (args->mpi_comm, MPI initialised by the application) or
 * MPI_COMM_WORLD (MPI initialised here if nobody did, and then finalised here too). Either way the plugin
 * works on its own duplicate, with MPI_ERRORS_RETURN, so a failed collective is reported instead of
 * killing the job and our traffic never matches the application's.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpushmem/bootstrap_plugin.h"
#include "mpi_bytes.h"

typedef struct mpi_state {
  MPI_Comm comm;                 /* our duplicate; freed at finalize */
  int finalize_mpi;              /* 1: this plugin called MPI_Init_thread */
  gpushmem_bootstrap_log_fn log; /* the core's logger, or NULL for stderr */
  int rank;
} mpi_state_t;

static void mpi_log(gpushmem_bootstrap_log_fn log, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void mpi_log(gpushmem_bootstrap_log_fn log, int level, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (log != NULL)
    log(level, "mpi", msg);
  else
    fprintf(stderr, "gpushmem bootstrap mpi: %s\n", msg);
}

/* Logs a failed MPI call with the library's own explanation and maps it to EIO. */
static int mpi_fail(const mpi_state_t *s, int mpi_rc, const char *call, size_t bytes) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error code %d", mpi_rc);
  mpi_log(s->log, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
          "%s(%zu bytes per PE) failed on PE %d: %s; check that every PE calls the same bootstrap collectives "
          "with the same sizes, and the MPI launcher's output for a failed peer",
          call, bytes, s->rank, text);
  return GPUSHMEM_BOOTSTRAP_EIO;
}

/* Collective over the plugin's communicator; blocks until every PE has contributed. */
static int mpi_allgather(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  mpi_state_t *s = b->state;
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (in == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  mpi_bytes_t t;
  int rc = mpi_bytes_make(bytes, &t);
  if (rc != MPI_SUCCESS) return mpi_fail(s, rc, "MPI_Type_create (block for MPI_Allgather)", bytes);
  /* The core may gather in place (its own block already at out + rank*bytes). */
  const void *send = in == (const char *)out + (size_t)b->rank * bytes ? MPI_IN_PLACE : in;
  rc = MPI_Allgather(send, t.count, t.type, out, t.count, t.type, s->comm);
  mpi_bytes_free(&t);
  return rc == MPI_SUCCESS ? GPUSHMEM_BOOTSTRAP_OK : mpi_fail(s, rc, "MPI_Allgather", bytes);
}

/* Collective; blocks until this PE has received its block from every PE. */
static int mpi_alltoall(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  mpi_state_t *s = b->state;
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (in == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  mpi_bytes_t t;
  int rc = mpi_bytes_make(bytes, &t);
  if (rc != MPI_SUCCESS) return mpi_fail(s, rc, "MPI_Type_create (block for MPI_Alltoall)", bytes);
  const void *send = in == out ? MPI_IN_PLACE : in;
  rc = MPI_Alltoall(send, t.count, t.type, out, t.count, t.type, s->comm);
  mpi_bytes_free(&t);
  return rc == MPI_SUCCESS ? GPUSHMEM_BOOTSTRAP_OK : mpi_fail(s, rc, "MPI_Alltoall", bytes);
}

/* Collective; blocks until root's data has arrived here (the root: until its buffer may be reused). */
static int mpi_bcast(gpushmem_bootstrap_t *b, void *buf, size_t bytes, int root) {
  mpi_state_t *s = b->state;
  if (root < 0 || root >= b->size) {
    mpi_log(s->log, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bcast: root %d is not a PE of this job (0..%d) on PE %d", root,
            b->size - 1, s->rank);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (buf == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  mpi_bytes_t t;
  int rc = mpi_bytes_make(bytes, &t);
  if (rc != MPI_SUCCESS) return mpi_fail(s, rc, "MPI_Type_create (block for MPI_Bcast)", bytes);
  rc = MPI_Bcast(buf, t.count, t.type, root, s->comm);
  mpi_bytes_free(&t);
  return rc == MPI_SUCCESS ? GPUSHMEM_BOOTSTRAP_OK : mpi_fail(s, rc, "MPI_Bcast", bytes);
}

/* Collective; returns once every PE has entered. */
static int mpi_barrier(gpushmem_bootstrap_t *b) {
  mpi_state_t *s = b->state;
  int rc = MPI_Barrier(s->comm);
  return rc == MPI_SUCCESS ? GPUSHMEM_BOOTSTRAP_OK : mpi_fail(s, rc, "MPI_Barrier", 0);
}

/* Callable by one PE alone. MPI_Abort makes the launcher end every process; mpirun exits with `status`. */
static void mpi_abort(gpushmem_bootstrap_t *b, int status, const char *why) {
  mpi_state_t *s = b->state;
  fprintf(stderr, "gpushmem[PE %d]: job aborted with status %d: %s\n", b->rank, status,
          why != NULL && *why != '\0' ? why : "(no reason given)");
  fflush(NULL);
  MPI_Abort(s != NULL ? s->comm : MPI_COMM_WORLD, status);
  _exit(status); /* MPI_Abort does not return; this only covers a broken implementation */
}

/* Collective (MPI_Comm_free, MPI_Finalize). */
static int mpi_finalize(gpushmem_bootstrap_t *b) {
  mpi_state_t *s = b->state;
  if (s == NULL) return GPUSHMEM_BOOTSTRAP_OK;
  int result = GPUSHMEM_BOOTSTRAP_OK;
  int rc = MPI_Comm_free(&s->comm);
  if (rc != MPI_SUCCESS) result = mpi_fail(s, rc, "MPI_Comm_free", 0);
  if (s->finalize_mpi) {
    rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) result = mpi_fail(s, rc, "MPI_Finalize", 0);
  }
  free(s);
  b->state = NULL;
  return result;
}

/* Brings MPI up if nobody did. Sets *we_did when this plugin must finalise it. */
static int mpi_ensure_initialized(const gpushmem_bootstrap_args_t *args, int *we_did) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  *we_did = 0;
  if (finalized) {
    mpi_log(args->log, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "init: MPI was already finalised in this process and cannot start again; initialise gpushmem before "
            "MPI_Finalize, or choose another bootstrap (GPUSHMEM_BOOTSTRAP)");
    return GPUSHMEM_BOOTSTRAP_ENOLAUNCHER;
  }
  if (args->mpi_comm != NULL && !initialized) {
    mpi_log(args->log, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
            "init: an MPI communicator was given (shmemx_init_attr mpi_comm) but MPI is not initialised; call "
            "MPI_Init before shmemx_init_attr");
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (initialized) return GPUSHMEM_BOOTSTRAP_OK;
  /* Only one thread drives the bootstrap at a time, but the application may use MPI from others. */
  int provided = MPI_THREAD_SINGLE;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) {
    mpi_log(args->log, GPUSHMEM_BOOTSTRAP_LOG_INFO, "init: MPI_Init_thread failed (code %d): no MPI job here", rc);
    return GPUSHMEM_BOOTSTRAP_ENOLAUNCHER;
  }
  *we_did = 1;
  if (provided < MPI_THREAD_MULTIPLE)
    mpi_log(args->log, GPUSHMEM_BOOTSTRAP_LOG_INFO,
            "init: MPI provides thread level %d, not MPI_THREAD_MULTIPLE; the application must not call MPI "
            "concurrently with gpushmem set-up",
            provided);
  return GPUSHMEM_BOOTSTRAP_OK;
}

/* Not collective by itself, but MPI_Comm_dup is: every PE of the communicator must call init. */
__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v1(const gpushmem_bootstrap_args_t *args,
                                                                             gpushmem_bootstrap_t *out) {
  if (args == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  memset(out, 0, sizeof *out);
  int we_initialized = 0;
  int status = mpi_ensure_initialized(args, &we_initialized);
  if (status != GPUSHMEM_BOOTSTRAP_OK) return status;

  mpi_state_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    mpi_log(args->log, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "init: out of memory for %zu bytes of plugin state", sizeof *s);
    if (we_initialized) MPI_Finalize();
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  s->log = args->log;
  s->finalize_mpi = we_initialized;
  s->comm = MPI_COMM_NULL;
  MPI_Comm base = args->mpi_comm != NULL ? *(const MPI_Comm *)args->mpi_comm : MPI_COMM_WORLD;
  int size = 0;
  int rc = MPI_Comm_dup(base, &s->comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(s->comm, &s->rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(s->comm, &size);
  if (rc != MPI_SUCCESS) {
    status = mpi_fail(
        s, rc, args->mpi_comm != NULL ? "MPI_Comm_dup(application communicator)" : "MPI_Comm_dup(MPI_COMM_WORLD)", 0);
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    if (we_initialized) MPI_Finalize();
    free(s);
    return status;
  }

  out->abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->name = "mpi";
  out->rank = s->rank;
  out->size = size;
  out->state = s;
  out->allgather = mpi_allgather;
  out->alltoall = mpi_alltoall;
  out->bcast = mpi_bcast;
  out->barrier = mpi_barrier;
  out->abort = mpi_abort;
  out->finalize = mpi_finalize;
  return GPUSHMEM_BOOTSTRAP_OK;
}
