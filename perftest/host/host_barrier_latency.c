/*
 * host_barrier_latency: host barriers over all PEs, microseconds per barrier (each repeat's time is the
 * slowest PE's).
 *   -a barrier_all | sync_all | team_sync | all (default): shmem_barrier_all, shmem_sync_all, and on
 *      OpenSHMEM 1.5 libraries shmem_team_sync(SHMEM_TEAM_WORLD).
 *   reference: a dissemination barrier written with shmem_long_atomic_inc and shmem_long_wait_until
 *      (p2p_barrier_us): what an application could build from point-to-point operations alone.
 * Check (after the timing, for every variant): several rounds of "put a round number into the next PE's
 * slot, quiet, barrier, read my slot"; a slot that does not hold the round number fails the run.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_coll.h"

enum { BARRIER_ALL, SYNC_ALL, TEAM_SYNC, N_VARIANTS };
static const char *const variants[] = {"barrier_all", "sync_all", "team_sync", "all", NULL};

typedef struct bar_ctx {
  int variant, me, npes, rounds;
  long *flags; /* symmetric [64]: the dissemination barrier's counters, one per round */
  long epoch;  /* reference barriers done */
} bar_ctx;

static void bar_once(int variant) {
  if (variant == BARRIER_ALL)
    shmem_barrier_all();
  else if (variant == SYNC_ALL)
    shmem_sync_all();
#if PERF_HAVE_TEAM_SYNC
  else
    perf_team_sync();
#endif
}

static void bar_run(void *p, int n) {
  bar_ctx *c = (bar_ctx *)p;
  for (int i = 0; i < n; ++i) bar_once(c->variant);
}

/* Round r: signal PE me + 2^r, wait for PE me - 2^r's signal of this epoch. */
static void bar_p2p(void *p, int n) {
  bar_ctx *c = (bar_ctx *)p;
  for (int i = 0; i < n; ++i) {
    ++c->epoch;
    for (int r = 0; r < c->rounds; ++r) {
      shmem_long_atomic_inc(&c->flags[r], (c->me + (1 << r)) % c->npes);
      shmem_long_wait_until(&c->flags[r], SHMEM_CMP_GE, c->epoch);
    }
  }
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.op = "all";
  perf_opts_parse(argc, argv, "nwra", "-a barrier_all | sync_all | team_sync | all (default all)", &o);
  const int which = perf_opts_choose(o.prog, 'a', o.op, variants);
  if (which == TEAM_SYNC && !PERF_HAVE_TEAM_SYNC) {
    fprintf(stderr, "%s: -a team_sync: this library has no shmem_team_sync\n", o.prog);
    return 2;
  }
  perf_host h;
  perf_host_start(&h, &o, "host_barrier_latency", 1, 1);
  bar_ctx c;
  memset(&c, 0, sizeof c);
  c.me = h.me;
  c.npes = h.npes;
  while ((1 << c.rounds) < c.npes) ++c.rounds;
  c.flags = (long *)perf_host_malloc(&h, 64 * sizeof(long));
  memset(c.flags, 0, 64 * sizeof(long));
  int *slot = (int *)perf_host_malloc(&h, sizeof(int));
  *slot = -1;
  shmem_barrier_all();
  perf_summary ref = perf_host_time_coll_us(&h, bar_p2p, &c);
  for (int v = 0; v < N_VARIANTS; ++v) {
    if (which != N_VARIANTS && which != v) continue;
    if (v == TEAM_SYNC && !PERF_HAVE_TEAM_SYNC) continue;
    c.variant = v;
    const perf_summary value = perf_host_time_coll_us(&h, bar_run, &c);
    long bad = 0;
    for (int round = 0; round < 4; ++round) {
      shmem_int_p(slot, round, (h.me + 1) % h.npes);
      shmem_quiet();
      bar_once(v);
      int got = *slot;
      if (round == 3 && getenv("PERFTEST_CORRUPT") != NULL && strcmp(getenv("PERFTEST_CORRUPT"), "1") == 0) got = -7;
      if (got != round) {
        fprintf(stderr, "%s: PE %d: %s did not complete PE %d's put before returning: round %d, slot holds %d\n",
                h.bench, h.me, variants[v], (h.me + h.npes - 1) % h.npes, round, got);
        bad++;
      }
      bar_once(v); /* nobody overwrites the slot before its owner has read it */
    }
    perf_point p;
    memset(&p, 0, sizeof p);
    p.type = "";
    p.op = variants[v];
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "p2p_barrier_us";
    p.ref = ref;
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  shmem_free(slot);
  shmem_free(c.flags);
  return perf_host_finish(&h);
}
