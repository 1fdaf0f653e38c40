#!/bin/bash
# Device calls of 2026-12-06 (third session) for issues 13 and 14: call8.sh [-d SECONDS] STEP... (logs and summary.txt in $OUT)
#   build     configure and build build-dev with all cores (add NVSHMEM=1 to also build the _nvshmem perftest twins)
#   latency   device shmem_p/shmem_g latency through the proxy, unbound, GPUSHMEM_PROXY_STATS=1
#   compat    issue 15: gpu.compat.* (NVSHMEM-style programs) and pkg.install (the installed CUDA consumers)
#   ucxinfo   ucx_info -v and the transports UCX finds here (has it CUDA?)
#   vhost     the gpu-vhost tests one at a time (VHOST_ENV: more environment, e.g. UCX_TLS=tcp,self) (each capped at CAP s, default 100), most important first,
#             until the call's deadline (-d, seconds from the start, default 540) is near
#   p2p       ctest -L gpu -LE gpu-vhost -j 8 (the P2P suite)
#   probe     slice_probe.cu: 4-byte copies' latency alone, beside another process's spinning kernel, and both
#             under an MPS daemon (is the GPU time-sliced between the two PEs' contexts?)
#   p2pab     this tree's P2P perftest against dbedb03's (.deps/base.tar; P2PAB=1 at build builds it), alternating
#   selfprobe self_probe.cu: what waits behind this process's own spinning kernel (MPS off/on, 8/32 connections)
#   queueprobe queue_probe.cu: do the runtime's non-blocking streams wait behind work queued on the legacy stream
#             behind a spinning kernel (MPS off/on, 8/32 connections, low/high priority streams, streams of the primary
#             context or of a context of their own; QP_GRID=1056: a spinning grid of 1056 x 256 threads that occupies every
#             SM, as some failing tests' grids do; QP_PAIR=1: two processes at once, as the two PEs; QP_COPY=batch: the
#             runtime's cudaMemcpyBatchAsync with the overlap hint instead of cudaMemcpyAsync)?
#   sanitize  compute-sanitizer memcheck on device_api_ibgda tests (SAN_TESTS), through GPUSHMEM_TEST_WRAPPER
#   postrate  ibgda_post_rate (IBGDA's device-side posting: 1 warp and 32x8 warps, batch 1/8/32, lane 0 only, lanes
#             alone or together)
#             and proxy_drain_rate's 32x8 in the same call
#   drain     proxy_drain_rate with 8x8 .. 132x8 producer warps, the library's body stores and weak ones
#   ibgdalat  shmem_{g,p,atomic}_latency through the NIC emulator (the _ibgda twins) and through the proxy, same call
#   hostp     host_p_latency to the other virtual host's GPU heap (the agent's put with no kernel running)
#   nvshmem   shmem_p_latency and shmem_put_latency, gpushmem and the _nvshmem twin, P2P, 2 PEs on the GPU
#   figures   perftest/run_proxy.sh (hand-off, drain rate, put_bw thread/warp/block next to P2P)
set -u
deadline=540
if [ "${1:-}" = -d ]; then deadline=$2; shift 2; fi
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD O=${OUT:-/tmp/out}; mkdir -p $O; B=${B:-$R/build-dev}  # B: a build made elsewhere (carried, see prep_carry.sh)
# The programs of the gpu-vhost tests (BUILD_TARGETS=vhost builds only these: a whole build took 393 s on a fresh H100
# machine in call 5 of this session).
VHOST_TARGETS="gpu_device_api_amo gpu_device_api_barrier gpu_device_api_bytes gpu_device_api_coll gpu_device_api_event
  gpu_device_api_rma gpu_device_api_signal gpu_device_api_wait gpu_device_api_wait_deprecated gpu_net_gpu_heap
  gpu_proxy_device gpu_stream_graph gpushmem_gpu_probe jacobi_halo moe_dispatch ring_kernel"
# ... and those of the device_api_ibgda tests (BUILD_TARGETS=ibgda: the device API over emulated IBGDA).
IBGDA_TARGETS="gpushmem_gpu_probe gpu_device_api_rma_ibgda gpu_device_api_bytes_ibgda gpu_device_api_amo_ibgda
  gpu_device_api_signal_ibgda gpu_device_api_wait_ibgda gpu_device_api_wait_deprecated_ibgda
  gpu_device_api_barrier_ibgda gpu_device_api_event_ibgda gpu_device_api_coll_ibgda ibgda_post_rate proxy_drain_rate
  shmem_p_latency shmem_g_latency shmem_atomic_latency shmem_p_latency_ibgda shmem_g_latency_ibgda
  shmem_atomic_latency_ibgda"
