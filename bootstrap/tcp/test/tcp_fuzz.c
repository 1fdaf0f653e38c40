/*
 * Hostile connections against a tcp bootstrap job, all on 127.0.0.1. Forks its own PEs.
 *
 *   tcp_fuzz storm N [seed]   rank 0 binds the id's port itself; this process checks that it listens on
 *                             127.0.0.1 only, then opens idle, truncated, random, oversized, wrong-cookie,
 *                             out-of-range, pre-HELLO ABORT, chatty and byte-by-byte connections (more than
 *                             the server's table holds) while ranks 1..N-1 join, and a second wave while the
 *                             job runs allgathers. Every PE must start within 5 s, see no allgather slower
 *                             than 1 s, check every allgather's data and exit 0; no hostile connection may
 *                             be welcomed.
 *   tcp_fuzz claim N          this process claims rank N-1 with the right cookie before the real one: the
 *                             real rank must be told its rank was claimed twice, and every PE must end,
 *                             non-zero, within 5 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftest_plugin.h"
#include "tcp_id.h"
#include "tcp_sock.h"

#define COOKIE 0x5eed0123abcd4567ull
#define START_LIMIT_S 5.0
#define RUN_S 1.5        /* how long the PEs run collectives under the second wave */
#define COLL_LIMIT_S 1.0 /* the slowest collective allowed meanwhile (one takes ~0.1 ms) */

enum kind { IDLE, PARTIAL, RANDOM, OVERSIZED, EARLY_ABORT, WRONG_COOKIE, WRONG_SIZE, BAD_RANK, CHATTY, TRICKLE, KINDS };
static const char *const kind_name[KINDS] = {"idle",         "partial header", "random bytes", "oversized frame",
                                             "ABORT first",  "wrong cookie",   "wrong size",   "rank out of range",
                                             "HELLO + more", "byte by byte"};
static const int kind_count[KINDS] = {80, 20, 30, 10, 10, 10, 5, 10, 5, 5};

typedef struct conn {
  int fd;
  enum kind kind;
  unsigned char out[512];
  size_t out_len, sent;
  unsigned char in[64];
  size_t in_len;
  int closed;
} conn_t;

static uint64_t g_seed, g_first_seed;
static unsigned rnd(void) {
  g_seed = g_seed * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(g_seed >> 33);
}

static size_t hello(unsigned char *out, uint16_t type, uint64_t len, uint64_t cookie, uint32_t rank, uint32_t size) {
  tcp_frame_t f = {.type = type, .len = len};
  tcp_frame_encode(&f, out);
  tcp_put_u64(out + TCP_WIRE_HEADER_BYTES, cookie);
  tcp_put_u32(out + TCP_WIRE_HEADER_BYTES + 8, rank);
  tcp_put_u32(out + TCP_WIRE_HEADER_BYTES + 12, size);
  return TCP_WIRE_HEADER_BYTES + TCP_HELLO_BYTES;
}

/* What a connection of this kind sends. */
static void script(conn_t *c, int n) {
  unsigned char *o = c->out;
  switch (c->kind) {
    case IDLE:
      c->out_len = 0;
      break;
    case PARTIAL:
      c->out_len = 1 + rnd() % (TCP_WIRE_HEADER_BYTES - 1);
      hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE ^ 1, 1, (uint32_t)n);
      break;
    case RANDOM:
      c->out_len = 1 + rnd() % 300;
      for (size_t i = 0; i < c->out_len; ++i) o[i] = (unsigned char)rnd();
      break;
    case OVERSIZED:
      c->out_len = hello(o, TCP_FRAME_HELLO, (uint64_t)1 << (33 + rnd() % 30), COOKIE, 1, (uint32_t)n);
      break;
    case EARLY_ABORT: {
      static const char why[] = "fuzz: an ABORT before any HELLO must change nothing";
      tcp_frame_t f = {.type = TCP_FRAME_ABORT, .arg = 9, .len = sizeof why - 1};
      tcp_frame_encode(&f, o);
      memcpy(o + TCP_WIRE_HEADER_BYTES, why, sizeof why - 1);
      c->out_len = TCP_WIRE_HEADER_BYTES + sizeof why - 1;
      break;
    }
    case WRONG_COOKIE:
      c->out_len =
          hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE ^ (1 + rnd()), 1 + rnd() % (unsigned)(n - 1), (uint32_t)n);
      break;
    case WRONG_SIZE:
      c->out_len = hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE, 1, (uint32_t)n + 1 + rnd() % 5);
      break;
    case BAD_RANK: {
      static const uint32_t ranks[] = {0, 0xffffffffu, 0x7fffffffu};
      uint32_t r = rnd() % 4 == 0 ? (uint32_t)n : ranks[rnd() % 3];
      c->out_len = hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE, r, (uint32_t)n);
      break;
    }
    case CHATTY: { /* a real-looking HELLO (wrong cookie) followed at once by a collective */
      size_t k = hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE ^ 2, 1, (uint32_t)n);
      tcp_frame_t f = {.type = TCP_FRAME_COLL, .op = 4, .seq = 1};
      tcp_frame_encode(&f, o + k);
      c->out_len = k + TCP_WIRE_HEADER_BYTES;
      break;
    }
    case TRICKLE:
      c->out_len = hello(o, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE ^ 3, 1, (uint32_t)n);
      break;
    case KINDS:
      break;
  }
}

