/* host_put_on_stream_bw: shmemx_putmem_on_stream / shmemx_getmem_on_stream bandwidth (-n ops, one stream sync),
   PE 0 <-> PE 1, gpushmem built with CUDA only (see on_stream_common.h). */
#define PERF_OS_BW 1
#define PERF_OS_BENCH "host_put_on_stream_bw"
#include "on_stream_common.h"
