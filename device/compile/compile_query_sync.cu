// Compile test (built everywhere nvcc is, never run): queries, shmem_ptr, quiet, fence, barrier_all and
// sync_all in thread, warp and block scope on the device, and the host/device ones from host code.
#include <shmem.h>
#include <shmemx.h>

__global__ void compile_query_sync(const int *sym, int pe, int *out, void **ptr) {
  out[0] = shmem_my_pe();
  out[1] = shmem_n_pes();
  ptr[0] = shmem_ptr(sym, pe);
  shmem_quiet();
  shmem_fence();
  shmem_barrier_all();
  shmem_sync_all();
}

__global__ void compile_sync_warp() {
  shmemx_barrier_all_warp();
  shmemx_sync_all_warp();
}

__global__ void compile_sync_block() {
  shmemx_barrier_all_block();
  shmemx_sync_all_block();
}

void compile_host_query_sync(const int *sym, int pe, int *out, void **ptr) {
  out[0] = shmem_my_pe();
  out[1] = shmem_n_pes();
  ptr[0] = shmem_ptr(sym, pe);
  shmem_quiet();
  shmem_fence();
  shmem_barrier_all();
  shmem_sync_all();
}
