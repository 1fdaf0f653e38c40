#!/bin/bash
# The second device call of the next GPU session (same carried build, same machine if still warm): issue 14's fault
# tests, then the performance steps issue 13 and 14 still owe (each logs under $OUT; call8.sh says what they run).
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
LAUNCHERS=tcp TESTS="device_api_ibgda.fault.bad_rkey device_api_ibgda.fault.stall_qp device_api_ibgda.fault.slow" \
  CAP=40 PT=15 DT=20 bash $C -d 120 vhost
bash $C -d 200 ibgdalat
bash $C -d 420 figures
bash $C -d 560 postrate
