// The team API: queries, translation, splits, configuration, destroy, team_sync and team_ptr.
#include "api/api_common.hpp"
#include "coll/engine.hpp"
#include "ctx/ctx_table.hpp"
#include "shmem.h"
#include "team/split.hpp"
#include "team/team.hpp"

using namespace gpushmem;

GPUSHMEM_EXPORT int shmem_team_my_pe(shmem_team_t team) {
  api::require_running("shmem_team_my_pe");
  const team::Team *t = team::find(team);
  return t == nullptr ? -1 : t->me();
}

GPUSHMEM_EXPORT int shmem_team_n_pes(shmem_team_t team) {
  api::require_running("shmem_team_n_pes");
  const team::Team *t = team::find(team);
  return t == nullptr ? -1 : t->n();
}

GPUSHMEM_EXPORT int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
  api::require_running("shmem_team_get_config");
  const team::Team *t = team::find(team);
  if (t == nullptr) return -1;
  if (config_mask == 0) return 0;
  if (config == nullptr) api::fail("shmem_team_get_config", "config is NULL with config_mask=%ld", config_mask);
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t->config.num_contexts;
  return 0;
}

GPUSHMEM_EXPORT int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  api::require_running("shmem_team_translate_pe");
  const team::Team *src = team::find(src_team);
  const team::Team *dst = team::find(dest_team);
  if (src == nullptr || dst == nullptr || src_pe < 0 || src_pe >= src->n()) return -1;
  return dst->index_of(src->world_pe(src_pe));
}

GPUSHMEM_EXPORT int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                             const shmem_team_config_t *config, long config_mask,
                                             shmem_team_t *new_team) {
  static const char *call = "shmem_team_split_strided";
  api::require_running(call);
  if (new_team == nullptr) api::fail(call, "new_team is NULL");
  team::Team *parent = team::find(parent_team);
  if (parent == nullptr) {
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team != SHMEM_TEAM_INVALID) team::get(call, "parent_team", parent_team);  // names the cause
    return -1;
  }
  return team::split_strided(call, *parent, start, stride, size, config, config_mask, new_team);
}

GPUSHMEM_EXPORT int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                        long xaxis_mask, shmem_team_t *xaxis_team,
                                        const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                        shmem_team_t *yaxis_team) {
  static const char *call = "shmem_team_split_2d";
  api::require_running(call);
  if (xaxis_team == nullptr || yaxis_team == nullptr)
    api::fail(call, "%s is NULL", xaxis_team == nullptr ? "xaxis_team" : "yaxis_team");
  team::Team *parent = team::find(parent_team);
  if (parent == nullptr) {
    *xaxis_team = SHMEM_TEAM_INVALID;
    *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team != SHMEM_TEAM_INVALID) team::get(call, "parent_team", parent_team);
    return -1;
  }
  return team::split_2d(call, *parent, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask,
                        yaxis_team);
}

GPUSHMEM_EXPORT void shmem_team_destroy(shmem_team_t team) {
  static const char *call = "shmem_team_destroy";
  api::require_running(call);
  if (team == SHMEM_TEAM_INVALID) return;
  team::Team &t = team::get(call, "team", team);
  if (t.s.slot == GPUSHMEM_TEAM_SLOT_WORLD || t.s.slot == GPUSHMEM_TEAM_SLOT_SHARED)
    api::fail(call, "team is %s, which cannot be destroyed",
              t.s.slot == GPUSHMEM_TEAM_SLOT_WORLD ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
  (void)ctx::destroy_team_contexts(team);  // the team's contexts end with it
  (void)team::destroy(call, t);
}

GPUSHMEM_EXPORT int shmem_team_sync(shmem_team_t team) {
  static const char *call = "shmem_team_sync";
  api::require_running(call);
  team::Team &t = team::get(call, "team", team);
  coll::Call c(t, call);
  coll::barrier(c);  // its signals are release stores: this PE's earlier stores are visible to the others
  return 0;
}

GPUSHMEM_EXPORT void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
  static const char *call = "shmem_team_ptr";
  api::require_running(call);
  const team::Team *t = team::find(team);
  if (t == nullptr) return nullptr;
  if (pe < 0 || pe >= t->n()) {
    if (rt().error_checks)
      api::fail(call, "pe=%d is out of range: the team has %d PEs (0..%d)", pe, t->n(), t->n() - 1);
    return nullptr;
  }
  return shmem_ptr(dest, t->world_pe(pe));
}
