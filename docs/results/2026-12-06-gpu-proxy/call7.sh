#!/bin/bash
# Device calls of 2026-12-06 for issues 13 and 15: call7.sh [-d SECONDS] STEP... (logs and summary.txt in $OUT)
#   build     configure and build build-dev with all cores (add NVSHMEM=1 to also build the _nvshmem perftest twins)
#   latency   device shmem_p/shmem_g latency through the proxy, unbound, GPUSHMEM_PROXY_STATS=1
#   compat    issue 15: gpu.compat.* (NVSHMEM-style programs) and pkg.install (the installed CUDA consumers)
#   vhost     the gpu-vhost tests one at a time (each capped at CAP s, default 100), most important first,
#             until the call's deadline (-d, seconds from the start, default 540) is near
#   p2p       ctest -L gpu -LE gpu-vhost -j 8 (the P2P suite)
#   probe     slice_probe.cu: 4-byte copies' latency alone, beside another process's spinning kernel, and both
#             under an MPS daemon (is the GPU time-sliced between the two PEs' contexts?)
#   hostp     host_p_latency to the other virtual host's GPU heap (the agent's put with no kernel running)
#   nvshmem   shmem_p_latency and shmem_put_latency, gpushmem and the _nvshmem twin, P2P, 2 PEs on the GPU
#   figures   perftest/run_proxy.sh (hand-off, drain rate, put_bw thread/warp/block next to P2P)
set -u
deadline=540
if [ "${1:-}" = -d ]; then deadline=$2; shift 2; fi
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=$R/build-dev
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*" | tee -a $O/summary.txt; }
left() { echo $((deadline - (SECONDS - t0))); }
cleanup() { pkill -9 -f "$B/bin/" 2>/dev/null; pkill -9 mpirun 2>/dev/null; pkill -9 -f gpushmem-vhost 2>/dev/null; sleep 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O/summary.txt
for step in "$@"; do case $step in
build)
  extra=""
  if [ "${NVSHMEM:-0}" = 1 ]; then
    nv=$(python3 -c 'import nvidia.nvshmem, os; print(os.path.dirname(nvidia.nvshmem.__file__))' 2>/dev/null || true)
    [ -z "$nv" ] && nv=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nvshmem"))')
    extra="-DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=$nv -DGPUSHMEM_PERFTEST_NVSHMEM_COLLECTIVES=OFF"
  fi
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include $extra > /tmp/configure.log 2>&1 && cmake --build $B -j 16 > /tmp/build.log 2>&1 \
    || { grep -E "error|Error" -A3 /tmp/build.log /tmp/configure.log | head -60 | tee $O/build-errors.txt; say "build FAILED"; exit 1; }
  say "built ($extra)";;
latency)
  lat() { # name, program, args...
    local name=$1; shift
    { echo "=== $name"; GPUSHMEM_PROXY_STATS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi \
        timeout -k 5 60 mpirun -np 2 --bind-to none $B/bin/gpushmem-vhost --hosts 2 -- "$@" 2>&1; } >> $O/latency.txt
    say "$name: $(sed -n "/=== $name/,\$p" $O/latency.txt | grep -E '"median"|memory agent: put|proxy: ' | cut -c1-160 | head -8 | tr '\n' ' ')"
    cleanup
  }
  lat "device p" $B/bin/shmem_p_latency -n 200 -w 20 -r 3
  lat "device g" $B/bin/shmem_g_latency -n 200 -w 20 -r 3;;
compat)
  (cd $B && timeout -k 5 $(($(left) - 10)) ctest -R 'compat|pkg\.install' --timeout 120 --output-on-failure -V > $O/compat.txt 2>&1)
  grep -E "Passed|Failed|\*\*\*|tests passed" $O/compat.txt | grep -E "Test +#|tests passed" | sed 's/ \+/ /g' >> $O/summary.txt
  cleanup; say "compat done";;
