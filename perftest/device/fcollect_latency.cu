/*
 * fcollect_latency: the device fcollect on SHMEM_TEAM_WORLD (shmem_TYPE_fcollect; -s warp / block:
 * shmemx_TYPE_fcollect_warp / _block; -s stream: shmemx_TYPE_fcollect_on_stream from the host, timed with CUDA events),
 * SIZE bytes from every PE into block `pe` of every PE's dest, microseconds per fcollect timed inside the kernel on PE
 * 0; algbw = npes * SIZE / lat, busbw = algbw * (npes - 1) / npes (NCCL's allgather convention). Reference: every PE
 * stores its block into every PE's dest through the device shmem_ptr mappings, then a flag barrier. Checks every
 * element of dest on every PE, after the timed loop and after one more fcollect of a fresh pattern; see
 * common/perf_collective.cuh.
 *
 * Usage: fcollect_latency [-b 8] [-e 64K] [-f 2] [-n 100] [-w 10] [-r 11] [-s thread|warp|block|stream|all] [-t 1024]
 *                         [-d int|long|float|double|uint32|uint64|all] [--json FILE]
 */
#include "perf_collective.cuh"

int main(int argc, char **argv) {
  return perf_collective::run<perf_collective::kFcollect>(argc, argv);
}
