/* host_get_bw: host-initiated get bandwidth: -n gets of SIZE bytes back to back, one shmem_quiet, PE 0 <-> PE 1,
 * against memcpy (see rma_common.h). */
#define PERF_RMA_GET 1
#define PERF_RMA_BW 1
#define PERF_RMA_BENCH "host_get_bw"
#include "rma_common.h"
