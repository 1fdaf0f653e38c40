/*
 * Self-test of the tcp bootstrap plugin, without libgpushmem: dlopens the plugin and drives its table.
 *
 *   under gpushmemrun -n N:
 *     check            every collective with data checks (sizes 0..1 MiB, every bcast root, in place)
 *     explicit         the same, but rank/size/id/listen fd passed as init arguments (as the core does)
 *     explicit-nofd    as explicit, but rank 0 drops the inherited socket: the plugin binds the port itself
 *     abort R S        rank R calls abort(S) after a barrier; every PE must end with status S
 *     kill R           rank R raises SIGKILL after a barrier; the others must not hang
 *     late R T         collective timeout T s; rank R arrives T+2 s late: the others get ETIMEDOUT naming R
 *     mismatch         rank 1 calls bcast while the others call allgather: everyone gets EINVAL
 *   alone (forks its own PEs, no launcher):
 *     fork-kill N K    PE K dies by SIGKILL mid-job; the other N-1 must exit 1 within 5 s
 *     fork-abort N K S PE K calls abort(S); the other N-1 must exit S within 5 s
 *
 * Prints what failed and exits nonzero on any failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpushmem/bootstrap_plugin.h"
#include "selftest_plugin.h"
#include "tcp_id.h"
#include "tcp_sock.h"

static unsigned char pat(int from, int to, size_t i) {
  return (unsigned char)(from * 31 + to * 7 + i * 13 + 1);
}

static int env_int(const char *name) {
  const char *v = getenv(name);
  CHECK(v != NULL, "%s is not set: run this mode under gpushmemrun", name);
  return atoi(v);
}

static void check_collectives(gpushmem_bootstrap_t *b) {
  static const size_t sizes[] = {0, 1, 7, 64, 4096, 1 << 20};
  int me = b->rank, n = b->size;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    size_t bytes = sizes[k];
    unsigned char *in = malloc(bytes * (size_t)n + 1), *out = malloc(bytes * (size_t)n + 1);
    CHECK(in && out, "malloc");

    for (size_t i = 0; i < bytes; ++i) in[i] = pat(me, 0, i);
    memset(out, 0xEE, bytes * (size_t)n);
    CHECK(b->allgather(b, in, out, bytes) == 0, "allgather %zu", bytes);
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        CHECK(out[(size_t)r * bytes + i] == pat(r, 0, i), "allgather %zu: block %d byte %zu", bytes, r, i);

    /* in place: our block already sits in out */
    memset(out, 0xEE, bytes * (size_t)n);
    for (size_t i = 0; i < bytes; ++i) out[(size_t)me * bytes + i] = pat(me, 1, i);
    CHECK(b->allgather(b, out + (size_t)me * bytes, out, bytes) == 0, "in-place allgather %zu", bytes);
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        CHECK(out[(size_t)r * bytes + i] == pat(r, 1, i), "in-place allgather %zu: block %d byte %zu", bytes, r, i);

    for (int j = 0; j < n; ++j)
      for (size_t i = 0; i < bytes; ++i) in[(size_t)j * bytes + i] = pat(me, j, i);
    memset(out, 0xEE, bytes * (size_t)n);
    CHECK(b->alltoall(b, in, out, bytes) == 0, "alltoall %zu", bytes);
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        CHECK(out[(size_t)r * bytes + i] == pat(r, me, i), "alltoall %zu: block from %d byte %zu", bytes, r, i);

    for (int root = 0; root < n && root < 4; ++root) {
      for (size_t i = 0; i < bytes; ++i) in[i] = me == root ? pat(root, 2, i) : 0xEE;
      CHECK(b->bcast(b, in, bytes, root) == 0, "bcast %zu root %d", bytes, root);
      for (size_t i = 0; i < bytes; ++i) CHECK(in[i] == pat(root, 2, i), "bcast %zu root %d byte %zu", bytes, root, i);
    }
    CHECK(b->barrier(b) == 0, "barrier");
    free(in);
    free(out);
  }
  CHECK(b->bcast(b, NULL, 0, n) == GPUSHMEM_BOOTSTRAP_EINVAL, "bcast with root %d must be refused", n);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < 500; ++i) CHECK(b->barrier(b) == 0, "barrier %d", i);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / 500;
  if (me == 0) fprintf(stderr, "selftest: %d PEs, %.1f us per barrier\n", n, us);
}

