// Compile test (built everywhere nvcc is, never run): every team query and team collective of the device API,
// for every type of its table, in thread, warp and block scope from kernels, and the thread forms from host
// functions too (their host paths are asm-labelled calls the link check resolves).
#include <shmem.h>
#include <shmemx.h>

#define COLL_TYPED(T, N, PREFIX, SUFFIX, out, team, d, s) \
  out += PREFIX##N##_broadcast##SUFFIX(team, d, s, 4, 0); \
  out += PREFIX##N##_fcollect##SUFFIX(team, d, s, 4);     \
  out += PREFIX##N##_collect##SUFFIX(team, d, s, 4);      \
  out += PREFIX##N##_alltoall##SUFFIX(team, d, s, 4);     \
  out += PREFIX##N##_alltoalls##SUFFIX(team, d, s, 2, 3, 4);

#define KERNEL_TYPED(T, N)                                                          \
  __global__ void compile_coll_##N(shmem_team_t team, T *d, const T *s, int *out) { \
    int r = 0;                                                                      \
    COLL_TYPED(T, N, shmem_, , r, team, d, s)                                       \
    COLL_TYPED(T, N, shmemx_, _warp, r, team, d, s)                                 \
    COLL_TYPED(T, N, shmemx_, _block, r, team, d, s)                                \
    *out = r;                                                                       \
  }                                                                                 \
  void compile_coll_##N##_host(shmem_team_t team, T *d, const T *s, int *out) {     \
    int r = 0;                                                                      \
    COLL_TYPED(T, N, shmem_, , r, team, d, s)                                       \
    *out = r;                                                                       \
  }
GPUSHMEM_DEVICE_RMA_TYPES(KERNEL_TYPED)

#define COLL_MEM(PREFIX, SUFFIX, r, team, d, s)        \
  r += PREFIX##broadcastmem##SUFFIX(team, d, s, 5, 0); \
  r += PREFIX##fcollectmem##SUFFIX(team, d, s, 5);     \
  r += PREFIX##collectmem##SUFFIX(team, d, s, 5);      \
  r += PREFIX##alltoallmem##SUFFIX(team, d, s, 5);     \
  r += PREFIX##alltoallsmem##SUFFIX(team, d, s, 2, 3, 5);

__global__ void compile_coll_mem(shmem_team_t team, void *d, const void *s, int *out) {
  int r = shmem_team_my_pe(team) + shmem_team_n_pes(team) + shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
  r += shmem_team_sync(team) + shmemx_team_sync_warp(team) + shmemx_team_sync_block(team);
  COLL_MEM(shmem_, , r, team, d, s)
  COLL_MEM(shmemx_, _warp, r, team, d, s)
  COLL_MEM(shmemx_, _block, r, team, d, s)
  *out = r;
}
void compile_coll_mem_host(shmem_team_t team, void *d, const void *s, int *out) {
  int r = shmem_team_my_pe(team) + shmem_team_n_pes(team) + shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
  r += shmem_team_sync(team);
  COLL_MEM(shmem_, , r, team, d, s)
  *out = r;
}

#define REDUCE_OPS(T, N, OP)                                                                           \
  __global__ void compile_reduce_##N##_##OP(shmem_team_t team, T *d, const T *s, int *out) {           \
    *out = shmem_##N##_##OP##_reduce(team, d, s, 3) + shmemx_##N##_##OP##_reduce_warp(team, d, s, 3) + \
           shmemx_##N##_##OP##_reduce_block(team, d, s, 3);                                            \
  }                                                                                                    \
  void compile_reduce_##N##_##OP##_host(shmem_team_t team, T *d, const T *s, int *out) {               \
    *out = shmem_##N##_##OP##_reduce(team, d, s, 3);                                                   \
  }
#define REDUCE_BITWISE(T, N) REDUCE_OPS(T, N, and) REDUCE_OPS(T, N, or) REDUCE_OPS(T, N, xor)
#define REDUCE_MINMAX(T, N) REDUCE_OPS(T, N, min) REDUCE_OPS(T, N, max)
#define REDUCE_ARITH(T, N) REDUCE_OPS(T, N, sum) REDUCE_OPS(T, N, prod)
GPUSHMEM_DEVICE_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(REDUCE_MINMAX)
GPUSHMEM_DEVICE_REDUCE_ARITH_TYPES(REDUCE_ARITH)
