#!/bin/bash
# The next device calls for issue 13 (prepared, not yet run): call6.sh STEP... (in order; logs in $OUT)
#   build    configure and build build-dev (162 s on the H200 machine, 80 s on the H100 one)
#   latency  shmem_p_latency through the proxy, unbound, with GPUSHMEM_PROXY_STATS=1: does the agent's pinned
#            bounce buffer remove the 2.2 ms of each put into the target's GPU heap (call 5)? Without and with MPS.
#   suite    ctest -L gpu-vhost (each test unbound, under its own MPS daemon), then ctest -L gpu -LE gpu-vhost
#   figures  perftest/run_proxy.sh (hand-off, drain rate, put_bw thread/warp/block next to P2P)
#   compat   issue 15 on a GPU: the NVSHMEM-style programs (gpu.compat.*) and the installed CUDA consumers
#            (pkg.install runs hello.cu built through find_package, nvcc + pkg-config and the wrappers)
# Keep each call under ~450 s: e.g. "build latency suite" in one call, "build figures" in the next.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=$R/build-dev
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*" | tee -a $O/summary.txt; }
for step in "$@"; do case $step in
build)
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > /tmp/configure.log 2>&1 && cmake --build $B -j 16 > /tmp/build.log 2>&1 \
    || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
  say "built";;
latency)
  lat() {
    { echo "=== $1"; GPUSHMEM_PROXY_STATS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi \
        timeout 60 mpirun -np 2 --bind-to none $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/shmem_p_latency -n 200 -w 20 -r 3 2>&1; } >> $O/latency.txt
    say "$1: $(grep -A30 "=== $1" $O/latency.txt | grep -E 'shmem_int_p|memory agent: put' | cut -c1-150 | tr '\n' ' ')"
  }
  lat "no MPS"
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
  nvidia-cuda-mps-control -d && lat "MPS"
  echo quit | nvidia-cuda-mps-control; sleep 2; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY;;
suite)
  (cd $B && timeout 300 ctest -L gpu-vhost --timeout 100 --output-on-failure > $O/gpu-vhost.txt 2>&1)
  grep -E "Test +#|tests passed" $O/gpu-vhost.txt | sed 's/ \+/ /g' >> $O/summary.txt
  (cd $B && timeout 200 ctest -L gpu -LE gpu-vhost -j 8 --timeout 100 --output-on-failure > $O/gpu-p2p.txt 2>&1)
  grep -E "tests passed|\*\*\*" $O/gpu-p2p.txt | head -20 >> $O/summary.txt
  say "suite done";;
compat)
  (cd $B && timeout 300 ctest -R 'compat|pkg\.install' --timeout 120 --output-on-failure -V > $O/compat.txt 2>&1)
  grep -E "PASS|FAIL|ok: .*cu|tests passed|\*\*\*" $O/compat.txt | head -40 >> $O/summary.txt
  say "compat done";;
figures)
  CUDA_VISIBLE_DEVICES=0 timeout 400 perftest/run_proxy.sh -B $B -o $O/proxy -t 120 > $O/proxy.txt 2>&1
  say "figures done";;
esac; done
