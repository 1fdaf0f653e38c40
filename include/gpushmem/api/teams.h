/*
 * gpushmem: OpenSHMEM 1.5 teams (included by shmem.h; not meant to be included alone).
 *
 * A team is an ordered set of PEs given by a world-PE triplet (start, stride, size). Handles are small
 * integers in a pointer type (gpushmem/team_state.h): they compare with == and may be copied freely, and a
 * handle kept after shmem_team_destroy is recognised as destroyed. At most GPUSHMEM_MAX_TEAMS teams
 * (SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included) exist at once on a PE.
 *
 * CUDA translation units: the routines that also run in kernels (team_my_pe, team_n_pes, team_translate_pe,
 * team_sync, and the team collectives: broadcast, collect, fcollect, alltoall, alltoalls, their mem forms
 * and the TYPE_OP_reduce names) are defined there as host/device functions by gpushmem/device/api_coll.cuh
 * (coll_names.cuh lists them), so their C declarations must sit inside #ifndef GPUSHMEMI_DEVICE_API
 * (here and in collectives.h).
 */
#ifndef GPUSHMEM_API_TEAMS_H
#define GPUSHMEM_API_TEAMS_H

#include "gpushmem/team_state.h"

/* The predefined teams: every PE, and the PEs whose heaps this PE reaches with loads and stores (its node). */
#define SHMEM_TEAM_WORLD ((shmem_team_t)GPUSHMEM_TEAM_HANDLE_BITS(GPUSHMEM_TEAM_SLOT_WORLD, 0))
#define SHMEM_TEAM_SHARED ((shmem_team_t)GPUSHMEM_TEAM_HANDLE_BITS(GPUSHMEM_TEAM_SLOT_SHARED, 0))
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

#ifdef __cplusplus
extern "C" {
#endif

/* This PE's number in `team`, or -1 for SHMEM_TEAM_INVALID. Not collective. */
#ifndef GPUSHMEMI_DEVICE_API /* CUDA: host and device forms in gpushmem/device/api_coll.cuh */
int shmem_team_my_pe(shmem_team_t team);
#endif
/* The number of PEs in `team`, or -1 for SHMEM_TEAM_INVALID. Not collective. */
#ifndef GPUSHMEMI_DEVICE_API /* CUDA: host and device forms in gpushmem/device/api_coll.cuh */
int shmem_team_n_pes(shmem_team_t team);
#endif
/* Stores the team's current configuration fields selected by config_mask (SHMEM_TEAM_NUM_CONTEXTS) in
 *config. Returns 0, or nonzero for SHMEM_TEAM_INVALID. Mask 0 does nothing (config may be NULL). */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
/* The number in dest_team of PE src_pe of src_team, or -1 when either team is invalid or the PE is not in
   both. Not collective. */
#ifndef GPUSHMEMI_DEVICE_API /* CUDA: host and device forms in gpushmem/device/api_coll.cuh */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
#endif
/* Collective over parent_team: the members start, start + stride, ..., start + (size-1)*stride of the parent
   (parent numbering) form a new team, numbered in that order. Members get its handle in *new_team, the
   other parent PEs SHMEM_TEAM_INVALID; every parent PE returns 0. An invalid triplet, arguments that differ
   between PEs, an invalid parent or no free team slot: every PE gets SHMEM_TEAM_INVALID and a nonzero return
   (the cause is logged). The new team is usable at once. config (with config_mask) sets num_contexts. */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
/* Collective over parent_team: arranges its PEs in rows of xrange (the last may be shorter); every PE gets
   its row in *xaxis_team (its number there: parent number mod xrange) and its column in *yaxis_team
   (number: parent number / xrange). xrange larger than the team counts as the team size. On any failure
   both handles are SHMEM_TEAM_INVALID on every parent PE and the return is nonzero. */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team);
/* Collective over `team`: frees it (after a barrier over its members). SHMEM_TEAM_INVALID does nothing;
   SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed (an error). */
void shmem_team_destroy(shmem_team_t team);
/* Collective over `team`: returns once every member has called it; this PE's stores to symmetric memory
   are visible to the members first. Does not complete puts or AMOs (use shmem_quiet). Returns 0. */
#ifndef GPUSHMEMI_DEVICE_API /* CUDA: host and device forms in gpushmem/device/api_coll.cuh */
int shmem_team_sync(shmem_team_t team);
#endif
/* As shmem_ptr for PE `pe` of `team` (team numbering); NULL for SHMEM_TEAM_INVALID. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUSHMEM_API_TEAMS_H */
