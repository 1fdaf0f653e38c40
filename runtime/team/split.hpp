// Team creation and destruction (collective over the parent team / the team).
#pragma once

#include "team/team.hpp"

namespace gpushmem::team {

// shmem_team_split_strided: 0 on every parent PE when the team was created (non-members get
// SHMEM_TEAM_INVALID), nonzero and SHMEM_TEAM_INVALID everywhere otherwise (the cause is logged).
int split_strided(const char *call, Team &parent, int start, int stride, int size, const shmem_team_config_t *config,
                  long mask, shmem_team_t *new_team);
// shmem_team_split_2d: both teams or neither, on every parent PE.
int split_2d(const char *call, Team &parent, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
             shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
             shmem_team_t *yaxis_team);
// shmem_team_destroy: a barrier over the team, then the slot is free again on this PE.
int destroy(const char *call, Team &t);

}  // namespace gpushmem::team
