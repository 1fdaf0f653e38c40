/*
 * Team collectives that move data, at any PE count, on several teams (world, stride 2, PEs 1..n-1, split_2d
 * columns): broadcast (every root), collect (different counts per PE), fcollect, alltoall, alltoalls (strides
 * 1..3), typed, mem and generic forms, sizes 0 and across the push / in-place switch, back-to-back calls with
 * no barrier in between (each checked), and the active-set forms on the world and on a stride-2 set.
 * Every element is checked against a formula of (PE, index).
 */
#include <string.h>

#include "pe_check.h"

static unsigned char pattern(int pe, size_t i, int salt) {
  return (unsigned char)(pe * 131 + (int)i * 7 + salt * 29 + 1);
}

/* The sizes (bytes per PE) every collective runs with: empty, one byte, small (pushed by default), 20 KiB and
   100 KiB (in place). */
static const size_t sizes[] = {0, 1, 24, 20 * 1024, 100 * 1024};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAX_BYTES (100 * 1024)

static unsigned char *src, *dst; /* symmetric: MAX_BYTES * 4 (alltoall blocks) * 3 (alltoalls strides) */

static void check_bytes(const unsigned char *got, size_t n, int pe, size_t first, int salt, const char *what) {
  for (size_t i = 0; i < n; ++i) {
    unsigned char want = pattern(pe, first + i, salt);
    if (got[i] != want) {
      PE_FAIL("%s: byte %zu (from PE %d, index %zu) is %u, expected %u", what, i, pe, first + i, got[i], want);
      return;
    }
  }
}

