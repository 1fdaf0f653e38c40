#!/usr/bin/env bash
# expand.sh FILE [TABLES_FILE...]: prints the names FILE lists, one per line, sorted, with every {TABLE}
# placeholder expanded (one name per table entry; several placeholders multiply). Tables come from
# "@table NAME entry..." lines in FILE and in the TABLES_FILEs; '#' starts a comment line.
set -euo pipefail
if (($# < 1)); then
  echo "usage: expand.sh FILE [TABLES_FILE...]" >&2
  exit 64
fi
file=$1
shift
awk -v main="$file" '
  FNR == 1 { in_main = (FILENAME == main) }
  /^[ \t]*(#|$)/ { next }
  $1 == "@table" {
    name = $2; n = 0
    for (i = 3; i <= NF; ++i) tab[name, ++n] = $i
    size[name] = n
    next
  }
  in_main { pattern[++np] = $1 }
  function expand(s,    m, name, pre, post, i) {
    if (!match(s, /\{[A-Z_0-9]+\}/)) { print s; return }
    name = substr(s, RSTART + 1, RLENGTH - 2)
    if (!(name in size)) { printf "expand.sh: %s: unknown table {%s} in %s\n", main, name, s > "/dev/stderr"; bad = 1; return }
    pre = substr(s, 1, RSTART - 1); post = substr(s, RSTART + RLENGTH)
    for (i = 1; i <= size[name]; ++i) expand(pre tab[name, i] post)
  }
  END {
    for (p = 1; p <= np; ++p) expand(pattern[p])
    exit bad
  }
' "$@" "$file" | LC_ALL=C sort -u
