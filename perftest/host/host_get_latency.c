/* host_get_latency: host-initiated get latency: one get (+ shmem_quiet) per iteration, PE 0 <-> PE 1, against memcpy
 * (see rma_common.h). */
#define PERF_RMA_GET 1
#define PERF_RMA_BW 0
#define PERF_RMA_BENCH "host_get_latency"
#include "rma_common.h"