static void run_team(shmem_team_t team, const char *name, int salt) {
  if (team == SHMEM_TEAM_INVALID) return;
  const int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
  const int world_me = shmem_my_pe();
  char what[160];
  for (size_t s = 0; s < NSIZES; ++s) {
    const size_t bytes = sizes[s];
    /* broadcast from every root, back to back (dest changes every call, so nothing is stale). */
    for (int root = 0; root < n; ++root) {
      const int root_world = shmem_team_translate_pe(team, root, SHMEM_TEAM_WORLD);
      for (size_t i = 0; i < bytes; ++i) src[i] = pattern(world_me, i, salt + root);
      memset(dst, 0xee, bytes + 1);
      shmem_team_sync(team);
      PE_CHECK(shmem_broadcastmem(team, dst, src, bytes, root) == 0, "broadcastmem returned nonzero");
      snprintf(what, sizeof what, "%s broadcastmem %zu B root %d", name, bytes, root);
      check_bytes(dst, bytes, root_world, 0, salt + root, what);
      PE_CHECK(dst[bytes] == 0xee, "%s: wrote past the end", what);
      shmem_team_sync(team); /* dst is rewritten next round */
    }
    /* Small broadcasts back to back with no sync between them: root 0 three times, then every other root
       once. The pushed slots are reused while receivers may still be copying out, and a root that pushed
       the broadcast two calls ago had nothing to copy out (it must not be waited for). */
    if (bytes <= 1024) {
      enum { ROUNDS = 8 };
      int roots[ROUNDS];
      for (int r = 0; r < ROUNDS; ++r) roots[r] = r < 3 ? 0 : (r - 2) % n;
      for (size_t i = 0; i < bytes; ++i) src[i] = pattern(world_me, i, salt + 7);
      memset(dst, 0xee, ROUNDS * (bytes + 1));
      shmem_team_sync(team);
      for (int r = 0; r < ROUNDS; ++r)
        PE_CHECK(shmem_broadcastmem(team, dst + (size_t)r * (bytes + 1), src, bytes, roots[r]) == 0,
                 "broadcastmem returned nonzero");
      for (int r = 0; r < ROUNDS; ++r) {
        snprintf(what, sizeof what, "%s back-to-back broadcastmem %zu B call %d root %d", name, bytes, r, roots[r]);
        check_bytes(dst + (size_t)r * (bytes + 1), bytes, shmem_team_translate_pe(team, roots[r], SHMEM_TEAM_WORLD), 0,
                    salt + 7, what);
      }
      shmem_team_sync(team);
    }
    /* fcollect, then collect with count (me % 3) * bytes / 2 per member. */
    for (size_t i = 0; i < bytes; ++i) src[i] = pattern(world_me, i, salt);
    shmem_team_sync(team);
    PE_CHECK(shmem_fcollectmem(team, dst, src, bytes) == 0, "fcollectmem returned nonzero");
    for (int j = 0; j < n; ++j) {
      snprintf(what, sizeof what, "%s fcollectmem %zu B block %d", name, bytes, j);
      check_bytes(dst + (size_t)j * bytes, bytes, shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD), 0, salt, what);
    }
    shmem_team_sync(team);
    const size_t mine = (size_t)(me % 3) * bytes / 2;
    PE_CHECK(shmem_collectmem(team, dst, src, mine) == 0, "collectmem returned nonzero");
    size_t off = 0;
    for (int j = 0; j < n; ++j) {
      const size_t len = (size_t)(j % 3) * bytes / 2;
      snprintf(what, sizeof what, "%s collectmem block %d (%zu B)", name, j, len);
      check_bytes(dst + off, len, shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD), 0, salt, what);
      off += len;
    }
    shmem_team_sync(team);
    /* alltoall: block j of my source carries (me -> j). */
    for (int j = 0; j < n; ++j)
      for (size_t i = 0; i < bytes; ++i) src[(size_t)j * bytes + i] = pattern(world_me, i, salt + j);
    shmem_team_sync(team);
    PE_CHECK(shmem_alltoallmem(team, dst, src, bytes) == 0, "alltoallmem returned nonzero");
    for (int j = 0; j < n; ++j) {
      snprintf(what, sizeof what, "%s alltoallmem %zu B block %d", name, bytes, j);
      check_bytes(dst + (size_t)j * bytes, bytes, shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD), 0, salt + me,
                  what);
    }
    shmem_team_sync(team);
  }
  /* alltoalls on ints with strides: element e of block j sits at sst * (j * nelems + e). */
  int *isrc = (int *)src, *idst = (int *)dst;
  const size_t nelems = 37;
  for (ptrdiff_t sst = 1; sst <= 3; sst += 2)
    for (ptrdiff_t dstr = 1; dstr <= 2; ++dstr) {
      for (int j = 0; j < n; ++j)
        for (size_t e = 0; e < nelems; ++e)
          isrc[sst * (ptrdiff_t)(j * nelems + e)] = world_me * 100000 + j * 1000 + (int)e;
      for (size_t k = 0; k < (size_t)n * nelems * (size_t)dstr; ++k) idst[k] = -1;
      shmem_team_sync(team);
      PE_CHECK(shmem_int_alltoalls(team, idst, isrc, dstr, sst, nelems) == 0, "int_alltoalls returned nonzero");
      for (int j = 0; j < n; ++j)
        for (size_t e = 0; e < nelems; ++e) {
          int want = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD) * 100000 + me * 1000 + (int)e;
          int got = idst[dstr * (ptrdiff_t)(j * nelems + e)];
          PE_CHECK(got == want, "%s int_alltoalls dst %td sst %td: block %d element %zu is %d, expected %d", name, dstr,
                   sst, j, e, got, want);
        }
      shmem_team_sync(team);
    }
  /* Typed and generic forms (long double broadcast, long collect, double fcollect, int alltoall). */
  long double *ld = (long double *)src, *ldd = (long double *)dst;
  for (int k = 0; k < 5; ++k) ld[k] = world_me * 10.0L + k + 0.25L;
  shmem_team_sync(team);
  shmem_broadcast(team, ldd, ld, 5, n - 1);
  for (int k = 0; k < 5; ++k)
    PE_CHECK(ldd[k] == shmem_team_translate_pe(team, n - 1, SHMEM_TEAM_WORLD) * 10.0L + k + 0.25L,
             "%s generic longdouble broadcast element %d", name, k);
  shmem_team_sync(team);
  long *l = (long *)src, *ldst = (long *)dst;
  l[0] = world_me;
  l[1] = -world_me;
  shmem_team_sync(team);
  shmem_fcollect(team, ldst, l, 2);
  for (int j = 0; j < n; ++j) {
    long w = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD);
    PE_CHECK(ldst[2 * j] == w && ldst[2 * j + 1] == -w, "%s generic long fcollect block %d", name, j);
  }
  shmem_team_sync(team);
  shmem_long_collect(team, ldst, l, (size_t)(me & 1));
  shmem_team_sync(team);
  /* Back to back without syncs: alternate alltoall and fcollect into two destinations, 40 rounds. */
  int *a = (int *)src, *b = (int *)(src + 4 * MAX_BYTES), *out1 = (int *)dst, *out2 = (int *)(dst + 4 * MAX_BYTES);
  for (int round = 0; round < 40; ++round) {
    for (int j = 0; j < n; ++j) a[j] = round * 1000 + me * 10 + j;
    b[0] = round * 7 + me;
    shmem_int_alltoall(team, out1, a, 1);
    shmem_int_fcollect(team, out2, b, 1);
    for (int j = 0; j < n; ++j) {
      PE_CHECK(out1[j] == round * 1000 + j * 10 + me, "%s round %d alltoall block %d: %d", name, round, j, out1[j]);
      PE_CHECK(out2[j] == round * 7 + j, "%s round %d fcollect block %d: %d", name, round, j, out2[j]);
    }
  }
  shmem_team_sync(team);
}

