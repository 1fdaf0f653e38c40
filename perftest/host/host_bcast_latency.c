/*
 * host_bcast_latency: broadcast of SIZE bytes from PE 0 to every PE, microseconds
 * per broadcast (each repeat's time is the slowest PE's). OpenSHMEM 1.5: shmem_broadcastmem on
 * SHMEM_TEAM_WORLD; 1.4: shmem_broadcast64 over all PEs (sizes in whole 64-bit words).
 *   algbw = SIZE / time; busbw = algbw (every byte crosses to each PE once, as in NCCL's tests).
 *   reference: memcpy of SIZE bytes on each PE, timed the same way (memcpy_us).
 * Check: after the timing every receiving PE (the root too on 1.5) compares every byte with the pattern
 * the root sent.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_coll.h"

typedef struct bc_ctx {
  perf_coll *coll;
  char *dest, *src, *scratch;
  size_t size;
} bc_ctx;

static void bc_run(void *p, int n) {
  bc_ctx *c = (bc_ctx *)p;
  for (int i = 0; i < n; ++i) perf_broadcast(c->coll, c->dest, c->src, c->size, 0);
}

static void bc_memcpy(void *p, int n) {
  bc_ctx *c = (bc_ctx *)p;
  for (int i = 0; i < n; ++i) {
    memcpy(c->scratch, c->src, c->size);
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
  perf_host_start(&h, &o, "host_bcast_latency", 1, 1);
  perf_coll coll;
  perf_coll_init(&coll, &h, o.max_bytes);
  bc_ctx c;
  c.coll = &coll;
  c.dest = (char *)perf_host_malloc(&h, o.max_bytes);
  c.src = (char *)perf_host_malloc(&h, o.max_bytes);
  c.scratch = (char *)perf_host_private(&h, o.max_bytes);
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    if (!perf_coll_size_ok(size)) {
      if (h.me == 0)
        printf("# %zu B: not a whole number of 64-bit words, which this library's broadcast needs\n", size);
      continue;
    }
    c.size = size;
    const uint32_t seed = (uint32_t)size * 7u + 1u;
    perf_fill(c.src, size, h.me == 0 ? seed : seed + 1000u); /* only the root's source may arrive */
    memset(c.dest, 0, size);
    shmem_barrier_all();
    const perf_summary ref = perf_host_time_coll_us(&h, bc_memcpy, &c);
    const perf_summary value = perf_host_time_coll_us(&h, bc_run, &c);
    long bad = 0;
    if (h.me != 0 || PERF_BCAST_ROOT_RECEIVES) bad = perf_check(&h, c.dest, size, seed, "broadcast destination");
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.count = size;
    p.type = "byte";
    p.op = "broadcast";
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "memcpy_us";
    p.ref = ref;
    if (value.valid && value.median > 0) p.algbw = p.busbw = (double)size / (value.median * 1e3);
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  perf_coll_free(&coll);
  shmem_free(c.dest);
  shmem_free(c.src);
  free(c.scratch);
  return perf_host_finish(&h);
}
