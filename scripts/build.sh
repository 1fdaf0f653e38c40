#!/usr/bin/env bash
# Configures and builds gpushmem.
#
#   scripts/build.sh [build-dir] [extra cmake configure arguments...]
#
# build-dir defaults to $BUILD_DIR, else build/ (relative paths are taken from the repository root).
# JOBS sets the parallel build jobs (default: every core). The build is RelWithDebInfo with warnings as
# errors; nvcc at /usr/local/cuda/bin/nvcc is used when it exists (CMake detects other CUDA installs).
# An existing build folder is reconfigured with the same settings, so running this again is cheap.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
if (($#)) && [[ $1 != -* ]]; then
  build_dir=$1
  shift
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSHMEM_WERROR=ON)
# Only on the first configure: changing the CUDA compiler of an existing cache makes CMake wipe it.
if [[ ! -f $build_dir/CMakeCache.txt && -x /usr/local/cuda/bin/nvcc ]]; then
  args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi

start=$SECONDS
args+=("$@")
echo "+ cmake ${args[*]}"
cmake "${args[@]}"
echo "+ cmake --build $build_dir -j $jobs"
cmake --build "$build_dir" -j "$jobs"
echo "build: $build_dir built in $((SECONDS - start)) s"
