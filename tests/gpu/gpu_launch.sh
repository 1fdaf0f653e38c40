#!/bin/sh
# gpu_launch.sh <gpu_probe> <pe_launch.sh> [pe_launch.sh arguments...]
# Runs a GPU test through pe_launch.sh, but first asks gpu_probe whether this machine has a usable GPU:
# without one the test exits 77, which ctest reports as skipped (SKIP_RETURN_CODE 77), instead of every PE
# failing in its own way.
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
exec "$@"
