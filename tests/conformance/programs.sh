#!/usr/bin/env bash
# programs.sh: the conformance programs (programs/*.c) as a user builds and runs them: installed
# gpushmemcc, then mpirun or the installed gpushmemrun. Two commands, one per ctest:
#
#   programs.sh build BUILD_DIR WORK_DIR SRC_DIR NAME...   (fixture conformance.programs.build)
#       cmake --install BUILD_DIR into WORK_DIR/prefix, then WORK_DIR/prefix/bin/gpushmemcc -std=c11 -Wall
#       -Wextra -Werror SRC_DIR/NAME.c -o WORK_DIR/bin/NAME for each NAME (NAME.cpp: gpushmemc++ -std=c++17)
#   programs.sh run WORK_DIR MPIRUN LAUNCHER NP NAME        (conformance.program.NAME.LAUNCHER.npNP)
#       LAUNCHER mpi: MPIRUN -np NP (the library detects the launcher, as for a user); tcp: the installed
#       gpushmemrun -n NP. Passes if the job exits 0 and prints "NAME: PASS".
set -uo pipefail
me=programs.sh
mode=${1:-}
case $mode in
  build)
    build=$2 work=$3 src=$4
    shift 4
    rm -rf "$work"
    mkdir -p "$work/bin"
    echo "$me: cmake --install $build --prefix $work/prefix"
    cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || {
      cat "$work/install.log"
      echo "$me: FAILED: cmake --install"
      exit 1
    }
    for name in "$@"; do
      if [[ -f $src/$name.cpp ]]; then
        cmd=("$work/prefix/bin/gpushmemc++" -std=c++17 -Wall -Wextra -Werror "$src/$name.cpp" -o "$work/bin/$name")
      else
        cmd=("$work/prefix/bin/gpushmemcc" -std=c11 -Wall -Wextra -Werror "$src/$name.c" -o "$work/bin/$name")
      fi
      echo "$me: ${cmd[*]}"
      "${cmd[@]}" || {
        echo "$me: FAILED: $name.c does not build with the installed gpushmemcc"
        exit 1
      }
    done
    echo "$me: built $# program(s) with the installed gpushmemcc"
    ;;
  run)
    work=$2 mpirun=$3 launcher=$4 np=$5 name=$6
    vhosts=${7:-0} # >0: the PEs spread over that many virtual hosts by the installed gpushmem-vhost
    program=$work/bin/$name
    [[ -x $program ]] || { echo "$me: FAILED: $program is missing (did conformance.programs.build pass?)"; exit 1; }
    # A user's environment: nothing points at the build tree.
    unset GPUSHMEM_BOOTSTRAP GPUSHMEM_BOOTSTRAP_PLUGIN_DIR LD_LIBRARY_PATH
    export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M} GPUSHMEM_HANG_WARN=${GPUSHMEM_HANG_WARN:-5}
    export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo} # network traffic of tests stays on the loopback interface
    wrap=()
    [[ $vhosts -gt 0 ]] && wrap=("$work/prefix/bin/gpushmem-vhost" --hosts "$vhosts" --)
    case $launcher in
      mpi)
        [[ -n $mpirun ]] || { echo "$me: SKIP: no mpirun in this build"; exit 77; }
        cmd=("$mpirun")
        [[ $(id -u) -eq 0 ]] && cmd+=(--allow-run-as-root)
        [[ $np -gt $(nproc) ]] && cmd+=(--oversubscribe)
        cmd+=(-np "$np" "${wrap[@]}" "$program")
        ;;
      tcp) cmd=("$work/prefix/bin/gpushmemrun" -n "$np" "${wrap[@]}" "$program") ;;
      *) echo "$me: unknown launcher $launcher"; exit 64 ;;
    esac
    echo "$me: ${cmd[*]}"
    out=$(timeout -k 5 100 "${cmd[@]}" 2>&1)
    status=$?
    echo "$out"
    if [[ $status -ne 0 ]]; then
      echo "$me: FAILED: $name under $launcher with $np PEs exited with status $status"
      exit 1
    fi
    if ! grep -q "^$name: PASS on $np PEs" <<<"$out"; then
      echo "$me: FAILED: $name under $launcher with $np PEs did not print '$name: PASS on $np PEs'"
      exit 1
    fi
    ;;
  *)
    sed -n '2,13p' "$0" >&2
    exit 64
    ;;
esac
