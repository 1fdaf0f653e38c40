/*
 * host_malloc_latency: shmem_malloc of SIZE bytes followed by shmem_free (both collective), microseconds
 * per pair (each repeat's time is the slowest PE's).
 *   reference: malloc + free of SIZE bytes on each PE (malloc_us).
 * Check (after the timing, per size): one more shmem_malloc'd block, which every PE fills with a pattern
 * through a put to the next PE; each PE checks what arrived in its block, so the block really is
 * symmetric and large enough.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_host.h"

typedef struct ma_ctx {
  perf_host *h;
  size_t size;
} ma_ctx;

static void ma_run(void *p, int n) {
  ma_ctx *c = (ma_ctx *)p;
  for (int i = 0; i < n; ++i) {
    void *b = perf_host_malloc(c->h, c->size);
    shmem_free(b);
  }
}

static void ma_ref(void *p, int n) {
  ma_ctx *c = (ma_ctx *)p;
  for (int i = 0; i < n; ++i) {
    void *b = perf_host_private(c->h, c->size);
    perf_keep(b);
    free(b);
  }
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = 16 << 20;
  o.step = 4;
  o.iters = 100;
  o.warmup = 10;
  perf_opts_parse(argc, argv, "befnwr", NULL, &o);
  perf_host h;
  perf_host_start(&h, &o, "host_malloc_latency", 1, 1);
  ma_ctx c;
  c.h = &h;
  char *src = (char *)perf_host_private(&h, o.max_bytes);
  for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
    c.size = size;
    const perf_summary ref = perf_host_time_coll_us(&h, ma_ref, &c);
    const perf_summary value = perf_host_time_coll_us(&h, ma_run, &c);
    char *b = (char *)perf_host_malloc(&h, size);
    const uint32_t seed = (uint32_t)size * 3u + 7u;
    perf_fill(src, size, seed + (uint32_t)h.me);
    shmem_putmem(b, src, size, (h.me + 1) % h.npes);
    shmem_barrier_all();
    const int from = (h.me + h.npes - 1) % h.npes;
    const long bad = perf_check(&h, b, size, seed + (uint32_t)from, "block put by the previous PE");
    shmem_free(b);
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.count = 1;
    p.type = "byte";
    p.op = "malloc+free";
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "malloc_us";
    p.ref = ref;
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  free(src);
  return perf_host_finish(&h);
}
