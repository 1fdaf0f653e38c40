#!/bin/bash
# Device run: build, GPU + network tests, then network A/B against Open MPI (np2, np4) on 2 virtual hosts.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD; O=${OUT:-/tmp/out}; mkdir -p $O
if [ "${1:-all}" != perf ]; then
  t0=$SECONDS
  cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 || { tail -30 $O/configure.log; exit 1; }
  cmake --build build-dev -j 16 > $O/build.log 2>&1 || { grep -E "error" $O/build.log | head -30; exit 1; }
  echo "build $((SECONDS-t0)) s"
  (cd build-dev && timeout 200 ctest -L gpu -j 8 > $O/gpu-tests.txt 2>&1; tail -3 $O/gpu-tests.txt)
  (cd build-dev && timeout 200 ctest -L vhost -R "coll|team|barrier|bcast|split" -j 12 > $O/vhost-coll-tests.txt 2>&1; grep -E "tests passed|Failed" $O/vhost-coll-tests.txt | head)
  echo "tests done $((SECONDS-t0)) s"
fi
if [ "${1:-all}" = quick ]; then
  cmake --build build-dev -j 16 > $O/build.log 2>&1 || { grep error $O/build.log | head; exit 1; }
  mkdir -p /tmp/ompi; for p in host_alltoall_latency host_fcollect_latency host_bcast_latency host_reduction_latency; do oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/$p.c -o /tmp/ompi/$p; done
  export OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx" B=$R/build-dev
  for np in 2 4; do for a in "host_alltoall_latency -b 65536 -e 1048576 -f 4 -r 7" "host_fcollect_latency -b 65536 -e 1048576 -f 4 -r 7"; do
    NP=$np timeout 250 bash docs/results/2026-12-02-h200-ucx-tcp/ab.sh 3 "$a" >> $O/quick-np$np.txt 2>&1; done; done
  cut -c1-84 $O/quick-np*.txt; exit 0
fi
if [ "${1:-all}" != build ]; then
  mkdir -p /tmp/ompi
  for p in host_bcast_latency host_reduction_latency host_barrier_latency host_alltoall_latency host_fcollect_latency; do
    oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/$p.c -o /tmp/ompi/$p; done
  export OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx" B=$R/build-dev
  for np in 2 4; do
    for a in "host_barrier_latency -r 7" "host_bcast_latency -b 16 -e 1048576 -f 4 -r 7" "host_reduction_latency -b 16 -e 1048576 -f 4 -r 7" \
             "host_alltoall_latency -b 16 -e 1048576 -f 4 -r 7" "host_fcollect_latency -b 16 -e 1048576 -f 4 -r 7"; do
      NP=$np timeout 250 bash docs/results/2026-12-02-h200-ucx-tcp/ab.sh 3 "$a" >> $O/ab-np$np.txt 2>&1
    done
    for a in "host_reduction_latency -b 65536 -e 1048576 -f 4 -r 7" "host_alltoall_latency -b 65536 -e 1048576 -f 4 -r 7"; do
      GPUSHMEM_COLL_NET_SCRATCH=64K NOOMPI=1 NP=$np timeout 150 bash docs/results/2026-12-02-h200-ucx-tcp/ab.sh 2 "$a" >> $O/scratch64k-np$np.txt 2>&1
    done
  done
  cut -c1-84 $O/ab-np*.txt $O/scratch64k-np*.txt
fi
