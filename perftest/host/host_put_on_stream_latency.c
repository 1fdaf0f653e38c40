/* host_put_on_stream_latency: shmemx_putmem_on_stream / shmemx_getmem_on_stream latency (one op + stream sync per
   iteration), PE 0 <-> PE 1, gpushmem built with CUDA only (see on_stream_common.h). */
#define PERF_OS_BW 0
#define PERF_OS_BENCH "host_put_on_stream_latency"
#include "on_stream_common.h"
