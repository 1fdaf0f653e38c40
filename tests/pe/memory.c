/*
 * Symmetric memory: the same offsets on every PE, calloc zeroes, align honours the alignment, realloc keeps
 * the contents, malloc_with_hints, free then reuse, malloc(0). With the argument "exhaust" (run with
 * SHMEM_SYMMETRIC_SIZE=1M): a 2 MiB request returns NULL on every PE and the library says why; smaller
 * requests still work afterwards.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* Each PE writes a PE-specific pattern into its own copy; every PE then reads every copy with getmem. If
   the allocation were not at the same offset everywhere, the remote reads would land elsewhere. */
static void check_symmetric(const char *what, unsigned char *p, size_t bytes) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  for (size_t i = 0; i < bytes; ++i) p[i] = (unsigned char)(me * 31 + i * 7 + 1);
  shmem_barrier_all();
  unsigned char *copy = (unsigned char *)malloc(bytes);
  for (int pe = 0; pe < npes; ++pe) {
    shmem_getmem(copy, p, bytes, pe);
    long bad = 0;
    for (size_t i = 0; i < bytes; ++i) {
      unsigned char want = (unsigned char)(pe * 31 + i * 7 + 1);
      if (copy[i] != want && bad++ < 3)
        PE_FAIL("%s: PE %d's copy, byte %zu: expected 0x%02x, got 0x%02x", what, pe, i, want, copy[i]);
    }
  }
  free(copy);
  shmem_barrier_all();
}

/* Every PE's offsets of `n` allocations relative to the first, gathered by puts into a symmetric table,
   must agree with PE 0's. */
static void check_same_offsets(void *const *ptrs, int n) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long long *table = (long long *)shmem_calloc((size_t)npes * (size_t)n, sizeof(long long));
  long long *mine = (long long *)malloc((size_t)n * sizeof(long long));
  for (int i = 0; i < n; ++i) mine[i] = (long long)((const char *)ptrs[i] - (const char *)ptrs[0]);
  for (int pe = 0; pe < npes; ++pe) shmem_longlong_put(table + (size_t)me * n, mine, (size_t)n, pe);
  shmem_barrier_all();
  for (int s = 0; s < npes; ++s)
    for (int i = 0; i < n; ++i)
      PE_CHECK(table[(size_t)s * n + i] == table[i],
               "allocation %d: PE %d has it at offset %lld from the first, PE 0 at %lld", i, s,
               table[(size_t)s * n + i], table[i]);
  free(mine);
  shmem_free(table);
}

static void exhaust(void) {
  void *keep = shmem_malloc(256 * 1024);
  PE_CHECK(keep != NULL, "shmem_malloc(256 KiB) failed with SHMEM_SYMMETRIC_SIZE=1M");
  void *big = shmem_malloc(2u << 20);
  PE_CHECK(big == NULL, "shmem_malloc(2 MiB) returned %p with SHMEM_SYMMETRIC_SIZE=1M; expected NULL", big);
  void *aligned = shmem_align(4096, 2u << 20);
  PE_CHECK(aligned == NULL, "shmem_align(4096, 2 MiB) returned %p; expected NULL", aligned);
  void *zeroed = shmem_calloc(2u << 20, 1);
  PE_CHECK(zeroed == NULL, "shmem_calloc(2 MiB, 1) returned %p; expected NULL", zeroed);
  /* The failed requests changed nothing: the rest of the heap is still there. */
  void *after = shmem_malloc(512 * 1024);
  PE_CHECK(after != NULL, "shmem_malloc(512 KiB) failed after the failed requests");
  if (after != NULL) check_symmetric("shmem_malloc after exhaustion", (unsigned char *)after, 512 * 1024);
  shmem_free(after);
  shmem_free(keep);
}

