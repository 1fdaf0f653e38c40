/* Data-checked exercise of every collective of a bootstrap plugin table, shared by the test drivers. */
#ifndef GPUSHMEM_TESTS_BOOTSTRAP_CONFORMANCE_CHECKS_H
#define GPUSHMEM_TESTS_BOOTSTRAP_CONFORMANCE_CHECKS_H

#include "gpushmem/bootstrap_plugin.h"

/* Prints "<prog> PE <r>: FAILED <check>: <detail>" and ends the job: through b->abort(2, ...) once a table
   exists (so peers blocked in a collective end too), else exit(2). */
void conformance_fail(gpushmem_bootstrap_t *b, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* Loads `path`, calls its init symbol with `args`, checks the table it filled. Fails the test on any error. */
void conformance_load(const char *path, const gpushmem_bootstrap_args_t *args, gpushmem_bootstrap_t *b);

/* Log callback handed to plugins: prints to stderr with the level. */
void conformance_log(int level, const char *plugin, const char *message);

/* Collective: runs the allgather, alltoall, bcast and barrier checks. Returns only if all passed. */
void conformance_run(gpushmem_bootstrap_t *b);

#endif /* GPUSHMEM_TESTS_BOOTSTRAP_CONFORMANCE_CHECKS_H */
