/*
 * host_reduction_latency: an all-reduce of SIZE bytes (SIZE / sizeof(TYPE) elements) over every PE,
 * microseconds per reduction (each repeat's time is the slowest PE's). OpenSHMEM 1.5:
 * shmem_TYPE_OP_reduce on SHMEM_TEAM_WORLD; 1.4: shmem_TYPE_OP_to_all over all PEs.
 *   -d int | long | float | double | all      (default int)
 *   -o sum | prod | min | max | and | or | xor | all (default sum; and/or/xor on int and long only)
 *   algbw = SIZE / time; busbw = algbw * 2 (npes - 1) / npes (NCCL's allreduce convention).
 *   reference: memcpy of SIZE bytes on each PE (memcpy_us).
 * Check: every PE compares every element with the reduction computed locally from the known inputs.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_coll.h"

static const char *const types[] = {"int", "long", "float", "double", "all", NULL};
static const size_t type_size[] = {sizeof(int), sizeof(long), sizeof(float), sizeof(double)};
static const char *const rops[] = {"sum", "prod", "min", "max", "and", "or", "xor", "all", NULL};

typedef struct red_ctx {
  perf_coll *coll;
  int type, op;
  char *dest, *src, *scratch;
  size_t size, count;
} red_ctx;

static void red_run(void *p, int n) {
  red_ctx *c = (red_ctx *)p;
  for (int i = 0; i < n; ++i) (void)perf_reduce(c->coll, c->type, c->op, c->dest, c->src, c->count);
}

static void red_memcpy(void *p, int n) {
  red_ctx *c = (red_ctx *)p;
  for (int i = 0; i < n; ++i) {
    memcpy(c->scratch, c->src, c->size);
    perf_keep(c->scratch);
  }
}

/* PE pe's input element i: small whole numbers, so every operator's result is exact in every type. */
static long red_input(int op, int pe, size_t i) {
  if (op == 1) return (long)((i + (size_t)pe) % 3) + 1;              /* prod: 1..3 */
  if (op >= 4) return (long)((i * 131 + (size_t)pe * 17) % 251) + 1; /* bitwise */
  return (long)((i * 7 + (size_t)pe * 3) % 5) + 1;                   /* 1..5 */
}

static long red_fold(int op, long a, long b) {
  switch (op) {
    case 0:
      return a + b;
    case 1:
      return a * b;
    case 2:
      return a < b ? a : b;
    case 3:
      return a > b ? a : b;
    case 4:
      return a & b;
    case 5:
      return a | b;
    default:
      return a ^ b;
  }
}

static void red_store(int type, void *base, size_t i, long v) {
  switch (type) {
    case 0:
      ((int *)base)[i] = (int)v;
      break;
    case 1:
      ((long *)base)[i] = v;
      break;
    case 2:
      ((float *)base)[i] = (float)v;
      break;
    default:
      ((double *)base)[i] = (double)v;
  }
}

static double red_load(int type, const void *base, size_t i) {
  switch (type) {
    case 0:
      return ((const int *)base)[i];
    case 1:
      return (double)((const long *)base)[i];
    case 2:
      return ((const float *)base)[i];
    default:
      return ((const double *)base)[i];
  }
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = 1 << 20;
  o.iters = 100;
  o.warmup = 10;
  o.type = "int";
  o.reduce_op = "sum";
  perf_opts_parse(argc, argv, "befnwrdo",
                  "-d int | long | float | double | all (default int)\n"
                  "-o sum | prod | min | max | and | or | xor | all (default sum; and, or, xor: int and long only)",
                  &o);
  const int tsel = perf_opts_choose(o.prog, 'd', o.type, types);
  const int osel = perf_opts_choose(o.prog, 'o', o.reduce_op, rops);
  if (tsel >= 2 && tsel != 4 && osel >= 4 && osel != 7) {
    fprintf(stderr, "%s: -o %s is not defined for -d %s (bitwise operators take int or long)\n", o.prog, o.reduce_op,
            o.type);
    return 2;
  }
  perf_host h;
  perf_host_start(&h, &o, "host_reduction_latency", 1, 1);
  perf_coll coll;
  perf_coll_init(&coll, &h, o.max_bytes);
  red_ctx c;
  c.coll = &coll;
  c.dest = (char *)perf_host_malloc(&h, o.max_bytes);
  c.src = (char *)perf_host_malloc(&h, o.max_bytes);
  c.scratch = (char *)perf_host_private(&h, o.max_bytes);
  for (int t = 0; t < 4; ++t) {
    if (tsel != 4 && tsel != t) continue;
    for (int op = 0; op < 7; ++op) {
      if (osel != 7 && osel != op) continue;
      if (t >= 2 && op >= 4) continue;
      c.type = t;
      c.op = op;
      for (size_t size = o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
        if (size % type_size[t] != 0) continue;
        c.size = size;
        c.count = size / type_size[t];
        for (size_t i = 0; i < c.count; ++i) red_store(t, c.src, i, red_input(op, h.me, i));
        memset(c.dest, 0, size);
        shmem_barrier_all();
        const perf_summary ref = perf_host_time_coll_us(&h, red_memcpy, &c);
        const perf_summary value = perf_host_time_coll_us(&h, red_run, &c);
        long bad = 0;
        size_t first = 0;
        double want_first = 0, got_first = 0;
        const char *e = getenv("PERFTEST_CORRUPT");
        if (e != NULL && strcmp(e, "1") == 0) red_store(t, c.dest, c.count / 2, 12345);
        for (size_t i = 0; i < c.count; ++i) {
          long want = red_input(op, 0, i);
          for (int pe = 1; pe < h.npes; ++pe) want = red_fold(op, want, red_input(op, pe, i));
          const double got = red_load(t, c.dest, i);
          if (got != (double)want && bad++ == 0) {
            first = i;
            want_first = (double)want;
            got_first = got;
          }
        }
        if (bad != 0)
          fprintf(stderr,
                  "%s: PE %d: %s %s reduce of %zu elements: %ld wrong; first at element %zu: expected %g, got %g\n",
                  h.bench, h.me, types[t], rops[op], c.count, bad, first, want_first, got_first);
        perf_point p;
        memset(&p, 0, sizeof p);
        p.size = size;
        p.count = c.count;
        p.type = types[t];
        p.op = rops[op];
        p.scope = "host";
        p.metric = "lat_us";
        p.value = value;
        p.ref_name = "memcpy_us";
        p.ref = ref;
        if (value.valid && value.median > 0) {
          p.algbw = (double)size / (value.median * 1e3);
          p.busbw = p.algbw * 2.0 * (double)(h.npes - 1) / (double)h.npes;
        }
        p.errors = perf_host_errors(&h, bad);
        perf_report(&h, &p);
      }
    }
  }
  perf_coll_free(&coll);
  shmem_free(c.dest);
  shmem_free(c.src);
  free(c.scratch);
  return perf_host_finish(&h);
}
