#!/usr/bin/env bash
# run_suite.sh [options] [-- extra arguments for every program]
#
# Runs the whole perftest suite (the host programs, and the device programs when a GPU is present) for
# one launcher and one or more PE counts, into a results folder:
#   <out>/machine.txt          host, CPUs, memory, OS, compilers, libraries, GPUs, gpushmem-info
#   <out>/commands.txt         every command exactly as run, with its exit status
#   <out>/<run>/<program>.log  the program's output (table, '#' lines, json: lines)
#   <out>/<run>/<program>.jsonl  its points, one JSON object per line
#   <out>/summary.txt          one line per program and run: ok / FAILED (status)
# where <run> is <library>-<launcher>-np<N> (gpushmem-mpirun-np2, openmpi-oshrun-np4, ...).
# plot.py turns one or more results folders into charts and the ours-vs-baseline ratio table.
#
#   -B DIR       gpushmem build folder holding bin/ (default: build)
#   -o DIR       results folder (default: results/suite-<date>-<time>)
#   -l LAUNCHER  mpirun | gpushmemrun | oshrun (default mpirun); oshrun runs only the baseline
#   -n LIST      PE counts, comma-separated (default 2)
#   -b           also run the baselines in the same job, for the same PE counts: the host programs built
#                with Open MPI's oshcc and run under oshrun, and, on a GPU machine, the device programs'
#                NVIDIA NVSHMEM builds (<program>_nvshmem, cmake -DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=...)
#                under mpirun (NVSHMEM_BOOTSTRAP=MPI unless set)
#   -q           quick: small sizes and few iterations (a smoke run, not figures)
#   -t SECONDS   per-program time limit (default 600)
#   -p LIST      only these programs (comma-separated names)
#   -V K         gpushmem's runs spread their PEs over K virtual hosts (gpushmem-vhost): PEs of different
#                ones reach each other only through UCX (its runs are named gpushmem-<launcher>-vhK-np<N>).
#                UCX_NET_DEVICES defaults to lo; set UCX_TLS (e.g. tcp,self) to compare with Open MPI on the
#                same UCX transport (oshrun gets the same UCX_* environment, and its MPI is put on UCX too:
#                --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any, unless OSHRUN_ARGS is set)
#   -h           this text
# Environment: MPIRUN (mpirun), OSHCC (oshcc), OSHRUN (oshrun), OSHRUN_ARGS (Open MPI settings for
# oshrun; default "--mca memory ^patcher", which avoids Open MPI 4.1's crash at shmem_finalize),
# SHMEM_SYMMETRIC_SIZE (default 1G), GPUSHMEM_ERROR_CHECKS (default 0 for the device programs),
# NVSHMEM_BOOTSTRAP (default MPI for the _nvshmem programs).
# The host programs are plain C: their symmetric heap is host memory on a GPU machine too
# (GPUSHMEM_SYMMETRIC_HEAP=auto), except host_put_on_stream_*, which ask for the GPU heap.
# Exit status: 0 when every program ran and passed its data checks, 1 otherwise.
set -u

me=run_suite.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=build
out=
launcher=mpirun
nps=2
baseline=0
quick=0
limit=600
only=
vhosts=0
while [ $# -gt 0 ]; do
  case $1 in
    -B) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -l) launcher=$2; shift 2 ;;
    -n) nps=$2; shift 2 ;;
    -b) baseline=1; shift ;;
    -q) quick=1; shift ;;
    -t) limit=$2; shift 2 ;;
    -p) only=$2; shift 2 ;;
    -V) vhosts=$2; shift 2 ;;
    -h | --help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "$me: unknown argument '$1' (try -h)" >&2; exit 64 ;;
  esac
done
extra=("$@")
case $launcher in
  mpirun | gpushmemrun) ours=1 ;;
  oshrun) ours=0; baseline=1 ;;
  *) echo "$me: -l $launcher: choose mpirun, gpushmemrun or oshrun" >&2; exit 64 ;;
