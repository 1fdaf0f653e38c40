/*
 * The "pmix" bootstrap: PEs are the processes of our PMIx namespace (one mpirun / srun job).
 *
 * Every collective is put + collecting fence + get, under a key carrying a per-call sequence number so
 * no two calls ever read each other's data. PMIx keeps every put for the life of the job; bootstrap
 * traffic is small and rare, so that is accepted rather than worked around.
 *
 * Abort: PMIx_Abort(status) asks the server to end the namespace, except under Open MPI 4.x's mpirun where
 * a non-zero exit status is the reliable route; see pmix_abort.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpushmem/bootstrap_plugin.h"
#include "pmix_exchange.h"

static void make_key(char *key, size_t n, const char *op, uint64_t seq, int block) {
  if (block < 0)
    snprintf(key, n, "gpushmem.%s.%llu", op, (unsigned long long)seq);
  else
    snprintf(key, n, "gpushmem.%s.%llu.%d", op, (unsigned long long)seq, block);
}

/* Collective; blocks in the fence until every PE has put its block. */
static int pmix_allgather(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  pmix_state_t *s = b->state;
  uint64_t seq = s->seq++;
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (in == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  char key[PMIX_MAX_KEYLEN + 1];
  make_key(key, sizeof key, "ag", seq, -1);
  int rc = pmix_put_blob(s, key, in, bytes);
  /* Every PE enters the fence even after a local failure, so the others are not left waiting for it. */
  int fence_rc = pmix_fence(s, 1);
  if (rc == GPUSHMEM_BOOTSTRAP_OK) rc = fence_rc;
  for (int r = 0; rc == GPUSHMEM_BOOTSTRAP_OK && r < b->size; ++r) {
    char *dst = (char *)out + (size_t)r * bytes;
    if (r == b->rank)
      memmove(dst, in, bytes); /* in may already be this block */
    else
      rc = pmix_get_blob(s, r, key, dst, bytes);
  }
  return rc;
}

/* Collective; every PE puts one key per destination, then reads the keys addressed to it. */
static int pmix_alltoall(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  pmix_state_t *s = b->state;
  uint64_t seq = s->seq++;
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (in == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  char key[PMIX_MAX_KEYLEN + 1];
  int rc = GPUSHMEM_BOOTSTRAP_OK;
  for (int dst = 0; rc == GPUSHMEM_BOOTSTRAP_OK && dst < b->size; ++dst) {
    if (dst == b->rank) continue;
    make_key(key, sizeof key, "a2a", seq, dst);
    rc = pmix_put_blob(s, key, (const char *)in + (size_t)dst * bytes, bytes);
  }
  int fence_rc = pmix_fence(s, 1); /* entered even after a failed put, as in allgather */
  if (rc == GPUSHMEM_BOOTSTRAP_OK) rc = fence_rc;
  make_key(key, sizeof key, "a2a", seq, b->rank);
  for (int src = 0; rc == GPUSHMEM_BOOTSTRAP_OK && src < b->size; ++src) {
    char *dst = (char *)out + (size_t)src * bytes;
    if (src == b->rank)
      memmove(dst, (const char *)in + (size_t)src * bytes, bytes);
    else
      rc = pmix_get_blob(s, src, key, dst, bytes);
  }
  return rc;
}

/* Collective; non-roots block in the fence until the root has put its data. */
static int pmix_bcast(gpushmem_bootstrap_t *b, void *buf, size_t bytes, int root) {
  pmix_state_t *s = b->state;
  uint64_t seq = s->seq++;
  if (root < 0 || root >= b->size) {
    pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_ERROR, "bcast: root %d is not a PE of this job (0..%d) on PE %d", root,
             b->size - 1, b->rank);
    return GPUSHMEM_BOOTSTRAP_EINVAL;
  }
  if (bytes == 0) return GPUSHMEM_BOOTSTRAP_OK;
  if (buf == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  char key[PMIX_MAX_KEYLEN + 1];
  make_key(key, sizeof key, "bc", seq, -1);
  int rc = b->rank == root ? pmix_put_blob(s, key, buf, bytes) : GPUSHMEM_BOOTSTRAP_OK;
  int fence_rc = pmix_fence(s, 1);
  if (rc == GPUSHMEM_BOOTSTRAP_OK) rc = fence_rc;
  if (rc == GPUSHMEM_BOOTSTRAP_OK && b->rank != root) rc = pmix_get_blob(s, root, key, buf, bytes);
  return rc;
}

/* Collective; returns once every PE has entered. */
static int pmix_barrier(gpushmem_bootstrap_t *b) {
  pmix_state_t *s = b->state;
  s->seq++; /* keeps the sequence identical on every PE whatever mix of calls they make */
  return pmix_fence(s, 0);
}

/* Open MPI <= 4.x's mpirun (ORTE) is the PMIx server; its children carry its contact address. */
static int launched_by_orte(void) {
  const char *policy = getenv("OMPI_MCA_orte_abort_on_non_zero_status");
  return getenv("OMPI_MCA_orte_hnp_uri") != NULL && (policy == NULL || strcmp(policy, "0") != 0);
}

/* Callable by one PE alone; never returns. */
static void pmix_abort(gpushmem_bootstrap_t *b, int status, const char *why) {
  const char *reason = why != NULL && *why != '\0' ? why : "(no reason given)";
  fprintf(stderr, "gpushmem[PE %d]: job aborted with status %d: %s\n", b->rank, status, reason);
  fflush(NULL);
  if (status != 0 && launched_by_orte()) {
    /* ORTE's mpirun (Open MPI 4.1.4 with PMIx 4.2.2) propagates PMIx_Abort's status, but when other PEs are
       blocked in PMIx_Fence at that moment it often segfaults or hangs in its own PMIx_server_finalize (13 of
       30 runs at 4 PEs). Its default policy, orte_abort_on_non_zero_status, ends every PE as soon as one exits
       with a non-zero status and reports that status, without the race (50 of 50). Status 0 has no such
       route (an exit 0 without PMIx_Finalize is reported as 1), so it still goes through PMIx_Abort. */
    _exit(status);
  }
  /* NULL procs: every process of our namespace. */
  pmix_status_t rc = PMIx_Abort(status, reason, NULL, 0);
  if (rc != PMIX_SUCCESS)
    fprintf(stderr,
            "gpushmem[PE %d]: PMIx_Abort(%d) failed: %s; exiting this PE with status %d and relying on the "
            "launcher to end the others\n",
            b->rank, status, PMIx_Error_string(rc), status);
  /* Some servers (ORTE) accept the request and end the job asynchronously, so PMIx_Abort returns; this PE
     must not run on, and leaving at once also disconnects it before the launcher tears the job down. */
  fflush(NULL);
  _exit(status);
}

/* Collective by contract; PMIx_Finalize itself does not wait for the other PEs. */
static int pmix_finalize(gpushmem_bootstrap_t *b) {
  pmix_state_t *s = b->state;
  if (s == NULL) return GPUSHMEM_BOOTSTRAP_OK;
  pmix_status_t rc = PMIx_Finalize(NULL, 0);
  int result = rc == PMIX_SUCCESS ? GPUSHMEM_BOOTSTRAP_OK : pmix_fail(s, rc, "PMIx_Finalize", "");
  free(s);
  b->state = NULL;
  return result;
}

/* Reads the job size, which PMIx may hand back in any integer type. */
static int read_job_size(pmix_state_t *s, int *size) {
  pmix_value_t *value = NULL;
  pmix_status_t rc = PMIx_Get(&s->all, PMIX_JOB_SIZE, NULL, 0, &value);
  if (rc != PMIX_SUCCESS) return pmix_fail(s, rc, "PMIx_Get", PMIX_JOB_SIZE);
  long long n = -1;
  switch (value->type) {
    case PMIX_UINT32:
      n = value->data.uint32;
      break;
    case PMIX_UINT64:
      n = (long long)value->data.uint64;
      break;
    case PMIX_INT:
      n = value->data.integer;
      break;
    case PMIX_SIZE:
      n = (long long)value->data.size;
      break;
    default:
      break;
  }
  int type = value->type;
  PMIX_VALUE_RELEASE(value);
  if (n < 1 || n > 0x7fffffff || s->me.rank >= (pmix_rank_t)n) {
    pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
             "PMIx_Get(%s) on rank %u returned %lld (type %d): not a usable job size; the launcher's PMIx server "
             "is not describing this job",
             PMIX_JOB_SIZE, s->me.rank, n, type);
    return GPUSHMEM_BOOTSTRAP_EIO;
  }
  *size = (int)n;
  return GPUSHMEM_BOOTSTRAP_OK;
}

/* Local: connects to the PMIx server of the launcher that started us (no other PE is waited for). */
__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v1(const gpushmem_bootstrap_args_t *args,
                                                                             gpushmem_bootstrap_t *out) {
  if (args == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  memset(out, 0, sizeof *out);
  pmix_state_t *s = calloc(1, sizeof *s);
  if (s == NULL) return GPUSHMEM_BOOTSTRAP_EIO;
  s->log = args->log;
  s->timeout_s = args->timeout_s;

  pmix_status_t rc = PMIx_Init(&s->me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_INFO,
             "init: PMIx_Init failed (%s): this process was not started by a PMIx launcher (mpirun, srun, prterun)",
             PMIx_Error_string(rc));
    free(s);
    return GPUSHMEM_BOOTSTRAP_ENOLAUNCHER;
  }
  PMIX_LOAD_PROCID(&s->all, s->me.nspace, PMIX_RANK_WILDCARD);
  int size = 0;
  int status = read_job_size(s, &size);
  if (status != GPUSHMEM_BOOTSTRAP_OK) {
    PMIx_Finalize(NULL, 0);
    free(s);
    return status;
  }

  out->abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->name = "pmix";
  out->rank = (int)s->me.rank;
  out->size = size;
  out->state = s;
  out->allgather = pmix_allgather;
  out->alltoall = pmix_alltoall;
  out->bcast = pmix_bcast;
  out->barrier = pmix_barrier;
  out->abort = pmix_abort;
  out->finalize = pmix_finalize;
  return GPUSHMEM_BOOTSTRAP_OK;
}
