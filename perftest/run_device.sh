#!/usr/bin/env bash
# run_device.sh [-B build_dir] [-o results_dir] [-t seconds] [-x suffix] [-- extra mpirun arguments]
#
# Runs every device benchmark (perftest/device/) with 2 PEs under mpirun, one log per program in the
# results folder, then prints (and saves as summary.txt) the issue's figures next to the raw references
# measured in the same run, the raw limits and NVSHMEM 3.4.5 figures the issue quotes, and the targets.
#   -B  build folder holding bin/ (default: build)
#   -o  results folder (default: results/device-<date>-<time>)
#   -t  per-program time limit in seconds (default 600)
#   -x  program name suffix: -x _nvshmem runs the NVSHMEM builds of the same sources
#       (cmake -DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=...; NVSHMEM's own bootstrap settings apply)
# Environment (exported to the PEs; defaults in brackets): GPUSHMEM_BOOTSTRAP [mpi], SHMEM_SYMMETRIC_SIZE
# [1G], GPUSHMEM_ERROR_CHECKS [0: the figures are for the unchecked fast path; set 1 to measure the
# checks' cost], MPIRUN [mpirun]. With two GPUs each PE gets its own (local rank modulo visible GPUs);
# CUDA_VISIBLE_DEVICES=0 runs both PEs on one GPU.
# Exit status: 0 when every program ran and passed its data checks, 1 otherwise.
set -u

me=run_device.sh
build=build
out=
limit=600
suffix=
while [ $# -gt 0 ]; do
  case $1 in
    -B) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -t) limit=$2; shift 2 ;;
    -x) suffix=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "$me: unknown argument '$1' (try -h)" >&2; exit 64 ;;
  esac
done
bin=$build/bin
if [ ! -x "$bin/shmem_put_bw$suffix" ]; then
  echo "$me: $bin/shmem_put_bw$suffix not found: build the project with CUDA first (cmake --build $build)" >&2
  exit 64
fi
out=${out:-results/device-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 1

export GPUSHMEM_BOOTSTRAP=${GPUSHMEM_BOOTSTRAP:-mpi}
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-1G}
export GPUSHMEM_ERROR_CHECKS=${GPUSHMEM_ERROR_CHECKS:-0}
launch=("${MPIRUN:-mpirun}")
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
launch+=(-np 2 "$@")

{
  echo "date: $(date -Is)  host: $(hostname)"
  echo "launch: ${launch[*]}"
  echo "GPUSHMEM_BOOTSTRAP=$GPUSHMEM_BOOTSTRAP SHMEM_SYMMETRIC_SIZE=$SHMEM_SYMMETRIC_SIZE" \
    "GPUSHMEM_ERROR_CHECKS=$GPUSHMEM_ERROR_CHECKS CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
  command -v nvidia-smi >/dev/null && nvidia-smi -L && nvidia-smi topo -m
  [ -x "$bin/gpushmem-info" ] && "$bin/gpushmem-info"
} >"$out/environment.txt" 2>&1

failed=()
# run <log name> <program> [args...]: one program, its output in <log name>.log.
run() {
  local name=$1 log=$out/$1.log prog=$2
  shift 2
  echo "$me: ${launch[*]} $bin/$prog$suffix $*  ->  $log" >&2
  timeout -k 10 "$limit" "${launch[@]}" "$bin/$prog$suffix" "$@" >"$log" 2>&1
  local status=$?
  echo "# exit status $status" >>"$log"
  if [ $status -ne 0 ]; then
    failed+=("$name (status $status$([ $status -eq 124 ] && echo ": stopped after $limit s"))")
  elif grep -q '"check":"FAIL"' "$log"; then
    failed+=("$name (a data check failed)")
  fi
}
run shmem_put_bw shmem_put_bw
run shmem_p_latency shmem_p_latency
run shmem_put_signal_ping_pong_latency shmem_put_signal_ping_pong_latency
run shmem_signal_ping_pong_latency shmem_signal_ping_pong_latency
run shmem_atomic_latency shmem_atomic_latency -a all
run barrier_latency barrier_latency -s all
run shmem_put_bw_bidir shmem_put_bw -b 1M --bidir
run shmem_get_bw shmem_get_bw
run shmem_get_bw_bidir shmem_get_bw -b 1M --bidir
run shmem_p_bw shmem_p_bw
run shmem_g_bw shmem_g_bw
run shmem_put_latency shmem_put_latency
run shmem_get_latency shmem_get_latency
run shmem_g_latency shmem_g_latency
run shmem_atomic_bw shmem_atomic_bw -a all
run shmem_put_ping_pong_latency shmem_put_ping_pong_latency
run shmem_p_ping_pong_latency shmem_p_ping_pong_latency
run sync_latency sync_latency -s all
# Collectives: every scope at small sizes (8 B .. 64 KiB), then block scope up to 64 MiB (thread-scope rows of
# large sizes take minutes); at 2 PEs the largest alltoall needs 256 MiB of SHMEM_SYMMETRIC_SIZE.
run bcast_latency bcast_latency -s all
run bcast_latency_block bcast_latency -s block -b 128K -e 64M -n 20 -w 5
run fcollect_latency fcollect_latency -s all
run fcollect_latency_block fcollect_latency -s block -b 128K -e 64M -n 20 -w 5
run alltoall_latency alltoall_latency -s all
run alltoall_latency_block alltoall_latency -s block -b 128K -e 64M -n 20 -w 5
run reduction_latency reduction_latency -s all -d all -o sum
run reduction_latency_block reduction_latency -s block -b 128K -e 64M -n 20 -w 5 -d float -o sum

