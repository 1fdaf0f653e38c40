/*
 * The body of host_p_latency and host_g_latency: PE 0 writes (shmem_TYPE_p + shmem_quiet) or reads
 * (shmem_TYPE_g) one element of PE 1's symmetric memory per iteration; microseconds per iteration.
 * Each program file defines PERF_PG_GET (0: p, 1: g) and PERF_PG_BENCH, then includes this file.
 *   -d int | long | longlong | float | double | all (default all)
 *   reference: memcpy of one element between private buffers on PE 0 (memcpy_us), same loop.
 * Checks: p writes a running count; PE 1 checks that the last one arrived. g checks every value it
 * fetched against what PE 1 holds. A wrong value names the type, iteration, expected and observed value.
 * PE 1 reads and writes its own element through shmem_getmem / shmem_putmem to itself, never by load and
 * store: the symmetric heap may be in GPU memory (GPUSHMEM_SYMMETRIC_HEAP=gpu).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_host.h"

#define PG_TYPES(X) X(int, int) X(long, long) X(long long, longlong) X(float, float) X(double, double)

typedef struct pg_ctx {
  int type;
  void *sym;           /* PE 1's element (symmetric, 8 bytes) */
  long long k;         /* running count of p iterations (the value written) */
  long bad;            /* g: wrong values seen */
  long long first_bad; /* g: the first wrong iteration */
  double first_got;
  char scratch[16], src[16];
} pg_ctx;

/* The value g expects: PE 1 holds 1234 + type. */
#define PG_HELD(c) (1234 + (c)->type)

#define PG_FNS(T, N)                                   \
  static void pg_##N(void *p, int n) {                 \
    pg_ctx *c = (pg_ctx *)p;                           \
    T *dest = (T *)c->sym;                             \
    for (int i = 0; i < n; ++i) {                      \
      if (!PERF_PG_GET) {                              \
        shmem_##N##_p(dest, (T)(++c->k % 1000000), 1); \
        shmem_quiet();                                 \
      } else {                                         \
        const T v = shmem_##N##_g(dest, 1);            \
        ++c->k;                                        \
        if (v != (T)PG_HELD(c) && c->bad++ == 0) {     \
          c->first_bad = c->k;                         \
          c->first_got = (double)v;                    \
        }                                              \
      }                                                \
    }                                                  \
  }
PG_TYPES(PG_FNS)

static void pg_memcpy(void *p, int n) {
  static const size_t sizes[] = {sizeof(int), sizeof(long), sizeof(long long), sizeof(float), sizeof(double)};
  pg_ctx *c = (pg_ctx *)p;
  for (int i = 0; i < n; ++i) {
    memcpy(c->scratch, c->src, sizes[c->type]);
    perf_keep(c->scratch);
  }
}

/* PE 1's element as a double, and setting it, for each type. */
static double pg_read(int type, const void *p) {
  switch (type) {
    case 0:
      return *(const int *)p;
    case 1:
      return (double)*(const long *)p;
    case 2:
      return (double)*(const long long *)p;
    case 3:
      return *(const float *)p;
    default:
      return *(const double *)p;
  }
}
static void pg_write(int type, void *p, double v) {
  switch (type) {
    case 0:
      *(int *)p = (int)v;
      break;
    case 1:
      *(long *)p = (long)v;
      break;
    case 2:
      *(long long *)p = (long long)v;
      break;
    case 3:
      *(float *)p = (float)v;
      break;
    default:
      *(double *)p = v;
  }
}

int main(int argc, char **argv) {
  static const char *const types[] = {"int", "long", "longlong", "float", "double", "all", NULL};
  static const perf_host_fn fns[] = {pg_int, pg_long, pg_longlong, pg_float, pg_double};
  static const size_t sizes[] = {sizeof(int), sizeof(long), sizeof(long long), sizeof(float), sizeof(double)};
  perf_opts o;
  perf_opts_defaults(&o);
  o.type = "all";
  perf_opts_parse(argc, argv, "nwrd", "-d int | long | longlong | float | double | all (default all)", &o);
  const int which = perf_opts_choose(o.prog, 'd', o.type, types);
  perf_host h;
  perf_host_start(&h, &o, PERF_PG_BENCH, 2, 0);
  pg_ctx c;
  memset(&c, 0, sizeof c);
  c.sym = perf_host_malloc(&h, 16);
  for (int t = 0; t < 5; ++t) {
    if (which != 5 && which != t) continue;
    c.type = t;
    c.k = 0;
    c.bad = 0;
    char own[16];
    memset(own, 0, sizeof own);
    if (h.me == 1 && PERF_PG_GET) pg_write(t, own, PG_HELD(&c));
    perf_host_own_write(c.sym, own, sizeof own);
    shmem_barrier_all();
    perf_summary value, ref;
    memset(&value, 0, sizeof value);
    memset(&ref, 0, sizeof ref);
    if (h.me == 0) {
      ref = perf_host_time_us(&h, pg_memcpy, &c);
      value = perf_host_time_us(&h, fns[t], &c);
    }
    /* p: PE 0 tells PE 1 the last value it wrote */
    long long *last = (long long *)perf_host_malloc(&h, sizeof(long long));
    if (h.me == 0) shmem_longlong_p(last, c.k % 1000000, 1);
    shmem_barrier_all();
    long bad = 0;
    if (!PERF_PG_GET && h.me == 1) {
      long long last_value = 0;
      perf_host_own_read(own, c.sym, sizeof own);
      perf_host_own_read(&last_value, last, sizeof last_value);
      const double got = pg_read(t, own);
      if (got != (double)last_value) {
        fprintf(stderr, "%s: PE 1: shmem_%s_p: the last value written (iteration %lld) is %lld, PE 1 holds %g\n",
                h.bench, types[t], last_value, last_value, got);
        bad = 1;
      }
    }
    if (PERF_PG_GET && h.me == 0 && c.bad != 0) {
      fprintf(stderr, "%s: PE 0: shmem_%s_g: %ld of %lld values wrong; first at iteration %lld: expected %d, got %g\n",
              h.bench, types[t], c.bad, c.k, c.first_bad, PG_HELD(&c), c.first_got);
      bad = c.bad;
    }
    shmem_free(last);
    char opname[48];
    snprintf(opname, sizeof opname, "%s_%s", types[t], PERF_PG_GET ? "g" : "p+quiet");
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = sizes[t];
    p.type = types[t];
    p.op = opname;
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "memcpy_us";
    p.ref = ref;
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  shmem_free(c.sym);
  return perf_host_finish(&h);
}