static int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK(fd >= 0, "socket: %s", strerror(errno));
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect to 127.0.0.1:%u: %s", port, strerror(errno));
  CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "fcntl");
  return fd;
}

/* Sends what is due: everything at once, or one byte per call for TRICKLE. */
static void pump(conn_t *c) {
  if (c->closed || c->sent >= c->out_len) return;
  size_t want = c->kind == TRICKLE ? 1 : c->out_len - c->sent;
  ssize_t n = send(c->fd, c->out + c->sent, want, MSG_NOSIGNAL);
  if (n > 0) c->sent += (size_t)n;
  if (n < 0 && errno != EAGAIN && errno != EINTR) c->closed = 1;
}

/* Reads what the server said. Returns 1 if it welcomed this connection. */
static int take_reply(conn_t *c) {
  for (;;) {
    unsigned char buf[4096];
    ssize_t n = recv(c->fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      c->closed = 1;
      break;
    }
    if (n < 0) break;
    size_t keep = (size_t)n < sizeof c->in - c->in_len ? (size_t)n : sizeof c->in - c->in_len;
    memcpy(c->in + c->in_len, buf, keep);
    c->in_len += keep;
  }
  tcp_frame_t f;
  return c->in_len >= TCP_WIRE_HEADER_BYTES && tcp_frame_decode(c->in, &f) == 0 && f.type == TCP_FRAME_WELCOME;
}

/* Is something listening on port, and on which address? Reads /proc/net/tcp (LISTEN is state 0A). Returns 1
   and the address (network order) once found. */
static int listening_on(uint16_t port, uint32_t *addr_be) {
  FILE *f = fopen("/proc/net/tcp", "r");
  if (f == NULL) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) {
    unsigned addr, p, st;
    if (sscanf(line, " %*d: %8X:%4X %*8X:%*4X %2X", &addr, &p, &st) == 3 && p == port && st == 0x0A) {
      *addr_be = addr; /* the kernel prints the address as the host-order value of its network-order bytes */
      found = 1;
    }
  }
  fclose(f);
  return found;
}

static uint16_t free_port(void) {
  int fd = tcp_listen(htonl(INADDR_LOOPBACK), 0);
  CHECK(fd >= 0, "listen: %s", strerror(-fd));
  struct sockaddr_in sa;
  socklen_t len = sizeof sa;
  CHECK(getsockname(fd, (struct sockaddr *)&sa, &len) == 0, "getsockname");
  close(fd);
  return ntohs(sa.sin_port);
}

/* One PE: joins, times its start, checks an allgather and a barrier, finalizes. */
static void run_pe(int r, int n, const char *id, int listen_fd) {
  gpushmem_bootstrap_args_t a = base_args(30);
  a.rank = r;
  a.size = n;
  a.unique_id = id;
  a.listen_fd = listen_fd;
  double t0 = now_s();
  gpushmem_bootstrap_t b;
  start(&b, &a);
  double took = now_s() - t0;
  fprintf(stderr, "fuzz: PE %d joined in %.3f s\n", r, took);
  CHECK(took < START_LIMIT_S, "PE %d took %.2f s to start (limit %.0f s)", r, took, START_LIMIT_S);
  /* Collectives for RUN_S seconds (PE 0 decides when to stop), while the second wave comes in. */
  double t_end = now_s() + RUN_S, slowest = 0;
  long rounds = 0;
  for (int more = 1; more; ++rounds) {
    long mine[2] = {1000 * rounds + r, r == 0 && now_s() < t_end}, all[2 * 64];
    CHECK(n <= 64, "at most 64 PEs");
    double t = now_s();
    CHECK(b.allgather(&b, mine, all, sizeof mine) == 0, "allgather %ld", rounds);
    if (now_s() - t > slowest) slowest = now_s() - t;
    for (int i = 0; i < n; ++i)
      CHECK(all[2 * i] == 1000 * rounds + i, "allgather %ld: block %d holds %ld", rounds, i, all[2 * i]);
    more = (int)all[1];
  }
  fprintf(stderr, "fuzz: PE %d: %ld allgathers, the slowest took %.3f s\n", r, rounds, slowest);
  CHECK(slowest < COLL_LIMIT_S, "PE %d: an allgather took %.2f s (limit %.1f s)", r, slowest, COLL_LIMIT_S);
  CHECK(b.finalize(&b) == 0, "finalize");
  _exit(0);
}