static void run_active_sets(void) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  static long psync[SHMEM_SYNC_SIZE];
  long *ps = (long *)shmem_malloc(SHMEM_SYNC_SIZE * sizeof(long));
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) ps[i] = SHMEM_SYNC_VALUE;
  (void)psync;
  shmem_barrier_all();
  /* The world (start 0, stride 1) and the even PEs (stride 2^1). */
  for (int log = 0; log <= 1; ++log) {
    const int size = log == 0 ? npes : (npes + 1) / 2;
    /* A pSync may serve another active set only once every earlier call on it has finished everywhere. */
    shmem_barrier_all();
    if (me % (1 << log) != 0) continue;
    const int idx = me >> log;
    int64_t *s64 = (int64_t *)src, *d64 = (int64_t *)dst;
    int32_t *s32 = (int32_t *)src, *d32 = (int32_t *)dst;
    for (int rep = 0; rep < 3; ++rep) {
      shmem_barrier(0, log, size, ps);
      shmem_sync(0, log, size, ps);
      for (int k = 0; k < 8; ++k) s64[k] = me * 100 + k + rep;
      d64[0] = -7;
      shmem_barrier(0, log, size, ps);
      shmem_broadcast64(d64, s64, 8, size - 1, 0, log, size, ps);
      if (idx != size - 1)
        for (int k = 0; k < 8; ++k)
          PE_CHECK(d64[k] == ((size - 1) << log) * 100 + k + rep, "broadcast64 set log %d element %d: %lld", log, k,
                   (long long)d64[k]);
      else
        PE_CHECK(d64[0] == -7, "broadcast64 wrote the root's dest");
      shmem_barrier(0, log, size, ps);
      for (int k = 0; k < 3; ++k) s32[k] = me * 10 + k;
      shmem_fcollect32(d32, s32, 3, 0, log, size, ps);
      for (int j = 0; j < size; ++j)
        for (int k = 0; k < 3; ++k)
          PE_CHECK(d32[3 * j + k] == (j << log) * 10 + k, "fcollect32 set log %d block %d", log, j);
      shmem_barrier(0, log, size, ps);
      for (int k = 0; k < 8; ++k) s64[k] = me * 100 + k + rep;
      shmem_barrier(0, log, size, ps);
      shmem_collect64(d64, s64, (size_t)(idx % 2 + 1), 0, log, size, ps);
      size_t off = 0;
      for (int j = 0; j < size; ++j)
        for (int k = 0; k < j % 2 + 1; ++k, ++off)
          PE_CHECK(d64[off] == (j << log) * 100 + k + rep, "collect64 set log %d block %d element %d", log, j, k);
      shmem_barrier(0, log, size, ps);
      for (int j = 0; j < size; ++j) s64[j] = me * 100 + j;
      shmem_alltoall64(d64, s64, 1, 0, log, size, ps);
      for (int j = 0; j < size; ++j)
        PE_CHECK(d64[j] == (j << log) * 100 + idx, "alltoall64 set log %d block %d: %lld", log, j, (long long)d64[j]);
      shmem_barrier(0, log, size, ps);
      for (int j = 0; j < size; ++j) s32[2 * j] = me * 100 + j;
      shmem_alltoalls32(d32, s32, 3, 2, 1, 0, log, size, ps);
      for (int j = 0; j < size; ++j)
        PE_CHECK(d32[3 * j] == (j << log) * 100 + idx, "alltoalls32 set log %d block %d: %d", log, j, d32[3 * j]);
      shmem_barrier(0, log, size, ps);
    }
  }
  shmem_barrier_all();
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i)
    PE_CHECK(ps[i] == SHMEM_SYNC_VALUE, "pSync[%d] is %ld after the active-set calls", i, ps[i]);
  shmem_barrier_all();
  shmem_free(ps);
}

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  src = (unsigned char *)shmem_malloc(MAX_BYTES * 4 * 3);
  dst = (unsigned char *)shmem_malloc(MAX_BYTES * 4 * 3);
  run_team(SHMEM_TEAM_WORLD, "world", 1);
  shmem_team_t even, rest = SHMEM_TEAM_INVALID, row, col;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
  run_team(even, "stride-2", 2);
  if (npes > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &rest);
  run_team(rest, "PEs 1..n-1", 3);
  shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &col);
  run_team(col, "split_2d column", 4);
  run_team(row, "split_2d row", 5);
  shmem_team_destroy(even);
  shmem_team_destroy(rest);
  shmem_team_destroy(row);
  shmem_team_destroy(col);
  run_active_sets();
  shmem_sync_all();
  PE_CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "generic shmem_sync(team) returned nonzero");
  shmem_barrier_all();
  shmem_free(src);
  shmem_free(dst);
  return pe_finish("coll");
}
