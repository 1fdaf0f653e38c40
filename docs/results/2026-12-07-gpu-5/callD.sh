#!/bin/bash
# The next device call (from the sixth session of 2026-12-07), through ../2026-12-07-gpu-2/on_device.sh with a carried
# build of this commit (prep_carry.sh build-helper, bin/reduction_latency_base from the commit before 5dda132):
#   1. the team collectives on a stream and the _grid forms: gpu.stream_coll (np 1-3, vhosts), the reductions of
#      every type x operator x form (np 1-4), device_api.coll (grid scope included), stream_errors.coll_*;
#   2. (NVSHMEM twin built in the background) reduction_latency, int sum: this commit, the previous one and NVSHMEM
#      3.4.5 alternating, 2 rounds, thread to 16 KiB, warp and block to 1 MiB, and -s stream (this commit and
#      NVSHMEM) to 16 MiB; alltoall_latency -s block / stream to 8 MiB, this commit and NVSHMEM.
# Everything stops by DEADLINE (default 540 s) so that the caller's pack_out.sh runs: the reply brings back at most
# 8 files.
set -u
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=${OUT:-/tmp/out}; mkdir -p $O; t0=$(date +%s)
left() { echo $((${DEADLINE:-540} - ($(date +%s) - t0))); }
say() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $O/summary.txt; }
nv=$(python3 -c 'import nvidia.nvshmem, os; print(os.path.dirname(nvidia.nvshmem.__file__))' 2>/dev/null || true)
[ -z "$nv" ] && nv=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nvshmem"))')
(cmake -S . -B /tmp/nvb -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF -DGPUSHMEM_WITH_UCX=OFF \
   -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=$nv > $O/nv-cfg.log 2>&1 &&
 nice cmake --build /tmp/nvb -j 12 --target reduction_latency_nvshmem alltoall_latency_nvshmem > $O/nv-build.log 2>&1
 echo "rc $?" >> $O/nv-build.log) &
nvpid=$!
(cd $B && timeout 240 ctest -R '^gpu[.](stream_coll|device_reduce_types|device_api[.]coll|stream_errors[.]coll_)' \
   -E 'ibgda' --timeout 200 --output-on-failure) > $O/stream_grid.txt 2>&1
say "stream/grid tests: $(grep -E 'tests passed' $O/stream_grid.txt) $(grep -E '\(Failed\)|Timeout' $O/stream_grid.txt | tr '\n' ' ')"
wait $nvpid; say "nvshmem twins: $(tail -1 $O/nv-build.log)"
nvx() { for d in /tmp/nvb/bin /tmp/nvb/perftest/device; do [ -x $d/$1 ] && { echo $d/$1; return; }; done; }
mkdir -p $O/red
run() {  # run NAME EXE ENV ARGS...: one point set, skipped once the deadline is near
  local name=$1 x=$2 e=$3; shift 3
  [ -n "$x" ] && [ -x "$x" ] || return 0
  [ "$(left)" -gt 40 ] || { say "skipped $name (deadline)"; return 0; }
  env $e CUDA_VISIBLE_DEVICES=0 timeout -k 5 $(( $(left) - 30 )) mpirun -np 2 --bind-to none $x "$@" \
    --json $O/red/$name.jsonl > $O/red/$name.txt 2>&1 || say "$name: rc $?"
}
for round in 1 2; do
  for s in thread warp block stream; do
    top=1M; [ $s = thread ] && top=16K; [ $s = stream ] && top=16M
    for v in new base nvshmem; do
      [ $s = stream ] && [ $v = base ] && continue
      case $v in new) x=$B/bin/reduction_latency; e=GPUSHMEM_BOOTSTRAP=mpi;;
                 base) x=$B/bin/reduction_latency_base; e="GPUSHMEM_BOOTSTRAP=mpi LD_LIBRARY_PATH=$B/lib";;
                 nvshmem) x=$(nvx reduction_latency_nvshmem); e=NVSHMEM_BOOTSTRAP=MPI;; esac
      run red-$v-$s-$round "$x" "$e" -b 8 -e $top -f 8 -s $s -d int -o sum -n 50 -w 5 -r 3
    done
  done
  say "reduction round $round done"
done
for s in block stream; do
  run a2a-new-$s $B/bin/alltoall_latency GPUSHMEM_BOOTSTRAP=mpi -b 8 -e 8M -f 8 -s $s -d int -n 50 -w 5 -r 3
  run a2a-nvshmem-$s "$(nvx alltoall_latency_nvshmem)" NVSHMEM_BOOTSTRAP=MPI -b 8 -e 8M -f 8 -s $s -d int -n 50 -w 5 -r 3
done
say "done"
