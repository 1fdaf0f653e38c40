/*
 * reduction_latency: the device team reduction (shmem_TYPE_OP_reduce) on SHMEM_TEAM_WORLD in a loop, every PE,
 * -s thread | warp | block, against the same data movement written by hand through shmem_ptr; see
 * common/perf_coll_latency.cuh.
 *
 * Usage: reduction_latency [-b 4] [-e 1M] [-f 2] [-n 100] [-w 10] [-r 11] [-s thread|warp|block] [-t 1024] [-d int] [-o
 * sum]
 */
#include "perf_coll_latency.cuh"

int main(int argc, char **argv) {
  return perf_coll_latency::run<perf_coll_latency::kReduce>(argc, argv);
}
