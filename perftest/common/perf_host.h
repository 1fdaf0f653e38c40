/*
 * What the host perftest programs share besides the options: start and end of a run, the timed repeat
 * loop, the job-wide error count, the byte pattern and its checks, and the output (a table row and one
 * JSON line per point). Plain C over the standard OpenSHMEM API only, so the programs also build with
 * another library's oshcc.
 *
 * Every figure is per operation: latency in microseconds, bandwidth in GB/s (1e9 bytes per second). The
 * reference is measured in the same run (memcpy of the same bytes, a local atomic, ...); `ratio` is the
 * figure's median over the reference's median.
 */
#ifndef GPUSHMEM_PERF_HOST_H
#define GPUSHMEM_PERF_HOST_H

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_options.h"
#include "perf_timer.h"

typedef struct perf_summary {
  double median, min, max;
  int valid; /* 0: not measured (the table shows n/a, JSON null) */
} perf_summary;

typedef struct perf_host {
  perf_opts *o;
  const char *bench;
  int me, npes;
  int collective;  /* the table has the collective columns (count, type, algbw, busbw) */
  int header_done; /* the table header has been printed */
  long *errors;    /* symmetric: PE 0's word sums every PE's errors of one check */
  long long total_errors;
  double *samples;     /* [repeats] */
  double *all_samples; /* symmetric [npes * repeats]: every PE's samples, gathered on PE 0 */
  char library[SHMEM_MAX_NAME_LEN + 1];
} perf_host;

/* This PE's own symmetric bytes, read and written through the library, never by load and store: the heap may
   be GPU memory (GPUSHMEM_SYMMETRIC_HEAP=gpu). */
static inline void perf_host_own_read(void *dst, const void *sym, size_t bytes) {
  shmem_getmem(dst, sym, bytes, shmem_my_pe());
}
static inline void perf_host_own_write(void *sym, const void *src, size_t bytes) {
  shmem_putmem(sym, src, bytes, shmem_my_pe());
  shmem_quiet();
}
static inline void perf_host_own_zero(long *sym) {
  const long zero = 0;
  perf_host_own_write(sym, &zero, sizeof zero);
}

/* Starts the library and the run: at least `min_pes` PEs, or every PE exits 2. Prints a '#' line naming
   the program, the library and the configuration. */

static inline void perf_host_start(perf_host *h, perf_opts *o, const char *bench, int min_pes, int collective) {
  memset(h, 0, sizeof *h);
  h->o = o;
  h->bench = bench;
  h->collective = collective;
  shmem_init();
  h->me = shmem_my_pe();
  h->npes = shmem_n_pes();
  shmem_info_get_name(h->library);
  if (h->npes < min_pes) {
    if (h->me == 0) fprintf(stderr, "%s: needs at least %d PEs (started with %d)\n", bench, min_pes, h->npes);
    shmem_finalize();
    exit(2);
  }
  h->errors = (long *)shmem_malloc(sizeof(long));
  h->samples = (double *)malloc(sizeof(double) * (size_t)o->repeats);
  h->all_samples = (double *)shmem_malloc(sizeof(double) * (size_t)o->repeats * (size_t)h->npes);
  if (h->errors == NULL || h->samples == NULL || h->all_samples == NULL) {
    fprintf(stderr, "%s: PE %d: out of memory at start\n", bench, h->me);
    shmem_global_exit(1);
  }
  perf_host_own_zero(h->errors);
  shmem_barrier_all();
  if (h->me == 0) {
    printf("# %s: %s, %d PEs, %d iterations (+%d warm-up), median [min,max] of %d repeats\n", bench, h->library,
           h->npes, o->iters, o->warmup, o->repeats);
    fflush(stdout);
  }
}

