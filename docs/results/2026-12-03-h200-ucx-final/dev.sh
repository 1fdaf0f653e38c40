#!/bin/bash
# Device run (GPU machine, UCX 1.16) for the close of issue 12: dev.sh build | perf | local | bw
#   build: configure + build this tree (build-dev) and the previous commit's perftest (.deps/base.tar,
#          /tmp/base/build-ab); ctest -L vhost (every network configuration), -L gpu, unit.ucx*
#   perf:  UCX's own floor (TCP); put/get/fetch_add and the host collectives at 2 PEs (5 rounds) and 4 PEs
#          (3 rounds) against Open MPI, 2 virtual hosts, UCX_TLS=tcp,self; this tree against the previous
#          commit on 2 virtual hosts and on one node
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD; export O=${OUT:-/tmp/out}; mkdir -p $O
AB=docs/results/2026-12-03-h200-ucx-rndv/ab.sh ABB=docs/results/2026-12-03-h200-ucx-new-protocols/ab_builds.sh
PERF="host_put_bw host_put_latency host_get_latency host_atomic_latency host_barrier_latency host_bcast_latency host_reduction_latency host_alltoall_latency host_fcollect_latency"
ompi_build() { mkdir -p /tmp/ompi; for p in $PERF; do [ -x /tmp/ompi/$p ] || oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/$p.c -o /tmp/ompi/$p || echo "oshcc $p failed"; done; }
export OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx" B=$R/build-dev
COLL=("host_barrier_latency -r 7" "host_bcast_latency -b 16 -e 1M -f 16 -r 7" "host_reduction_latency -b 16 -e 1M -f 16 -r 7"
      "host_alltoall_latency -b 16 -e 1M -f 16 -r 7" "host_fcollect_latency -b 16 -e 1M -f 16 -r 7")
case "${1:-build}" in
build)
  t0=$SECONDS
  rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
  (cmake -S /tmp/base -B /tmp/base/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
     -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-old.log 2>&1 && cmake --build /tmp/base/build-ab -j 5 > $O/build-old.log 2>&1; echo "old build rc $?") &
  cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 || { tail -30 $O/configure.log; exit 1; }
  cmake --build build-dev -j 13 > $O/build.log 2>&1 || { grep -E "error" $O/build.log | head -30; exit 1; }
  wait; echo "builds $((SECONDS-t0)) s"
  (cd build-dev && timeout 60 ctest -R "unit.ucx" --output-on-failure > $O/unit-ucx.txt 2>&1; grep -E "tests passed|Failed" $O/unit-ucx.txt | head)
  (cd build-dev && timeout 300 ctest -L vhost -j 14 --timeout 120 > $O/vhost-tests.txt 2>&1; grep -E "tests passed|Failed|Timeout|Total Test" $O/vhost-tests.txt | head -20)
  (cd build-dev && timeout 200 ctest -L gpu -j 8 --timeout 120 > $O/gpu-tests.txt 2>&1; grep -E "tests passed|Failed|Timeout|Total Test" $O/gpu-tests.txt | head -20)
  echo "done $((SECONDS-t0)) s";;
perf)
  t0=$SECONDS; ompi_build
  UCX_TLS=tcp,self UCX_NET_DEVICES=lo GPUSHMEM_BOOTSTRAP=mpi timeout 100 mpirun --oversubscribe -np 2 $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/host_ucx_floor -b 8 -e 1M -f 16 -n 500 -w 50 -r 7 > $O/floor-tcp.txt 2>&1
  grep -v json $O/floor-tcp.txt | cut -c1-70
  for a in "host_put_latency -b 8 -e 8 -a blocking -r 7" "host_get_latency -b 8 -e 8 -a blocking -r 7" "host_atomic_latency -a fetch_add -r 7" "host_put_bw -b 8 -e 4M -f 8 -r 5"; do
    UCX_TLS=tcp,self NP=2 timeout 150 bash $AB 3 "$a" >> $O/rma-np2.txt 2>&1; done
  cut -c1-90 $O/rma-np2.txt; echo "rma $((SECONDS-t0)) s"
  for a in "${COLL[@]}"; do UCX_TLS=tcp,self NP=2 timeout 200 bash $AB 5 "$a" >> $O/coll-np2.txt 2>&1; done
  cut -c1-90 $O/coll-np2.txt; echo "coll2 $((SECONDS-t0)) s"
  for a in "${COLL[@]}"; do UCX_TLS=tcp,self NP=4 timeout 200 bash $AB 3 "$a" >> $O/coll-np4.txt 2>&1; done
  cut -c1-90 $O/coll-np4.txt; echo "coll4 $((SECONDS-t0)) s"
  export NEW=$R/build-dev OLD=/tmp/base/build-ab
  for a in "host_put_bw -b 8K -e 4M -f 8 -r 5" "host_bcast_latency -b 16 -e 1M -f 16 -r 7" "host_barrier_latency -r 7" "host_atomic_latency -a fetch_add -r 5"; do
    VHOSTS=2 timeout 150 bash $ABB 3 "$a" >> $O/net-vs-old.txt 2>&1; done
  for a in "host_put_latency -b 8 -e 64K -f 8 -r 5" "host_get_latency -b 8 -e 64K -f 8 -r 5" "host_barrier_latency -r 7" "host_bcast_latency -b 8 -e 64K -f 8 -r 7" "host_atomic_latency -a fetch_add -r 5"; do
    timeout 150 bash $ABB 3 "$a" >> $O/local-vs-old.txt 2>&1; done
  cut -c1-100 $O/net-vs-old.txt $O/local-vs-old.txt; echo "perf $((SECONDS-t0)) s";;
local)
  # The node-local collectives against the previous commit again, 5 rounds (after 30c4956), both trees built
  # without tests.
  t0=$SECONDS
  [ -x /tmp/base/build-ab/bin/host_bcast_latency ] || { rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
    (cmake -S /tmp/base -B /tmp/base/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
       -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-old.log 2>&1 && cmake --build /tmp/base/build-ab -j 7 > $O/build-old.log 2>&1) & }
  cmake -S . -B build-perf -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 && cmake --build build-perf -j 8 > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
  wait; echo "builds $((SECONDS-t0)) s"
  export NEW=$R/build-perf OLD=/tmp/base/build-ab
  for a in "host_bcast_latency -b 8 -e 64K -f 8 -r 7" "host_barrier_latency -r 7" "host_reduction_latency -b 16 -e 64K -f 16 -r 7" "host_atomic_latency -a fetch_add -r 5"; do
    timeout 150 bash $ABB 5 "$a" >> $O/local-vs-old-r5.txt 2>&1; done
  cut -c1-160 $O/local-vs-old-r5.txt; echo "local $((SECONDS-t0)) s";;
bw)
  # Put bandwidth against Open MPI with UCX_ATOMIC_MODE as gpushmem sets it (cpu) and as UCX guesses, 5 rounds.
  t0=$SECONDS; ompi_build; B=$R/build-perf
  [ -x $B/bin/host_put_bw ] || { cmake -S . -B build-perf -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 &&
    cmake --build build-perf -j 15 > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }; }
  for m in cpu guess; do
    UCX_ATOMIC_MODE=$m UCX_TLS=tcp,self NP=2 timeout 200 bash $AB 5 "host_put_bw -b 8 -e 4M -f 8 -r 5" | sed "s/^/atomic_mode=$m /" >> $O/bw-np2.txt 2>&1; done
  cut -c1-200 $O/bw-np2.txt; echo "bw $((SECONDS-t0)) s";;
esac