# A private MPS daemon for the probes (selfprobe, queueprobe), and its end.
mps_start() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log; mkdir -p /tmp/mps-pipe /tmp/mps-log
  nvidia-cuda-mps-control -d
}
mps_stop() {
  echo quit | nvidia-cuda-mps-control; sleep 2; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
# Names the frames "lib(+0xoffset)[addr]" of the proxy thread stacks the watchdog prints (filter: stdin to stdout).
symbolize() {
  while IFS= read -r l; do
    if [[ $l =~ ([^ :]+)\(\+(0x[0-9a-f]+)\) ]]; then
      echo "$l  $(addr2line -f -C -e "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" 2>/dev/null | head -1 | cut -c1-160)"
    else echo "$l"; fi
  done
}
t0=$SECONDS; say() { echo "[$((SECONDS-t0)) s] $*" | tee -a $O/summary.txt; }
left() { echo $((deadline - (SECONDS - t0))); }
cleanup() {
  pkill -9 -f "$B/bin/" 2>/dev/null; pkill -9 mpirun 2>/dev/null; pkill -9 -f gpushmem-vhost 2>/dev/null; sleep 1
  for d in /tmp/gpushmem-mps.*/pipe; do [ -S $d/control ] && echo quit | CUDA_MPS_PIPE_DIRECTORY=$d nvidia-cuda-mps-control; done 2>/dev/null
  sleep 1; pkill -9 -f nvidia-cuda-mps 2>/dev/null; rm -rf /tmp/gpushmem-mps.*
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O/summary.txt
for step in "$@"; do case $step in
build)
  if [ "${P2PAB:-0}" = 1 ]; then
    rm -rf /tmp/base && mkdir -p /tmp/base && tar -xf .deps/base.tar -C /tmp/base
    (cmake -S /tmp/base -B /tmp/base/build-ab -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_BUILD_TESTS=OFF \
       -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/cfg-old.log 2>&1 &&
     cmake --build /tmp/base/build-ab -j 6 --target shmem_p_latency shmem_put_latency reduction_latency host_put_latency \
       > $O/build-old.log 2>&1) &
    P2P_TARGETS="shmem_p_latency shmem_put_latency reduction_latency host_put_latency"
  fi
  extra=""
  if [ "${NVSHMEM:-0}" = 1 ]; then
    nv=$(python3 -c 'import nvidia.nvshmem, os; print(os.path.dirname(nvidia.nvshmem.__file__))' 2>/dev/null || true)
    [ -z "$nv" ] && nv=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nvshmem"))')
    extra="-DGPUSHMEM_PERFTEST_NVSHMEM_ROOT=$nv -DGPUSHMEM_PERFTEST_NVSHMEM_COLLECTIVES=OFF"
  fi
  targets=""; [ "${BUILD_TARGETS:-all}" = vhost ] && targets="--target $VHOST_TARGETS"
  [ "${BUILD_TARGETS:-all}" = ibgda ] && targets="--target $IBGDA_TARGETS"
  [ "${BUILD_TARGETS:-all}" = vhost+ibgda ] && targets="--target $VHOST_TARGETS $IBGDA_TARGETS"
  case "${BUILD_TARGETS:-all}" in all|vhost|ibgda|vhost+ibgda) ;; *) targets="--target $BUILD_TARGETS";; esac
  [ -n "$targets" ] && [ -n "${P2P_TARGETS:-}" ] && targets="$targets $P2P_TARGETS"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include $extra > /tmp/configure.log 2>&1 && cmake --build $B -j 16 $targets > /tmp/build.log 2>&1 \
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
      (cd $B && env ${conn:+CUDA_DEVICE_MAX_CONNECTIONS=$conn} ${VHOST_ENV:-} GPUSHMEM_TEST_MPS=$mps GPUSHMEM_PROXY_TIMEOUT=${PT:-15} \
        GPUSHMEM_DEVICE_TIMEOUT=${DT:-25} timeout -k 5 $c ctest -V -R "^${n//./\\.}\$" > /tmp/vhost-one.txt 2>&1); rc=$?
      cleanup
      r=$(grep -oE "(Passed|Failed|\*\*\*[A-Za-z ]+|Not Run)" /tmp/vhost-one.txt | head -1)
      { echo "=== $n (MPS $mps${conn:+, $conn connections})"; grep -vE "^[0-9]+: *$|UpdateCTestConfiguration|Parse Config|Add coverage|Test project|Constructing|Checking test dependency|^test [0-9]" /tmp/vhost-one.txt \
          | grep -vE "^(Label Time|RESOURCE_LOCK|gpu|gpu-vhost|gpushmem_gpu) +=|Errors while running|Output from these|Use \"--rerun|tests passed, |^Total Test time|The following tests" \
          | symbolize | cut -c1-400 | tail -${KEEP:-300}; } >> $O/vhost.txt
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
ucxinfo)
  { ucx_info -v; ucx_info -d | grep -E "Transport|Memory domain" | sort | uniq -c; } > $O/ucxinfo.txt 2>&1
  say "ucx: $(head -2 $O/ucxinfo.txt | tr '\n' ' ') transports: $(grep Transport $O/ucxinfo.txt | awk '{print $NF}' | tr '\n' ' ')";;
