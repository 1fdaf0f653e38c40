/*
 * Contexts of teams: shmem_team_create_ctx on SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, a strided split (every
 * other PE, in reverse order when there are several) and the rows of a 2-D split; their operations take PE
 * numbers of the team: each member puts its world PE number into its slot on every member (team numbering),
 * fetch_adds a counter on team PE 0 and put_signals its neighbour in the team, and every member checks what
 * arrived by world PE. shmem_ctx_get_team names the team (SHMEM_TEAM_WORLD for SHMEM_CTX_DEFAULT and
 * shmem_ctx_create contexts, SHMEM_TEAM_INVALID with a nonzero return for SHMEM_CTX_INVALID);
 * shmem_team_create_ctx(SHMEM_TEAM_INVALID) fails cleanly; shmem_team_destroy takes the team's contexts with it.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

/* Collective over `team` (its members only). `slots` and `counter` are symmetric, big enough for n_pes. */
static void exercise(shmem_team_t team, const char *name, long options, int *slots, long *counter, uint64_t *sig) {
  const int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team), world_me = shmem_my_pe();
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  if (shmem_team_create_ctx(team, options, &ctx) != 0 || ctx == SHMEM_CTX_INVALID) {
    PE_FAIL("%s: shmem_team_create_ctx failed", name);
    return;
  }
  shmem_team_t got = SHMEM_TEAM_INVALID;
  PE_CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team, "%s: shmem_ctx_get_team gave another team", name);
  memset(slots, 0xff, sizeof(int) * (size_t)n);
  *counter = 0;
  *sig = 0;
  shmem_team_sync(team);
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n; /* team numbering */
    shmem_ctx_int_p(ctx, &slots[me], world_me, pe);
  }
  shmem_atomic_add(ctx, counter, (long)(world_me + 1), 0);
  const int next = (me + 1) % n;
  int payload = 1000 + world_me;
  shmem_ctx_putmem_signal(ctx, &slots[n], &payload, sizeof payload, sig, 1, SHMEM_SIGNAL_ADD, next);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(team);
  (void)shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
  long want = 0;
  for (int k = 0; k < n; ++k) {
    const int world = shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD);
    PE_CHECK(slots[k] == world, "%s (team PE %d of %d): slot %d holds %d, expected world PE %d", name, me, n, k,
             slots[k], world);
    want += world + 1;
  }
  const int prev_world = shmem_team_translate_pe(team, (me + n - 1) % n, SHMEM_TEAM_WORLD);
  PE_CHECK(slots[n] == 1000 + prev_world, "%s: put_signal payload %d, expected %d", name, slots[n], 1000 + prev_world);
  if (me == 0) PE_CHECK(*counter == want, "%s: counter on team PE 0 is %ld, expected %ld", name, *counter, want);
  shmem_team_sync(team);
  shmem_ctx_destroy(ctx);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int *slots = (int *)shmem_calloc((size_t)npes + 1, sizeof(int));
  long *counter = (long *)shmem_calloc(1, sizeof(long));
  uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
  if (!slots || !counter || !sig) {
    PE_FAIL("allocation failed");
    return pe_finish("ctx_team");
  }

  shmem_team_t t = SHMEM_TEAM_INVALID;
  PE_CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD,
           "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) is not SHMEM_TEAM_WORLD");
  t = SHMEM_TEAM_SHARED;
  PE_CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID,
           "shmem_ctx_get_team(SHMEM_CTX_INVALID): expected nonzero and SHMEM_TEAM_INVALID");
  shmem_ctx_t c = SHMEM_CTX_DEFAULT;
  PE_CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID,
           "shmem_team_create_ctx(SHMEM_TEAM_INVALID): expected nonzero and SHMEM_CTX_INVALID");
  if (shmem_ctx_create(SHMEM_CTX_SERIALIZED, &c) == 0) {
    PE_CHECK(shmem_ctx_get_team(c, &t) == 0 && t == SHMEM_TEAM_WORLD, "shmem_ctx_create context: team not WORLD");
    shmem_ctx_destroy(c);
  }

  exercise(SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD", 0, slots, counter, sig);
  shmem_barrier_all();
  exercise(SHMEM_TEAM_SHARED, "SHMEM_TEAM_SHARED", SHMEM_CTX_PRIVATE, slots, counter, sig);
  shmem_barrier_all();

  /* Every other PE, highest first when there are several (a negative stride). */
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  const int n_even = (npes + 1) / 2, top_even = (n_even - 1) * 2;
  if (shmem_team_split_strided(SHMEM_TEAM_WORLD, n_even > 1 ? top_even : 0, n_even > 1 ? -2 : 1, n_even, NULL, 0,
                               &evens) != 0)
    PE_FAIL("split_strided failed");
  if (evens != SHMEM_TEAM_INVALID) exercise(evens, "evens (stride -2)", SHMEM_CTX_NOSTORE, slots, counter, sig);
  shmem_barrier_all();

  /* Rows of two. */
  shmem_team_t row = SHMEM_TEAM_INVALID, col = SHMEM_TEAM_INVALID;
  if (shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &col) != 0) PE_FAIL("split_2d failed");
  exercise(row, "row of a 2-D split", 0, slots, counter, sig);
  shmem_barrier_all();
  exercise(col, "column of a 2-D split", SHMEM_CTX_SERIALIZED, slots, counter, sig);
  shmem_barrier_all();

  /* The team's contexts end with it: a new context in the same table slot gets a different handle, and the
     old handle is no longer live (tests/pe/errors.c checks that using it is reported). */
  shmem_ctx_t row_ctx = SHMEM_CTX_INVALID;
  if (shmem_team_create_ctx(row, 0, &row_ctx) != 0) PE_FAIL("shmem_team_create_ctx(row) failed");
  shmem_team_destroy(row);
  shmem_ctx_t fresh = SHMEM_CTX_INVALID;
  if (shmem_ctx_create(0, &fresh) == 0) {
    PE_CHECK(fresh != row_ctx, "the destroyed team's context handle was handed out again");
    shmem_ctx_destroy(fresh);
  }
  shmem_team_destroy(col);
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  (void)me;
  shmem_barrier_all();
  return pe_finish("ctx_team");
}
