/*
 * shmemx_get_uniqueid + shmemx_init_attr, with no launcher: this program forks its own PEs.
 *
 *   pe_uniqueid run N     PE 0 makes the id and checks its socket listens on the id's address only (never
 *                         0.0.0.0); the id reaches PEs 1..N-1 through pipes; every PE initialises with it,
 *                         puts its number to the next PE, checks what the previous one put, and finalizes.
 *   pe_uniqueid listen    makes an id with the environment as given and checks the socket the same way;
 *                         starts no job (with the default address, no traffic at all).
 *   pe_uniqueid refused   shmemx_get_uniqueid must fail (a bad GPUSHMEM_BOOTSTRAP_TCP_ADDR): exits 0 if it did.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <shmem.h>
#include <shmemx.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PES 16

static int failed(const char *what) {
  fprintf(stderr, "uniqueid: FAILED: %s\n", what);
  return 1;
}

/* The id's address and port ("gpushmem-tcp1://a.b.c.d:port/cookie"). */
static int id_address(const shmemx_uniqueid_t *id, struct in_addr *addr, unsigned *port) {
  char ip[32];
  if (sscanf(id->internal, "gpushmem-tcp1://%31[0-9.]:%u/", ip, port) != 2) return 0;
  return inet_pton(AF_INET, ip, addr) == 1;
}

/* 1 when the only socket listening on `port` is bound to `addr` (read from /proc/net/tcp). */
static int listens_on_exactly(struct in_addr addr, unsigned port) {
  FILE *f = fopen("/proc/net/tcp", "r");
  if (f == NULL) return 0;
  char line[512];
  int seen = 0, other = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned a, p, st;
    if (sscanf(line, " %*d: %8X:%4X %*8X:%*4X %2X", &a, &p, &st) != 3 || p != port || st != 0x0A) continue;
    if (a == addr.s_addr) /* /proc prints the in-memory (network-order) word as a host number */
      seen = 1;
    else
      other = 1, fprintf(stderr, "uniqueid: port %u also listens on %08X\n", port, a);
  }
  fclose(f);
  return seen && !other;
}

static int make_id(shmemx_uniqueid_t *id) {
  if (shmemx_get_uniqueid(id) != 0) return failed("shmemx_get_uniqueid");
  struct in_addr addr;
  unsigned port;
  if (!id_address(id, &addr, &port)) return failed("the id has no address and port");
  if (addr.s_addr == htonl(INADDR_ANY)) return failed("the id carries 0.0.0.0");
  if (!listens_on_exactly(addr, port)) return failed("the id's socket does not listen on the id's address only");
  fprintf(stderr, "uniqueid: %s listens on %s:%u only\n", id->internal, inet_ntoa(addr), port);
  return 0;
}

static int pe_main(int rank, int n, int from_parent[MAX_PES][2]) {
  shmemx_uniqueid_t id;
  if (rank == 0) {
    if (make_id(&id) != 0) return 1;
    for (int r = 1; r < n; ++r)
      if (write(from_parent[r][1], &id, sizeof id) != (ssize_t)sizeof id) return failed("writing the id");
  } else if (read(from_parent[rank][0], &id, sizeof id) != (ssize_t)sizeof id) {
    return failed("reading the id");
  }
  shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
  attr.rank = rank;
  attr.size = n;
  attr.uniqueid = &id;
  int provided = -1;
  if (shmemx_init_attr(SHMEM_THREAD_SINGLE, &provided, &attr) != 0) return failed("shmemx_init_attr");
  if (shmem_my_pe() != rank || shmem_n_pes() != n) return failed("rank or size differs from the attributes");
  int *box = shmem_calloc(1, sizeof *box);
  if (box == NULL) return failed("shmem_calloc");
  shmem_int_p(box, 1000 + rank, (rank + 1) % n);
  shmem_barrier_all();
  int want = 1000 + (rank + n - 1) % n;
  int ok = *box == want;
  if (!ok) fprintf(stderr, "uniqueid: PE %d holds %d, want %d\n", rank, *box, want);
  shmem_free(box);
  shmem_finalize();
  return ok ? 0 : 1;
}

static int run(int n) {
  if (n < 1 || n > MAX_PES) return failed("N must be 1..16");
  int pipes[MAX_PES][2];
  for (int r = 0; r < n; ++r)
    if (pipe(pipes[r]) != 0) return failed("pipe");
  pid_t pid[MAX_PES];
  for (int r = 0; r < n; ++r) {
    pid[r] = fork();
    if (pid[r] < 0) return failed("fork");
    if (pid[r] == 0) _exit(pe_main(r, n, pipes));
  }
  int bad = 0;
  time_t t0 = time(NULL);
  for (int left = n; left > 0;) {
    int ws;
    pid_t p = waitpid(-1, &ws, WNOHANG);
    if (p == 0) {
      if (time(NULL) - t0 > 30) {
        for (int r = 0; r < n; ++r) kill(pid[r], SIGKILL);
        bad = 1;
        fprintf(stderr, "uniqueid: FAILED: PEs still running after 30 s\n");
        t0 = time(NULL) + 1000000;
      }
      usleep(20000);
      continue;
    }
    if (p < 0) return failed("waitpid");
    --left;
    int st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (st != 0) bad = 1, fprintf(stderr, "uniqueid: a PE (pid %d) ended with status %d\n", (int)p, st);
  }
  if (!bad) fprintf(stderr, "uniqueid: %d PEs started from one unique id, ring checked\n", n);
  return bad;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "run") == 0 && argc == 3) return run(atoi(argv[2]));
  if (strcmp(mode, "listen") == 0) {
    shmemx_uniqueid_t id;
    return make_id(&id);
  }
  if (strcmp(mode, "refused") == 0) {
    shmemx_uniqueid_t id;
    if (shmemx_get_uniqueid(&id) == 0) return failed("shmemx_get_uniqueid accepted the address");
    fprintf(stderr, "uniqueid: refused as expected\n");
    return 0;
  }
  fprintf(stderr, "usage: %s run N | listen | refused\n", argv[0]);
  return 2;
}
