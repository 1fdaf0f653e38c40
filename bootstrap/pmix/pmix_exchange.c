/* Put / fence / get with PMIx, each checked and logged once where it fails. */
#include "pmix_exchange.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A get after a completed collecting fence only reads what the server already holds; if the key is missing
   the sizes or call order disagree between PEs, so waiting longer than this would only hide the bug. */
enum { PMIX_GET_DEFAULT_TIMEOUT_S = 60 };

void pmix_log(const pmix_state_t *s, int level, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (s->log != NULL)
    s->log(level, "pmix", msg);
  else
    fprintf(stderr, "gpushmem bootstrap pmix: %s\n", msg);
}

int pmix_fail(const pmix_state_t *s, pmix_status_t rc, const char *call, const char *what) {
  if (rc == PMIX_ERR_TIMEOUT) {
    pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
             "%s(%s) timed out on PE %u of namespace %s: some PE did not reach this bootstrap collective in time; "
             "look for a PE that failed or is stuck earlier, or raise the bootstrap timeout",
             call, what, s->me.rank, s->me.nspace);
    return GPUSHMEM_BOOTSTRAP_ETIMEDOUT;
  }
  pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
           "%s(%s) failed on PE %u of namespace %s: %s; check that every PE calls the same bootstrap collectives "
           "with the same sizes, and the launcher's output for a failed peer",
           call, what, s->me.rank, s->me.nspace, PMIx_Error_string(rc));
  return rc == PMIX_ERR_BAD_PARAM ? GPUSHMEM_BOOTSTRAP_EINVAL : GPUSHMEM_BOOTSTRAP_EIO;
}

int pmix_put_blob(const pmix_state_t *s, const char *key, const void *data, size_t bytes) {
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  /* PMIx_Put copies the value into its own cache, so pointing at the caller's buffer is enough. */
  value.data.bo.bytes = (char *)data;
  value.data.bo.size = bytes;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &value);
  if (rc != PMIX_SUCCESS) return pmix_fail(s, rc, "PMIx_Put", key);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) return pmix_fail(s, rc, "PMIx_Commit", key);
  return GPUSHMEM_BOOTSTRAP_OK;
}

int pmix_fence(const pmix_state_t *s, int collect) {
  pmix_info_t info[2];
  size_t ninfo = 0;
  bool yes = true;
  int timeout = s->timeout_s;
  if (collect) PMIX_INFO_LOAD(&info[ninfo++], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  if (timeout > 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
  pmix_status_t rc = PMIx_Fence(&s->all, 1, ninfo > 0 ? info : NULL, ninfo);
  for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
  if (rc != PMIX_SUCCESS) return pmix_fail(s, rc, "PMIx_Fence", collect ? "collect data" : "barrier");
  return GPUSHMEM_BOOTSTRAP_OK;
}

int pmix_get_blob(const pmix_state_t *s, int rank, const char *key, void *dst, size_t bytes) {
  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, s->me.nspace, (pmix_rank_t)rank);
  pmix_info_t info;
  int timeout = s->timeout_s > 0 ? s->timeout_s : PMIX_GET_DEFAULT_TIMEOUT_S;
  PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
  pmix_value_t *value = NULL;
  pmix_status_t rc = PMIx_Get(&peer, key, &info, 1, &value);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) {
    char what[PMIX_MAX_KEYLEN + 32];
    snprintf(what, sizeof what, "PE %d, key %s", rank, key);
    return pmix_fail(s, rc, "PMIx_Get", what);
  }
  int result = GPUSHMEM_BOOTSTRAP_OK;
  if (value == NULL || value->type != PMIX_BYTE_OBJECT || value->data.bo.size != bytes) {
    pmix_log(s, GPUSHMEM_BOOTSTRAP_LOG_ERROR,
             "PMIx_Get(PE %d, key %s) on PE %u returned %zu bytes of type %d, expected %zu bytes of byte object: "
             "the PEs called the bootstrap collective with different sizes",
             rank, key, s->me.rank, value != NULL && value->type == PMIX_BYTE_OBJECT ? value->data.bo.size : 0,
             value != NULL ? (int)value->type : -1, bytes);
    result = GPUSHMEM_BOOTSTRAP_EINVAL;
  } else if (bytes > 0) {
    memcpy(dst, value->data.bo.bytes, bytes);
  }
  if (value != NULL) PMIX_VALUE_RELEASE(value);
  return result;
}
