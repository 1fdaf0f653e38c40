#!/bin/bash
# Device call 6 for issue 13 (prepared, not yet run): does the agent's pinned bounce buffer remove the 2.2 ms of
# each put into the target's GPU heap (call 5)? shmem_p_latency through the proxy unbound, without and with MPS,
# with GPUSHMEM_PROXY_STATS=1 (the memory agent's times); host_p_latency to a GPU heap; staged put bandwidth; the
# drain rate; then the whole gpu-vhost suite (pe_launch --unbound, each test under its own MPS daemon).
# Usage, in the repository root on the GPU machine: bash docs/results/2026-12-05-gpu-proxy/call6.sh; logs in $OUT.
# Keep the call under ~450 s of device time: the build alone took 162 s on the H200 machine.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=$R/build-dev
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*" | tee -a $O/summary.txt; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
  -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > /tmp/configure.log 2>&1 && cmake --build $B -j 16 > /tmp/build.log 2>&1 \
  || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
say "built"
export UCX_TLS=tcp,self UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=1G CUDA_VISIBLE_DEVICES=0 GPUSHMEM_PROXY_STATS=1
run() {  # run LABEL COMMAND...
  local label=$1; shift
  { echo "=== $label"; timeout 60 "$@" 2>&1; echo "rc $?"; } >> $O/latency.txt
  say "$label: $(grep -A40 "=== $label" $O/latency.txt | grep -E 'median|memory agent: put' | head -3 | cut -c1-160 | tr '\n' ' ')"
}
MPI="mpirun -np 2 --bind-to none"; VH="$B/bin/gpushmem-vhost --hosts 2 --"
run "device p" env GPUSHMEM_BOOTSTRAP=mpi $MPI $VH $B/bin/shmem_p_latency -n 200 -w 20 -r 3
run "host p to gpu heap" env GPUSHMEM_SYMMETRIC_HEAP=gpu GPUSHMEM_BOOTSTRAP=mpi $MPI $VH $B/bin/host_p_latency -r 3 -n 200 -d int
run "host p to host heap" env GPUSHMEM_BOOTSTRAP=mpi $MPI $VH $B/bin/host_p_latency -r 3 -n 200 -d int
run "device put_bw block, staged" env GPUSHMEM_BOOTSTRAP=mpi $MPI $VH $B/bin/shmem_put_bw -b 64K -e 16M -f 4 -r 3 -n 5 -w 1 -s block
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
nvidia-cuda-mps-control -d && run "device p, MPS" env GPUSHMEM_BOOTSTRAP=mpi $MPI $VH $B/bin/shmem_p_latency -n 200 -w 20 -r 3
echo quit | nvidia-cuda-mps-control; sleep 2; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
timeout 40 $B/bin/proxy_drain_rate 4096 8000000 32 8 3 > $O/drain.txt 2>&1; say "drain: $(grep -o 'median":[0-9.]*' $O/drain.txt)"
unset GPUSHMEM_PROXY_STATS UCX_TLS
left=$((430 - (SECONDS - t0)))
say "gpu-vhost suite, $left s left"
(cd $B && timeout $left ctest -L gpu-vhost --timeout 100 --output-on-failure > $O/gpu-vhost.txt 2>&1)
grep -E "Test +#|tests passed" $O/gpu-vhost.txt | sed 's/ \+/ /g' >> $O/summary.txt
say "done"