esac
case $nps in *[!0-9,]* | "" ) echo "$me: -n $nps: a comma-separated list of PE counts" >&2; exit 64 ;; esac
bin=$build/bin
out=${out:-results/suite-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
cmds=$out/commands.txt
: >"$cmds"
: >"$out/summary.txt"

# The host programs, in the order they run. The collective ones exist in a gpushmem build only once
# the library has its 1.5 team collectives (perftest/CMakeLists.txt checks); missing ones are noted.
host_programs=(host_put_latency host_get_latency host_p_latency host_g_latency host_put_bw host_get_bw
  host_atomic_latency host_barrier_latency host_bcast_latency host_reduction_latency host_alltoall_latency
  host_fcollect_latency host_malloc_latency)
device_programs=(shmem_put_bw shmem_get_bw shmem_p_bw shmem_g_bw shmem_put_latency shmem_get_latency
  shmem_p_latency shmem_g_latency shmem_atomic_bw shmem_atomic_latency shmem_put_ping_pong_latency
  shmem_p_ping_pong_latency shmem_put_signal_ping_pong_latency shmem_signal_ping_pong_latency
  barrier_latency sync_latency bcast_latency fcollect_latency alltoall_latency reduction_latency)
# Those of them that run at any PE count (the others measure PE 0 <-> PE 1 and run at 2 PEs only); they run
# when there are at least as many GPUs as PEs.
device_any_np=(barrier_latency sync_latency bcast_latency fcollect_latency alltoall_latency reduction_latency)

# Arguments per program: the defaults, or small ones for -q (the sizes and counts of the ctest smoke runs).
args_for() {
  local p=$1
  if [ "$quick" = 1 ]; then
    case $p in
      host_*_bw) echo "-b 8 -e 64K -f 8 -n 5 -w 1 -r 3" ;;
      host_malloc_latency) echo "-b 8 -e 1M -f 32 -n 5 -w 1 -r 3" ;;
      host_reduction_latency) echo "-b 8 -e 4K -f 8 -n 5 -w 1 -r 3" ;;
      host_p_latency | host_g_latency | host_atomic_latency | host_barrier_latency) echo "-n 10 -w 2 -r 3" ;;
      host_*) echo "-b 8 -e 4K -f 8 -n 10 -w 2 -r 3" ;;
      shmem_put_bw | shmem_get_bw) echo "-b 8 -e 64K -f 8 -n 2 -w 1 -r 3 -c 4 -t 128" ;;
      shmem_p_bw | shmem_g_bw) echo "-b 4 -e 64K -f 16 -n 2 -w 1 -r 3 -c 4 -t 64" ;;
      shmem_atomic_bw) echo "-a all -c 2 -t 64 -n 5 -w 2 -r 3" ;;
      shmem_atomic_latency) echo "-a all -n 70 -w 2 -r 3" ;;
      shmem_p_latency | shmem_g_latency | shmem_signal_ping_pong_latency | shmem_p_ping_pong_latency)
        echo "-n 10 -w 2 -r 3" ;;
      barrier_latency | sync_latency) echo "-s all -t 64 -n 10 -w 2 -r 3" ;;
      bcast_latency | fcollect_latency | alltoall_latency) echo "-b 4 -e 4K -f 16 -s all -t 64 -d all -n 5 -w 2 -r 3" ;;
      reduction_latency) echo "-b 4 -e 4K -f 16 -s all -t 64 -d all -o all -n 5 -w 2 -r 3" ;;
      *) echo "-b 8 -e 256 -f 4 -n 10 -w 2 -r 3" ;;
    esac
  else
    case $p in
      shmem_atomic_latency | shmem_atomic_bw) echo "-a all" ;;
      barrier_latency | sync_latency | bcast_latency | fcollect_latency | alltoall_latency) echo "-s all" ;;
      reduction_latency) echo "-s all -o sum" ;;
      host_reduction_latency) echo "-d all -o sum" ;;
    esac
  fi
}

