/*
 * shmem_put_bw: device put bandwidth, PE 0 -> PE 1 (--bidir: both ways at once), -s block | warp |
 * thread, against SM stores through shmem_ptr (raw_st) and cudaMemcpyAsync to the peer (ce); see
 * common/perf_rma_bw.cuh.
 *
 * Usage: shmem_put_bw [-b 8] [-e 64M] [-f 2] [-n 20] [-w 5] [-r 11] [-c 32] [-t 1024] [-s block|warp|thread]
 *                     [--bidir] [--json FILE]
 */
#include "perf_rma_bw.cuh"

int main(int argc, char **argv) {
  return perf_rma_bw::run(argc, argv, false);
}
