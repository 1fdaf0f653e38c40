// Kernels that each make one device call, for the register budget check (check_registers.cmake). Without -rdc
// ptxas allocates a kernel's registers over its whole call graph and stacks an out-of-line callee's registers
// above what the caller keeps live, so the proxy path a P2P kernel carries on its slow branch counts in the
// kernel's registers: a 1024-thread block has 64 a thread, and 41ec976 made P2P kernels need up to 70.
#include <shmem.h>
#include <shmemx.h>

extern "C" {
__global__ void rb_putmem(void *d, const void *s, size_t n, int pe) {
  shmem_putmem(d, s, n, pe);
}
__global__ void rb_putmem_nbi(void *d, const void *s, size_t n, int pe) {
  shmem_putmem_nbi(d, s, n, pe);
}
__global__ void rb_putmem_warp(void *d, const void *s, size_t n, int pe) {
  shmemx_putmem_warp(d, s, n, pe);
}
__global__ void rb_putmem_block(void *d, const void *s, size_t n, int pe) {
  shmemx_putmem_block(d, s, n, pe);
}
__global__ void rb_getmem(void *d, const void *s, size_t n, int pe) {
  shmem_getmem(d, s, n, pe);
}
__global__ void rb_int_p(int *d, int pe) {
  shmem_int_p(d, 1, pe);
}
__global__ void rb_int_g(int *d, int pe) {
  d[1] = shmem_int_g(d, pe);
}
__global__ void rb_int_iput(int *d, const int *s, int pe) {
  shmem_int_iput(d, s, 2, 3, 16, pe);
}
__global__ void rb_add(long *d, int pe) {
  shmem_long_atomic_add(d, 1, pe);
}
__global__ void rb_fetch_add(long *d, int pe) {
  d[1] = shmem_long_atomic_fetch_add(d, 1, pe);
}
__global__ void rb_cswap(long *d, int pe) {
  d[1] = shmem_long_atomic_compare_swap(d, 0, 1, pe);
}
__global__ void rb_put_signal(void *d, const void *s, size_t n, uint64_t *sig, int pe) {
  shmem_putmem_signal(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
}
__global__ void rb_signal_op(uint64_t *sig, int pe) {
  shmemx_signal_op(sig, 1, SHMEM_SIGNAL_ADD, pe);
}
__global__ void rb_quiet() {
  shmem_quiet();
}
__global__ void rb_fence() {
  shmem_fence();
}
__global__ void rb_barrier_all() {
  shmem_barrier_all();
}
}
