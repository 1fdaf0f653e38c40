/*
 * bcast_latency: the device broadcast on SHMEM_TEAM_WORLD from PE 0 (shmem_TYPE_broadcast; -s warp / block:
 * shmemx_TYPE_broadcast_warp / _block; -s stream: shmemx_TYPE_broadcast_on_stream from the host, timed with CUDA
 * events), SIZE bytes, microseconds per broadcast timed inside the kernel on PE 0; algbw = SIZE / lat, busbw = algbw
 * (NCCL's broadcast convention). Reference: PE 0 stores its source into every PE's dest through the device shmem_ptr
 * mappings, then a flag barrier. Checks every element of dest on every PE, after the timed loop and after one more
 * broadcast of a fresh pattern; see common/perf_collective.cuh.
 *
 * Usage: bcast_latency [-b 8] [-e 64K] [-f 2] [-n 100] [-w 10] [-r 11] [-s thread|warp|block|stream|all] [-t 1024]
 *                      [-d int|long|float|double|uint32|uint64|all] [--json FILE]
 */
#include "perf_collective.cuh"

int main(int argc, char **argv) {
  return perf_collective::run<perf_collective::kBcast>(argc, argv);
}