p2pab)
  # The P2P fast paths against the session's starting commit (.deps/base.tar = dbedb03): its perftest built beside
  # this tree's (started in the background at the build step when P2PAB=1), then alternating runs, 2 PEs on the GPU.
  wait
  [ -x /tmp/base/build-ab/bin/shmem_p_latency ] || { say "p2pab: no base build ($(tail -3 $O/build-old.log 2>/dev/null))"; continue; }
  export NEW=$B OLD=/tmp/base/build-ab
  P=$R/docs/results/2026-12-06-gpu-proxy-2/ab_device.sh
  for a in "shmem_p_latency -n 200 -w 20 -r 3" "shmem_put_latency -b 8 -e 64K -f 8 -n 200 -w 20 -r 3" \
           "reduction_latency -b 8 -e 64K -f 8 -d int -r 5" ; do
    bash $P ${AB_ROUNDS:-3} "$a" >> $O/p2pab.txt 2>&1
  done
  ENV=GPUSHMEM_SYMMETRIC_HEAP=gpu bash $P ${AB_ROUNDS:-3} "host_put_latency -b 8 -e 64K -f 8 -r 5" >> $O/p2pab.txt 2>&1
  say "p2pab: $(grep -c ratio $O/p2pab.txt) figures; worst ratios: $(grep -oE 'ratio [0-9.]+' $O/p2pab.txt | sort -k2 -rn | head -3 | tr '\n' ' ')";;
selfprobe)
  P=$R/docs/results/2026-12-06-gpu-proxy-2
  /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 $P/self_probe.cu -lcuda -o /tmp/self_probe || { say "selfprobe: no build"; continue; }
  for mps in off on; do
    if [ $mps = on ]; then mps_start || { say "no MPS"; break; }; fi
    for conn in ${SP_CONNS:-8 32}; do for grid in ${SP_GRIDS:-1 1056 4000}; do
      r=$(CUDA_DEVICE_MAX_CONNECTIONS=$conn timeout -k 2 40 /tmp/self_probe $grid 16 legacy 2>&1 | tail -1)
      say "selfprobe MPS $mps, $conn connections: $r"
    done; done
    r=$(timeout -k 2 40 /tmp/self_probe 1056 16 nonblocking 2>&1 | tail -1); say "selfprobe MPS $mps: $r"
    if [ $mps = on ]; then mps_stop; fi
  done;;
queueprobe)
  P=$R/docs/results/2026-12-06-gpu-proxy-2
  /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 $P/queue_probe.cu -lcuda -o /tmp/queue_probe || { say "queueprobe: no build"; continue; }
  for mps in off on; do
    if [ $mps = on ]; then mps_start || { say "no MPS"; break; }; fi
    for conn in ${QP_CONNS:-8 32}; do for tail in ${QP_TAILS:-none kernel d2h event}; do for prio in ${QP_PRIOS:-low high}; do
      for ctx in ${QP_CTX:-primary ctx}; do
        # QP_PAIR=1: a second process runs the same probe at the same time (the two PEs of a test on one GPU)
        if [ "${QP_PAIR:-0}" = 1 ]; then
          CUDA_DEVICE_MAX_CONNECTIONS=$conn QP_GRID=${QP_GRID:-0} timeout -k 2 120 /tmp/queue_probe ${QP_STREAMS:-12} \
            $tail $prio $ctx > /tmp/qp-second.txt 2>&1 &
        fi
        r=$(CUDA_DEVICE_MAX_CONNECTIONS=$conn QP_GRID=${QP_GRID:-0} timeout -k 2 120 /tmp/queue_probe ${QP_STREAMS:-12} $tail $prio $ctx 2>&1 | tail -3 | tr '\n' ' ')
        say "queueprobe MPS $mps: $r"
        if [ "${QP_PAIR:-0}" = 1 ]; then wait; say "queueprobe MPS $mps, second process: $(tail -3 /tmp/qp-second.txt | tr '\n' ' ')"; fi
      done
    done; done; done
    if [ $mps = on ]; then mps_stop; fi
  done;;