/* Releases the run's resources, finalizes, and returns the exit status: 0 when no check failed. */
static inline int perf_host_finish(perf_host *h) {
  shmem_barrier_all();
  shmem_free(h->errors);
  shmem_free(h->all_samples);
  free(h->samples);
  shmem_finalize();
  if (h->total_errors != 0 && h->me == 0)
    fprintf(stderr, "%s: FAILED: %lld data errors over the run (the messages above name them)\n", h->bench,
            h->total_errors);
  return h->total_errors == 0 ? 0 : 1;
}

/* Allocates symmetric memory or ends the job with a message. */
static inline void *perf_host_malloc(perf_host *h, size_t bytes) {
  void *p = shmem_malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "%s: PE %d: shmem_malloc(%zu) failed (raise SHMEM_SYMMETRIC_SIZE)\n", h->bench, h->me, bytes);
    shmem_global_exit(1);
  }
  return p;
}

static inline void *perf_host_private(perf_host *h, size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "%s: PE %d: malloc(%zu) failed\n", h->bench, h->me, bytes);
    shmem_global_exit(1);
  }
  return p;
}

/* Collective: every PE passes the errors it found; every PE gets the job's total, which also counts
   towards the exit status. Uses only an atomic add and a get. */
static inline long long perf_host_errors(perf_host *h, long local) {
  shmem_barrier_all();
  if (local != 0) shmem_long_atomic_add(h->errors, local, 0);
  shmem_barrier_all();
  const long total = shmem_long_g(h->errors, 0);
  shmem_barrier_all();
  if (h->me == 0) perf_host_own_zero(h->errors);
  shmem_barrier_all();
  h->total_errors += total;
  return total;
}

/* The timed loop: `fn(ctx, n)` does n iterations of the operation. One warm-up call of -w iterations
   (when -w > 0), then -r calls of -n iterations; returns the median [min,max] of the microseconds per
   iteration. Every PE that calls it times itself (no barrier inside). */
typedef void (*perf_host_fn)(void *ctx, int iters);
static inline perf_summary perf_host_time_us(perf_host *h, perf_host_fn fn, void *ctx) {
  perf_summary s;
  if (h->o->warmup > 0) fn(ctx, h->o->warmup);
  for (int r = 0; r < h->o->repeats; ++r) {
    const double t0 = perf_now_ns();
    fn(ctx, h->o->iters);
    const double t1 = perf_now_ns();
    h->samples[r] = (t1 - t0) / 1e3 / h->o->iters;
  }
  s.median = perf_median(h->samples, h->o->repeats, &s.min, &s.max);
  s.valid = 1;
  return s;
}

/* The timed loop of a collective: every PE calls it. Each repeat starts with shmem_barrier_all (so every
   PE starts together) and its time is the slowest PE's; the warm-up likewise. Returns, on PE 0, the median
   [min,max] over the repeats of that slowest time per iteration, in microseconds (other PEs: invalid). */
static inline perf_summary perf_host_time_coll_us(perf_host *h, perf_host_fn fn, void *ctx) {
  perf_summary s;
  memset(&s, 0, sizeof s);
  const int reps = h->o->repeats;
  if (h->o->warmup > 0) {
    shmem_barrier_all();
    fn(ctx, h->o->warmup);
  }
  for (int r = 0; r < reps; ++r) {
    shmem_barrier_all();
    const double t0 = perf_now_ns();
    fn(ctx, h->o->iters);
    const double t1 = perf_now_ns();
    h->samples[r] = (t1 - t0) / 1e3 / h->o->iters;
  }
  shmem_putmem(h->all_samples + (size_t)h->me * (size_t)reps, h->samples, sizeof(double) * (size_t)reps, 0);
  shmem_barrier_all();
  if (h->me == 0) {
    for (int r = 0; r < reps; ++r) {
      double worst = 0;
      for (int pe = 0; pe < h->npes; ++pe) {
        double v = 0;
        shmem_getmem(&v, h->all_samples + (size_t)pe * (size_t)reps + (size_t)r, sizeof v, 0);
        if (v > worst) worst = v;
      }
      h->samples[r] = worst;
    }
    s.median = perf_median(h->samples, reps, &s.min, &s.max);
    s.valid = 1;
  }
  shmem_barrier_all();
  return s;
}