# median <log> <key> <filter substrings...>: the median of "key" in the first json line holding every filter.
median() {
  local log=$out/$1.log key=$2 line
  shift 2
  line=$(grep '^json: ' "$log" 2>/dev/null)
  for f in "$@"; do line=$(printf '%s\n' "$line" | grep -F -- "$f"); done
  printf '%s\n' "$line" | head -1 | sed -n "s/.*\"$key\":{\"median\":\([0-9.eE+-]*\).*/\1/p"
}
# verdict <value> <le|ge> <target>
verdict() {
  [ -z "$1" ] && { echo "n/a"; return; }
  awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == "le") ? (v <= t) : (v >= t); print ok ? "yes" : "NO" }'
}
fmt() { [ -n "$1" ] && printf '%.3f' "$1" || printf 'n/a'; }

bw=$(median shmem_put_bw bw_GBps '"size":67108864,' '"scope":"block"')
bw_st=$(median shmem_put_bw raw_store_GBps '"size":67108864,' '"scope":"block"')
bw_ce=$(median shmem_put_bw copy_engine_GBps '"size":67108864,' '"scope":"block"')
ps=$(median shmem_put_signal_ping_pong_latency rtt_us '"size":8,')
ps_raw=$(median shmem_put_signal_ping_pong_latency raw_rtt_us '"size":8,')
sg=$(median shmem_signal_ping_pong_latency rtt_us '"size":8,')
sg_raw=$(median shmem_signal_ping_pong_latency raw_rtt_us '"size":8,')
pq=$(median shmem_p_latency lat_us '"op":"shmem_int_p"')
pq_raw=$(median shmem_p_latency raw_store_fence_us '"op":"shmem_int_p"')
put8=$(median shmem_p_latency lat_us '"op":"shmem_putmem"')
put8_raw=$(median shmem_p_latency raw_store_fence_us '"op":"shmem_putmem"')
fa=$(median shmem_atomic_latency lat_us '"op":"fetch_add"')
fa_raw=$(median shmem_atomic_latency raw_atomic_us '"op":"fetch_add"')
bar=$(median barrier_latency lat_us '"scope":"thread"')
gbw=$(median shmem_get_bw bw_GBps '"size":67108864,' '"scope":"block"')
gbw_st=$(median shmem_get_bw raw_store_GBps '"size":67108864,' '"scope":"block"')
pbidir=$(median shmem_put_bw_bidir bw_GBps '"size":67108864,' '"scope":"block"')
pl8=$(median shmem_put_latency lat_us '"size":8,')
pl8r=$(median shmem_put_latency raw_us '"size":8,')
get8=$(median shmem_get_latency lat_us '"size":8,')
get8r=$(median shmem_get_latency raw_us '"size":8,')
g=$(median shmem_g_latency lat_us '"type":"long"')
g_raw=$(median shmem_g_latency raw_load_us '"type":"long"')
ppp=$(median shmem_p_ping_pong_latency rtt_us '"size":8,')
ppp_raw=$(median shmem_p_ping_pong_latency raw_rtt_us '"size":8,')
sync=$(median sync_latency lat_us '"scope":"thread"')
sync_raw=$(median sync_latency raw_barrier_us '"scope":"thread"')
bc=$(median bcast_latency lat_us '"size":8,' '"type":"int"' '"scope":"thread"')
bc_raw=$(median bcast_latency raw_us '"size":8,' '"type":"int"' '"scope":"thread"')
red=$(median reduction_latency lat_us '"size":8,' '"type":"int"' '"scope":"thread"')
red_raw=$(median reduction_latency raw_us '"size":8,' '"type":"int"' '"scope":"thread"')
a2a=$(median alltoall_latency lat_us '"size":8,' '"type":"int"' '"scope":"thread"')
a2a_raw=$(median alltoall_latency raw_us '"size":8,' '"type":"int"' '"scope":"thread"')
# busbw is one number per point (the medians' quotient), not a {median,min,max} object
busbw() { grep '^json: ' "$out/$1.log" 2>/dev/null | grep -F '"size":67108864,' | head -1 |
  sed -n 's/.*"busbw_GBps":\([0-9.eE+-]*\).*/\1/p'; }
