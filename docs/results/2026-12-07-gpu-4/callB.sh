#!/bin/bash
# Second device call of 2026-12-07 (fifth session), same carried build: whether this machine's UCX reaches CUDA memory
# (issue 13's one-sided part on a GPU heap), issue 14's device test set over emulated IBGDA (collectives included:
# the proxy runs their COLL requests beside IBGDA) and its fault tests, then memcheck where time is left.
# D=SECONDS (default 540) scales the steps' deadlines.
set -u
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
D=${D:-540}
bash $C -d 20 ucxinfo
TESTS="device_api_ibgda.coll device_api_ibgda.amo device_api_ibgda.event device_api_ibgda.bytes
  device_api_ibgda.wait_deprecated device_api_ibgda.rma device_api_ibgda.signal device_api_ibgda.wait
  device_api_ibgda.barrier" CAP=40 PT=15 DT=25 bash $C -d $((D * 6 / 10)) vhost
LAUNCHERS=tcp TESTS="device_api_ibgda.fault.bad_rkey device_api_ibgda.fault.stall_qp device_api_ibgda.fault.slow" \
  CAP=40 PT=15 DT=20 bash $C -d $((D * 85 / 100)) vhost
SAN_TESTS="device_api_ibgda.rma" CAP=35 bash $C -d $D sanitize