/* Microseconds per operation -> GB/s for `bytes` per operation (min and max swap). */
static inline perf_summary perf_us_to_gbps(perf_summary us, size_t bytes) {
  perf_summary s = us;
  if (!us.valid) return s;
  s.median = us.median > 0 ? (double)bytes / (us.median * 1e3) : 0;
  s.min = us.max > 0 ? (double)bytes / (us.max * 1e3) : 0;
  s.max = us.min > 0 ? (double)bytes / (us.min * 1e3) : 0;
  return s;
}

/* ---- Data: the pattern every program moves and checks ----------------------------------------- */

/* Byte i of the pattern for `seed`: differs between neighbouring bytes and between seeds. */
static inline unsigned char perf_pattern(size_t i, uint32_t seed) {
  uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 0x9e37u;
  x ^= x >> 13;
  return (unsigned char)(x ^ (x >> 8));
}

static inline void perf_fill(void *p, size_t n, uint32_t seed) {
  unsigned char *b = (unsigned char *)p;
  for (size_t i = 0; i < n; ++i) b[i] = perf_pattern(i, seed);
}

/* Test hook: with PERFTEST_CORRUPT=1 in the environment, every check first flips one byte of what it is
   about to check (the middle one), so a test can see that a wrong byte fails the run. */
static inline void perf_corrupt(void *p, size_t n) {
  const char *e = getenv("PERFTEST_CORRUPT");
  if (e != NULL && strcmp(e, "1") == 0 && n > 0) ((unsigned char *)p)[n / 2] ^= 0x5a;
}

/* Checks n bytes against the pattern; prints the first wrong byte (PE, what, byte index, expected, got)
   and returns how many are wrong. */
static inline long perf_check(const perf_host *h, const void *p, size_t n, uint32_t seed, const char *what) {
  const unsigned char *b = (const unsigned char *)p;
  perf_corrupt((void *)p, n);
  long bad = 0;
  size_t first = 0;
  for (size_t i = 0; i < n; ++i)
    if (b[i] != perf_pattern(i, seed)) {
      if (bad++ == 0) first = i;
    }
  if (bad != 0)
    fprintf(stderr, "%s: PE %d: %s: %ld of %zu bytes wrong; first at byte %zu: expected 0x%02x, got 0x%02x\n", h->bench,
            h->me, what, bad, n, first, perf_pattern(first, seed), b[first]);
  return bad;
}

/* Keeps the compiler from dropping a copy whose result nobody reads. */
static inline void perf_keep(void *p) {
#if defined(__GNUC__)
  __asm__ __volatile__("" : : "r"(p) : "memory");
#else
  (void)p;
#endif
}

/* ---- Output ------------------------------------------------------------------------------------- */

typedef struct perf_point {
  size_t size;        /* bytes per operation (per PE for collectives) */
  size_t count;       /* elements (collectives); 0: not shown */
  const char *type;   /* data type, or "" */
  const char *op;     /* the operation measured: "putmem_nbi", "sum", "fetch_add", ... */
  const char *scope;  /* "host", "on_stream", ... */
  const char *metric; /* "lat_us" or "bw_GBps" */
  perf_summary value;
  const char *ref_name; /* e.g. "memcpy_us"; NULL: no reference */
  perf_summary ref;
  double algbw, busbw; /* collectives, GB/s */
  long long errors;    /* of this point, job-wide */
} perf_point;

static inline void perf_cell(char *buf, size_t n, perf_summary s) {
  if (!s.valid)
    snprintf(buf, n, "n/a");
  else
    snprintf(buf, n, "%.3f [%.3f,%.3f]", s.median, s.min, s.max);
}

