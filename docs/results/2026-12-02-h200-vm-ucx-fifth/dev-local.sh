#!/bin/bash
# Device: node-local A/B of this tree against the previous session's last commit (.deps/base.tar).
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
R=$PWD; O=${OUT:-/tmp/out}; mkdir -p $O
T="host_bcast_latency host_barrier_latency host_reduction_latency host_alltoall_latency host_fcollect_latency host_put_latency host_get_latency gpushmem_bootstrap_mpi gpushmem_bootstrap_tcp gpushmem-vhost"
rm -rf /tmp/base && tar -xf .deps/base.tar -C /tmp
b(){ cmake -S $1 -B $1/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-$2.log 2>&1 && cmake --build $1/build-ab -j 8 --target $T > $O/build-$2.log 2>&1; echo "$2 build rc $?"; }
t0=$SECONDS; b $R new & b /tmp/base old & wait; echo "builds $((SECONDS-t0)) s"
export NEW=$R/build-ab OLD=/tmp/base/build-ab
for a in "host_bcast_latency -b 8 -e 65536 -f 8 -r 7" "host_barrier_latency -r 7" "host_fcollect_latency -b 8 -e 65536 -f 8 -r 7" "host_bcast_latency -b 8 -e 65536 -f 8 -r 7" "host_reduction_latency -b 8 -e 65536 -f 8 -r 7" "host_alltoall_latency -b 8 -e 65536 -f 8 -r 7"; do
  NP=2 timeout 200 bash .deps/ab_local.sh 3 "$a" >> $O/local-np2.txt 2>&1
done
cut -c1-150 $O/local-np2.txt
export B=$NEW OMPI_EXTRA="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca spml ucx"; mkdir -p /tmp/ompi; oshcc -O2 -std=gnu11 -Iperftest/common -Iperftest/host perftest/host/host_bcast_latency.c -o /tmp/ompi/host_bcast_latency
for np in 2 4; do NP=$np timeout 100 bash docs/results/2026-12-02-h200-ucx-tcp/ab.sh 3 "host_bcast_latency -b 8 -e 16384 -f 8 -r 7" >> $O/net-bcast-np$np.txt 2>&1; done; cut -c1-84 $O/net-bcast-np*.txt
