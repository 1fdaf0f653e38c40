/*
 * Teams at any PE count: the predefined teams, queries and translation, split_strided (stride 1, 2, negative,
 * a split of a split, non-members), split_2d (rows and columns, short last row), configuration, team_sync,
 * team_ptr (NULL for PEs of other nodes), destroy, and slot reuse (many create/destroy cycles; stale handles read as
 * invalid). argv[1] == "exhaust": create teams until the library refuses one, which must fail on every PE alike.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pe_check.h"

/* This PE's node, told apart the way a person would: GPUSHMEM_HOSTNAME (virtual hosts) or the hostname. */
static char host_key[64];

/* The world PEs that share this PE's node: a block [*start, *start + *size) once every PE's key is known
   (launchers and gpushmem-vhost place consecutive ranks on one host). */
static void node_block(int *start, int *size) {
  static char keys[64 * 64];
  const int npes = shmem_n_pes();
  const char *forced = getenv("GPUSHMEM_HOSTNAME");
  memset(host_key, 0, sizeof host_key);
  if (forced != NULL && *forced != '\0')
    snprintf(host_key, sizeof host_key, "%s", forced);
  else
    gethostname(host_key, sizeof host_key - 1);
  char *all = npes <= 64 ? keys : NULL;
  *start = 0;
  *size = npes;
  if (all == NULL) return;
  char *mine = (char *)shmem_malloc(sizeof host_key);
  char *gathered = (char *)shmem_malloc(sizeof host_key * (size_t)npes);
  memcpy(mine, host_key, sizeof host_key);
  shmem_fcollectmem(SHMEM_TEAM_WORLD, gathered, mine, sizeof host_key);
  memcpy(all, gathered, sizeof host_key * (size_t)npes);
  int first = -1, count = 0;
  for (int pe = 0; pe < npes; ++pe)
    if (strcmp(all + (size_t)pe * sizeof host_key, host_key) == 0) {
      if (first < 0) first = pe;
      ++count;
    }
  *start = first;
  *size = count;
  shmem_free(gathered);
  shmem_free(mine);
}

/* Checks that `team` holds world PEs start, start+stride, ... (size of them) and that this PE's place fits. */
static void check_team(shmem_team_t team, int start, int stride, int size, const char *what) {
  const int me = shmem_my_pe();
  int index = -1;
  for (int i = 0; i < size; ++i)
    if (start + i * stride == me) index = i;
  if (index < 0) {
    PE_CHECK(team == SHMEM_TEAM_INVALID, "%s: PE %d is not a member but got a valid handle", what, me);
    PE_CHECK(shmem_team_my_pe(team) == -1, "%s: team_my_pe of a non-member handle is %d, expected -1", what,
             shmem_team_my_pe(team));
    return;
  }
  PE_CHECK(team != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
  if (team == SHMEM_TEAM_INVALID) return;
  PE_CHECK(shmem_team_my_pe(team) == index, "%s: team_my_pe is %d, expected %d", what, shmem_team_my_pe(team), index);
  PE_CHECK(shmem_team_n_pes(team) == size, "%s: team_n_pes is %d, expected %d", what, shmem_team_n_pes(team), size);
  for (int i = 0; i < size; ++i) {
    int w = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
    PE_CHECK(w == start + i * stride, "%s: translate(member %d -> world) is %d, expected %d", what, i, w,
             start + i * stride);
    int back = shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + i * stride, team);
    PE_CHECK(back == i, "%s: translate(world %d -> team) is %d, expected %d", what, start + i * stride, back, i);
  }
  PE_CHECK(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD) == -1,
           "%s: translate of member %d (past the end) "
           "is not -1",
           what, size);
  PE_CHECK(shmem_team_sync(team) == 0, "%s: team_sync returned nonzero", what);
}

