/*
 * host_atomic_latency: host-initiated atomics, PE 0 -> one word on PE 1, microseconds per operation.
 * Fetching atomics wait for their value; the others are each followed by shmem_quiet.
 *   -a OP: fetch_add add fetch_inc inc fetch set swap compare_swap (on long), fetch_and fetch_or
 *          fetch_xor and or xor (on unsigned long), or all (default).
 *   reference: the same operation on a private word with the compiler's __atomic builtins (local_us).
 * Checks: every fetched value against the value the sequence of operations implies, and PE 1's word at
 * the end; a wrong one names the operation, the iteration, expected and observed.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_host.h"

enum { FETCH_ADD, ADD, FETCH_INC, INC, FETCH, SET, SWAP, CSWAP, FETCH_AND, FETCH_OR, FETCH_XOR, AND, OR, XOR, N_OPS };
static const char *const ops[] = {"fetch_add", "add",      "fetch_inc", "inc", "fetch", "set", "swap", "compare_swap",
                                  "fetch_and", "fetch_or", "fetch_xor", "and", "or",    "xor", "all",  NULL};

typedef struct amo_ctx {
  int op;
  long *word;           /* PE 1's word (symmetric) */
  unsigned long *uword; /* the same word, for the bitwise operations */
  long local;           /* the reference's word */
  unsigned long expect; /* the value PE 1's word must hold now */
  long long k;          /* operations so far */
  long bad;
  long long first_k;
  unsigned long first_want, first_got;
} amo_ctx;

/* The initial value of the word (PE 1 sets it): bitwise operations start from a mixed pattern. */
#define AMO_INIT 0x5a5a5a5a5a5a5a5aul

static void amo_seen(amo_ctx *c, unsigned long want, unsigned long got) {
  if (want != got && c->bad++ == 0) {
    c->first_k = c->k;
    c->first_want = want;
    c->first_got = got;
  }
}

static unsigned long amo_mask(long long k) {
  return 1ul << (k % 64);
}

static void amo_remote(void *p, int n) {
  amo_ctx *c = (amo_ctx *)p;
  for (int i = 0; i < n; ++i, ++c->k) {
    const unsigned long m = amo_mask(c->k);
    switch (c->op) {
      case FETCH_ADD:
        amo_seen(c, c->expect, (unsigned long)shmem_long_atomic_fetch_add(c->word, 1, 1));
        c->expect += 1;
        break;
      case ADD:
        shmem_long_atomic_add(c->word, 1, 1);
        shmem_quiet();
        c->expect += 1;
        break;
      case FETCH_INC:
        amo_seen(c, c->expect, (unsigned long)shmem_long_atomic_fetch_inc(c->word, 1));
        c->expect += 1;
        break;
      case INC:
        shmem_long_atomic_inc(c->word, 1);
        shmem_quiet();
        c->expect += 1;
        break;
      case FETCH:
        amo_seen(c, c->expect, (unsigned long)shmem_long_atomic_fetch(c->word, 1));
        break;
      case SET:
        shmem_long_atomic_set(c->word, (long)c->k, 1);
        shmem_quiet();
        c->expect = (unsigned long)c->k;
        break;
      case SWAP:
        amo_seen(c, c->expect, (unsigned long)shmem_long_atomic_swap(c->word, (long)c->k, 1));
        c->expect = (unsigned long)c->k;
        break;
      case CSWAP:
        amo_seen(c, c->expect, (unsigned long)shmem_long_atomic_compare_swap(c->word, (long)c->expect, (long)c->k, 1));
        c->expect = (unsigned long)c->k;
        break;
      case FETCH_AND:
        amo_seen(c, c->expect, shmem_ulong_atomic_fetch_and(c->uword, ~m, 1));
        c->expect &= ~m;
        break;
      case FETCH_OR:
        amo_seen(c, c->expect, shmem_ulong_atomic_fetch_or(c->uword, m, 1));
        c->expect |= m;
        break;
      case FETCH_XOR:
        amo_seen(c, c->expect, shmem_ulong_atomic_fetch_xor(c->uword, m, 1));
        c->expect ^= m;
        break;
      case AND:
        shmem_ulong_atomic_and(c->uword, ~m, 1);
        shmem_quiet();
        c->expect &= ~m;
        break;
      case OR:
        shmem_ulong_atomic_or(c->uword, m, 1);
        shmem_quiet();
        c->expect |= m;
        break;
      default:
        shmem_ulong_atomic_xor(c->uword, m, 1);
        shmem_quiet();
        c->expect ^= m;
    }
  }
}