static void finish(gpushmem_bootstrap_t *b, const char *what) {
  int rc = b->finalize(b);
  CHECK(rc == 0, "finalize returned %d", rc);
  fprintf(stderr, "selftest[PE %d]: %s passed\n", g_rank, what);
}

/* rank/size/id (and rank 0's socket) handed over explicitly, the way libgpushmem's init does. */
static gpushmem_bootstrap_args_t explicit_args(int keep_fd) {
  gpushmem_bootstrap_args_t a = base_args(0);
  a.rank = env_int("GPUSHMEMRUN_RANK");
  a.size = env_int("GPUSHMEMRUN_SIZE");
  a.unique_id = getenv("GPUSHMEMRUN_UNIQUEID");
  const char *fd = getenv("GPUSHMEMRUN_LISTEN_FD");
  if (fd != NULL && keep_fd) a.listen_fd = atoi(fd);
  if (fd != NULL && !keep_fd) close(atoi(fd));
  return a;
}

static int run_late(gpushmem_bootstrap_t *b, int late, int t) {
  CHECK(b->barrier(b) == 0, "first barrier");
  if (b->rank == late) {
    sleep((unsigned)t + 2);
    CHECK(b->barrier(b) != 0, "a barrier after the others timed out must fail");
  } else {
    time_t t0 = time(NULL);
    int rc = b->barrier(b);
    CHECK(rc == GPUSHMEM_BOOTSTRAP_ETIMEDOUT, "barrier returned %d, want ETIMEDOUT", rc);
    char want[32];
    snprintf(want, sizeof want, "PE(s) %d did not", late);
    CHECK(strstr(g_last_error, want) != NULL, "the timeout message does not name PE %d: %s", late, g_last_error);
    CHECK(time(NULL) - t0 <= t + 3, "ETIMEDOUT came after %ld s, the timeout is %d s", (long)(time(NULL) - t0), t);
  }
  int rc = b->finalize(b); /* finalize after a failure reports it but must not end the job */
  fprintf(stderr, "selftest[PE %d]: late passed (finalize returned %d)\n", g_rank, rc);
  return 0;
}

static int run_mismatch(gpushmem_bootstrap_t *b) {
  unsigned char buf[8 * 64] = {0};
  CHECK(b->size >= 2 && b->size <= 64, "mismatch needs 2..64 PEs");
  int rc = b->rank == 1 ? b->bcast(b, buf, 8, 0) : b->allgather(b, buf, buf, 8);
  CHECK(rc == GPUSHMEM_BOOTSTRAP_EINVAL, "mismatched collective returned %d, want EINVAL", rc);
  CHECK(strstr(g_last_error, "do not match") != NULL, "message: %s", g_last_error);
  CHECK(b->barrier(b) != 0, "a collective after a failed one must fail too");
  b->finalize(b);
  fprintf(stderr, "selftest[PE %d]: mismatch passed\n", g_rank);
  return 0;
}

/* Forks n PEs joined through a socket made here (no gpushmemrun); PE k dies (SIGKILL) or aborts(status).
   Checks that every other PE ends with `want` within 5 s. */
