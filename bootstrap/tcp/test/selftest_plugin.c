#define _GNU_SOURCE
#include "selftest_plugin.h"

#include <dlfcn.h>
#include <string.h>
#include <time.h>

#ifndef TCP_PLUGIN_PATH
#define TCP_PLUGIN_PATH "libgpushmem_bootstrap_tcp.so"
#endif

int g_rank = -1;
char g_last_error[4096];

static void on_log(int level, const char *plugin, const char *message) {
  if (level == GPUSHMEM_BOOTSTRAP_LOG_ERROR) snprintf(g_last_error, sizeof g_last_error, "%s", message);
  fprintf(stderr, "selftest[PE %d] %s %s: %s\n", g_rank,
          level == 0   ? "ERROR"
          : level == 1 ? "WARN"
                       : "INFO",
          plugin, message);
}

gpushmem_bootstrap_init_fn load_plugin(void) {
  const char *path = getenv("TCP_SELFTEST_PLUGIN");
  if (path == NULL) path = TCP_PLUGIN_PATH;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen %s: %s", path, dlerror());
  gpushmem_bootstrap_init_fn fn = (gpushmem_bootstrap_init_fn)dlsym(h, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL);
  CHECK(fn != NULL, "%s has no %s", path, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL);
  return fn;
}

gpushmem_bootstrap_args_t base_args(int timeout_s) {
  gpushmem_bootstrap_args_t a;
  memset(&a, 0, sizeof a);
  a.abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  a.struct_size = sizeof a;
  a.log = on_log;
  a.rank = -1;
  a.listen_fd = -1;
  a.timeout_s = timeout_s;
  return a;
}

void start(gpushmem_bootstrap_t *b, const gpushmem_bootstrap_args_t *a) {
  int rc = load_plugin()(a, b);
  CHECK(rc == GPUSHMEM_BOOTSTRAP_OK, "plugin init returned %d", rc);
  CHECK(b->size >= 1 && b->rank >= 0 && b->rank < b->size, "rank %d size %d", b->rank, b->size);
  g_rank = b->rank;
}

double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
