/*
 * alltoall_latency: the device alltoall on SHMEM_TEAM_WORLD (shmem_TYPE_alltoall; -s warp / block:
 * shmemx_TYPE_alltoall_warp / _block; -s stream: shmemx_TYPE_alltoall_on_stream from the host, timed with CUDA events),
 * a distinct SIZE-byte block from every PE to every PE, microseconds per alltoall timed inside the kernel on PE 0;
 * algbw = npes * SIZE / lat, busbw = algbw * (npes - 1) / npes (NCCL's alltoall convention). Reference: every PE stores
 * block j of its source into block `me` of PE j's dest through the device shmem_ptr mappings, then a flag barrier.
 * Checks every element of dest on every PE, after the timed loop and after one more alltoall of a fresh pattern; see
 * common/perf_collective.cuh.
 *
 * Usage: alltoall_latency [-b 8] [-e 64K] [-f 2] [-n 100] [-w 10] [-r 11] [-s thread|warp|block|stream|all] [-t 1024]
 *                         [-d int|long|float|double|uint32|uint64|all] [--json FILE]
 */
#include "perf_collective.cuh"

int main(int argc, char **argv) {
  return perf_collective::run<perf_collective::kAlltoall>(argc, argv);
}
