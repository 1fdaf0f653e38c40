#!/bin/bash
# Device run (GPU machine) for issue 13, the CPU proxy: dev.sh STEP... (in order)
#   build:  this tree (build-dev, tests on) and 159d53f's perftest (.deps/base.tar -> /tmp/base/build-ab) side by side
#   p2p:    ctest -L gpu -LE gpu-vhost (every device test over P2P, 2 PEs on one GPU)
#   ab:     P2P device benchmarks, 2 PEs on one GPU, this tree against 159d53f alternating (3 rounds)
#   mps:    starts the MPS daemon: the two PEs' kernels and the proxies' copies then run at once instead of in
#           time slices of the one GPU (each target-side copy otherwise waits for its process's next slice)
#   vhost:  ctest -L gpu-vhost (every device call through the proxy, 2 PEs on two virtual hosts)
#   proxy:  device benchmarks over two virtual hosts (proxy), and the host API's op over UCX for the hand-off figure
# Each step writes its log under $OUT and prints a summary line, so a run cut short still says how far it got.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD; export O=${OUT:-/tmp/out}; mkdir -p $O; D=$R/docs/results/2026-12-05-gpu-proxy
UCXI=$R/.deps/ucx/usr/include NVCC=/usr/local/cuda/bin/nvcc
NEW=$R/build-dev OLD=/tmp/base/build-ab
t0=$SECONDS
for step in "$@"; do case $step in
build)
  rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
  (cmake -S /tmp/base -B $OLD -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=$NVCC \
     -DGPUSHMEM_UCX_INCLUDE=$UCXI > $O/cfg-old.log 2>&1 && cmake --build $OLD -j 4 > $O/build-old.log 2>&1; echo "old build rc $? at $((SECONDS-t0)) s") &
  cmake -S . -B $NEW -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=$NVCC \
    -DGPUSHMEM_UCX_INCLUDE=$UCXI > $O/configure.log 2>&1 || { tail -30 $O/configure.log; exit 1; }
  cmake --build $NEW -j 14 > $O/build.log 2>&1 || { grep -E "error" -A3 $O/build.log | head -60; exit 1; }
  echo "new build at $((SECONDS-t0)) s"; wait;;
p2p)
  (cd $NEW && timeout 200 ctest -L gpu -LE gpu-vhost -j 12 --timeout 100 --output-on-failure > $O/gpu-tests.txt 2>&1
   grep -E "tests passed|\*\*\*|Total Test" $O/gpu-tests.txt | head -30; echo "gpu at $((SECONDS-t0)) s");;
mps)
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
  nvidia-cuda-mps-control -d && echo "mps started" || echo "mps failed to start";;
vhost)
  (cd $NEW && timeout 200 ctest -L gpu-vhost -j 4 --timeout 90 --output-on-failure > $O/gpu-vhost-tests.txt 2>&1
   grep -E "tests passed|\*\*\*|Total Test" $O/gpu-vhost-tests.txt | head -30; echo "gpu-vhost at $((SECONDS-t0)) s");;
ab)
  : > $O/ab-raw.txt
  for r in 1 2 3; do for who in new old; do B=$NEW; [ $who = old ] && B=$OLD
    for p in "shmem_p_latency -r 5" "shmem_put_latency -e 4K -f 8 -r 5" "shmem_put_bw -b 8 -e 1M -f 8 -r 3"; do
      set -- $p; CUDA_VISIBLE_DEVICES=0 SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi timeout 30 mpirun -np 2 $B/bin/$1 "${@:2}" 2>&1 \
        | grep '^json:' | sed "s/^/$who /" >> $O/ab-raw.txt || echo "$who $p failed"
    done; done; echo "ab round $r at $((SECONDS-t0)) s"; done
  python3 $D/devab.py $O/ab-raw.txt > $O/ab-vs-159d53f.txt; cut -c1-150 $O/ab-vs-159d53f.txt;;
proxy)
  : > $O/proxy-raw.txt; export UCX_TLS=tcp,self UCX_NET_DEVICES=lo
  for p in "shmem_p_latency -r 3 -n 200 -w 20" "shmem_g_latency -r 3 -n 200 -w 20" "shmem_put_bw -b 8 -e 4M -f 8 -r 3 -n 20 -w 2 -s block"; do
    set -- $p; CUDA_VISIBLE_DEVICES=0 SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi timeout 40 mpirun -np 2 $NEW/bin/gpushmem-vhost --hosts 2 -- $NEW/bin/$1 "${@:2}" > $O/proxy-$1.log 2>&1 \
      || { echo "proxy $p failed rc $?"; tail -5 $O/proxy-$1.log; }
    grep '^json:' $O/proxy-$1.log | sed "s/^/proxy /" >> $O/proxy-raw.txt; echo "$p at $((SECONDS-t0)) s"
  done
  # The target's progress thread naps up to GPUSHMEM_PROGRESS_NAP_US (1 ms) once idle: the same latency with 20 us.
  for p in "shmem_p_latency -r 3 -n 200 -w 20" "shmem_g_latency -r 3 -n 200 -w 20"; do
    set -- $p; GPUSHMEM_PROGRESS_NAP_US=20 CUDA_VISIBLE_DEVICES=0 SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi timeout 40 mpirun -np 2 $NEW/bin/gpushmem-vhost --hosts 2 -- $NEW/bin/$1 "${@:2}" 2>&1 | grep '^json:' | sed "s/^/proxy-nap20 /" >> $O/proxy-raw.txt
  done
  for p in "host_p_latency -r 5" "host_g_latency -r 5"; do
    set -- $p; GPUSHMEM_BOOTSTRAP=mpi timeout 30 mpirun -np 2 $NEW/bin/gpushmem-vhost --hosts 2 -- $NEW/bin/$1 "${@:2}" 2>&1 | grep '^json:' | sed "s/^/host /" >> $O/proxy-raw.txt
  done
  cut -c1-220 $O/proxy-raw.txt | grep -o '"bench[^}]*}' | head -80;;
esac; done
echo "total $((SECONDS-t0)) s"
