// Kernels that each make one device collective call, for the register budget check (check_registers.cmake, as
// register_budget.cu): a collective loops over the team's members and keeps more values live than one RMA call,
// so its budget is the hard limit, 64 a thread (a 1024-thread block), P2P and proxy paths together.
#include <shmem.h>
#include <shmemx.h>

extern "C" {
__global__ void rb_fcollectmem_block(void *d, const void *s, size_t n) {
  shmemx_fcollectmem_block(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_collectmem_block(void *d, const void *s, size_t n) {
  shmemx_collectmem_block(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_alltoallmem_block(void *d, const void *s, size_t n) {
  shmemx_alltoallmem_block(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_broadcastmem_block(void *d, const void *s, size_t n) {
  shmemx_broadcastmem_block(SHMEM_TEAM_WORLD, d, s, n, 0);
}
__global__ void rb_collectmem_warp(void *d, const void *s, size_t n) {
  shmemx_collectmem_warp(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_fcollectmem_warp(void *d, const void *s, size_t n) {
  shmemx_fcollectmem_warp(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_alltoallsmem_block(void *d, const void *s, size_t n) {
  shmemx_alltoallsmem_block(SHMEM_TEAM_WORLD, d, s, 2, 3, n);
}
__global__ void rb_int_sum_reduce_block(int *d, const int *s, size_t n) {
  shmemx_int_sum_reduce_block(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_int_sum_reduce(int *d, const int *s, size_t n) {
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_double_max_reduce_warp(double *d, const double *s, size_t n) {
  shmemx_double_max_reduce_warp(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_uchar_xor_reduce(unsigned char *d, const unsigned char *s, size_t n) {
  shmem_uchar_xor_reduce(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_double_prod_reduce(double *d, const double *s, size_t n) {
  shmem_double_prod_reduce(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_schar_min_reduce_warp(signed char *d, const signed char *s, size_t n) {
  shmemx_schar_min_reduce_warp(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_short_max_reduce_block(short *d, const short *s, size_t n) {
  shmemx_short_max_reduce_block(SHMEM_TEAM_WORLD, d, s, n);
}
__global__ void rb_alltoallsmem(void *d, const void *s, size_t n) {
  shmem_alltoallsmem(SHMEM_TEAM_WORLD, d, s, 2, 3, n);
}
}
