#!/usr/bin/env bash
# Every test: installs what is missing, builds, and runs ctest. Tests labelled gpu are left out when no
# GPU is present (nvidia-smi -L fails). Exits non-zero if anything failed. CI runs this (.ci/run).
#
#   scripts/run-tests.sh [extra ctest arguments, e.g. -R pkg or -L unit]
#
# BUILD_DIR and JOBS as for scripts/build.sh; CTEST_JOBS sets the tests run at once (default 2).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}

scripts/install-deps.sh
scripts/build.sh "$build_dir"

ctest_args=(--test-dir "$build_dir" --output-on-failure -j "${CTEST_JOBS:-2}" --no-tests=error)
if nvidia-smi -L >/dev/null 2>&1; then
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
if ((status != 0)); then
  echo "run-tests: FAILED (ctest exit status $status)"
  exit "$status"
fi
echo "run-tests: all tests passed"
