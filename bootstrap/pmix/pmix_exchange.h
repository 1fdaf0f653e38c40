/* The three PMIx steps every pmix bootstrap collective is built from: put a blob, fence, get a peer's blob. */
#ifndef GPUSHMEM_BOOTSTRAP_PMIX_EXCHANGE_H
#define GPUSHMEM_BOOTSTRAP_PMIX_EXCHANGE_H

#include <pmix.h>
#include <stddef.h>
#include <stdint.h>

#include "gpushmem/bootstrap_plugin.h"

typedef struct pmix_state {
  pmix_proc_t me;                /* our namespace and rank */
  pmix_proc_t all;               /* our namespace, wildcard rank: every PE of the job */
  uint64_t seq;                  /* collectives issued so far; makes every key unique */
  int32_t timeout_s;             /* fence timeout handed to the server (0: none) */
  gpushmem_bootstrap_log_fn log; /* the core's logger, or NULL for stderr */
} pmix_state_t;

void pmix_log(const pmix_state_t *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Logs a failed PMIx call (naming `what`) and maps the PMIx status to a bootstrap code. */
int pmix_fail(const pmix_state_t *s, pmix_status_t rc, const char *call, const char *what);

/* Local: stages `bytes` at data under `key` (PMIx copies it) and commits it to the local server. */
int pmix_put_blob(const pmix_state_t *s, const char *key, const void *data, size_t bytes);

/* Collective over the job: returns when every PE has entered; with collect != 0 the committed blobs of all
   PEs become readable by pmix_get_blob afterwards. */
int pmix_fence(const pmix_state_t *s, int collect);

/* Local after a collecting fence: copies PE `rank`'s blob under `key` to dst, which must be exactly `bytes`. */
int pmix_get_blob(const pmix_state_t *s, int rank, const char *key, void *dst, size_t bytes);

#endif /* GPUSHMEM_BOOTSTRAP_PMIX_EXCHANGE_H */
