#!/bin/bash
# Device run (GPU machine, UCX 1.16, 2 virtual hosts, UCX_TLS=tcp,self over lo): what bounds issue 12's
# remaining misses. dev.sh build | probe
#   build: this tree without tests (build-perf), Open MPI's builds of the perftest programs (/tmp/ompi)
#   probe: UCX's own put stream and active-message stream (host_ucx_floor); put bandwidth and the small
#          broadcasts with the progress thread as by default (auto) and off, against Open MPI, alternating
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD; export O=${OUT:-/tmp/out}; mkdir -p $O; D=docs/results/2026-12-04-h200-ucx-bounds
export OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx" B=$R/build-perf
PERF="host_put_bw host_bcast_latency host_put_latency host_get_latency host_atomic_latency host_barrier_latency"
case "${1:-build}" in
build)
  t0=$SECONDS
  mkdir -p /tmp/ompi; for p in $PERF; do oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/$p.c -o /tmp/ompi/$p || echo "oshcc $p failed"; done
  cmake -S . -B build-perf -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/configure.log 2>&1 && cmake --build build-perf -j 16 > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
  echo "build $((SECONDS-t0)) s";;
probe)
  t0=$SECONDS
  for a in "put_stream -b 8 -e 4M -f 8" "am_stream -b 16 -e 4K -f 16"; do
    UCX_TLS=tcp,self UCX_NET_DEVICES=lo GPUSHMEM_BOOTSTRAP=mpi timeout 100 mpirun --oversubscribe -np 2 $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/host_ucx_floor -a $a -n 500 -w 50 -r 7 >> $O/floor-tcp.txt 2>&1; done
  grep -v json $O/floor-tcp.txt | cut -c1-90; echo "floor $((SECONDS-t0)) s"
  NP=2 timeout 240 bash $D/vs.sh 5 "host_put_bw -b 8 -e 4M -f 8 -r 5" auto= off=GPUSHMEM_PROGRESS_THREAD=off ompi > $O/put-bw.txt 2>&1
  cut -c1-120 $O/put-bw.txt; echo "bw $((SECONDS-t0)) s"
  NP=2 timeout 200 bash $D/vs.sh 5 "host_bcast_latency -b 16 -e 4K -f 16 -r 7" auto= off=GPUSHMEM_PROGRESS_THREAD=off yield=GPUSHMEM_WAIT_POLICY=yield ompi > $O/bcast.txt 2>&1
  cut -c1-140 $O/bcast.txt; echo "probe $((SECONDS-t0)) s";;
probe2)
  # How a network wait polls: as fast as it can (auto), with a sched_yield between polls (yield), with the
  # progress thread off too, or with the PEs not bound to one core each (Open MPI binds 2 PEs to a core each,
  # the progress thread shares it).
  t0=$SECONDS; V=(auto= yield=GPUSHMEM_WAIT_POLICY=yield offyield="GPUSHMEM_WAIT_POLICY=yield GPUSHMEM_PROGRESS_THREAD=off" unbound=OMPI_MCA_hwloc_base_binding_policy=none ompi)
  for a in "host_put_bw -b 64 -e 32K -f 8 -r 5" "host_bcast_latency -b 16 -e 4K -f 16 -r 7" "host_barrier_latency -r 7" \
           "host_put_latency -b 8 -e 8 -a blocking -r 7" "host_get_latency -b 8 -e 8 -a blocking -r 7" "host_atomic_latency -a fetch_add -r 7"; do
    NP=2 timeout 200 bash $D/vs.sh 5 "$a" "${V[@]}" >> $O/probe2.txt 2>&1; echo "$a $((SECONDS-t0)) s"; done
  cut -c1-170 $O/probe2.txt; echo "probe2 $((SECONDS-t0)) s";;
ab)
  # This tree (build-perf) against the previous commit (.deps/base.tar, built in /tmp/base/build-ab), 2
  # virtual hosts, alternating rounds; then both against Open MPI.
  t0=$SECONDS
  rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
  (cmake -S /tmp/base -B /tmp/base/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
     -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-old.log 2>&1 && cmake --build /tmp/base/build-ab -j 8 > $O/build-old.log 2>&1; echo "old build rc $?") &
  bash $D/dev.sh build; wait; echo "builds $((SECONDS-t0)) s"
  export NEW=$B OLD=/tmp/base/build-ab
  for a in "host_put_bw -b 64 -e 32K -f 8 -r 5" "host_bcast_latency -b 16 -e 4K -f 16 -r 7" "host_put_latency -b 8 -e 8 -a blocking -r 7"; do
    VHOSTS=2 timeout 150 bash docs/results/2026-12-03-h200-ucx-new-protocols/ab_builds.sh 5 "$a" >> $O/ab-vs-old.txt 2>&1; done
  cut -c1-160 $O/ab-vs-old.txt; echo "ab $((SECONDS-t0)) s"
  NP=2 timeout 200 bash $D/vs.sh 5 "host_put_bw -b 64 -e 32K -f 8 -r 5" new= off=GPUSHMEM_PROGRESS_THREAD=off ompi > $O/put-bw-new.txt 2>&1
  cut -c1-150 $O/put-bw-new.txt; echo "vs $((SECONDS-t0)) s";;
esac
