/*
 * What the tcp bootstrap's test programs share: loading the plugin without libgpushmem, its arguments, a
 * log callback that keeps the last error, and CHECK.
 */
#ifndef GPUSHMEM_TCP_SELFTEST_PLUGIN_H
#define GPUSHMEM_TCP_SELFTEST_PLUGIN_H

#include <stdio.h>
#include <stdlib.h>

#include "gpushmem/bootstrap_plugin.h"

/* This process's rank once known (-1 before), and the last ERROR the plugin logged. */
extern int g_rank;
extern char g_last_error[4096];

#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "selftest[PE %d] FAILED at line %d: %s: ", g_rank, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                        \
      fprintf(stderr, "\n");                                                               \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

/* The plugin's init function ($TCP_SELFTEST_PLUGIN, else the path the build gave). */
gpushmem_bootstrap_init_fn load_plugin(void);
/* Arguments with the log callback and the timeout set; rank -1 and listen_fd -1 (the launcher's). */
gpushmem_bootstrap_args_t base_args(int timeout_s);
/* init, checked; sets g_rank. */
void start(gpushmem_bootstrap_t *b, const gpushmem_bootstrap_args_t *a);
/* Seconds of CLOCK_MONOTONIC. */
double now_s(void);

#endif /* GPUSHMEM_TCP_SELFTEST_PLUGIN_H */
