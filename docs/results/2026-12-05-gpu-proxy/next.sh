#!/bin/bash
# Device call 4 for issue 13: is the 3.4 ms of a proxied device op the time slicing of the one GPU between the two
# PEs' processes? shmem_p_latency over two virtual hosts without MPS, then under an MPS daemon whose clients are
# checked (get_server_list / get_client_list while the benchmark runs), each with GPUSHMEM_PROXY_STATS=1; the
# proxy's drain rate alone (proxy_drain_rate, no second PE); the event tests over P2P; then the gpu-vhost suite,
# where gpu_launch.sh now runs each test under its own private MPS daemon.
# Usage, in the repository root on the GPU machine: bash docs/results/2026-12-05-gpu-proxy/next.sh; logs in $OUT.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=$R/build-dev
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*" | tee -a $O/summary.txt; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
  -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > /tmp/configure.log 2>&1 && cmake --build $B -j 16 > /tmp/build.log 2>&1 \
  || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
say "built"
lat() {  # lat LABEL: p latency through the proxy, with the proxies' statistics
  { echo "=== $1"; GPUSHMEM_PROXY_STATS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo GPUSHMEM_BOOTSTRAP=mpi SHMEM_SYMMETRIC_SIZE=1G \
      CUDA_VISIBLE_DEVICES=0 timeout 60 mpirun -np 2 $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/shmem_p_latency -n 200 -w 20 -r 3 2>&1 &
    sleep 5; echo "--- while it runs:"; echo get_server_list | nvidia-cuda-mps-control 2>&1
    for s in $(echo get_server_list | nvidia-cuda-mps-control 2>/dev/null); do echo "get_client_list $s" | nvidia-cuda-mps-control; done
    nvidia-smi 2>&1 | tail -6; wait; } >> $O/latency.txt 2>&1
  say "$1: $(grep -o '"op":"shmem_int_p"[^}]*"median":[0-9.]*' $O/latency.txt | tail -1 | grep -o 'median":[0-9.]*')"
}
timeout 60 $B/bin/proxy_drain_rate 4096 8000000 32 8 5 > $O/drain.txt 2>&1; say "drain: $(grep -v '^#' $O/drain.txt | head -3 | tr '\n' ' ')"
(cd $B && timeout 100 ctest -R 'gpu.device_api.event' -LE gpu-vhost --timeout 45 --output-on-failure > $O/event-p2p.txt 2>&1)
say "event p2p: $(grep -E 'tests passed' $O/event-p2p.txt)"
lat "no MPS"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
nvidia-cuda-mps-control -d && say "MPS daemon started"
lat "MPS"
cp /tmp/mps-log/control.log $O/mps-control.log 2>/dev/null
echo quit | nvidia-cuda-mps-control; sleep 3; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$((560 - (SECONDS - t0)))
say "gpu-vhost suite, $left s left"
(cd $B && timeout $left ctest -L gpu-vhost --timeout 100 --output-on-failure > $O/gpu-vhost.txt 2>&1)
grep -E "Test +#|tests passed" $O/gpu-vhost.txt | sed 's/ \+/ /g' >> $O/summary.txt
say "done"