bcbw=$(busbw bcast_latency_block)
fcbw=$(busbw fcollect_latency_block)
a2abw=$(busbw alltoall_latency_block)
redbw=$(busbw reduction_latency_block)
bar_raw=$(median barrier_latency raw_barrier_us '"scope":"thread"')

{
  echo "Device figures, 2 PEs, medians (results: $out)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "figure" "gpushmem" "raw, this run" "raw, issue" "NVSHMEM" \
    "target" "met"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "block put 64 MiB, 32x1024 (GB/s)" "$(fmt "$bw")" \
    "st $(fmt "$bw_st") / ce $(fmt "$bw_ce")" "st 369 / ce 394.5" "351" ">= 360" "$(verdict "$bw" ge 360)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "put_signal ping-pong 8 B RTT (us)" "$(fmt "$ps")" \
    "$(fmt "$ps_raw")" "2 x 1.72 = 3.44" "5.2" "<= 3.6" "$(verdict "$ps" le 3.6)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "signal ping-pong RTT (us)" "$(fmt "$sg")" "$(fmt "$sg_raw")" \
    "2 x 0.81 = 1.62" "2.57" "<= 1.8" "$(verdict "$sg" le 1.8)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "p + quiet (us)" "$(fmt "$pq")" "$(fmt "$pq_raw")" "-" "1.14" \
    "<= 1.0" "$(verdict "$pq" le 1.0)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "put 8 B + quiet (us)" "$(fmt "$put8")" "$(fmt "$put8_raw")" \
    "-" "1.31" "-" "-"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "remote fetch-add (us)" "$(fmt "$fa")" "$(fmt "$fa_raw")" \
    "0.853" "-" "<= 0.9" "$(verdict "$fa" le 0.9)"
  printf '%-36s %-10s %-22s %-20s %-9s %-8s %-4s\n' "device barrier, 2 PEs (us)" "$(fmt "$bar")" "$(fmt "$bar_raw")" \
    "-" "2.6" "<= 2.0" "$(verdict "$bar" le 2.0)"
  echo "Other figures (no targets): program, gpushmem, raw this run"
  printf '  %-34s %-10s %s\n' "get 64 MiB block (GB/s)" "$(fmt "$gbw")" "ld $(fmt "$gbw_st")"
  printf '  %-34s %-10s %s\n' "put 64 MiB block, bidir sum (GB/s)" "$(fmt "$pbidir")" "-"
  printf '  %-34s %-10s %s\n' "put 8 B + quiet, thread (us)" "$(fmt "$pl8")" "$(fmt "$pl8r")"
  printf '  %-34s %-10s %s\n' "get 8 B, thread (us)" "$(fmt "$get8")" "$(fmt "$get8r")"
  printf '  %-34s %-10s %s\n' "shmem_long_g (us)" "$(fmt "$g")" "$(fmt "$g_raw")"
  printf '  %-34s %-10s %s\n' "p ping-pong RTT (us)" "$(fmt "$ppp")" "$(fmt "$ppp_raw")"
  printf '  %-34s %-10s %s\n' "device sync_all, 2 PEs (us)" "$(fmt "$sync")" "$(fmt "$sync_raw")"
  printf '  %-34s %-10s %s\n' "device int_broadcast 8 B (us)" "$(fmt "$bc")" "$(fmt "$bc_raw")"
  printf '  %-34s %-10s %s\n' "device int_sum_reduce, 2 ints (us)" "$(fmt "$red")" "$(fmt "$red_raw")"
  printf '  %-34s %-10s %s\n' "device int_alltoall 8 B (us)" "$(fmt "$a2a")" "$(fmt "$a2a_raw")"
  printf '  %-34s %-10s %s\n' "64 MiB block busbw (GB/s): bcast" "$(fmt "$bcbw")" \
    "fcollect $(fmt "$fcbw"), alltoall $(fmt "$a2abw"), float sum reduce $(fmt "$redbw")"
  echo "raw, this run: st = SM stores through shmem_ptr with the same grid, ce = cudaMemcpyAsync to the peer"
  echo "mapping; ping-pongs: the same exchange by hand (stores, fence, flag); p/put: store + __threadfence_system;"
  echo "fetch-add: atomicAdd_system; barrier: a flag barrier by hand. Full tables: the .log files."
  if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
  else
    echo "every program ran and passed its data checks"
  fi
} | tee "$out/summary.txt"
[ ${#failed[@]} -eq 0 ]
