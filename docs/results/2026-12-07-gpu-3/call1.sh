#!/bin/bash
# The first device call of the next GPU session (no GPU was lent to the session of 2026-12-07 that wrote this): run
# through ../2026-12-07-gpu-2/on_device.sh after ../2026-12-07-gpu-2/prep_carry.sh build-helper (a build made here,
# GPUSHMEM_GPU_IBGDA_TESTS=ON). What changed since the last GPU run, most important first, each group with its own
# deadline; the whole under 330 s.
#   issue 13: collect and the reductions through the proxy (8518226: one COLL request per member), the host
#             collectives on GPU buffers (7e38026, in net_gpu_heap), device_api.amo
#             after its copy fix (30f519f), event; coll over UCX on TCP too;
#   issue 14: the IBGDA set after its post steps were inlined (c19ee91), collectives included, then memcheck.
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
# Every device reduction (type x operator x scope) on 1-4 PEs over P2P first (issue 16's correctness tests).
(cd $B && NVSHMEM_DISABLE_NVLS=1 timeout 100 ctest -R '^gpu[.]device_reduce_types[.]tcp[.]np[1-4]$' --output-on-failure) \
  > ${OUT:-/tmp/out}/reduce_types.txt 2>&1
grep -E "tests passed|Failed|FAILED" ${OUT:-/tmp/out}/reduce_types.txt | head -5 >> ${OUT:-/tmp/out}/summary.txt
TESTS="device_api.coll device_reduce_types net_gpu_heap device_api.amo device_api.event" CAP=45 PT=15 DT=25 \
  bash $C -d 170 vhost
LAUNCHERS=tcp TESTS="device_api.coll" CAP=40 PT=15 DT=25 bash $C -d 200 vhost
TESTS="device_api_ibgda.coll device_api_ibgda.amo device_api_ibgda.event device_api_ibgda.bytes
  device_api_ibgda.wait_deprecated device_api_ibgda.rma device_api_ibgda.signal" CAP=40 PT=15 DT=25 bash $C -d 290 vhost
SAN_TESTS="device_api_ibgda.rma" CAP=35 bash $C -d 330 sanitize
