/* The checks behind bootstrap_conformance: every byte any collective delivers is compared with a pattern
   that depends on who sent it, to whom, in which call and at which offset. */
#include "conformance_checks.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t kSizes[] = {1, 8, 64 * 1024, 100003, 3 * 1024 * 1024};
enum { kNumSizes = sizeof kSizes / sizeof kSizes[0], kBarriers = 100, kPoison = 0xA5 };

void conformance_fail(gpushmem_bootstrap_t *b, const char *check, const char *fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  char msg[768];
  snprintf(msg, sizeof msg, "bootstrap_conformance %s PE %d: FAILED %s: %s", b != NULL && b->name ? b->name : "?",
           b != NULL ? b->rank : -1, check, detail);
  fprintf(stderr, "%s\n", msg);
  fflush(NULL);
  if (b != NULL && b->abort != NULL) b->abort(b, 2, msg);
  exit(2);
}

void conformance_log(int level, const char *plugin, const char *message) {
  static const char *names[] = {"ERROR", "WARN", "INFO"};
  fprintf(stderr, "[%s] bootstrap %s: %s\n", level >= 0 && level <= 2 ? names[level] : "?", plugin, message);
}

void conformance_load(const char *path, const gpushmem_bootstrap_args_t *args, gpushmem_bootstrap_t *b) {
  memset(b, 0, sizeof *b);
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) conformance_fail(NULL, "dlopen", "%s: %s", path, dlerror());
  gpushmem_bootstrap_init_fn init = (gpushmem_bootstrap_init_fn)dlsym(handle, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL);
  if (init == NULL) conformance_fail(NULL, "dlsym", "%s has no symbol %s", path, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL);
  int rc = init(args, b);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    memset(b, 0, sizeof *b); /* the table is not valid: do not call its abort */
    conformance_fail(NULL, "init", "%s returned %d", path, rc);
  }
  gpushmem_bootstrap_t copy = *b;
  copy.abort = NULL; /* report table defects without trusting the table */
  if (b->abi_version != GPUSHMEM_BOOTSTRAP_ABI_VERSION)
    conformance_fail(&copy, "table", "abi_version %u, expected %d", b->abi_version, GPUSHMEM_BOOTSTRAP_ABI_VERSION);
  if (b->struct_size < sizeof *b)
    conformance_fail(&copy, "table", "struct_size %u, expected at least %zu", b->struct_size, sizeof *b);
  if (b->name == NULL || *b->name == '\0') conformance_fail(&copy, "table", "name is empty");
  if (b->size < 1 || b->rank < 0 || b->rank >= b->size)
    conformance_fail(&copy, "table", "rank %d of size %d", b->rank, b->size);
  if (!b->allgather || !b->alltoall || !b->bcast || !b->barrier || !b->abort || !b->finalize)
    conformance_fail(&copy, "table",
                     "an entry is NULL (allgather %d alltoall %d bcast %d barrier %d abort %d "
                     "finalize %d)",
                     !!b->allgather, !!b->alltoall, !!b->bcast, !!b->barrier, !!b->abort, !!b->finalize);
}

/* One byte of the pattern sent in call `call` by PE `from` to PE `to` at offset i. */
static uint8_t pattern(uint32_t call, uint32_t from, uint32_t to, size_t i) {
  uint32_t x = call * 0x9E3779B1u ^ (from + 1) * 0x85EBCA77u ^ (to + 7) * 0xC2B2AE3Du ^ (uint32_t)i * 0x27D4EB2Fu;
  x ^= (uint32_t)(i >> 32);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return (uint8_t)x;
}

static void *xmalloc(gpushmem_bootstrap_t *b, size_t n) {
  void *p = malloc(n > 0 ? n : 1);
  if (p == NULL) conformance_fail(b, "malloc", "out of memory for %zu bytes", n);
  return p;
}

static void fill(uint8_t *p, size_t bytes, uint32_t call, int from, int to) {
  for (size_t i = 0; i < bytes; ++i) p[i] = pattern(call, (uint32_t)from, (uint32_t)to, i);
}

/* Compares one received block; names the call, the peer and the first wrong byte. */
static void expect_block(gpushmem_bootstrap_t *b, const char *check, size_t bytes, const uint8_t *got, uint32_t call,
                         int from, int to) {
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t want = pattern(call, (uint32_t)from, (uint32_t)to, i);
    if (got[i] != want) {
      char pair[48];
      if (to >= 0)
        snprintf(pair, sizeof pair, "from PE %d to PE %d", from, to);
      else
        snprintf(pair, sizeof pair, "from PE %d", from);
      conformance_fail(b, check, "%zu-byte block %s: byte %zu is 0x%02x, expected 0x%02x", bytes, pair, i, got[i],
                       want);
    }
  }
}