failed=0
# run <run dir> <program label> <command...>
run() {
  local dir=$1 label=$2
  shift 2
  mkdir -p "$dir"
  local log=$dir/$label.log json=$dir/$label.jsonl
  rm -f "$json"
  printf '%s\n' "$*  --json $json" >>"$cmds"
  echo "$me: $(basename "$dir")/$label" >&2
  timeout -k 10 "$limit" "$@" --json "$json" >"$log" 2>&1
  local status=$?
  # Open MPI 4.1's OpenSHMEM now and then dies of SIGSEGV inside shmem_init (mca_memheap_modex_recv_all):
  # a baseline run killed by a signal before its first point is started again, twice at most, and says so.
  local tries=1
  while [[ $(basename "$dir") == openmpi-* ]] && [ $status -gt 128 ] && [ $status -ne 137 ] && [ ! -s "$json" ] && [ $tries -lt 3 ]; do
    printf '%s\n' "  -> exit status $status before any point: started again" >>"$cmds"
    echo "# exit status $status before any point (try $tries): started again" >>"$log.crashed"
    timeout -k 10 "$limit" "$@" --json "$json" >"$log" 2>&1
    status=$?
    tries=$((tries + 1))
  done
  echo "# exit status $status" >>"$log"
  printf '%s\n' "  -> exit status $status" >>"$cmds"
  local verdict=ok
  if [ $status -eq 77 ]; then
    verdict="skipped (77)"
  elif [ $status -ne 0 ]; then
    verdict="FAILED (status $status$([ $status -eq 124 ] && echo ", stopped after $limit s"))"
    failed=1
  elif grep -q '"check":"FAIL"' "$log"; then
    verdict="FAILED (a data check)"
    failed=1
  fi
  [ $tries -gt 1 ] && verdict="$verdict (started $tries times: crashed before its first point)"
  printf '%-28s %-28s %s\n' "$(basename "$dir")" "$label" "$verdict" | tee -a "$out/summary.txt" >&2
}
selected() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
# run_device_programs <run dir> <np> <suffix> <launch command...>: the device programs (binary name + suffix),
# only where a GPU is: 2 PEs (PE 0 -> PE 1); those of device_any_np at every PE count of at least 2 that has
# a GPU per PE.
run_device_programs() {
  local dir=$1 np=$2 suffix=$3 p
  shift 3
  [ "$have_gpu" = 1 ] && [ "$np" -ge 2 ] || return 0
  for p in "${device_programs[@]}"; do
    selected "$p" || continue
    if [ "$np" != 2 ] && { [[ " ${device_any_np[*]} " != *" $p "* ]] || [ "$np" -gt "$gpus" ]; }; then
      continue
    fi
    [ -x "$bin/$p$suffix" ] || continue
    # shellcheck disable=SC2046
    run "$dir" "$p" "$@" "$bin/$p$suffix" $(args_for "$p") "${extra[@]}"
  done
}

{
  echo "date: $(date -Is)"
  echo "host: $(hostname)  kernel: $(uname -srm)"
  grep -m1 PRETTY_NAME /etc/os-release 2>/dev/null
  echo "cpus: $(nproc) online; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  grep -m1 MemTotal /proc/meminfo
  echo "launcher: $launcher  PE counts: $nps  quick: $quick  baseline: $baseline"
  echo "SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-1G (default here)} GPUSHMEM_ERROR_CHECKS=${GPUSHMEM_ERROR_CHECKS:-<unset>}"
  # Only when the sources are a checkout of their own (a copy inside another repository would name that one).
  if [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
    echo "git: $(git -C "$root" describe --always --dirty 2>/dev/null)"
  else
    echo "git: none ($root is not a git checkout of its own)"
  fi
  cc --version 2>/dev/null | head -1
  command -v "${MPIRUN:-mpirun}" >/dev/null && "${MPIRUN:-mpirun}" --version 2>/dev/null | head -1
  command -v ucx_info >/dev/null && ucx_info -v 2>/dev/null | head -1
  command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null && nvidia-smi topo -m 2>/dev/null
  [ -x "$bin/gpushmem-info" ] && "$bin/gpushmem-info" 2>&1
} >"$out/machine.txt" 2>&1

export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-1G}
as_root=()
[ "$(id -u)" -eq 0 ] && as_root=(--allow-run-as-root)

