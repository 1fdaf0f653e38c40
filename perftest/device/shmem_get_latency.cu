/*
 * shmem_get_latency: device get latency, PE 0 <- PE 1 (blocking get) per iteration, -s thread |
 * warp | block, against a hand-written copy through shmem_ptr; see common/perf_rma_latency.cuh.
 *
 * Usage: shmem_get_latency [-b 8] [-e 16K] [-f 2] [-n 1000] [-w 100] [-r 11] [-s thread|warp|block] [-t 1024]
 *                          [--json FILE]
 */
#include "perf_rma_latency.cuh"

int main(int argc, char **argv) {
  return perf_rma_latency::run(argc, argv, true);
}