sanitize)
  # compute-sanitizer memcheck on the IBGDA device tests (SAN_TESTS), each PE's program under it
  for t in ${SAN_TESTS:-device_api_ibgda.rma device_api_ibgda.amo device_api_ibgda.signal}; do
    n="gpu.$t.mpi-vh2.np2"; s=$SECONDS
    (cd $B && GPUSHMEM_TEST_WRAPPER="/usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99" \
      GPUSHMEM_DEVICE_TIMEOUT=${DT:-60} timeout -k 5 ${CAP:-200} ctest -V -R "^${n//./\\.}\$" > /tmp/san-one.txt 2>&1)
    { echo "=== $n (memcheck)"; grep -E "ERROR SUMMARY|Invalid|Passed|Failed|device error" /tmp/san-one.txt | head -40; } >> $O/sanitize.txt
    cleanup
    say "memcheck $n: $(grep -oE "ERROR SUMMARY: [0-9]+ errors" /tmp/san-one.txt | sort | uniq -c | tr '\n' ' ') $(grep -oE "(Passed|Failed)" /tmp/san-one.txt | head -1) ($((SECONDS - s)) s)"
  done;;
postrate)
  # ibgda_post_rate CTAS WARPS QPS WQEBBS POSTS REPEATS BATCH POSTERS: IBGDA's device-side posting cost against an
  # index-advancing host NIC, next to the proxy's drain rate with the same producers (the drain step)
  for cfg in "1 1 1 1024 200000 5 8" "1 1 1 1024 200000 5 8 warp" "1 1 1 1024 200000 5 1" "32 8 4 1024 4000000 5 1" \
             "32 8 4 1024 4000000 5 8" "32 8 4 1024 4000000 5 8 warp" "32 8 4 1024 4000000 5 32" \
             "32 8 4 1024 4000000 5 8 lane0" "32 8 32 1024 4000000 5 8" "32 8 32 1024 4000000 5 8 warp"; do
    r=$(timeout -k 2 60 $B/bin/ibgda_post_rate $cfg 2>&1); echo "$r" >> $O/postrate.txt
    say "postrate $cfg: $(echo "$r" | sed -n 2p)"
  done
  r=$(timeout -k 2 60 $B/bin/proxy_drain_rate 4096 8000000 32 8 5 32 2>&1 | tail -2 | head -1); say "drain 32x8 (same run): $r";;
drain)
  # proxy_drain_rate CAPACITY REQUESTS CTAS WARPS REPEATS BATCH: more producers than run_proxy.sh's 32 x 8 warps
  # (CTAs x warps x 32 lanes in flight: 8x8 = 2048 fit a 4096-slot ring, 32x8 = 8192 do not; nofence: no release;
  # doubling: the producers' previous wait for room, beside the library's spaced one)
  # DRAIN_CFGS: configurations separated by ';'
  IFS=';' read -ra cfgs <<< "${DRAIN_CFGS:-4096 8000000 32 8 5 32;4096 8000000 32 8 5 32 relaxed doubling;4096 8000000 8 8 5 32;4096 8000000 8 8 5 32 nofence;4096 8000000 32 8 5 32 nofence;16384 16000000 132 8 5 32;16384 16000000 132 8 5 32 relaxed doubling;4096 4000000 2 4 5 32}"
  for cfg in "${cfgs[@]}"; do
    if [ $(left) -lt 15 ]; then say "drain $cfg: not run (deadline)"; continue; fi
    r=$(timeout -k 2 $(( $(left) < 60 ? $(left) : 60 )) $B/bin/proxy_drain_rate $cfg 2>&1 | grep -E "^json:|M slots|FAILED" | tail -2 | tr '\n' ' ')
    say "drain $cfg: $r"
  done;;
ibgdalat)
  # A dependent device operation's latency through the NIC emulator (the _ibgda twins, GPUSHMEM_DEVICE_IBGDA=1; the
  # issue's target: 5 us) next to the same program through the CPU proxy, same call, 2 PEs in two virtual hosts
  for p in shmem_g_latency shmem_p_latency shmem_atomic_latency; do
    for v in $p ${p}_ibgda; do
      e=""; [ $v != $p ] && e="GPUSHMEM_TRANSPORTS=p2p,ucx,ibgda GPUSHMEM_IBGDA_EMULATE=1"
      { echo "=== $v"; env $e UCX_TLS=tcp,self UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=1G GPUSHMEM_BOOTSTRAP=mpi \
          GPUSHMEM_DEVICE_TIMEOUT=20 timeout -k 5 60 mpirun -np 2 --bind-to none $B/bin/gpushmem-vhost --hosts 2 -- \
          $B/bin/$v -n 200 -w 20 -r 3 2>&1; } >> $O/ibgdalat.txt
      say "$v: $(sed -n "/=== $v\$/,\$p" $O/ibgdalat.txt | grep -E '^[0-9]+ |median|ERROR|error' | head -4 | tr -s ' ' | tr '\n' ';')"
      cleanup
    done
  done;;
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
