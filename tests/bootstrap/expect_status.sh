#!/bin/sh
# expect_status.sh STATUS COMMAND [ARGS...]
# Runs COMMAND and succeeds only if it exits with STATUS (used to check that a bootstrap plugin's abort
# ends the whole job with the status it was given).
if [ $# -lt 2 ]; then
  echo "usage: expect_status.sh STATUS COMMAND [ARGS...]" >&2
  exit 64
fi
expected=$1
shift
"$@"
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "expect_status.sh: FAILED: '$*' exited with status $status, expected $expected" >&2
  exit 1
fi
echo "expect_status.sh: '$*' exited with status $expected as expected"
exit 0
