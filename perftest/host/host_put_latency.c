/* host_put_latency: host-initiated put latency: one put (+ shmem_quiet) per iteration, PE 0 <-> PE 1, against memcpy
 * (see rma_common.h). */
#define PERF_RMA_GET 0
#define PERF_RMA_BW 0
#define PERF_RMA_BENCH "host_put_latency"
#include "rma_common.h"
