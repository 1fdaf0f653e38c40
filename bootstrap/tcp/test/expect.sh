#!/bin/sh
# Runs a command and checks its exit status, that it ended in time and that its output matches a pattern.
# usage: expect.sh STATUS MAX_SECONDS REGEX command [args...]     (REGEX "" skips the output check)
want=$1 max=$2 regex=$3
shift 3
out=$(mktemp) || exit 1
start=$(date +%s%N)
"$@" >"$out" 2>&1
got=$?
end=$(date +%s%N)
cat "$out"
ms=$(((end - start) / 1000000))
fail=0
[ "$got" -eq "$want" ] || { echo "expect.sh: exit status $got, want $want"; fail=1; }
[ "$ms" -le $((max * 1000)) ] || { echo "expect.sh: took $ms ms, limit $max s"; fail=1; }
if [ -n "$regex" ] && ! grep -Eq -e "$regex" "$out"; then
  echo "expect.sh: the output does not match /$regex/"
  fail=1
fi
rm -f "$out"
[ $fail -eq 0 ] && echo "expect.sh: ok (status $got after $ms ms)"
exit $fail
