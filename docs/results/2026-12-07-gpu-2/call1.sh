#!/bin/bash
# Call 1 (run through on_device.sh): issue 13's five stalling gpu-vhost tests with libgpushmem's eager loading (the
# default now), one of them again with GPUSHMEM_CUDA_EAGER_LOADING=0 (the control), then issue 14's device_api_ibgda
# tests not yet passed.
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
TESTS="proxy_device device_api.event device_api.amo example.jacobi_halo example.moe_dispatch" CAP=90 PT=15 DT=25 \
  bash $C -d 260 vhost
VHOST_ENV=GPUSHMEM_CUDA_EAGER_LOADING=0 TESTS="proxy_device device_api.event" CAP=45 PT=8 DT=15 bash $C -d 90 vhost
TESTS="device_api_ibgda.amo device_api_ibgda.barrier device_api_ibgda.event device_api_ibgda.coll device_api_ibgda.wait
  device_api_ibgda.wait_deprecated" CAP=60 PT=15 DT=25 bash $C -d 190 vhost
