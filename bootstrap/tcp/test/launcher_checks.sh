#!/bin/sh
# Checks of gpushmemrun that need more than one command.
# usage: launcher_checks.sh env|signal|orphans|escalate GPUSHMEMRUN
what=$1 run=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "launcher_checks $what: FAILED: $*"; exit 1; }

case $what in
env)
  # Every rank sees its rank, the size and one id; only rank 0 gets the listening socket, and it is open.
  "$run" -n 3 sh -c 'echo "$GPUSHMEMRUN_RANK $GPUSHMEMRUN_SIZE $GPUSHMEMRUN_UNIQUEID fd=$GPUSHMEMRUN_LISTEN_FD" \
      > "$0/rank$GPUSHMEMRUN_RANK"; [ -z "$GPUSHMEMRUN_LISTEN_FD" ] || [ -e /proc/self/fd/$GPUSHMEMRUN_LISTEN_FD ]' \
      "$tmp" || fail "a rank failed"
  cat "$tmp"/rank*
  for r in 0 1 2; do grep -Eq "^$r 3 gpushmem-tcp1://127\.0\.0\.1:[0-9]+/[0-9a-f]{16} " "$tmp/rank$r" || fail "rank $r"; done
  grep -Eq 'fd=[0-9]+$' "$tmp/rank0" || fail "rank 0 has no GPUSHMEMRUN_LISTEN_FD"
  grep -Eq 'fd=$' "$tmp/rank1" || fail "rank 1 has GPUSHMEMRUN_LISTEN_FD"
  [ "$(cut -d' ' -f3 "$tmp"/rank* | sort -u | wc -l)" -eq 1 ] || fail "ranks got different ids"
  ;;
signal)
  # SIGTERM to the launcher reaches every rank; the launcher reports it and exits 128+15.
  "$run" -n 2 sleep 30 &
  pid=$!
  sleep 0.5
  kill -TERM $pid
  wait $pid
  st=$?
  [ $st -eq 143 ] || fail "exit status $st, want 143"
  ;;
orphans)
  # A launcher killed outright takes its ranks with it.
  "$run" -n 2 sh -c 'echo $$ > "$0/pid$GPUSHMEMRUN_RANK"; exec sleep 30' "$tmp" &
  pid=$!
  for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$tmp/pid1" ] && [ -s "$tmp/pid0" ] && break; sleep 0.2; done
  kill -KILL $pid
  wait $pid
  sleep 0.5
  for r in 0 1; do
    p=$(cat "$tmp/pid$r")
    [ -n "$p" ] || fail "rank $r did not start"
    # gone, or a zombie nobody reaps (a container's init may not)
    state=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
    [ -z "$state" ] || [ "$state" = Z ] || { kill -KILL "$p"; fail "rank $r (pid $p) outlived a killed launcher"; }
  done
  ;;
escalate)
  # A rank that ignores SIGTERM is killed 5 s after another rank failed; the first failure sets the status.
  # Rank 0 fails only once rank 1 ignores SIGTERM (ignoring survives exec).
  out=$("$run" -n 2 sh -c 'if [ "$GPUSHMEMRUN_RANK" = 0 ]; then
      while [ ! -e "$0/ready" ]; do sleep 0.05; done; exit 3; fi
      trap "" TERM; touch "$0/ready"; exec sleep 30' "$tmp" 2>&1)
  st=$?
  echo "$out"
  [ $st -eq 3 ] || fail "exit status $st, want 3"
  echo "$out" | grep -q "sending SIGKILL" || fail "no SIGKILL message"
  ;;
*)
  fail "unknown check"
  ;;
esac
echo "launcher_checks $what: ok"
