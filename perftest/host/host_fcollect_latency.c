/*
 * host_fcollect_latency: every PE contributes SIZE bytes and every PE receives all npes blocks in PE
 * order, microseconds per fcollect (each repeat's time is the slowest PE's). OpenSHMEM 1.5:
 * shmem_fcollectmem on SHMEM_TEAM_WORLD; 1.4: shmem_fcollect64 over all PEs (whole 64-bit words).
 *   algbw = npes * SIZE / time; busbw = algbw * (npes - 1) / npes (NCCL's allgather convention).
 *   reference: memcpy of npes * SIZE bytes on each PE (memcpy_us).
 * Check: every PE compares each received block with the pattern of the PE that sent it.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_coll.h"

typedef struct fc_ctx {
  perf_coll *coll;
  char *dest, *src, *scratch;
  size_t size, total;
} fc_ctx;

static void fc_run(void *p, int n) {
  fc_ctx *c = (fc_ctx *)p;
  for (int i = 0; i < n; ++i) perf_fcollect(c->coll, c->dest, c->src, c->size);
}

static void fc_memcpy(void *p, int n) {
  fc_ctx *c = (fc_ctx *)p;
  for (int i = 0; i < n; ++i) {
    memcpy(c->scratch, c->dest, c->total);
    perf_keep(c->scratch);
  }
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = 1 << 20;
  o.iters = 100;
  o.warmup = 10;
  perf_opts_parse(argc, argv, "befnwr", NULL, &o);
  perf_host h;
  perf_host_start(&h, &o, "host_fcollect_latency", 1, 1);
  perf_coll coll;
  perf_coll_init(&coll, &h, o.max_bytes);
  const size_t n = (size_t)h.npes;
  fc_ctx c;
  c.coll = &coll;
  c.dest = (char *)perf_host_malloc(&h, o.max_bytes * n);
  c.src = (char *)perf_host_malloc(&h, o.max_bytes);
  c.scratch = (char *)perf_host_private(&h, o.max_bytes * n);
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    if (!perf_coll_size_ok(size)) {
      if (h.me == 0) printf("# %zu B: not a whole number of 64-bit words, which this library's fcollect needs\n", size);
      continue;
    }
    c.size = size;
    c.total = size * n;
    const uint32_t seed = (uint32_t)size * 13u;
    perf_fill(c.src, size, seed + (uint32_t)h.me);
    memset(c.dest, 0, c.total);
    shmem_barrier_all();
    const perf_summary ref = perf_host_time_coll_us(&h, fc_memcpy, &c);
    const perf_summary value = perf_host_time_coll_us(&h, fc_run, &c);
    long bad = 0;
    for (int pe = 0; pe < h.npes; ++pe) {
      char what[64];
      snprintf(what, sizeof what, "fcollect block from PE %d", pe);
      bad += perf_check(&h, c.dest + (size_t)pe * size, size, seed + (uint32_t)pe, what);
    }
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.count = size;
    p.type = "byte";
    p.op = "fcollect";
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
