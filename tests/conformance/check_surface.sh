#!/usr/bin/env bash
# check_surface.sh NM LIBRARY DIR ADDRESSES_PROGRAM: ctest conformance.spec_surface.
#   1. DIR/spec_1_5_routines.txt is what expand.sh makes of spec_1_5_families.txt (checked in for people to
#      read and grep; regenerate it with the command printed on a mismatch);
#   2. every pending name (spec_1_5_pending.txt) is a spec name;
#   3. LIBRARY exports (nm -D) every routine of the manifest that is not pending, and its profiling entry
#      point p<name> (pshmem_putmem, pstart_pes, ...);
#   4. ADDRESSES_PROGRAM (gen_addresses.sh: built only if <shmem.h> declares each routine and the library
#      defines it, and the constants are integer constant expressions / handles of the right type) runs and
#      finds every C11 generic name and constant (spec_1_5_constants.txt) that is not pending.
# Pending names that the library exports by now are listed as LANDED (not a failure): delete them from
# spec_1_5_pending.txt.
set -euo pipefail
nm_tool=$1 library=$2 dir=$3 addresses=$4
here=$(dirname "${BASH_SOURCE[0]}")
me=conformance.spec_surface
tables=("$dir/spec_1_5_families.txt" "$dir/spec_1_5_generics.txt")
fail=0

expected=$("$here/expand.sh" "$dir/spec_1_5_families.txt")
if ! diff -u "$dir/spec_1_5_routines.txt" <(echo "$expected") >/tmp/$me.$$.diff; then
  cat /tmp/$me.$$.diff | head -40
  echo "$me: FAILED: spec_1_5_routines.txt is not the expansion of spec_1_5_families.txt; regenerate it:"
  echo "  $dir/expand.sh $dir/spec_1_5_families.txt > $dir/spec_1_5_routines.txt"
  fail=1
fi
rm -f /tmp/$me.$$.diff
generics=$("$here/expand.sh" "$dir/spec_1_5_generics.txt")
pending=$("$here/expand.sh" "$dir/spec_1_5_pending.txt" "${tables[@]}")
constants=$(grep -v -E '^[[:space:]]*(#|$)' "$dir/spec_1_5_constants.txt" | awk '{ print $1 }')
not_spec=$(LC_ALL=C comm -23 <(echo "$pending") <(printf '%s\n%s\n%s\n' "$expected" "$generics" "$constants" |
  LC_ALL=C sort -u))
if [[ -n $not_spec ]]; then
  echo "$me: FAILED: spec_1_5_pending.txt lists names that are in none of spec_1_5_families.txt,"
  echo "spec_1_5_generics.txt and spec_1_5_constants.txt:"
  sed 's/^/  /' <<<"$not_spec"
  fail=1
fi

exports=$("$nm_tool" -D --defined-only "$library" | awk 'NF >= 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' |
  LC_ALL=C sort -u)
required=$(LC_ALL=C comm -23 <(echo "$expected") <(echo "$pending"))
missing=$(LC_ALL=C comm -23 <(echo "$required") <(echo "$exports"))
landed=$(LC_ALL=C comm -12 <(LC_ALL=C comm -12 <(echo "$pending") <(echo "$expected")) <(echo "$exports"))
n_spec=$(grep -c . <<<"$expected")
n_required=$(grep -c . <<<"$required" || true)
n_pending=$(grep -c . <<<"$pending" || true)
if [[ -n $missing ]]; then
  echo "$me: FAILED: $library does not export these OpenSHMEM 1.5 routines (and they are not pending):"
  sed 's/^/  /' <<<"$missing"
  fail=1
fi
# The profiling interface: every required routine also as p<name> (pshmem_putmem, pstart_pes, ...).
missing_p=$(LC_ALL=C comm -23 <(sed 's/^/p/' <<<"$required" | LC_ALL=C sort) <(echo "$exports"))
if [[ -n $missing_p ]]; then
  echo "$me: FAILED: $library does not export these profiling entry points (p + routine name):"
  sed 's/^/  /' <<<"$missing_p" | head -40
  fail=1
fi
if [[ -n $landed ]]; then
  echo "$me: LANDED: these pending routines are exported now: delete them from spec_1_5_pending.txt:"
  sed 's/^/  /' <<<"$landed"
fi
echo "$me: $n_spec routines in the 1.5 manifest, $n_required required and exported-checked (with their pshmem_ forms), $n_pending pending" \
  "names ($(grep -c . <<<"$landed" || true) of them landed)"
if [[ $n_pending -gt 0 ]]; then
  echo "$me: pending, by family:"
  sed -E 's/_(float|double|longdouble|char|schar|short|int|long|longlong|uchar|ushort|uint|ulong|ulonglong|int8|int16|int32|int64|uint8|uint16|uint32|uint64|size|ptrdiff|complexd|complexf)_/_TYPE_/; s/(put|get|alltoalls?|broadcast|collect|fcollect)(8|16|32|64|128)/\1SIZE/' \
    <<<"$pending" | LC_ALL=C sort | uniq -c | awk '{ printf "  %4d %s\n", $1, $2 }'
fi
if ! "$addresses"; then
  echo "$me: FAILED: $addresses (see above)"
  fail=1
fi
if ((fail)); then exit 1; fi
echo "$me: PASS"