static void amo_local(void *p, int n) {
  amo_ctx *c = (amo_ctx *)p;
  long *w = &c->local;
  unsigned long *u = (unsigned long *)&c->local;
  long sink = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned long m = amo_mask(i);
    switch (c->op) {
      case FETCH_ADD:
      case FETCH_INC:
        sink += __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
        break;
      case ADD:
      case INC:
        __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
        break;
      case FETCH:
        sink += __atomic_load_n(w, __ATOMIC_SEQ_CST);
        break;
      case SET:
        __atomic_store_n(w, (long)i, __ATOMIC_SEQ_CST);
        break;
      case SWAP:
        sink += __atomic_exchange_n(w, (long)i, __ATOMIC_SEQ_CST);
        break;
      case CSWAP: {
        long want = i - 1;
        __atomic_compare_exchange_n(w, &want, (long)i, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        sink += want;
        break;
      }
      case FETCH_AND:
      case AND:
        sink += (long)__atomic_fetch_and(u, ~m, __ATOMIC_SEQ_CST);
        break;
      case FETCH_OR:
      case OR:
        sink += (long)__atomic_fetch_or(u, m, __ATOMIC_SEQ_CST);
        break;
      default:
        sink += (long)__atomic_fetch_xor(u, m, __ATOMIC_SEQ_CST);
    }
  }
  perf_keep(&sink);
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.op = "all";
  perf_opts_parse(argc, argv, "nwra",
                  "-a fetch_add | add | fetch_inc | inc | fetch | set | swap | compare_swap | fetch_and | fetch_or |\n"
                  "   fetch_xor | and | or | xor | all (default all)",
                  &o);
  const int which = perf_opts_choose(o.prog, 'a', o.op, ops);
  perf_host h;
  perf_host_start(&h, &o, "host_atomic_latency", 2, 0);
  amo_ctx c;
  memset(&c, 0, sizeof c);
  c.word = (long *)perf_host_malloc(&h, sizeof(long));
  c.uword = (unsigned long *)c.word;
  /* Allocated before the timed loops: PE 1 waits in shmem_barrier_all while PE 0 measures, as in the put and
     get programs (inside shmem_malloc it would wait in the bootstrap's exchange instead, where a library
     serves remote atomics only from a progress thread, if it has one). */
  unsigned long *want = (unsigned long *)perf_host_malloc(&h, sizeof(unsigned long));
  for (int op = 0; op < N_OPS; ++op) {
    if (which != N_OPS && which != op) continue;
    c.op = op;
    c.k = 0;
    c.bad = 0;
    c.expect = op >= FETCH_AND ? AMO_INIT : 0;
    c.local = 0;
    if (h.me == 1) *c.uword = c.expect;
    shmem_barrier_all();
    perf_summary value, ref;
    memset(&value, 0, sizeof value);
    memset(&ref, 0, sizeof ref);
    if (h.me == 0) {
      ref = perf_host_time_us(&h, amo_local, &c);
      value = perf_host_time_us(&h, amo_remote, &c);
    }
    /* PE 0 tells PE 1 what its word must hold */
    if (h.me == 0) shmem_ulong_p(want, c.expect, 1);
    shmem_barrier_all();
    long bad = 0;
    if (h.me == 0 && c.bad != 0) {
      fprintf(stderr,
              "%s: PE 0: %s: %ld of %lld fetched values wrong; first at operation %lld: expected 0x%lx, got 0x%lx\n",
              h.bench, ops[op], c.bad, c.k, c.first_k, c.first_want, c.first_got);
      bad = c.bad;
    }
    if (h.me == 1) {
      const char *e = getenv("PERFTEST_CORRUPT");
      if (e != NULL && strcmp(e, "1") == 0) *c.uword ^= 1;
      if (*c.uword != *want) {
        fprintf(stderr, "%s: PE 1: %s: after the run the word holds 0x%lx, expected 0x%lx\n", h.bench, ops[op],
                *c.uword, *want);
        bad += 1;
      }
    }
    perf_point p;
    memset(&p, 0, sizeof p);
    p.size = sizeof(long);
    p.type = op >= FETCH_AND ? "ulong" : "long";
    p.op = ops[op];
    p.scope = "host";
    p.metric = "lat_us";
    p.value = value;
    p.ref_name = "local_us";
    p.ref = ref;
    p.errors = perf_host_errors(&h, bad);
    perf_report(&h, &p);
  }
  shmem_free(want);
  shmem_free(c.word);
  return perf_host_finish(&h);
}
