/*
 * shmem_p_bw: element-wise device shmem_int_p, PE 0 -> PE 1 throughput against plain
 * stores through shmem_ptr; see common/perf_pg_bw.cuh.
 *
 * Usage: shmem_p_bw [-b 4] [-e 1M] [-f 2] [-n 10] [-w 2] [-r 11] [-c 32] [-t 256] [--json FILE]
 */
#include "perf_pg_bw.cuh"

int main(int argc, char **argv) {
  return perf_pg_bw::run(argc, argv, false);
}