int main(int argc, char **argv) {
  shmem_init();
  if (argc > 1 && strcmp(argv[1], "exhaust") == 0) {
    exhaust();
    return pe_finish("memory exhaust");
  }
  const int me = shmem_my_pe();

  /* Same offsets everywhere, for a mix of sizes and calls. */
  void *ptrs[9];
  ptrs[0] = shmem_malloc(1);
  ptrs[1] = shmem_malloc(1000);
  ptrs[2] = shmem_align(4096, 10);
  ptrs[3] = shmem_calloc(100, 8);
  ptrs[4] = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
  ptrs[5] = shmem_malloc_with_hints(4096, SHMEM_MALLOC_SIGNAL_REMOTE | SHMEM_MALLOC_ATOMICS_REMOTE);
  ptrs[6] = shmem_malloc_with_hints(100, 0);
  ptrs[7] = shmem_malloc(1 << 20);
  /* A hint bit the library does not know is advice: allocated as shmem_malloc, not refused. */
  ptrs[8] = shmem_malloc_with_hints(64, 1L << 20);
  for (int i = 0; i < 9; ++i) PE_CHECK(ptrs[i] != NULL, "allocation %d returned NULL", i);
  check_same_offsets(ptrs, 9);
  check_symmetric("shmem_malloc(1000)", (unsigned char *)ptrs[1], 1000);
  check_symmetric("shmem_malloc_with_hints(ATOMICS_REMOTE)", (unsigned char *)ptrs[4], 64);
  check_symmetric("shmem_malloc_with_hints(SIGNAL|ATOMICS)", (unsigned char *)ptrs[5], 4096);
  check_symmetric("shmem_malloc(1 MiB)", (unsigned char *)ptrs[7], 1 << 20);
  check_symmetric("shmem_malloc_with_hints(unknown bit)", (unsigned char *)ptrs[8], 64);
  for (int i = 8; i >= 0; --i) shmem_free(ptrs[i]);

  /* Alignment. */
  const size_t aligns[] = {1, 8, 64, 128, 4096, 65536, 1 << 20};
  for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; ++a) {
    void *p = shmem_align(aligns[a], 100);
    PE_CHECK(p != NULL && (uintptr_t)p % aligns[a] == 0, "shmem_align(%zu, 100) returned %p", aligns[a], p);
    if (p != NULL) check_symmetric("shmem_align", (unsigned char *)p, 100);
    shmem_free(p);
  }
  void *def = shmem_malloc(3);
  PE_CHECK((uintptr_t)def % 64 == 0, "shmem_malloc(3) returned %p, not 64-byte aligned as documented", def);
  shmem_free(def);

  /* calloc zeroes memory that was dirty before (the same block: first fit reuses it). */
  unsigned char *dirty = (unsigned char *)shmem_malloc(10000);
  memset(dirty, 0xAB, 10000);
  shmem_free(dirty);
  unsigned char *zeroed = (unsigned char *)shmem_calloc(2500, 4);
  PE_CHECK(zeroed != NULL, "shmem_calloc(2500, 4) returned NULL");
  if (zeroed != NULL) {
    long bad = 0;
    for (size_t i = 0; i < 10000; ++i)
      if (zeroed[i] != 0 && bad++ < 3) PE_FAIL("shmem_calloc: byte %zu is 0x%02x, expected 0", i, zeroed[i]);
  }
  shmem_free(zeroed);

  /* realloc keeps the contents when growing and when shrinking, and the result is symmetric. */
  int *r = (int *)shmem_malloc(100 * sizeof(int));
  void *blocker = shmem_malloc(64); /* forces the growth to move the block */
  for (int i = 0; i < 100; ++i) r[i] = me * 100000 + i;
  r = (int *)shmem_realloc(r, 10000 * sizeof(int));
  PE_CHECK(r != NULL, "shmem_realloc(grow) returned NULL");
  if (r != NULL) {
    for (int i = 0; i < 100; ++i)
      PE_CHECK(r[i] == me * 100000 + i, "shmem_realloc(grow): element %d: expected %d, got %d", i, me * 100000 + i,
               r[i]);
    check_symmetric("shmem_realloc(grow)", (unsigned char *)r, 10000 * sizeof(int));
    for (int i = 0; i < 10; ++i) r[i] = me * 7 + i;
    r = (int *)shmem_realloc(r, 10 * sizeof(int));
    PE_CHECK(r != NULL, "shmem_realloc(shrink) returned NULL");
    for (int i = 0; r != NULL && i < 10; ++i)
      PE_CHECK(r[i] == me * 7 + i, "shmem_realloc(shrink): element %d: expected %d, got %d", i, me * 7 + i, r[i]);
  }
  shmem_free(r);
  shmem_free(blocker);
  void *from_null = shmem_realloc(NULL, 128);
  PE_CHECK(from_null != NULL, "shmem_realloc(NULL, 128) returned NULL; expected a new block");
  shmem_free(from_null);

  /* free then reuse: allocation is deterministic first fit, so the same request gets the same block. */
  void *first = shmem_malloc(4096);
  shmem_free(first);
  void *again = shmem_malloc(4096);
  PE_CHECK(again == first, "shmem_malloc after shmem_free: got %p, expected the freed block %p", again, first);
  shmem_free(again);

  /* Zero-byte requests return NULL; freeing NULL does nothing. */
  PE_CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) did not return NULL");
  PE_CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) did not return NULL");
  PE_CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) did not return NULL");
  PE_CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) did not return NULL");
  shmem_free(NULL);

  /* Many small allocations freed in another order leave a heap that can hold a large block again. */
  void *many[64];
  for (int i = 0; i < 64; ++i) many[i] = shmem_malloc((size_t)(i + 1) * 100);
  for (int i = 0; i < 64; i += 2) shmem_free(many[i]);
  for (int i = 1; i < 64; i += 2) shmem_free(many[i]);
  void *large = shmem_malloc(32u << 20);
  PE_CHECK(large != NULL, "shmem_malloc(32 MiB) failed after freeing everything (SHMEM_SYMMETRIC_SIZE=64M)");
  shmem_free(large);
  return pe_finish("memory");
}
