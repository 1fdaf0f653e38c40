/*
 * The body of the host RMA programs (host_put_bw, host_get_bw, host_put_latency, host_get_latency): PE 0
 * moves SIZE bytes to or from PE 1 (other PEs only take part in the barriers). Each program file defines
 * PERF_RMA_GET (0: put, 1: get) and PERF_RMA_BW (0: latency, 1: bandwidth), then includes this file.
 *
 *   bandwidth: -n operations of SIZE bytes back to back, then one shmem_quiet; GB/s = SIZE * n / time.
 *   latency:   each operation followed by shmem_quiet (blocking get: the get itself); us per operation.
 *   -a blocking | nbi | all (default): shmem_putmem / shmem_getmem, or their _nbi forms.
 *   reference: memcpy of the same SIZE between two private buffers on PE 0, the same loop (memcpy_GBps /
 *              memcpy_us), measured in the same run; ratio = figure / reference.
 * Every variant moves a fresh pattern and the receiving side checks every byte (a wrong one names the
 * byte, and the run exits 1).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_host.h"

#if PERF_RMA_GET
#define PERF_RMA_OP_BLOCKING "getmem"
#define PERF_RMA_OP_NBI "getmem_nbi"
#else
#define PERF_RMA_OP_BLOCKING "putmem"
#define PERF_RMA_OP_NBI "putmem_nbi"
#endif

typedef struct rma_ctx {
  char *sym;     /* symmetric SIZE bytes: the put's target on PE 1, the get's source on PE 1 */
  char *local;   /* PE 0's private buffer: the put's source, the get's destination */
  char *scratch; /* memcpy reference's destination */
  size_t size;
} rma_ctx;

static void rma_blocking(void *p, int n) {
  rma_ctx *c = (rma_ctx *)p;
  for (int i = 0; i < n; ++i) {
#if PERF_RMA_GET
    shmem_getmem(c->local, c->sym, c->size, 1);
#else
    shmem_putmem(c->sym, c->local, c->size, 1);
#if !PERF_RMA_BW
    shmem_quiet();
#endif
#endif
  }
#if PERF_RMA_BW && !PERF_RMA_GET
  shmem_quiet();
#endif
}

static void rma_nbi(void *p, int n) {
  rma_ctx *c = (rma_ctx *)p;
  for (int i = 0; i < n; ++i) {
#if PERF_RMA_GET
    shmem_getmem_nbi(c->local, c->sym, c->size, 1);
#else
    shmem_putmem_nbi(c->sym, c->local, c->size, 1);
#endif
#if !PERF_RMA_BW
    shmem_quiet();
#endif
  }
#if PERF_RMA_BW
  shmem_quiet();
#endif
}

static void rma_memcpy(void *p, int n) {
  rma_ctx *c = (rma_ctx *)p;
  for (int i = 0; i < n; ++i) {
#if PERF_RMA_GET
    memcpy(c->scratch, c->local, c->size);
#else
    memcpy(c->scratch, c->local, c->size);
#endif
    perf_keep(c->scratch);
  }
}

int main(int argc, char **argv) {
  static const char *const variants[] = {"all", "blocking", "nbi", NULL};
  perf_opts o;
  perf_opts_defaults(&o);
  o.min_bytes = 8;
#if PERF_RMA_BW
  o.max_bytes = 1 << 20;
  o.iters = 200;
  o.warmup = 20;
#else
  o.max_bytes = 64 << 10;
  o.iters = 1000;
  o.warmup = 100;
#endif
  o.op = "all";
  perf_opts_parse(argc, argv, "befnwra", "-a blocking | nbi | all (default all)", &o);
  const int variant = perf_opts_choose(o.prog, 'a', o.op, variants);
  perf_host h;
  perf_host_start(&h, &o, PERF_RMA_BENCH, 2, 0);

  rma_ctx c;
  c.sym = (char *)perf_host_malloc(&h, o.max_bytes);
  c.local = (char *)perf_host_private(&h, o.max_bytes);
  c.scratch = (char *)perf_host_private(&h, o.max_bytes);
  const char *metric = PERF_RMA_BW ? "bw_GBps" : "lat_us";
  const char *ref_name = PERF_RMA_BW ? "memcpy_GBps" : "memcpy_us";
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    c.size = size;
    for (int v = 1; v <= 2; ++v) {
      if (variant != 0 && variant != v) continue;
      const uint32_t seed = (uint32_t)size * 4u + (uint32_t)v;
      /* the side that receives starts from zeroes, the side that sends holds the pattern */
#if PERF_RMA_GET
      if (h.me == 1) perf_fill(c.sym, size, seed);
      memset(c.local, 0, size);
#else
      if (h.me == 1) memset(c.sym, 0, size);
      perf_fill(c.local, size, seed);
#endif
      shmem_barrier_all();
      perf_summary value, ref;
      memset(&value, 0, sizeof value);
      memset(&ref, 0, sizeof ref);
      if (h.me == 0) {
        ref = perf_host_time_us(&h, rma_memcpy, &c);
        value = perf_host_time_us(&h, v == 1 ? rma_blocking : rma_nbi, &c);
        if (PERF_RMA_BW) {
          ref = perf_us_to_gbps(ref, size);
          value = perf_us_to_gbps(value, size);
        }
      }
      shmem_barrier_all();
      long bad = 0;
#if PERF_RMA_GET
      if (h.me == 0) bad = perf_check(&h, c.local, size, seed, "PE 0's get destination");
#else
      if (h.me == 1) bad = perf_check(&h, c.sym, size, seed, "PE 1's put destination");
#endif
      perf_point p;
      memset(&p, 0, sizeof p);
      p.size = size;
      p.type = "";
      p.op = v == 1 ? PERF_RMA_OP_BLOCKING : PERF_RMA_OP_NBI;
      p.scope = "host";
      p.metric = metric;
      p.value = value;
      p.ref_name = ref_name;
      p.ref = ref;
      p.errors = perf_host_errors(&h, bad);
      perf_report(&h, &p);
    }
  }
  shmem_free(c.sym);
  free(c.local);
  free(c.scratch);
  return perf_host_finish(&h);
}
