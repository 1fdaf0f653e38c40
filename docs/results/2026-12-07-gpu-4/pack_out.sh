#!/bin/bash
# Packs everything under $OUT but summary.txt and *.log into logs.tgz (a call brings back at most 8 files).
cd "${OUT:?}" || exit 1
files=$(ls -A | grep -vE '^(summary\.txt|.*\.log|logs\.tgz)$')
[ -n "$files" ] && tar -czf logs.tgz $files && rm -rf $files
ls -la
