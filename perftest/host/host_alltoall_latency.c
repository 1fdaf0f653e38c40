/*
 * host_alltoall_latency: every PE sends a distinct SIZE-byte block to every PE (itself included),
 * microseconds per alltoall (each repeat's time is the slowest PE's). OpenSHMEM 1.5: shmem_alltoallmem on
 * SHMEM_TEAM_WORLD; 1.4: shmem_alltoall64 over all PEs (whole 64-bit words).
 *   algbw = npes * SIZE / time; busbw = algbw * (npes - 1) / npes (NCCL's alltoall convention).
 *   reference: memcpy of npes * SIZE bytes on each PE (memcpy_us).
 * Check: block p of PE q's destination must hold the pattern PE p sent to q; a wrong byte names both PEs.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_coll.h"

typedef struct a2a_ctx {
  perf_coll *coll;
  char *dest, *src, *scratch;
  size_t size, total;
} a2a_ctx;

static void a2a_run(void *p, int n) {
  a2a_ctx *c = (a2a_ctx *)p;
  for (int i = 0; i < n; ++i) perf_alltoall(c->coll, c->dest, c->src, c->size);
}

static void a2a_memcpy(void *p, int n) {
  a2a_ctx *c = (a2a_ctx *)p;
  for (int i = 0; i < n; ++i) {
    memcpy(c->scratch, c->src, c->total);
    perf_keep(c->scratch);
  }
}

/* The seed of the block PE `from` sends to PE `to` at this size. */
static uint32_t a2a_seed(size_t size, int from, int to) {
  return (uint32_t)size * 31u + (uint32_t)from * 257u + (uint32_t)to;
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = 1 << 20;
  o.iters = 100;
  o.warmup = 10;
  perf_opts_parse(argc, argv, "befnwr", NULL, &o);
  perf_host h;
  perf_host_start(&h, &o, "host_alltoall_latency", 1, 1);
  perf_coll coll;
  perf_coll_init(&coll, &h, o.max_bytes);
  const size_t n = (size_t)h.npes;
  a2a_ctx c;
  c.coll = &coll;
  c.dest = (char *)perf_host_malloc(&h, o.max_bytes * n);
  c.src = (char *)perf_host_malloc(&h, o.max_bytes * n);
  c.scratch = (char *)perf_host_private(&h, o.max_bytes * n);
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    if (!perf_coll_size_ok(size)) {
      if (h.me == 0) printf("# %zu B: not a whole number of 64-bit words, which this library's alltoall needs\n", size);
      continue;
    }
    c.size = size;
    c.total = size * n;
    for (int to = 0; to < h.npes; ++to) perf_fill(c.src + (size_t)to * size, size, a2a_seed(size, h.me, to));
    memset(c.dest, 0, c.total);
    shmem_barrier_all();
    const perf_summary ref = perf_host_time_coll_us(&h, a2a_memcpy, &c);
    const perf_summary value = perf_host_time_coll_us(&h, a2a_run, &c);
    long bad = 0;
    for (int from = 0; from < h.npes; ++from) {
      char what[64];
      snprintf(what, sizeof what, "alltoall block from PE %d", from);
      bad += perf_check(&h, c.dest + (size_t)from * size, size, a2a_seed(size, from, h.me), what);
    }
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.count = size;
    p.type = "byte";
    p.op = "alltoall";
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "memcpy_us";
    p.ref = ref;
    if (value.valid && value.median > 0) {
      p.algbw = (double)c.total / (value.median * 1e3);
      p.busbw = p.algbw * (double)(n - 1) / (double)n;
    }
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  perf_coll_free(&coll);
  shmem_free(c.dest);
  shmem_free(c.src);
  free(c.scratch);
  return perf_host_finish(&h);
}