static void expect_ok(gpushmem_bootstrap_t *b, const char *check, size_t bytes, int rc) {
  if (rc != GPUSHMEM_BOOTSTRAP_OK) conformance_fail(b, check, "%zu bytes: returned %d", bytes, rc);
}

/* Ranks must be 0..size-1, each exactly once, and every PE must agree on the size. */
static void check_numbering(gpushmem_bootstrap_t *b) {
  int32_t mine[2] = {b->rank, b->size};
  int32_t *all = xmalloc(b, sizeof mine * (size_t)b->size);
  expect_ok(b, "allgather(rank numbering)", sizeof mine, b->allgather(b, mine, all, sizeof mine));
  for (int r = 0; r < b->size; ++r)
    if (all[2 * r] != r || all[2 * r + 1] != b->size)
      conformance_fail(b, "rank numbering", "block %d holds rank %d of size %d, expected rank %d of size %d", r,
                       all[2 * r], all[2 * r + 1], r, b->size);
  free(all);
}

static void check_allgather(gpushmem_bootstrap_t *b, uint32_t *call) {
  for (int k = 0; k < kNumSizes; ++k) {
    size_t bytes = kSizes[k];
    uint32_t c = (*call)++;
    uint8_t *in = xmalloc(b, bytes), *out = xmalloc(b, bytes * (size_t)b->size);
    fill(in, bytes, c, b->rank, -1);
    memset(out, kPoison, bytes * (size_t)b->size);
    expect_ok(b, "allgather", bytes, b->allgather(b, in, out, bytes));
    expect_block(b, "allgather (input changed)", bytes, in, c, b->rank, -1);
    for (int r = 0; r < b->size; ++r) expect_block(b, "allgather", bytes, out + (size_t)r * bytes, c, r, -1);
    free(in);
    free(out);
  }
}

static void check_alltoall(gpushmem_bootstrap_t *b, uint32_t *call) {
  for (int k = 0; k < kNumSizes; ++k) {
    size_t bytes = kSizes[k], total = bytes * (size_t)b->size;
    uint32_t c = (*call)++;
    uint8_t *in = xmalloc(b, total), *out = xmalloc(b, total);
    for (int to = 0; to < b->size; ++to) fill(in + (size_t)to * bytes, bytes, c, b->rank, to);
    memset(out, kPoison, total);
    expect_ok(b, "alltoall", bytes, b->alltoall(b, in, out, bytes));
    for (int to = 0; to < b->size; ++to)
      expect_block(b, "alltoall (input changed)", bytes, in + (size_t)to * bytes, c, b->rank, to);
    for (int from = 0; from < b->size; ++from)
      expect_block(b, "alltoall", bytes, out + (size_t)from * bytes, c, from, b->rank);
    free(in);
    free(out);
  }
}

static void check_bcast(gpushmem_bootstrap_t *b, uint32_t *call) {
  for (int root = 0; root < b->size; ++root) {
    for (int k = 0; k < kNumSizes; ++k) {
      size_t bytes = kSizes[k];
      uint32_t c = (*call)++;
      uint8_t *buf = xmalloc(b, bytes);
      if (b->rank == root)
        fill(buf, bytes, c, root, -1);
      else
        memset(buf, kPoison, bytes);
      char check[64];
      snprintf(check, sizeof check, "bcast(root %d)", root);
      expect_ok(b, check, bytes, b->bcast(b, buf, bytes, root));
      expect_block(b, check, bytes, buf, c, root, -1);
      free(buf);
    }
  }
}

/* Barriers cannot be observed directly without shared memory; every tenth one is followed by an allgather
   of the barrier count, which catches a PE that fell out of step (a barrier that returned early or twice). */
static void check_barriers(gpushmem_bootstrap_t *b) {
  int32_t *counts = xmalloc(b, sizeof(int32_t) * (size_t)b->size);
  for (int32_t i = 1; i <= kBarriers; ++i) {
    int rc = b->barrier(b);
    if (rc != GPUSHMEM_BOOTSTRAP_OK) conformance_fail(b, "barrier", "barrier %d of %d returned %d", i, kBarriers, rc);
    if (i % 10 != 0) continue;
    expect_ok(b, "allgather(barrier count)", sizeof i, b->allgather(b, &i, counts, sizeof i));
    for (int r = 0; r < b->size; ++r)
      if (counts[r] != i) conformance_fail(b, "barrier", "after barrier %d PE %d reports %d barriers", i, r, counts[r]);
  }
  free(counts);
}

void conformance_run(gpushmem_bootstrap_t *b) {
  uint32_t call = 1;
  check_numbering(b);
  check_allgather(b, &call);
  check_alltoall(b, &call);
  check_bcast(b, &call);
  check_barriers(b);
}
