#!/bin/sh
# gpu_launch.sh [--mps] <gpu_probe> <pe_launch.sh> [pe_launch.sh arguments...]
# Runs a GPU test through pe_launch.sh, but first asks gpu_probe whether this machine has a usable GPU:
# without one the test exits 77, which ctest reports as skipped (SKIP_RETURN_CODE 77), instead of every PE
# failing in its own way.
#
# --mps (the virtual-host tests): the PEs run as clients of a private MPS daemon started for this test and
# stopped after it. Two PEs on one GPU in two virtual hosts hand each other's data to the GPU through their
# memory agents' copies, which may otherwise wait for the GPU's time slices of the other process's spinning
# kernel: beside a spinning kernel of another process a 4-byte host-to-GPU copy took 2379 us, under MPS 6.4 us
# (H100, docs/results/2026-12-06-gpu-proxy, slice_probe.cu). With a
# CUDA_MPS_PIPE_DIRECTORY already set (an MPS daemon the caller runs), or GPUSHMEM_TEST_MPS=off, or no
# nvidia-cuda-mps-control, the test runs as it is, and says so.
mps=0
if [ "$1" = "--mps" ]; then
  mps=1
  shift
fi
probe=$1
shift
"$probe"
status=$?
if [ "$status" -eq 77 ]; then
  exit 77
elif [ "$status" -ne 0 ]; then
  echo "gpu_launch.sh: FAILED: $probe exited with status $status" >&2
  exit 1
fi
if [ "$mps" -eq 0 ]; then
  exec "$@"
fi
if [ "${GPUSHMEM_TEST_MPS:-on}" = off ]; then
  echo "gpu_launch.sh: GPUSHMEM_TEST_MPS=off: the PEs time-slice the GPU" >&2
  exec "$@"
fi
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  echo "gpu_launch.sh: using the MPS daemon at CUDA_MPS_PIPE_DIRECTORY=$CUDA_MPS_PIPE_DIRECTORY" >&2
  exec "$@"
fi
if ! command -v nvidia-cuda-mps-control > /dev/null 2>&1; then
  echo "gpu_launch.sh: no nvidia-cuda-mps-control: the PEs time-slice the GPU (slow through the proxy)" >&2
  exec "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpushmem-mps.XXXXXX") || exit 1
CUDA_MPS_PIPE_DIRECTORY=$dir/pipe
CUDA_MPS_LOG_DIRECTORY=$dir/log
export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
stop_mps() {
  echo quit | nvidia-cuda-mps-control > /dev/null 2>&1
  # quit returns at once; the daemon and its server leave within a second or two.
  i=0
  while [ $i -lt 50 ] && [ -S "$CUDA_MPS_PIPE_DIRECTORY/control" ]; do
    sleep 0.1
    i=$((i + 1))
  done
  rm -rf "$dir"
}
if ! nvidia-cuda-mps-control -d; then
  echo "gpu_launch.sh: nvidia-cuda-mps-control -d failed: the PEs time-slice the GPU" >&2
  rm -rf "$dir"
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  exec "$@"
fi
trap 'stop_mps; exit 143' TERM
trap 'stop_mps; exit 130' INT
"$@"
status=$?
clients=$(grep -ci "new client" "$CUDA_MPS_LOG_DIRECTORY/control.log" 2> /dev/null)
echo "gpu_launch.sh: ran under a private MPS daemon (${clients:-0} client connections)" >&2
stop_mps
exit $status