static inline void perf_json_stat(char *buf, size_t n, const char *key, perf_summary s) {
  size_t len = strlen(buf);
  if (!s.valid)
    snprintf(buf + len, n - len, ",\"%s\":null", key);
  else
    snprintf(buf + len, n - len, ",\"%s\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f}", key, s.median, s.min, s.max);
}

/* PE 0 prints the table row (and the header before the first) and the JSON line. */
static inline void perf_report(perf_host *h, const perf_point *p) {
  if (h->me != 0) return;
  const perf_opts *o = h->o;
  const int have_ref = p->ref_name != NULL && p->ref.valid && p->ref.median > 0;
  const double ratio = have_ref && p->value.valid ? p->value.median / p->ref.median : 0;
  char value[96], ref[32], rat[32];
  perf_cell(value, sizeof value, p->value);
  if (have_ref) {
    snprintf(ref, sizeof ref, "%.3f", p->ref.median);
    snprintf(rat, sizeof rat, "%.3f", ratio);
  } else {
    snprintf(ref, sizeof ref, "n/a");
    snprintf(rat, sizeof rat, "n/a");
  }
  if (!h->header_done) {
    h->header_done = 1;
    char vh[48], rh[48];
    snprintf(vh, sizeof vh, "%s [min,max]", p->metric);
    snprintf(rh, sizeof rh, "%s", p->ref_name != NULL ? p->ref_name : "ref");
    if (h->collective)
      printf("%-10s %-10s %-7s %-12s %-30s %-14s %-7s %-11s %-11s %-5s\n", "size(B)", "count", "type", "op", vh, rh,
             "ratio", "algbw(GB/s)", "busbw(GB/s)", "check");
    else
      printf("%-10s %-14s %-10s %-30s %-14s %-7s %-5s\n", "size(B)", "op", "scope", vh, rh, "ratio", "check");
  }
  if (h->collective)
    printf("%-10zu %-10zu %-7s %-12s %-30s %-14s %-7s %-11.3f %-11.3f %-5s\n", p->size, p->count, p->type, p->op, value,
           ref, rat, p->algbw, p->busbw, p->errors ? "FAIL" : "ok");
  else
    printf("%-10zu %-14s %-10s %-30s %-14s %-7s %-5s\n", p->size, p->op, p->scope, value, ref, rat,
           p->errors ? "FAIL" : "ok");
  char body[2048];
  snprintf(body, sizeof body,
           "\"bench\":\"%s\",\"library\":\"%s\",\"npes\":%d,\"size\":%zu,\"count\":%zu,\"type\":\"%s\",\"op\":\"%s\","
           "\"scope\":\"%s\",\"iters\":%d,\"warmup\":%d,\"repeats\":%d,\"metric\":\"%s\",\"ref\":\"%s\"",
           h->bench, h->library, h->npes, p->size, p->count, p->type, p->op, p->scope, o->iters, o->warmup, o->repeats,
           p->metric, p->ref_name != NULL ? p->ref_name : "");
  perf_json_stat(body, sizeof body, p->metric, p->value);
  if (p->ref_name != NULL) perf_json_stat(body, sizeof body, p->ref_name, p->ref);
  size_t len = strlen(body);
  if (have_ref && p->value.valid)
    snprintf(body + len, sizeof body - len, ",\"ratio\":%.4f", ratio);
  else
    snprintf(body + len, sizeof body - len, ",\"ratio\":null");
  len = strlen(body);
  if (h->collective)
    snprintf(body + len, sizeof body - len, ",\"algbw_GBps\":%.4f,\"busbw_GBps\":%.4f", p->algbw, p->busbw);
  len = strlen(body);
  snprintf(body + len, sizeof body - len, ",\"check\":\"%s\"", p->errors ? "FAIL" : "ok");
  perf_emit_json(o, body);
}

#endif /* GPUSHMEM_PERF_HOST_H */
