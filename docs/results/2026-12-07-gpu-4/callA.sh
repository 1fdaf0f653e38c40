#!/bin/bash
# First device call of 2026-12-07 (fifth session), through ../2026-12-07-gpu-2/on_device.sh with a carried build
# (prep_carry.sh build-helper) holding bin/reduction_latency_base: the previous commit's program (cd2c41b; device code is
# inline in the program), run on this commit's libgpushmem (LD_LIBRARY_PATH: its own path is the build machine's):
#   1. (background) reduction_latency against NVSHMEM 3.4.5 (the wheel), built here: the only twin this call needs;
#   2. the device reductions' correctness over P2P: gpu.device_reduce_types np1-4 (every type x operator x scope),
#      the device_api.coll tests;
#   3. the sum reduction's latency, thread / warp / block scope, 8 B - 1 MiB, 2 PEs on the GPU: this commit,
#      the previous one and NVSHMEM, alternating, 3 rounds;
#   4. what the proxy and vhost paths owe (call1.sh of 2026-12-07-gpu-3's vhost steps) until the deadline.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=${OUT:-/tmp/out}; mkdir -p $O; R=$PWD; t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $O/summary.txt; }
nv=$(python3 -c 'import nvidia.nvshmem, os; print(os.path.dirname(nvidia.nvshmem.__file__))' 2>/dev/null || true)
[ -z "$nv" ] && nv=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nvshmem"))')
(cmake -S . -B /tmp/nvb -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DGPUSHMEM_WITH_UCX=OFF \
   -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=$nv > $O/nv-cfg.log 2>&1 &&
 nice cmake --build /tmp/nvb -j 12 --target reduction_latency_nvshmem > $O/nv-build.log 2>&1; echo "rc $?" >> $O/nv-build.log) &
nvpid=$!
(cd $B && timeout 150 ctest -R '^gpu[.]device_reduce_types[.]tcp[.]np[1-4]$|^gpu[.]device_api[.]coll[.]' -LE gpu-vhost \
   --timeout 100 --output-on-failure) > $O/reduce_p2p.txt 2>&1
say "p2p reductions: $(grep -E 'tests passed' $O/reduce_p2p.txt) $(grep -E '\(Failed\)|Timeout' $O/reduce_p2p.txt | tr '\n' ' ')"
wait $nvpid; say "nvshmem twin: $(tail -1 $O/nv-build.log)"
NVX=/tmp/nvb/bin/reduction_latency_nvshmem; [ -x $NVX ] || NVX=/tmp/nvb/perftest/device/reduction_latency_nvshmem
mkdir -p $O/red
for round in 1 2 3; do
  for s in thread warp block; do
    for v in new base nvshmem; do
      case $v in new) x=$B/bin/reduction_latency; e=GPUSHMEM_BOOTSTRAP=mpi;; base) x=$B/bin/reduction_latency_base; e="GPUSHMEM_BOOTSTRAP=mpi LD_LIBRARY_PATH=$B/lib";;
                  nvshmem) x=$NVX; e=NVSHMEM_BOOTSTRAP=MPI;; esac
      [ -x $x ] || continue
      top=1M; [ $s = thread ] && top=64K  # the previous commit's thread scope took 3.95 ms at 64 KiB on the H200s
      env $e CUDA_VISIBLE_DEVICES=0 timeout -k 5 60 mpirun -np 2 --bind-to none $x -b 8 -e $top -f 4 -s $s -d int -o sum \
        -n 100 -w 10 -r 3 --json $O/red/$v-$s-$round.jsonl > $O/red/$v-$s-$round.txt 2>&1 || say "$v $s round $round: rc $?"
    done
  done
  say "reduction round $round done"
done
left() { echo $((${DEADLINE:-560} - ($(date +%s) - t0))); }
C=docs/results/2026-12-06-gpu-proxy-2/call8.sh
TESTS="device_reduce_types device_api.coll net_gpu_heap device_api.amo device_api.event" CAP=45 PT=15 DT=25 \
  bash $C -d $(left) vhost
