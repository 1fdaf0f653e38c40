/* Teams: the even PEs with shmem_team_split_strided, rows and columns with shmem_team_split_2d. Each team
   checks its numbering against the spec's rules, translates team numbers to world PEs, and gathers every
   member's world number on its member 0 with puts, a quiet and shmem_team_sync. OpenSHMEM 1.5 API only. */
#include <shmem.h>
#include <stdio.h>

#define MAX_PES 64

static int errors;

static void check(int ok, const char *what, int got, int expected) {
  if (!ok && errors++ < 10) printf("PE %d: %s: got %d, expected %d\n", shmem_my_pe(), what, got, expected);
}

/* Every member puts its world PE number into slot team_my_pe of `slots` on the team's member 0, which then
   checks slot i == world number of team member i. */
static void gather_check(shmem_team_t team, int *slots, const char *name) {
  int me_t = shmem_team_my_pe(team);
  int n_t = shmem_team_n_pes(team);
  int root = shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
  shmem_int_p(&slots[me_t], shmem_my_pe(), root);
  shmem_quiet(); /* team_sync does not complete puts */
  shmem_team_sync(team);
  if (me_t == 0)
    for (int i = 0; i < n_t; i++)
      check(slots[i] == shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD), name, slots[i], i);
  shmem_team_sync(team);
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int *slots = shmem_calloc(MAX_PES, sizeof(int));

  /* The even PEs. */
  shmem_team_t evens;
  int n_even = (npes + 1) / 2;
  check(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_even, NULL, 0, &evens) == 0, "split_strided return", 1, 0);
  if (me % 2 == 0) {
    check(shmem_team_my_pe(evens) == me / 2, "evens: team_my_pe", shmem_team_my_pe(evens), me / 2);
    check(shmem_team_n_pes(evens) == n_even, "evens: team_n_pes", shmem_team_n_pes(evens), n_even);
    check(shmem_team_translate_pe(evens, shmem_team_my_pe(evens), SHMEM_TEAM_WORLD) == me, "evens: translate", 0, me);
    shmem_team_config_t config;
    check(shmem_team_get_config(evens, 0, &config) == 0, "evens: get_config", 1, 0);
    gather_check(evens, slots, "evens: gathered world number");
  } else {
    check(evens == SHMEM_TEAM_INVALID, "odd PE: evens handle is SHMEM_TEAM_INVALID", 0, 1);
    check(shmem_team_my_pe(evens) == -1, "odd PE: team_my_pe(INVALID)", shmem_team_my_pe(evens), -1);
    check(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, evens) == -1, "odd PE: translate into INVALID", 0, -1);
  }
  shmem_team_destroy(evens);
  shmem_barrier_all();

  /* Rows of 2: (x, y) = (me mod 2, me div 2). */
  const int xrange = 2;
  shmem_team_t row, column;
  check(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &row, NULL, 0, &column) == 0, "split_2d return", 1, 0);
  int x = me % xrange, y = me / xrange;
  int row_size = npes - y * xrange < xrange ? npes - y * xrange : xrange;
  int column_size = (npes - x + xrange - 1) / xrange;
  check(shmem_team_my_pe(row) == x, "row: team_my_pe", shmem_team_my_pe(row), x);
  check(shmem_team_n_pes(row) == row_size, "row: team_n_pes", shmem_team_n_pes(row), row_size);
  check(shmem_team_my_pe(column) == y, "column: team_my_pe", shmem_team_my_pe(column), y);
  check(shmem_team_n_pes(column) == column_size, "column: team_n_pes", shmem_team_n_pes(column), column_size);
  for (int i = 0; i < MAX_PES; i++) slots[i] = -1;
  shmem_barrier_all();
  gather_check(row, slots, "row: gathered world number");
  shmem_barrier_all();
  for (int i = 0; i < MAX_PES; i++) slots[i] = -1;
  shmem_barrier_all();
  gather_check(column, slots, "column: gathered world number");
  shmem_team_destroy(row);
  shmem_team_destroy(column);

  shmem_barrier_all();
  shmem_free(slots);
  if (errors)
    printf("team_split: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("team_split: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
