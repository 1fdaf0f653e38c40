#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the ring example (examples/ring.c) on 4 PEs
# under mpirun. Each PE passes a value around the ring and reports what it received; the last line says
# whether every PE got what it should.
#
#   scripts/run-example.sh        (BUILD_DIR, JOBS as for scripts/build.sh; NP to change the PE count)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
np=${NP:-4}

scripts/install-deps.sh
scripts/build.sh "$build_dir"

program=$build_dir/bin/ring
if [[ ! -x $program ]]; then
  echo "run-example: $program was not built (is GPUSHMEM_BUILD_EXAMPLES off?)" >&2
  exit 1
fi

launcher=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  # Open MPI refuses root without this flag, and more PEs than cores (its slots) without the other.
  if [[ $(id -u) == 0 ]]; then launcher+=(--allow-run-as-root); fi
  cores=$(lscpu -p=Core,Socket 2>/dev/null | grep -v '^#' | sort -u | wc -l)
  cpus=$(nproc 2>/dev/null || echo 1)
  if ((cores == 0 || cpus < cores)); then cores=$cpus; fi
  if ((cores < np)); then launcher+=(--oversubscribe); fi
fi

echo "+ ${launcher[*]} -np $np $program"
exec "${launcher[@]}" -np "$np" "$program"
