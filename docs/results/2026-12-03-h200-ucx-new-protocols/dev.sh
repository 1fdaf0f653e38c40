#!/bin/bash
# Device run (GPU machine, UCX 1.16): dev.sh build | rma | coll | builds
#   build:  configure + build this tree (build-dev) and 488153b's perftest (.deps/base.tar, /tmp/base/build-ab);
#           ctest -L gpu, ctest -L vhost (every network configuration), unit.ucx*
#   rma:    host RMA / AMO perftest on 2 virtual hosts against Open MPI (ab.sh), UCX_TLS=tcp,self
#   coll:   host collectives, same, 2 and 4 PEs
#   builds: this tree against 488153b: on 2 virtual hosts (network) and on one node (load/store)
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD; O=${OUT:-/tmp/out}; mkdir -p $O; D=docs/results/2026-12-03-h200-ucx-new-protocols
AB=docs/results/2026-12-02-h200-ucx-tcp/ab.sh
PERF="host_put_bw host_get_bw host_put_latency host_get_latency host_atomic_latency host_p_latency host_g_latency host_bcast_latency host_barrier_latency host_reduction_latency host_alltoall_latency host_fcollect_latency"
ompi_build() { mkdir -p /tmp/ompi; for p in $PERF; do [ -x /tmp/ompi/$p ] || oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/$p.c -o /tmp/ompi/$p || echo "oshcc $p failed"; done; }
export OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx" B=$R/build-dev
case "${1:-build}" in
build)
  t0=$SECONDS
  rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
  (cmake -S /tmp/base -B /tmp/base/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
     -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-old.log 2>&1 && cmake --build /tmp/base/build-ab -j 6 > $O/build-old.log 2>&1; echo "old build rc $?") &
  cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 || { tail -30 $O/configure.log; exit 1; }
  cmake --build build-dev -j 12 > $O/build.log 2>&1 || { grep -E "error" $O/build.log | head -30; exit 1; }
  wait; echo "builds $((SECONDS-t0)) s"
  (cd build-dev && timeout 150 ctest -L gpu -j 8 > $O/gpu-tests.txt 2>&1; tail -3 $O/gpu-tests.txt)
  (cd build-dev && timeout 60 ctest -R "unit.ucx" --output-on-failure > $O/unit-ucx.txt 2>&1; grep -E "tests passed|Failed|WARN|assertions" $O/unit-ucx.txt | head)
  (cd build-dev && ./bin/unit_ucx_protocols -s 2>&1 | tail -3 >> $O/unit-ucx.txt)
  (cd build-dev && timeout 300 ctest -L vhost -j 12 --timeout 120 > $O/vhost-tests.txt 2>&1; grep -E "tests passed|Failed|Timeout" $O/vhost-tests.txt | head -20)
  (cd build-dev && GPUSHMEM_BOOTSTRAP_PLUGIN_DIR=$PWD/lib/gpushmem timeout 30 ./bin/gpushmemrun -n 2 ./bin/gpushmem-vhost --hosts 2 -- ./bin/gpushmem-info --peers > $O/info-peers.txt 2>&1; cat $O/info-peers.txt)
  echo "done $((SECONDS-t0)) s";;
rma)
  ompi_build
  for a in "host_put_bw -b 8 -e 4M -f 8 -r 5" "host_get_bw -b 8 -e 4M -f 8 -r 5" "host_put_latency -b 8 -e 64K -f 8 -r 5" "host_get_latency -b 8 -e 64K -f 8 -r 5" \
           "host_atomic_latency -r 5" "host_p_latency -r 5" "host_g_latency -r 5"; do
    timeout 200 bash $AB 3 "$a" >> $O/rma-np2.txt 2>&1; done
  cut -c1-90 $O/rma-np2.txt;;
coll)
  ompi_build
  for np in ${NPS:-2 4}; do
    for a in "host_barrier_latency -r 7" "host_bcast_latency -b 16 -e 1M -f 16 -r 7" "host_reduction_latency -b 16 -e 1M -f 16 -r 7" \
             "host_alltoall_latency -b 16 -e 1M -f 16 -r 7" "host_fcollect_latency -b 16 -e 1M -f 16 -r 7"; do
      NP=$np timeout 200 bash $AB 3 "$a" >> $O/coll-np$np.txt 2>&1; done
  done
  cut -c1-90 $O/coll-np*.txt;;
builds)
  export NEW=$R/build-dev OLD=/tmp/base/build-ab
  for a in "host_put_bw -b 8K -e 4M -f 8 -r 5" "host_atomic_latency -r 5" "host_put_latency -b 8 -e 8 -r 5" "host_barrier_latency -r 7" "host_bcast_latency -b 16 -e 64K -f 16 -r 7"; do
    VHOSTS=2 timeout 150 bash $D/ab_builds.sh 3 "$a" >> $O/net-vs-488153b.txt 2>&1; done
  for a in "host_put_latency -b 8 -e 64K -f 8 -r 5" "host_get_latency -b 8 -e 8 -r 5" "host_barrier_latency -r 7" "host_bcast_latency -b 8 -e 64K -f 8 -r 7" "host_atomic_latency -r 5"; do
    timeout 150 bash $D/ab_builds.sh 3 "$a" >> $O/local-vs-488153b.txt 2>&1; done
  cut -c1-100 $O/net-vs-488153b.txt $O/local-vs-488153b.txt;;
esac
