#!/usr/bin/env bash
# run_proxy.sh [-B build_dir] [-o results_dir] [-t seconds]
#
# The CPU proxy's figures (issue 13), 2 PEs in two virtual hosts (gpushmem-vhost: every device operation to the
# other PE goes through the proxy and the target's memory agent), each next to its baseline measured in the same
# run, then a summary table (summary.md):
#   hand-off   device shmem_int_p + shmem_quiet through the proxy (shmem_p_latency) against the host API's
#              shmem_int_p + shmem_quiet to the same remote GPU heap (host_p_latency, GPUSHMEM_SYMMETRIC_HEAP=gpu)
#   drain      proxy_drain_rate (one process, no PEs) against the issue's 20 M slots/s, 32 and 128 slots a poll
#   put_bw     shmem_put_bw through the proxy, thread / warp / block scope, 8 B .. 64 MiB, against the same
#              program over P2P (no virtual hosts)
#   staged     block-scope put_bw through the proxy from 256 KiB against the slowest leg of its pipeline measured
#              in the same run: the GPU -> host copies and host -> GPU copies of 1 MiB chunks (stage_legs) and
#              host_put_bw between the virtual hosts' host heaps (the network alone)
# Runs mpirun with --bind-to none (each PE's proxy thread needs a CPU beside the program's thread) and, when the
# two PEs share one GPU, under a private MPS daemon. Every run keeps GPUSHMEM_PROXY_STATS=1's lines in its log.
#   -B  build folder holding bin/ (default: build)
#   -o  results folder (default: results/proxy-<date>-<time>)
#   -t  per-program time limit in seconds (default 300)
# Environment: UCX_TLS [tcp,self], UCX_NET_DEVICES [lo], SHMEM_SYMMETRIC_SIZE [1G], MPIRUN [mpirun].
set -u
me=run_proxy.sh
build=build out= limit=300
while [ $# -gt 0 ]; do
  case $1 in
    -B) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -t) limit=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$me: unknown argument '$1' (try -h)" >&2; exit 64 ;;
  esac
done
bin=$build/bin
for p in shmem_p_latency host_p_latency shmem_put_bw proxy_drain_rate stage_legs host_put_bw gpushmem-vhost; do
  [ -x "$bin/$p" ] || { echo "$me: $bin/$p not found: build the project with CUDA and UCX first" >&2; exit 64; }
done
out=${out:-results/proxy-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo} SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-1G}
export GPUSHMEM_BOOTSTRAP=mpi GPUSHMEM_PROXY_STATS=1
mpirun=("${MPIRUN:-mpirun}" -np 2 --bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
vhost=("$bin/gpushmem-vhost" --hosts 2 --)

# The GPUs the PEs see: CUDA_VISIBLE_DEVICES's entries, else every GPU nvidia-smi lists.
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
  gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
mps_dir=
if [ "${gpus:-0}" -lt 2 ]; then
  if [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && command -v nvidia-cuda-mps-control > /dev/null; then
    mps_dir=$(mktemp -d)
    export CUDA_MPS_PIPE_DIRECTORY=$mps_dir/pipe CUDA_MPS_LOG_DIRECTORY=$mps_dir/log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d && echo "$me: the PEs share a GPU: running them under a private MPS daemon"
  fi
fi
stop_mps() { [ -n "$mps_dir" ] && { echo quit | nvidia-cuda-mps-control; sleep 2; rm -rf "$mps_dir"; }; }
trap stop_mps EXIT

status=0
run() {  # run TAG LOG COMMAND...: the command's json lines, tagged, into raw.txt
  local tag=$1 log=$2; shift 2
  echo "$me: $tag"
  timeout "$limit" "$@" > "$out/$log" 2>&1 || { echo "$me: $tag failed (status $?), see $out/$log"; status=1; }
  grep '^json:' "$out/$log" | sed "s/^json: /$tag /" >> "$out/raw.txt"
}
: > "$out/raw.txt"
run proxy-p proxy_p_latency.log "${mpirun[@]}" "${vhost[@]}" "$bin/shmem_p_latency" -n 500 -w 50 -r 5
run host-p-gpu host_p_gpu.log env GPUSHMEM_SYMMETRIC_HEAP=gpu "${mpirun[@]}" "${vhost[@]}" "$bin/host_p_latency" -r 5 -d int
run drain drain.log "$bin/proxy_drain_rate" 4096 8000000 32 8 5 32
run drain drain_batch128.log "$bin/proxy_drain_rate" 4096 8000000 32 8 5 128
for scope in thread warp block; do
  run "proxy-put_bw-$scope" "proxy_put_bw_$scope.log" "${mpirun[@]}" "${vhost[@]}" "$bin/shmem_put_bw" -b 8 -e 64M -f 8 -s "$scope" -r 3 -n 5 -w 1
  run "p2p-put_bw-$scope" "p2p_put_bw_$scope.log" "${mpirun[@]}" "$bin/shmem_put_bw" -b 8 -e 64M -f 8 -s "$scope" -r 3
done
run legs stage_legs.log "$bin/stage_legs" -b 256K -e 64M -f 8 -r 5
run net-leg host_put_bw_vhosts.log env GPUSHMEM_SYMMETRIC_HEAP=host "${mpirun[@]}" "${vhost[@]}" "$bin/host_put_bw" -b 256K -e 64M -f 8 -r 5
python3 "$(dirname "$0")/proxy_summary.py" "$out/raw.txt" | tee "$out/summary.md"
exit $status
