#!/bin/bash
# For the next device call on issue 13 (not yet run): is the 3.4 ms of a proxied device op the time slicing of the
# one GPU between the two PEs' processes? Runs shmem_p_latency over two virtual hosts without MPS, then with an
# MPS daemon whose clients are checked (get_server_list / get_client_list while the benchmark runs), each with
# GPUSHMEM_PROXY_STATS=1; then, if MPS helps, the gpu-vhost suite under it, one test at a time with the daemon
# restarted after a failure (a trap under MPS leaves the next clients unable to start, call 2 of this folder).
# Also the proxy's drain rate alone (perftest proxy_drain_rate), which needs no second PE.
# Usage, in the repository root on the GPU machine: bash docs/results/2026-12-05-gpu-proxy/next.sh; logs in $OUT.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=$R/build-dev
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*"; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
  -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > /tmp/configure.log 2>&1 && cmake --build $B -j 15 > /tmp/build.log 2>&1 \
  || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
say "built"
lat() {  # lat LABEL: p and g latency through the proxy, with the proxies' statistics
  { echo "=== $1"; GPUSHMEM_PROXY_STATS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo GPUSHMEM_BOOTSTRAP=mpi SHMEM_SYMMETRIC_SIZE=1G \
      CUDA_VISIBLE_DEVICES=0 timeout 60 mpirun -np 2 $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/shmem_p_latency -n 200 -w 20 -r 3 2>&1 &
    sleep 6; echo "--- while it runs:"; echo get_server_list | nvidia-cuda-mps-control 2>&1
    for s in $(echo get_server_list | nvidia-cuda-mps-control 2>/dev/null); do echo "get_client_list $s" | nvidia-cuda-mps-control; done
    nvidia-smi 2>&1 | tail -8; wait; } >> $O/latency.txt 2>&1
  say "$1: $(grep -o '"op":"shmem_int_p"[^}]*"median":[0-9.]*' $O/latency.txt | tail -1)"
}
timeout 120 $B/bin/proxy_drain_rate 4096 8000000 32 8 5 > $O/drain.txt 2>&1; say "drain: $(grep -v '^#' $O/drain.txt | head -2 | tail -1)"
lat "no MPS"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
nvidia-cuda-mps-control -d && say "MPS daemon started"
lat "MPS"
cp /tmp/mps-log/control.log /tmp/mps-log/server.log $O/ 2>/dev/null
: > $O/gpu-vhost.txt
for t in $(cd $B && ctest -L gpu-vhost -N | sed -n 's/.*Test *#[0-9]*: \(gpu\.[^ ]*\).*/\1/p'); do
  (cd $B && timeout 150 ctest -R "^$t\$" --timeout 140 --output-on-failure >> $O/gpu-vhost.txt 2>&1) || {
    echo quit | nvidia-cuda-mps-control; sleep 2; nvidia-cuda-mps-control -d; }
  say "$t: $(grep -E "Test +#.*$t" $O/gpu-vhost.txt | tail -1 | grep -oE 'Passed|Failed|Timeout|Skipped')"
done
echo quit | nvidia-cuda-mps-control; say "done"
