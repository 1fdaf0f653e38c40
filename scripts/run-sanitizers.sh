#!/usr/bin/env bash
# The sanitizer builds: AddressSanitizer + UndefinedBehaviorSanitizer (preset asan) and ThreadSanitizer
# (preset tsan), each without CUDA, perftest and examples (to keep them fast), running the unit and emu labels
# and a subset of the pe label. scripts/run-tests.sh runs this after the main tests (so CI does);
# GPUSHMEM_SANITIZERS=0 skips it there.
#
#   scripts/run-sanitizers.sh [asan] [tsan]      (default: both)
#
# The pe subset (SANITIZER_PE_REGEX_<KIND> overrides it):
#   asan: every pe test under gpushmemrun (the tcp bootstrap) on one node with 1, 2 or 4 PEs (3-PE runs take the
#         same paths as 4-PE ones: left to the main build, to keep CI under 45 minutes), and its 2-PE run under
#         mpirun over two virtual hosts with UCX over TCP (the network paths);
#   tsan: every pe test of 1 or 2 PEs under gpushmemrun on one node (what TSan checks is the threads of one
#         process, which more PEs do not add to), but the argument checks that end the job before any thread
#         works (pe.errors, bad_input, coll_errors, env_bad: ASan runs them). Open MPI's and UCX's own threads
#         are not instrumented and are not run under TSan here.
# SANITIZER_PE_EXCLUDE_<KIND> overrides what is left out of it (asan: nothing). Suppressions, each with its reason: tests/sanitizers/*.supp. JOBS and CTEST_JOBS as for run-tests.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
kinds=("$@")
((${#kinds[@]})) || kinds=(asan tsan)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

pe_regex_asan='\.tcp\.np[124]|pe\.launcher\.|pe\.uniqueid\.|\.mpi-vh2tcp\.np2'
pe_regex_tsan='\.tcp\.np[12]|pe\.launcher\.|pe\.uniqueid\.'
pe_exclude_asan='^$'
pe_exclude_tsan='^pe\.(errors|bad_input|coll_errors|env_bad)\.'

status=0
summary=()
for kind in "${kinds[@]}"; do
  case $kind in
  asan | tsan) ;;
  *)
    echo "run-sanitizers: unknown kind '$kind' (asan or tsan)" >&2
    exit 2
    ;;
  esac
  start=$SECONDS
  dir=build-$kind
  regex_var=SANITIZER_PE_REGEX_${kind^^}
  default_regex_var=pe_regex_$kind
  regex=${!regex_var:-${!default_regex_var}}
  exclude_var=SANITIZER_PE_EXCLUDE_${kind^^}
  default_exclude_var=pe_exclude_$kind
  exclude=${!exclude_var:-${!default_exclude_var}}
  echo "==== run-sanitizers: $kind (build $dir) ===="
  mkdir -p "$dir"
  cmake --preset "$kind" -DGPUSHMEM_WITH_CUDA=OFF -DGPUSHMEM_BUILD_PERFTEST=OFF -DGPUSHMEM_BUILD_EXAMPLES=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir/configure.log" 2>&1 || {
    cat "$dir/configure.log"
    exit 1
  }
  cmake --build "$dir" -j "$jobs"
  built=$((SECONDS - start))
  log=$dir/run-sanitizers.log
  full=$dir/run-sanitizers.full.log # every test's whole output (ctest's LastTest.log of each run)
  set +e
  ctest --preset "$kind" -j "${CTEST_JOBS:-2}" -L 'unit|emu' 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  cat "$dir/Testing/Temporary/LastTest.log" >"$full" 2>/dev/null
  ctest --preset "$kind" -j "${CTEST_JOBS:-2}" -L pe -LE emu -R "$regex" -E "$exclude" 2>&1 | tee -a "$log"
  rc=$((rc | PIPESTATUS[0]))
  cat "$dir/Testing/Temporary/LastTest.log" >>"$full" 2>/dev/null
  set -e
  # A report that did not fail its test (a sanitizer in a process whose status the test ignores, or in a test
  # that expects a non-zero status) still counts: the full output of every test is searched.
  pattern='^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|SUMMARY: (Address|Undefined|Thread)Sanitizer)|runtime error: '
  reports=$(grep -cE "$pattern" "$full" || true)
  if ((reports != 0)); then
    echo "run-sanitizers: $kind: sanitizer reports in $full:"
    grep -E "$pattern" "$full" | sort | uniq -c | sort -rn | head -20
  fi
  passed=$(grep -Eo '[0-9]+% tests passed.*' "$log" | paste -sd';' - || true)
  line="$kind: build $built s, tests $((SECONDS - start - built)) s, unit+emu / pe: $passed; sanitizer report lines: $reports"
  summary+=("$line")
  if ((rc != 0 || reports != 0)); then status=1; fi
done

echo
echo "==== run-sanitizers summary ===="
printf '%s\n' "${summary[@]}"
if ((status != 0)); then
  echo "run-sanitizers: FAILED (see build-<kind>/run-sanitizers.log and run-sanitizers.full.log)"
  exit 1
fi
echo "run-sanitizers: all passed, no reports"
