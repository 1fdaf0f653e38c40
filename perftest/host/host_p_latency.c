/* host_p_latency: shmem_TYPE_p + shmem_quiet latency, PE 0 -> PE 1, against memcpy (see pg_common.h). */
#define PERF_PG_GET 0
#define PERF_PG_BENCH "host_p_latency"
#include "pg_common.h"
