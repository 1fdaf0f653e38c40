#!/usr/bin/env bash
# Every test: installs what is missing, builds, and runs ctest. Tests labelled gpu are left out when no
# GPU is present (nvidia-smi -L fails); then, on a full run, the sanitizer builds (scripts/run-sanitizers.sh;
# GPUSHMEM_SANITIZERS=0 skips them). Exits non-zero if anything failed. CI runs this (.ci/run).
#
#   scripts/run-tests.sh [extra ctest arguments, e.g. -R pkg or -L unit]
#
# BUILD_DIR and JOBS as for scripts/build.sh; CTEST_JOBS sets the tests run at once (default 2).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}

scripts/install-deps.sh
have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
# Without a GPU, the second builds of the device tests for emulated IBGDA (the same sources with
# GPUSHMEM_DEVICE_IBGDA=1, which only a GPU runs) are left out: CI compiles those sources once, and the IBGDA
# device API through tests/unit/header_alone.
if [ $have_gpu = 1 ]; then
  scripts/build.sh "$build_dir"
else
  scripts/build.sh "$build_dir" -DGPUSHMEM_GPU_IBGDA_TESTS=OFF
fi

ctest_args=(--test-dir "$build_dir" --output-on-failure -j "${CTEST_JOBS:-2}" --no-tests=error)
if [ $have_gpu = 1 ]; then
  echo "run-tests: GPU present: running the gpu tests too"
else
  echo "run-tests: no GPU (nvidia-smi -L failed): leaving out the tests labelled gpu"
  ctest_args+=(-LE gpu)
fi

start=$SECONDS
log=$build_dir/run-tests.log
echo "+ ctest ${ctest_args[*]} $*"
set +e
ctest "${ctest_args[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

echo
echo "==== run-tests summary ($((SECONDS - start)) s, full log: $log) ===="
grep -E "tests passed|tests failed out of|^\s+[0-9]+ - .*\((Failed|Timeout|Not Run|SEGFAULT|Exception|Subprocess aborted)\)" "$log" ||
  echo "(ctest printed no summary)"

# The sanitizer builds (ASan+UBSan, TSan): unit, emu and a pe subset each, on a full run (no ctest arguments
# given). GPUSHMEM_SANITIZERS=0 skips them, =1 runs them in any case.
san_status=0
if [[ ${GPUSHMEM_SANITIZERS:-$(($# == 0))} != 0 ]]; then
  san_start=$SECONDS
  scripts/run-sanitizers.sh || san_status=$?
  echo "run-tests: sanitizer builds took $((SECONDS - san_start)) s"
fi
if ((status != 0)); then
  echo "run-tests: FAILED (ctest exit status $status)"
  exit "$status"
fi
if ((san_status != 0)); then
  echo "run-tests: FAILED (the sanitizer builds; see above)"
  exit "$san_status"
fi
echo "run-tests: all tests passed"
