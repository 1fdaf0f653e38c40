#!/bin/bash
# Call 2 (through on_device.sh): issue 13's gpu-vhost tests call 1 did not run (mpi launcher) and the five of call 1
# on the tcp launcher, then the proxy's figures (perftest/run_proxy.sh) and issue 14's posting rate, until the deadline.
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
O=${OUT:-/tmp/out}; mkdir -p $O
t0=$SECONDS
TESTS="device_api.rma device_api.bytes device_api.signal device_api.wait device_api.barrier device_api.coll stream_graph
  example.ring_kernel net_gpu_heap device_api.wait_deprecated" CAP=60 PT=15 DT=25 bash $C -d ${VHOST_BUDGET:-230} vhost
TESTS="proxy_device device_api.event device_api.amo example.jacobi_halo example.moe_dispatch" LAUNCHERS=tcp CAP=60 PT=15 \
  DT=25 bash $C -d 130 vhost
left=$((${DEADLINE:-560} - (SECONDS - t0)))
[ $left -gt 60 ] && bash $C -d $((left - 50)) figures
left=$((${DEADLINE:-560} - (SECONDS - t0)))
[ $left -gt 30 ] && bash $C -d $left postrate