static pid_t fork_pe(int r, int n, const char *id, int listen_fd) {
  pid_t pid = fork();
  CHECK(pid >= 0, "fork");
  if (pid == 0) run_pe(r, n, id, listen_fd);
  return pid;
}

/* Waits for the PEs (while pumping the hostile connections). Returns failures: a PE r that did not exit with
   want[r] (-1: any non-zero status) within limit_s. */
static int reap(pid_t *pids, int n, const int *want, double limit_s, conn_t *c, int nc, int *welcomed) {
  double t0 = now_s();
  int left = n, failures = 0;
  while (left > 0) {
    for (int i = 0; i < nc; ++i) {
      pump(&c[i]);
      if (!c[i].closed && take_reply(&c[i]) && !welcomed[i]) welcomed[i] = 1;
    }
    int ws;
    pid_t pid = waitpid(-1, &ws, WNOHANG);
    if (pid == 0) {
      if (now_s() - t0 > limit_s) {
        fprintf(stderr, "fuzz: FAILED: PEs still running after %.0f s; killing them\n", limit_s);
        for (int r = 0; r < n; ++r)
          if (pids[r] > 0) kill(pids[r], SIGKILL);
        ++failures;
        limit_s = 1e9;
      }
      usleep(100000);
      continue;
    }
    CHECK(pid > 0, "waitpid: %s", strerror(errno));
    int r = 0;
    while (r < n && pids[r] != pid) ++r;
    if (r == n) continue;
    pids[r] = -1;
    --left;
    int st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    fprintf(stderr, "fuzz: PE %d ended with status %d after %.2f s\n", r, st, now_s() - t0);
    if (want[r] >= 0 ? st != want[r] : st == 0)
      ++failures, fprintf(stderr, "fuzz: FAILED: PE %d ended with %d, want %s%d\n", r, st, want[r] >= 0 ? "" : "not ",
                          want[r] >= 0 ? want[r] : 0);
  }
  return failures;
}

/* One connection of every kind, kind_count[k] times, each sending what it starts with. */
static void open_wave(conn_t *c, uint16_t port, int n) {
  for (int k = 0, i = 0; k < KINDS; ++k)
    for (int j = 0; j < kind_count[k]; ++j, ++i) {
      c[i].kind = (enum kind)k;
      script(&c[i], n);
      c[i].fd = connect_to(port);
      pump(&c[i]);
    }
}

static int run_storm(int n) {
  uint16_t port = free_port();
  char id[128];
  CHECK(tcp_id_format(id, sizeof id, "127.0.0.1", port, COOKIE) > 0, "id");
  pid_t pids[64];
  CHECK(n >= 2 && n <= 64, "2..64 PEs");
  pids[0] = fork_pe(0, n, id, -1); /* binds the id's port itself */
  uint32_t addr = 0;
  double t0 = now_s();
  while (!listening_on(port, &addr)) {
    CHECK(now_s() - t0 < 10, "PE 0 does not listen on port %u after 10 s", port);
    usleep(5000);
  }
  CHECK(addr == htonl(INADDR_LOOPBACK), "PE 0 listens on %08x, not on 127.0.0.1 only (the id's address)",
        (unsigned)ntohl(addr));
  fprintf(stderr, "fuzz: PE 0 listens on 127.0.0.1:%u only\n", port);

  int per_wave = 0;
  for (int k = 0; k < KINDS; ++k) per_wave += kind_count[k];
  int nc = 2 * per_wave;
  conn_t *c = calloc((size_t)nc, sizeof *c);
  int *welcomed = calloc((size_t)nc, sizeof *welcomed);
  CHECK(c != NULL && welcomed != NULL, "calloc");
  open_wave(c, port, n);
  fprintf(stderr, "fuzz: %d hostile connections open; starting PEs 1..%d\n", per_wave, n - 1);
  for (int r = 1; r < n; ++r) pids[r] = fork_pe(r, n, id, -1);
  usleep(300000); /* the job runs its collectives now */
  open_wave(c + per_wave, port, n);
  fprintf(stderr, "fuzz: a second wave of %d connections while the job runs\n", per_wave);
  int want[64] = {0};
  int failures = reap(pids, n, want, 30, c, nc, welcomed);
  for (int k = 0; k < KINDS; ++k) {
    int w = 0, closed = 0;
    for (int i = 0; i < nc; ++i)
      if (c[i].kind == (enum kind)k) w += welcomed[i], closed += c[i].closed;
    fprintf(stderr, "fuzz: %-17s x%-3d welcomed %d, closed by PE 0 %d\n", kind_name[k], 2 * kind_count[k], w, closed);
    if (w != 0) ++failures, fprintf(stderr, "fuzz: FAILED: PE 0 welcomed %d '%s' connection(s)\n", w, kind_name[k]);
  }
  for (int i = 0; i < nc; ++i) close(c[i].fd);
  free(c);
  free(welcomed);
  if (failures == 0) fprintf(stderr, "fuzz: storm passed (seed %llu)\n", (unsigned long long)g_first_seed);
  return failures == 0 ? 0 : 1;
}