# ---- ours ------------------------------------------------------------------------------------------
have_gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
gpus=0
[ "$have_gpu" = 1 ] && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$ours" = 1 ]; then
  if [ ! -x "$bin/host_put_bw" ]; then
    echo "$me: $bin/host_put_bw not found: build gpushmem first (scripts/build.sh $build)" >&2
    exit 64
  fi
  IFS=, read -r -a np_list <<<"$nps"
  for np in "${np_list[@]}"; do
    dir=$out/gpushmem-$launcher-np$np
    if [ "$launcher" = mpirun ]; then
      launch=(env GPUSHMEM_BOOTSTRAP=mpi "${MPIRUN:-mpirun}" "${as_root[@]}" --oversubscribe -np "$np")
    else
      launch=(env -u GPUSHMEM_BOOTSTRAP "$bin/gpushmemrun" -n "$np")
    fi
    if [ "$vhosts" -gt 0 ]; then
      dir=$out/gpushmem-$launcher-vh$vhosts-np$np
      export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
      launch+=("$bin/gpushmem-vhost" --hosts "$vhosts" --)
    fi
    for p in "${host_programs[@]}"; do
      selected "$p" || continue
      if [ ! -x "$bin/$p" ]; then
        printf '%-28s %-28s %s\n' "$(basename "$dir")" "$p" "not built" | tee -a "$out/summary.txt" >&2
        continue
      fi
      # shellcheck disable=SC2046 # word splitting of the argument list is intended
      run "$dir" "$p" "${launch[@]}" "$bin/$p" $(args_for "$p") "${extra[@]}"
    done
    for p in host_put_on_stream_bw host_put_on_stream_latency; do
      if [ "$have_gpu" = 1 ] && [ -x "$bin/$p" ] && selected $p; then
        # shellcheck disable=SC2046
        run "$dir" $p "${launch[@]}" "$bin/$p" $([ "$quick" = 1 ] && echo "-b 8 -e 64K -f 8 -n 2 -w 1 -r 3") "${extra[@]}"
      fi
    done
    GPUSHMEM_ERROR_CHECKS=${GPUSHMEM_ERROR_CHECKS:-0} run_device_programs "$dir" "$np" "" "${launch[@]}"
  done
fi

# ---- the Open MPI baseline: the same host sources built with oshcc, run under oshrun -----------------
oshcc=${OSHCC:-oshcc}
oshrun=${OSHRUN:-oshrun}
nvshmem_built=0
[ "$have_gpu" = 1 ] && [ -x "$bin/shmem_put_bw_nvshmem" ] && nvshmem_built=1
if [ "$baseline" = 1 ] && { ! command -v "$oshcc" >/dev/null || ! command -v "$oshrun" >/dev/null; }; then
  if [ "$nvshmem_built" = 0 ]; then
    echo "$me: -b: $oshcc / $oshrun not found (Debian: apt install openmpi-bin libopenmpi-dev)" >&2
    exit 64
  fi
  echo "$me: -b: $oshcc / $oshrun not found: only the NVSHMEM baseline runs" >&2
  baseline=nvshmem-only
fi
if [ "$baseline" = 1 ]; then
  obin=$out/bin-openmpi
  mkdir -p "$obin"
  for p in "${host_programs[@]}"; do
    selected "$p" || continue
    cmd=("$oshcc" -O2 -std=gnu11 -Wall -I"$root/perftest/common" -I"$root/perftest/host"
      "$root/perftest/host/$p.c" -o "$obin/$p")
    printf '%s\n' "${cmd[*]}" >>"$cmds"
    if ! "${cmd[@]}" >"$obin/$p.build.log" 2>&1; then
      echo "$me: building $p with $oshcc failed (see $obin/$p.build.log)" >&2
      failed=1
    fi
  done
  default_oshrun_args="--mca memory ^patcher"
  # Against virtual hosts, Open MPI's MPI (OSHMEM's barrier, broadcast, reductions) goes over UCX too: Open
  # MPI 4.1 refuses pml ucx on a host without an InfiniBand device and would use shared memory otherwise.
  [ "$vhosts" -gt 0 ] && default_oshrun_args+=" --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
  read -r -a oshrun_args <<<"${OSHRUN_ARGS:-$default_oshrun_args}"
  IFS=, read -r -a np_list <<<"$nps"
  for np in "${np_list[@]}"; do
    dir=$out/openmpi-oshrun-np$np
    for p in "${host_programs[@]}"; do
      selected "$p" || continue
      [ -x "$obin/$p" ] || continue
      # shellcheck disable=SC2046
      run "$dir" "$p" "$oshrun" "${as_root[@]}" --oversubscribe "${oshrun_args[@]}" -np "$np" "$obin/$p" \
        $(args_for "$p") "${extra[@]}"
    done
  done
fi

# ---- the NVSHMEM baseline: the device programs' _nvshmem builds -------------------------------------
if [ "$baseline" != 0 ] && [ "$nvshmem_built" = 1 ]; then
  IFS=, read -r -a np_list <<<"$nps"
  for np in "${np_list[@]}"; do
    run_device_programs "$out/nvshmem-mpirun-np$np" "$np" _nvshmem env NVSHMEM_BOOTSTRAP="${NVSHMEM_BOOTSTRAP:-MPI}" \
      "${MPIRUN:-mpirun}" "${as_root[@]}" --oversubscribe -np "$np"
  done
fi

echo "results: $out (summary.txt; plot: python3 perftest/plot.py $out)" >&2
[ "$failed" = 0 ]
