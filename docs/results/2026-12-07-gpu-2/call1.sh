#!/bin/bash
# Call 1 (run through on_device.sh): issue 13's five stalling gpu-vhost tests with libgpushmem's eager loading (the
# default now), one of them again with GPUSHMEM_CUDA_EAGER_LOADING=0 (the control), the other gpu-vhost tests, then
# issue 14's device_api_ibgda tests not yet passed. Each group has its own deadline; the whole stays under 580 s.
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
TESTS="proxy_device device_api.event device_api.amo example.jacobi_halo example.moe_dispatch" CAP=60 PT=15 DT=25 \
  bash $C -d 190 vhost
VHOST_ENV=GPUSHMEM_CUDA_EAGER_LOADING=0 TESTS="proxy_device" CAP=40 PT=8 DT=15 bash $C -d 55 vhost
TESTS="device_api.rma device_api.signal device_api.coll device_api.barrier device_api.wait stream_graph
  example.ring_kernel net_gpu_heap device_api.bytes device_api.wait_deprecated" CAP=45 PT=15 DT=25 bash $C -d 170 vhost
TESTS="device_api_ibgda.amo device_api_ibgda.barrier device_api_ibgda.event device_api_ibgda.coll device_api_ibgda.wait
  device_api_ibgda.wait_deprecated" CAP=45 PT=15 DT=25 bash $C -d 150 vhost
