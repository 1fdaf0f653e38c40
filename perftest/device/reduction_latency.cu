/*
 * reduction_latency: the device all-reduce on SHMEM_TEAM_WORLD (shmem_TYPE_OP_reduce; -s warp / block:
 * shmemx_TYPE_OP_reduce_warp / _block; -s stream: shmemx_TYPE_OP_reduce_on_stream from the host, timed with CUDA
 * events), SIZE bytes (SIZE / sizeof(TYPE) elements) from every PE, the result on every PE, microseconds per reduction
 * timed inside the kernel on PE 0; algbw = SIZE / lat, busbw = algbw * 2 (npes - 1) / npes (NCCL's allreduce
 * convention). -o and / or / xor take uint32 and uint64 only (the specification's bitwise reduction types; with -d all
 * or -o all the other pairs are left out). Reference: a flag barrier, then each PE reduces its share of the elements by
 * loading them from every PE through the device shmem_ptr mappings and stores the result into every PE's dest, then a
 * flag barrier. Checks every element of dest on every PE against the result computed from the known inputs, after the
 * timed loop and after one more reduction of fresh inputs; see common/perf_collective.cuh.
 *
 * Usage: reduction_latency [-b 8] [-e 64K] [-f 2] [-n 100] [-w 10] [-r 11] [-s thread|warp|block|stream|all]
 *                          [-t 1024] [-d int|long|float|double|uint32|uint64|all]
 *                          [-o sum|prod|min|max|and|or|xor|all] [--json FILE]
 */
// Each operator's kernels are compiled in reduction_latency_<op>.cu (from reduction_op.cu.in), in parallel.
#define PERF_COLL_REDUCE_OPS_ELSEWHERE
#include "perf_collective.cuh"

int main(int argc, char **argv) {
  return perf_collective::run<perf_collective::kReduce>(argc, argv);
}
