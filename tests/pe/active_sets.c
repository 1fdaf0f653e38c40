/*
 * Classic (OpenSHMEM 1.0-1.3) active-set collectives the way old programs call them: every PE loops over
 * every active set (PE_start, logPE_stride, PE_size) of the job and every root, calling each collective
 * whether or not it is in the set (a PE outside returns at once and touches nothing), with one pSync per
 * kind reused across all calls (a barrier over all PEs between calls, as the specification asks before a
 * pSync is reused). Covers broadcast, collect, fcollect, alltoall, alltoalls (32 and 64 bit), every
 * reduction operator on int and a few on long / double, and barrier; then the team form of broadcast with
 * every root on a team split per set. Every member's data are checked; non-members' buffers must stay as
 * they were.
 */
#include <string.h>

#include "pe_check.h"

#define N 6 /* elements per member */
#define MAXPES 4
static long bc_sync[SHMEM_BCAST_SYNC_SIZE], col_sync[SHMEM_COLLECT_SYNC_SIZE], a2a_sync[SHMEM_ALLTOALL_SYNC_SIZE],
    red_sync[SHMEM_REDUCE_SYNC_SIZE], bar_sync[SHMEM_BARRIER_SYNC_SIZE];
static long lsrc[N * MAXPES], ldst[N * MAXPES * 2];
static int isrc[N * MAXPES], idst[N * MAXPES * 2], iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long lwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static double dsrc[N], ddst[N], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long lred_src[N], lred_dst[N];

static void reset_psyncs(void) {
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) bc_sync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; ++i) col_sync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; ++i) a2a_sync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) red_sync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) bar_sync[i] = SHMEM_SYNC_VALUE;
}

/* Value of element k from member `idx` in call `tag`. */
static long val(int tag, int idx, int k) {
  return (long)tag * 1000 + idx * 50 + k + 1;
}

/* Fills the sources of this PE (index `idx` in the set, -1 outside) and poisons the destinations. */
static void fill(int tag, int idx) {
  for (int k = 0; k < N * MAXPES; ++k) {
    lsrc[k] = val(tag, idx, k);
    isrc[k] = (int)val(tag, idx, k);
  }
  for (int k = 0; k < N * MAXPES * 2; ++k) ldst[k] = idst[k] = -7;
}

static void check_untouched(const char *what, int tag) {
  for (int k = 0; k < N * MAXPES * 2; ++k)
    if (ldst[k] != -7 || idst[k] != -7) {
      PE_FAIL("%s (call %d): a PE outside the active set had its dest written at %d", what, tag, k);
      return;
    }
}

static int tag_no;