static void exhaust(void) {
  shmem_team_t teams[128];
  int made = 0, rc = 0;
  while (made < 128) {
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &teams[made]);
    if (rc != 0) break;
    ++made;
  }
  PE_CHECK(rc != 0, "128 teams were created without a refusal");
  PE_CHECK(made >= 8, "only %d teams could be created", made);
  PE_CHECK(teams[made] == SHMEM_TEAM_INVALID, "the refused split did not give SHMEM_TEAM_INVALID");
  for (int i = 0; i < made; ++i) shmem_team_destroy(teams[i]);
  /* Slots are free again. */
  shmem_team_t t;
  PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &t) == 0,
           "split after destroying every team failed");
  shmem_team_destroy(t);
}

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (argc > 1 && strcmp(argv[1], "exhaust") == 0) {
    exhaust();
    return pe_finish("teams exhaust");
  }
  if (argc > 1 && strcmp(argv[1], "bad_triplet") == 0) {
    /* Refused with a message on every PE, and the job goes on. */
    shmem_team_t t = SHMEM_TEAM_WORLD;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) != 0, "stride 0, size 2 accepted");
    PE_CHECK(t == SHMEM_TEAM_INVALID, "refused split left a valid handle");
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t) != 0, "size n+1 accepted");
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) != 0, "size 0 accepted");
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0, "INVALID parent accepted");
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    PE_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0, "xrange 0 accepted");
    PE_CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "refused split_2d left a valid handle");
    return pe_finish("teams bad_triplet");
  }

  /* Predefined teams. */
  check_team(SHMEM_TEAM_WORLD, 0, 1, npes, "SHMEM_TEAM_WORLD");
  int node_start = 0, node_size = npes;
  node_block(&node_start, &node_size);
  check_team(SHMEM_TEAM_SHARED, node_start, 1, node_size, "SHMEM_TEAM_SHARED (the PEs of this node)");
  PE_CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID) is not -1");
  PE_CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID) is not -1");
  PE_CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate from INVALID");
  PE_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1, "translate to INVALID");
  PE_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED) == me - node_start,
           "translate world -> shared");
  PE_CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, NULL, 0) == NULL, "team_ptr(INVALID) is not NULL");
  shmem_team_config_t cfg = {.num_contexts = 99};
  PE_CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 0,
           "world config: num_contexts %d, expected 0", cfg.num_contexts);
  PE_CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0, "get_config with mask 0 and NULL config");
  PE_CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config(INVALID) is 0");

  /* team_ptr: every PE's word is reachable and holds that PE's number. */
  int *word = (int *)shmem_malloc(sizeof(int));
  *word = me;
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe) {
    int *p = (int *)shmem_team_ptr(SHMEM_TEAM_WORLD, word, pe);
    if (pe < node_start || pe >= node_start + node_size) {
      PE_CHECK(p == NULL, "team_ptr(WORLD, word, %d) is not NULL for a PE of another node", pe);
      continue;
    }
    PE_CHECK(p != NULL && *p == pe, "team_ptr(WORLD, word, %d) reads %d, expected %d", pe, p ? *p : -1, pe);
  }

  /* Stride 2, with a configuration. */
  shmem_team_t even;
  shmem_team_config_t want = {.num_contexts = 3};
  const int even_size = (npes + 1) / 2;
  int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, even_size, &want, SHMEM_TEAM_NUM_CONTEXTS, &even);
  PE_CHECK(rc == 0, "split_strided(0, 2, %d) returned %d", even_size, rc);
  check_team(even, 0, 2, even_size, "stride-2 team");
  if (even != SHMEM_TEAM_INVALID) {
    cfg.num_contexts = -1;
    shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
    PE_CHECK(cfg.num_contexts == 3, "stride-2 team: num_contexts %d, expected 3", cfg.num_contexts);
    /* team_ptr with team numbering: member i is world PE 2i. */
    for (int i = 0; i < even_size; ++i) {
      int *p = (int *)shmem_team_ptr(even, word, i);
      if (2 * i < node_start || 2 * i >= node_start + node_size) {
        PE_CHECK(p == NULL, "team_ptr(even, word, %d) is not NULL for a PE of another node", i);
        continue;
      }
      PE_CHECK(p != NULL && *p == 2 * i, "team_ptr(even, word, %d) reads %d, expected %d", i, p ? *p : -1, 2 * i);
    }
    /* A split of a split: members 1.. of the even team (world 2, 4, ...). */
    if (even_size > 1) {
      shmem_team_t sub;
      rc = shmem_team_split_strided(even, 1, 1, even_size - 1, NULL, 0, &sub);
      PE_CHECK(rc == 0, "split of the stride-2 team returned %d", rc);
      check_team(sub, 2, 2, even_size - 1, "split of the stride-2 team");
      PE_CHECK(shmem_team_translate_pe(sub, 0, even) == (sub == SHMEM_TEAM_INVALID ? -1 : 1), "translate sub -> even");
      shmem_team_destroy(sub);
    }
  }
  shmem_team_destroy(even);

  /* Everyone but PE 0 (odd size at 2 and 4 PEs), and the whole world reversed (negative stride). */
  if (npes > 1) {
    shmem_team_t rest;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &rest);
    PE_CHECK(rc == 0, "split_strided(1, 1, %d) returned %d", npes - 1, rc);
    check_team(rest, 1, 1, npes - 1, "PEs 1..n-1");
    shmem_team_destroy(rest);
  }
  shmem_team_t reversed;
  rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
  PE_CHECK(rc == 0, "split_strided(n-1, -1, n) returned %d", rc);
  check_team(reversed, npes - 1, -1, npes, "reversed world");
  shmem_team_destroy(reversed);
  /* One member, stride 0. */
  shmem_team_t single;
  rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &single);
  PE_CHECK(rc == 0, "split_strided(n-1, 0, 1) returned %d", rc);
  check_team(single, npes - 1, 1, 1, "last PE alone");
  shmem_team_destroy(single);

  /* split_2d with xrange 2: rows {0,1}, {2,3}, ...; columns {0,2,..}, {1,3,..}. */
  shmem_team_t row, col;
  rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, &want, SHMEM_TEAM_NUM_CONTEXTS, &col);
  PE_CHECK(rc == 0, "split_2d(2) returned %d", rc);
  const int row_start = me - me % 2;
  check_team(row, row_start, 1, npes - row_start < 2 ? npes - row_start : 2, "split_2d row");
  check_team(col, me % 2, 2, (npes - me % 2 + 1) / 2, "split_2d column");
  shmem_team_get_config(col, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
  PE_CHECK(cfg.num_contexts == 3, "split_2d column: num_contexts %d, expected 3", cfg.num_contexts);
  shmem_team_destroy(row);
  shmem_team_destroy(col);
  /* xrange beyond the team: one row of everyone, columns of one. */
  rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, npes + 5, NULL, 0, &row, NULL, 0, &col);
  PE_CHECK(rc == 0, "split_2d(n + 5) returned %d", rc);
  check_team(row, 0, 1, npes, "split_2d wide row");
  check_team(col, me, 1, 1, "split_2d wide column");
  shmem_team_destroy(row);
  shmem_team_destroy(col);

  /* Slot reuse: many cycles; an old handle reads as invalid once its slot holds another team. */
  shmem_team_t old;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &old);
  shmem_team_destroy(old);
  for (int i = 0; i < 200; ++i) {
    shmem_team_t t;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    PE_CHECK(rc == 0 && t != SHMEM_TEAM_INVALID, "cycle %d: split returned %d", i, rc);
    PE_CHECK(shmem_team_sync(t) == 0, "cycle %d: team_sync", i);
    shmem_team_destroy(t);
  }
  PE_CHECK(shmem_team_my_pe(old) == -1 && shmem_team_n_pes(old) == -1, "a destroyed team's handle still answers");

  shmem_free(word);
  return pe_finish("teams");
}
