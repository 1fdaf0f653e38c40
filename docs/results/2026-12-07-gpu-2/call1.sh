#!/bin/bash
# Call 1 (run through on_device.sh): issue 13's five stalling gpu-vhost tests with libgpushmem's eager loading (the
# default now), one of them again with GPUSHMEM_CUDA_EAGER_LOADING=0 (the control), then issue 14's IBGDA amo and
# barrier. Each group has its own deadline; the whole stays under 300 s (the session's device time ran short).
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
TESTS="proxy_device device_api.event device_api.amo example.jacobi_halo example.moe_dispatch" CAP=45 PT=15 DT=25 \
  bash $C -d 150 vhost
VHOST_ENV=GPUSHMEM_CUDA_EAGER_LOADING=0 TESTS="proxy_device" CAP=35 PT=8 DT=12 bash $C -d 45 vhost
TESTS="device_api_ibgda.amo device_api_ibgda.barrier" CAP=40 PT=15 DT=25 bash $C -d 90 vhost
