/* The "single" bootstrap: one PE, used when no launcher started the program. Collectives are copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpushmem/bootstrap_plugin.h"

static int single_allgather(gpushmem_bootstrap_t *b, const void *in, void *out, size_t bytes) {
  (void)b;
  if (bytes != 0 && in != out) memmove(out, in, bytes);
  return GPUSHMEM_BOOTSTRAP_OK;
}

static int single_bcast(gpushmem_bootstrap_t *b, void *buf, size_t bytes, int root) {
  (void)b, (void)buf, (void)bytes;
  return root == 0 ? GPUSHMEM_BOOTSTRAP_OK : GPUSHMEM_BOOTSTRAP_EINVAL;
}

static int single_barrier(gpushmem_bootstrap_t *b) {
  (void)b;
  return GPUSHMEM_BOOTSTRAP_OK;
}

static void single_abort(gpushmem_bootstrap_t *b, int status, const char *why) {
  (void)b;
  if (why != NULL && *why != '\0') fprintf(stderr, "gpushmem[PE 0]: job aborted: %s\n", why);
  fflush(NULL);
  _exit(status);
}

static int single_finalize(gpushmem_bootstrap_t *b) {
  (void)b;
  return GPUSHMEM_BOOTSTRAP_OK;
}

__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v1(const gpushmem_bootstrap_args_t *args,
                                                                             gpushmem_bootstrap_t *out) {
  if (args == NULL || out == NULL) return GPUSHMEM_BOOTSTRAP_EINVAL;
  memset(out, 0, sizeof *out);
  out->abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->name = "single";
  out->rank = 0;
  out->size = 1;
  out->allgather = single_allgather;
  out->alltoall = single_allgather; /* one block: the same copy */
  out->bcast = single_bcast;
  out->barrier = single_barrier;
  out->abort = single_abort;
  out->finalize = single_finalize;
  return GPUSHMEM_BOOTSTRAP_OK;
}