vhost)
  cap=${CAP:-100}
  # TESTS: which (default: all, most important first); a name with :nomps runs with GPUSHMEM_TEST_MPS=off, with
  # :conn32 with CUDA_DEVICE_MAX_CONNECTIONS=32
  for t in ${TESTS:-device_api.rma device_api.bytes device_api.amo device_api.signal device_api.wait device_api.barrier \
           device_api.event device_api.coll stream_graph example.ring_kernel example.jacobi_halo example.moe_dispatch \
           proxy_device net_gpu_heap device_api.wait_deprecated}; do
    mps=on; conn=; case $t in *:nomps*) mps=off;; esac; case $t in *:conn32*) conn=32;; esac; t=${t%%:*}
    for l in ${LAUNCHERS:-mpi}; do
      n="gpu.$t.$l-vh2.np2"
      if [ $(left) -lt 30 ]; then say "$n: not run (deadline)"; continue; fi
      c=$cap; [ $(left) -lt $((c + 15)) ] && c=$(($(left) - 15))
      s=$SECONDS
      (cd $B && env ${conn:+CUDA_DEVICE_MAX_CONNECTIONS=$conn} GPUSHMEM_TEST_MPS=$mps timeout -k 5 $c ctest -R "^${n//./\\.}\$" --output-on-failure > /tmp/vhost-one.txt 2>&1); rc=$?
      cleanup
      r=$(grep -oE "(Passed|Failed|\*\*\*[A-Za-z ]+|Not Run)" /tmp/vhost-one.txt | head -1)
      { echo "=== $n (MPS $mps${conn:+, $conn connections})"; grep -E "gpushmem|FAIL|PASS|pe_launch|gpu_launch|error|Error" /tmp/vhost-one.txt | cut -c1-400 | head -40; } >> $O/vhost.txt
      [ $rc = 124 ] && r="killed at ${c} s"
      say "$n (MPS $mps${conn:+, $conn connections}): ${r:-?} ($((SECONDS - s)) s)"
    done
  done;;
probe)
  P=$R/docs/results/2026-12-06-gpu-proxy
  /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 $P/slice_probe.cu -lcuda -o /tmp/slice_probe || { say "probe: no build"; continue; }
  probe() { # label
    { echo "=== $1"; /tmp/slice_probe copy 200; } >> $O/probe.txt 2>&1
    say "probe $1: $(tail -1 $O/probe.txt)"
  }
  probe "alone"
  /tmp/slice_probe spin 6 > /dev/null & sleep 1; probe "beside a spinning kernel"; wait
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
  if nvidia-cuda-mps-control -d; then
    probe "MPS, alone"
    /tmp/slice_probe spin 6 > /dev/null & sleep 1; probe "MPS, beside a spinning kernel"
    echo get_server_list | nvidia-cuda-mps-control >> $O/probe.txt 2>&1; wait
    echo quit | nvidia-cuda-mps-control; sleep 2
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  nvidia-smi -q | grep -iE "compute mode|timeslice|mig mode" -A1 | head -10 >> $O/probe.txt;;
hostp)
  { echo "=== host p to gpu heap"; GPUSHMEM_SYMMETRIC_HEAP=gpu GPUSHMEM_PROXY_STATS=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo \
      SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi timeout -k 5 60 mpirun -np 2 --bind-to none $B/bin/gpushmem-vhost \
      --hosts 2 -- $B/bin/host_p_latency -r 5 -d int 2>&1; } >> $O/latency.txt
  say "host p to gpu heap: $(sed -n '/=== host p/,$p' $O/latency.txt | grep -E 'median|memory agent' | cut -c1-160 | head -6 | tr '\n' ' ')"
  cleanup;;
nvshmem)
  for p in shmem_p_latency shmem_put_latency; do
    for v in $p ${p}_nvshmem; do
      [ -x $B/bin/$v ] || [ -x $B/perftest/device/$v ] || { say "$v: not built"; continue; }
      x=$B/bin/$v; [ -x $x ] || x=$B/perftest/device/$v
      { echo "=== $v"; NVSHMEM_BOOTSTRAP=MPI timeout -k 5 60 mpirun -np 2 --bind-to none $x -n 200 -w 20 -r 3 2>&1; } >> $O/nvshmem.txt
      say "$v: $(sed -n "/=== $v\$/,\$p" $O/nvshmem.txt | grep -E '^[0-9]+ ' | head -4 | tr -s ' ' | tr '\n' ';')"
      cleanup
    done
  done;;
p2p)
  (cd $B && timeout -k 5 $(($(left) - 10)) ctest -L gpu -LE gpu-vhost -j 8 --timeout 100 --output-on-failure > $O/gpu-p2p.txt 2>&1)
  grep -E "tests passed|\*\*\*|Failed" $O/gpu-p2p.txt | head -20 >> $O/summary.txt
  cleanup; say "p2p done";;
figures)
  CUDA_VISIBLE_DEVICES=0 timeout -k 5 $(($(left) - 10)) perftest/run_proxy.sh -B $B -o $O/proxy -t $(($(left) - 20)) > $O/proxy.txt 2>&1
  say "figures done";;
esac; done
