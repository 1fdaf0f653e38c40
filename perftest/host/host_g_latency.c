/* host_g_latency: shmem_TYPE_g latency, PE 0 -> PE 1, against memcpy (see pg_common.h). */
#define PERF_PG_GET 1
#define PERF_PG_BENCH "host_g_latency"
#include "pg_common.h"