static int run_forked(int n, int k, int abort_status) {
  int fd = tcp_listen(htonl(INADDR_LOOPBACK), 0);
  CHECK(fd >= 0, "listen: %s", strerror(-fd));
  struct sockaddr_in sa;
  socklen_t len = sizeof sa;
  CHECK(getsockname(fd, (struct sockaddr *)&sa, &len) == 0, "getsockname");
  char id[128];
  CHECK(tcp_id_format(id, sizeof id, "127.0.0.1", ntohs(sa.sin_port), 0x0123456789abcdefull) > 0, "id");
  pid_t *pids = calloc((size_t)n, sizeof *pids);
  for (int r = 0; r < n; ++r) {
    pids[r] = fork();
    CHECK(pids[r] >= 0, "fork");
    if (pids[r] > 0) continue;
    gpushmem_bootstrap_args_t a = base_args(30);
    a.rank = r;
    a.size = n;
    a.unique_id = id;
    if (r == 0)
      a.listen_fd = fd;
    else
      close(fd);
    gpushmem_bootstrap_t b;
    start(&b, &a);
    CHECK(b.barrier(&b) == 0, "barrier");
    if (r == k && abort_status < 0) raise(SIGKILL);
    if (r == k) b.abort(&b, abort_status, "selftest: PE asked to abort");
    b.barrier(&b); /* must never complete: PE k is gone */
    fprintf(stderr, "selftest[PE %d]: FAILED: a barrier without PE %d returned\n", r, k);
    _exit(98);
  }
  close(fd);
  int want = abort_status < 0 ? 1 : abort_status, failures = 0;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int left = n; left > 0;) {
    int ws;
    pid_t pid = waitpid(-1, &ws, 0);
    CHECK(pid > 0, "waitpid: %s", strerror(errno));
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double s = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
    int r = 0;
    while (r < n && pids[r] != pid) ++r;
    --left;
    if (r == k && abort_status < 0) {
      if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL) ++failures, fprintf(stderr, "PE %d did not die by SIGKILL\n", r);
      continue;
    }
    int st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    fprintf(stderr, "selftest: PE %d ended with status %d after %.2f s\n", r, st, s);
    if (st != want) ++failures, fprintf(stderr, "selftest: FAILED: PE %d ended with %d, want %d\n", r, st, want);
    if (s > 5.0) ++failures, fprintf(stderr, "selftest: FAILED: PE %d took %.2f s to end (limit 5 s)\n", r, s);
  }
  free(pids);
  if (failures == 0) fprintf(stderr, "selftest: fork-%s passed\n", abort_status < 0 ? "kill" : "abort");
  return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "check";
  signal(SIGPIPE, SIG_IGN);
  if (strcmp(mode, "fork-kill") == 0 && argc == 4) return run_forked(atoi(argv[2]), atoi(argv[3]), -1);
  if (strcmp(mode, "fork-abort") == 0 && argc == 5) return run_forked(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));

  gpushmem_bootstrap_t b;
  if (strcmp(mode, "check") == 0) {
    gpushmem_bootstrap_args_t a = base_args(0);
    start(&b, &a);
    check_collectives(&b);
    finish(&b, "check");
    return 0;
  }
  if (strcmp(mode, "explicit") == 0 || strcmp(mode, "explicit-nofd") == 0) {
    gpushmem_bootstrap_args_t a = explicit_args(strcmp(mode, "explicit") == 0);
    start(&b, &a);
    check_collectives(&b);
    finish(&b, mode);
    return 0;
  }
  if (strcmp(mode, "abort") == 0 && argc == 4) {
    gpushmem_bootstrap_args_t a = base_args(0);
    start(&b, &a);
    CHECK(b.barrier(&b) == 0, "barrier");
    if (b.rank == atoi(argv[2])) b.abort(&b, atoi(argv[3]), "selftest: PE asked to abort");
    b.barrier(&b);
    fprintf(stderr, "selftest[PE %d]: FAILED: still running after an abort\n", b.rank);
    return 99;
  }
  if (strcmp(mode, "kill") == 0 && argc == 3) {
    gpushmem_bootstrap_args_t a = base_args(0);
    start(&b, &a);
    CHECK(b.barrier(&b) == 0, "barrier");
    if (b.rank == atoi(argv[2])) raise(SIGKILL);
    b.barrier(&b);
    fprintf(stderr, "selftest[PE %d]: FAILED: a barrier completed without a killed PE\n", b.rank);
    return 98;
  }
  if (strcmp(mode, "late") == 0 && argc == 4) {
    gpushmem_bootstrap_args_t a = base_args(atoi(argv[3]));
    start(&b, &a);
    return run_late(&b, atoi(argv[2]), atoi(argv[3]));
  }
  if (strcmp(mode, "mismatch") == 0) {
    gpushmem_bootstrap_args_t a = base_args(10);
    start(&b, &a);
    return run_mismatch(&b);
  }
  fprintf(stderr,
          "usage: %s check | explicit | explicit-nofd | abort R S | kill R | late R T | mismatch |\n"
          "          fork-kill N K | fork-abort N K S\n",
          argv[0]);
  return 2;
}