static void one_set(int start, int logs, int size) {
  const int me = shmem_my_pe(), stride = 1 << logs;
  const int d = me - start;
  const int idx = (d >= 0 && d % stride == 0 && d / stride < size) ? d / stride : -1;
  char what[128];

  /* Broadcast with every root, 32- and 64-bit. */
  for (int root = 0; root < size; ++root) {
    const int tag = ++tag_no;
    fill(tag, idx);
    shmem_barrier_all();
    shmem_broadcast64(ldst, lsrc, N, root, start, logs, size, bc_sync);
    shmem_barrier_all(); /* before bc_sync is reused */
    shmem_broadcast32(idst, isrc, N, root, start, logs, size, bc_sync);
    shmem_barrier_all();
    snprintf(what, sizeof what, "broadcast set (%d,%d,%d) root %d", start, logs, size, root);
    if (idx < 0) {
      check_untouched(what, tag);
    } else if (idx != root) {
      for (int k = 0; k < N; ++k)
        PE_CHECK(ldst[k] == val(tag, root, k) && idst[k] == (int)val(tag, root, k), "%s: element %d is %ld / %d", what,
                 k, ldst[k], idst[k]);
    }
  }

  /* fcollect and collect (member j contributes j + 1 elements to collect). */
  {
    const int tag = ++tag_no;
    fill(tag, idx);
    shmem_barrier_all();
    shmem_fcollect64(ldst, lsrc, N, start, logs, size, col_sync);
    shmem_barrier_all();
    shmem_collect32(idst, isrc, idx < 0 ? 0 : (size_t)idx + 1, start, logs, size, col_sync);
    shmem_barrier_all();
    snprintf(what, sizeof what, "fcollect/collect set (%d,%d,%d)", start, logs, size);
    if (idx < 0) {
      check_untouched(what, tag);
    } else {
      for (int j = 0, at = 0; j < size; at += j + 1, ++j)
        for (int k = 0; k < N; ++k) {
          PE_CHECK(ldst[j * N + k] == val(tag, j, k), "%s: fcollect block %d element %d is %ld", what, j, k,
                   ldst[j * N + k]);
          if (k <= j) PE_CHECK(idst[at + k] == (int)val(tag, j, k), "%s: collect block %d element %d", what, j, k);
        }
    }
  }

  /* alltoall (block j of member i's source goes to member j) and alltoalls with strides 2 / 1. */
  {
    const int tag = ++tag_no;
    fill(tag, idx);
    shmem_barrier_all();
    shmem_alltoall64(ldst, lsrc, N, start, logs, size, a2a_sync);
    shmem_barrier_all();
    shmem_alltoalls32(idst, isrc, 2, 1, N, start, logs, size, a2a_sync);
    shmem_barrier_all();
    snprintf(what, sizeof what, "alltoall(s) set (%d,%d,%d)", start, logs, size);
    if (idx < 0) {
      check_untouched(what, tag);
    } else {
      for (int j = 0; j < size; ++j)
        for (int k = 0; k < N; ++k) {
          PE_CHECK(ldst[j * N + k] == val(tag, j, idx * N + k), "%s: alltoall block %d element %d is %ld", what, j, k,
                   ldst[j * N + k]);
          PE_CHECK(idst[2 * (j * N + k)] == (int)val(tag, j, idx * N + k), "%s: alltoalls block %d element %d", what, j,
                   k);
        }
    }
  }

  /* Reductions: every operator on int, and long max, double sum; one pSync and pWrk for all. */
  {
    const int tag = ++tag_no;
    for (int k = 0; k < N; ++k) {
      isrc[k] = idx < 0 ? -1 : (idx * 3 + k) % 7 + 1;
      lred_src[k] = idx < 0 ? -1 : (long)idx * 10 - k;
      dsrc[k] = idx < 0 ? -1 : idx + 0.5 * k;
    }
#define RED(OP, FOLD)                                                                                                  \
  do {                                                                                                                 \
    for (int k = 0; k < N; ++k) idst[k] = -7;                                                                          \
    shmem_barrier_all();                                                                                               \
    shmem_int_##OP##_to_all(idst, isrc, N, start, logs, size, iwrk, red_sync);                                         \
    shmem_barrier_all();                                                                                               \
    for (int k = 0; k < N && idx >= 0; ++k) {                                                                          \
      int want = (0 * 3 + k) % 7 + 1;                                                                                  \
      for (int j = 1; j < size; ++j) {                                                                                 \
        int v = (j * 3 + k) % 7 + 1;                                                                                   \
        want = FOLD;                                                                                                   \
      }                                                                                                                \
      PE_CHECK(idst[k] == want, "int_%s_to_all set (%d,%d,%d) element %d: %d, expected %d", #OP, start, logs, size, k, \
               idst[k], want);                                                                                         \
    }                                                                                                                  \
    for (int k = 0; k < N && idx < 0; ++k)                                                                             \
      PE_CHECK(idst[k] == -7, "int_%s_to_all: a PE outside the set had its dest written", #OP);                        \
  } while (0)
    RED(sum, want + v);
    RED(prod, want * v);
    RED(min, v < want ? v : want);
    RED(max, v > want ? v : want);
    RED(and, want & v);
    RED(or, want | v);
    RED(xor, want ^ v);
#undef RED
    for (int k = 0; k < N; ++k) lred_dst[k] = -7, ddst[k] = -7;
    shmem_barrier_all();
    shmem_long_max_to_all(lred_dst, lred_src, N, start, logs, size, lwrk, red_sync);
    shmem_barrier_all();
    shmem_double_sum_to_all(ddst, dsrc, N, start, logs, size, dwrk, red_sync);
    shmem_barrier_all();
    for (int k = 0; k < N && idx >= 0; ++k) {
      double dwant = 0;
      for (int j = 0; j < size; ++j) dwant += j + 0.5 * k;
      PE_CHECK(lred_dst[k] == (long)(size - 1) * 10 - k, "long_max_to_all set (%d,%d,%d) element %d: %ld", start, logs,
               size, k, lred_dst[k]);
      PE_CHECK(ddst[k] == dwant, "double_sum_to_all set (%d,%d,%d) element %d: %g, expected %g", start, logs, size, k,
               ddst[k], dwant);
    }
    (void)tag;
  }

  /* Barrier over the set (everyone calls; outsiders return at once). */
  shmem_barrier(start, logs, size, bar_sync);
  shmem_barrier_all();
}

/* The team form: a team split per set, broadcast with every root. */
static void one_team(int start, int logs, int size) {
  shmem_team_t team;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1 << logs, size, NULL, 0, &team);
  for (int root = 0; root < size; ++root) {
    const int tag = ++tag_no;
    const int idx = team == SHMEM_TEAM_INVALID ? -1 : shmem_team_my_pe(team);
    fill(tag, idx);
    if (team != SHMEM_TEAM_INVALID) {
      PE_CHECK(shmem_long_broadcast(team, ldst, lsrc, N, root) == 0, "team broadcast returned nonzero");
      for (int k = 0; k < N; ++k)
        PE_CHECK(ldst[k] == val(tag, root, k), "team broadcast set (%d,%d,%d) root %d element %d: %ld", start, logs,
                 size, root, k, ldst[k]);
    }
    shmem_barrier_all();
  }
  if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  reset_psyncs();
  shmem_barrier_all();
  const int n = shmem_n_pes();
  if (n > MAXPES) {
    if (shmem_my_pe() == 0) printf("active_sets: at most %d PEs\n", MAXPES);
    shmem_finalize();
    return 77;
  }
  for (int logs = 0; (1 << logs) < n || logs == 0; ++logs)
    for (int start = 0; start < n; ++start)
      for (int size = 1; start + (size - 1) * (1 << logs) < n; ++size) {
        one_set(start, logs, size);
        one_team(start, logs, size);
      }
  return pe_finish("active_sets");
}