/* The real last rank finds its rank taken. */
static int run_claim(int n) {
  CHECK(n >= 2 && n <= 64, "2..64 PEs");
  int lfd = tcp_listen(htonl(INADDR_LOOPBACK), 0);
  CHECK(lfd >= 0, "listen: %s", strerror(-lfd));
  struct sockaddr_in sa;
  socklen_t len = sizeof sa;
  CHECK(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0, "getsockname");
  uint16_t port = ntohs(sa.sin_port);
  char id[128];
  CHECK(tcp_id_format(id, sizeof id, "127.0.0.1", port, COOKIE) > 0, "id");
  pid_t pids[64];
  pids[0] = fork_pe(0, n, id, lfd);
  close(lfd);
  for (int r = 1; r < n - 1; ++r) pids[r] = fork_pe(r, n, id, -1);

  conn_t imp = {.kind = WRONG_COOKIE};
  imp.out_len = hello(imp.out, TCP_FRAME_HELLO, TCP_HELLO_BYTES, COOKIE, (uint32_t)(n - 1), (uint32_t)n);
  imp.fd = connect_to(port);
  pump(&imp);
  double t0 = now_s();
  int welcomed = 0;
  while (!welcomed && !imp.closed && now_s() - t0 < 10) welcomed = take_reply(&imp), usleep(2000);
  CHECK(welcomed, "the first claim of rank %d (right cookie) was not welcomed", n - 1);
  fprintf(stderr, "fuzz: this process holds rank %d; starting the real one\n", n - 1);

  pid_t real = fork();
  CHECK(real >= 0, "fork");
  if (real == 0) {
    gpushmem_bootstrap_args_t a = base_args(30);
    a.rank = n - 1;
    a.size = n;
    a.unique_id = id;
    gpushmem_bootstrap_t b;
    int rc = load_plugin()(&a, &b);
    CHECK(rc != GPUSHMEM_BOOTSTRAP_OK, "the real rank %d joined a job whose rank was already claimed", n - 1);
    CHECK(strstr(g_last_error, "claimed twice") != NULL, "the real rank was told: %s", g_last_error);
    fprintf(stderr, "fuzz: the real rank %d was refused and told why\n", n - 1);
    _exit(3);
  }
  pids[n - 1] = real;
  int want[64], dummy = 0;
  for (int r = 0; r < n; ++r) want[r] = r == n - 1 ? 3 : 1; /* ended by PE 0 / refused, and said so */
  int failures = reap(pids, n, want, START_LIMIT_S, &imp, 1, &dummy);
  /* The first claimant is told too: an ABORT frame naming the double claim. */
  take_reply(&imp);
  tcp_frame_t f;
  int told = imp.in_len >= TCP_WIRE_HEADER_BYTES && tcp_frame_decode(imp.in, &f) == 0 && f.type == TCP_FRAME_WELCOME &&
             imp.in_len >= 2 * TCP_WIRE_HEADER_BYTES && tcp_frame_decode(imp.in + TCP_WIRE_HEADER_BYTES, &f) == 0 &&
             f.type == TCP_FRAME_ABORT;
  if (!told) ++failures, fprintf(stderr, "fuzz: FAILED: the first claimant got no ABORT\n");
  close(imp.fd);
  if (failures == 0) fprintf(stderr, "fuzz: claim passed\n");
  return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  g_seed = g_first_seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 20261206;
  if (argc >= 3 && strcmp(argv[1], "storm") == 0) return run_storm(atoi(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "claim") == 0) return run_claim(atoi(argv[2]));
  fprintf(stderr, "usage: %s storm N [seed] | claim N\n", argv[0]);
  return 2;
}
