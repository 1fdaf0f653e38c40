#!/bin/bash
# Third device call: where a proxied device op's time goes, the proxy suite under MPS, and the P2P put latency
# against 159d53f with the SASS of both builds' put kernel. Logs under $OUT (at most 8 files come back).
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O
UCXI=$R/.deps/ucx/usr/include NVCC=/usr/local/cuda/bin/nvcc NEW=$R/build-dev OLD=/tmp/base/build-ab
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*"; }
rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
(cmake -S /tmp/base -B $OLD -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=$NVCC \
   -DGPUSHMEM_UCX_INCLUDE=$UCXI > /tmp/cfg-old.log 2>&1 && cmake --build $OLD -j 3 --target shmem_put_latency gpushmem_bootstrap_mpi > /tmp/build-old.log 2>&1; echo "old build rc $?") &
cmake -S . -B $NEW -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=$NVCC -DGPUSHMEM_UCX_INCLUDE=$UCXI > /tmp/configure.log 2>&1 || { tail -30 /tmp/configure.log; exit 1; }
cmake --build $NEW -j 13 > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -60; exit 1; }
wait; say "builds done"
CUO=/usr/local/cuda/bin/cuobjdump
$CUO -sass $NEW/bin/shmem_put_latency > $O/sass-new.txt 2>&1; $CUO -sass $OLD/bin/shmem_put_latency > $O/sass-old.txt 2>&1
: > $O/ab.txt
for r in 1 2; do for who in new old; do B=$NEW; [ $who = old ] && B=$OLD
  CUDA_VISIBLE_DEVICES=0 SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi timeout 30 mpirun -np 2 $B/bin/shmem_put_latency -e 512 -f 8 -r 5 2>&1 | grep '^json:' | sed "s/^/$who /" >> $O/ab.txt
done; done; say "ab (no MPS) done"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
nvidia-cuda-mps-control -d && say "mps daemon started" || say "mps daemon failed"
VH="mpirun -np 2 $NEW/bin/gpushmem-vhost --hosts 2 --"
export UCX_TLS=tcp,self UCX_NET_DEVICES=lo GPUSHMEM_BOOTSTRAP=mpi SHMEM_SYMMETRIC_SIZE=1G CUDA_VISIBLE_DEVICES=0
{ GPUSHMEM_PROXY_STATS=1 timeout 60 $VH $NEW/bin/shmem_p_latency -n 100 -w 10 -r 1 2>&1 & sleep 8; echo "--- mps servers while it runs:"; echo get_server_list | nvidia-cuda-mps-control; nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv; wait; } > $O/stats.log 2>&1
say "p_latency with stats: $(grep -c json $O/stats.log) points"
{ echo "--- g_latency"; GPUSHMEM_PROXY_STATS=1 timeout 60 $VH $NEW/bin/shmem_g_latency -n 100 -w 10 -r 1 2>&1
  echo "--- host p over UCX to a GPU heap (the agent path alone)"; GPUSHMEM_SYMMETRIC_HEAP=gpu timeout 60 $VH $NEW/bin/host_p_latency -r 3 2>&1
  echo "--- host p over UCX to a host heap"; timeout 60 $VH $NEW/bin/host_p_latency -r 3 2>&1; } >> $O/stats.log 2>&1
say "stats done"; grep -E "proxy:|json" $O/stats.log | cut -c1-200
unset UCX_TLS UCX_NET_DEVICES GPUSHMEM_BOOTSTRAP SHMEM_SYMMETRIC_SIZE CUDA_VISIBLE_DEVICES
(cd $NEW && GPUSHMEM_PROXY_STATS=1 timeout 150 ctest -R "proxy_device.tcp" --timeout 140 --output-on-failure > $O/proxy-device.log 2>&1); say "proxy_device: $(grep -E 'tests passed' $O/proxy-device.log)"
(cd $NEW && timeout 150 ctest -L gpu-vhost -E proxy_device -j 1 --timeout 60 --output-on-failure > $O/gpu-vhost-tests.txt 2>&1)
say "gpu-vhost:"; grep -E "Test +#|tests passed" $O/gpu-vhost-tests.txt | cut -c1-100
python3 docs/results/2026-12-05-gpu-proxy/devab.py $O/ab.txt | grep lat_us | cut -c1-150
echo quit | nvidia-cuda-mps-control; say "total"
