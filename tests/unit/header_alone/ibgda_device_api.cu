// The device API with its IBGDA branches compiled in (GPUSHMEM_DEVICE_IBGDA=1, transport/ibgda.cuh): puts, gets, p/g,
// atomics, signals, put-with-signal, events and quiet in each scope compile with nvcc here. Not run (issue 14: the
// runtime does not provision IBGDA queues yet).
#define GPUSHMEM_DEVICE_IBGDA 1
#include <shmem.h>
#include <shmemx.h>

__global__ void header_alone_ibgda_device_api_kernel(long *sym, long *local, uint64_t *sig, int pe) {
  shmem_long_p(sym, 1, pe);
  local[0] = shmem_long_g(sym + 1, pe);
  shmem_long_put(sym + 2, local, 4, pe);
  shmem_long_put_nbi(sym + 8, sym + 16, 4, pe);
  shmem_long_get(local, sym, 4, pe);
  shmemx_long_put_warp(sym + 32, local, 32, pe);
  shmemx_long_get_block(local, sym + 64, 64, pe);
  shmem_long_atomic_add(sym, 2, pe);
  local[1] = static_cast<long>(shmem_ulong_atomic_fetch_xor(reinterpret_cast<unsigned long *>(sym), 3, pe));
  local[2] = shmem_long_atomic_compare_swap(sym, 1, 2, pe);
  shmem_uint_atomic_or(reinterpret_cast<unsigned int *>(sym + 3), 4u, pe);
  shmemx_signal_op(sig, 1, SHMEM_SIGNAL_ADD, pe);
  shmem_putmem_signal(sym + 40, local, 64, sig, 7, SHMEM_SIGNAL_SET, pe);
  const shmemx_event_t ev = shmemx_putmem_nbi_event(sym + 48, sym, 64, pe);
  shmemx_event_wait(ev);
  shmem_fence();
  shmem_quiet();
}
