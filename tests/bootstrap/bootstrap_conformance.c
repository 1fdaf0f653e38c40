/*
 * bootstrap_conformance <plugin.so> [--size N] [--abort S]
 *
 * Started by a launcher (mpirun, gpushmemrun) once per PE. Loads the plugin the way libgpushmem does and
 * checks every collective's data. With --abort N, PE size-1 calls abort(N) while the others wait in a
 * barrier; the launcher must then exit with status S (expect_status.sh checks it). --size N fails the run
 * unless the plugin reports N PEs (a launcher that started N unrelated single PEs would otherwise pass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance_checks.h"

/* How long the waiting PEs give the launcher to end them after PE size-1 aborted. */
enum { kAbortWaitS = 30 };

static void usage(void) {
  fprintf(stderr,
          "usage: bootstrap_conformance <path to libgpushmem_bootstrap_NAME.so> [--size N] [--abort STATUS]\n"
          "  run once per PE under the plugin's launcher, e.g. mpirun -np 4 bootstrap_conformance ...\n");
  exit(64);
}

static void run_abort(gpushmem_bootstrap_t *b, int status) {
  /* Everyone is up before the abort, so it also has to end PEs that are blocked in a collective. */
  int rc = b->barrier(b);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) conformance_fail(b, "barrier before abort", "returned %d", rc);
  if (b->rank == b->size - 1) {
    b->abort(b, status, "test abort");
    fprintf(stderr, "bootstrap_conformance %s PE %d: FAILED abort: abort(%d) returned\n", b->name, b->rank, status);
    exit(101);
  }
  rc = b->barrier(b);
  fprintf(stderr,
          "bootstrap_conformance %s PE %d: barrier returned %d although PE %d aborted; waiting up to %d s for the "
          "launcher to end this PE\n",
          b->name, b->rank, rc, b->size - 1, kAbortWaitS);
  struct timespec step = {1, 0};
  for (int i = 0; i < kAbortWaitS; ++i) nanosleep(&step, NULL);
  fprintf(stderr, "bootstrap_conformance %s PE %d: FAILED abort: still running %d s after PE %d aborted\n", b->name,
          b->rank, kAbortWaitS, b->size - 1);
  exit(100);
}

static int parse_int(const char *text, int lo, int hi) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) usage();
  return (int)v;
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') usage();
  int abort_status = -1, expect_size = -1;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) usage();
    if (strcmp(argv[i], "--abort") == 0)
      abort_status = parse_int(argv[i + 1], 1, 255);
    else if (strcmp(argv[i], "--size") == 0)
      expect_size = parse_int(argv[i + 1], 1, 1 << 20);
    else
      usage();
  }
  gpushmem_bootstrap_args_t args;
  memset(&args, 0, sizeof args);
  args.abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  args.struct_size = sizeof args;
  args.log = conformance_log;
  args.mpi_comm = NULL;
  args.rank = -1;
  args.size = 0;
  args.unique_id = NULL;
  args.listen_fd = -1;
  args.timeout_s = 0;

  gpushmem_bootstrap_t b;
  conformance_load(argv[1], &args, &b);
  if (expect_size > 0 && b.size != expect_size)
    conformance_fail(&b, "size", "the plugin reports %d PEs, the launcher was asked for %d", b.size, expect_size);
  if (abort_status >= 0) run_abort(&b, abort_status);

  conformance_run(&b);
  const char *name = b.name;
  int rank = b.rank, size = b.size;
  int rc = b.finalize(&b);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    fprintf(stderr, "bootstrap_conformance %s PE %d: FAILED finalize: returned %d\n", name, rank, rc);
    return 2;
  }
  if (rank == 0) printf("bootstrap_conformance %s: %d ranks OK\n", name, size);
  return 0;
}
