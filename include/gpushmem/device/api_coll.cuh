/*
 * Part of gpushmem/device/shmem_api.cuh: teams and team collectives on both sides (team.cuh, coll.cuh).
 *   shmem_team_my_pe / n_pes / translate_pe / sync, shmem_TYPE_broadcast / collect / fcollect / alltoall /
 *   alltoalls and their mem forms, shmem_TYPE_OP_reduce (the shmemx_..._warp / _block forms: shmemx_api.cuh).
 * Device types: T-RMA but longdouble; reductions over the specification's types for each operator, but
 * longdouble and the complex types (host only).
 */
#ifndef GPUSHMEM_DEVICE_API_COLL_CUH
#define GPUSHMEM_DEVICE_API_COLL_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

/* ---- team queries and sync ------------------------------------------------------------------------- */
GPUSHMEMI_HD_FN(int, shmem_team_my_pe, (shmem_team_t team), (team), (GPUSHMEMI_DEV::team_my_pe(team)))
GPUSHMEMI_HD_FN(int, shmem_team_n_pes, (shmem_team_t team), (team), (GPUSHMEMI_DEV::team_n_pes(team)))
GPUSHMEMI_HD_FN(int, shmem_team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team),
                (src_team, src_pe, dest_team), (GPUSHMEMI_DEV::team_translate_pe(src_team, src_pe, dest_team)))
GPUSHMEMI_HD_FN(int, shmem_team_sync, (shmem_team_t team), (team),
                (GPUSHMEMI_DEV::team_sync<GPUSHMEMI_THREAD>("shmem_team_sync", team), 0))

/* ---- collectives (the list: coll_names.cuh; the warp and block forms: shmemx_api.cuh) ---------------- */
#define GPUSHMEMI_UNPAREN(...) __VA_ARGS__
#define GPUSHMEMI_COLL(BASE, PARAMS, ARGS, IMPL, EXTRA, IMPL_ARGS) \
  GPUSHMEMI_HD_FN(int, shmem_##BASE, PARAMS, ARGS,                 \
                  (GPUSHMEMI_DEV::IMPL<GPUSHMEMI_THREAD EXTRA>("shmem_" #BASE, GPUSHMEMI_UNPAREN IMPL_ARGS)))
#include "gpushmem/device/coll_names.cuh"
#undef GPUSHMEMI_COLL

#endif /* GPUSHMEM_DEVICE_API_COLL_CUH */
