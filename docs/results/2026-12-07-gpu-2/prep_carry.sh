#!/bin/bash
# Packs a build made on this (CPU) machine for the GPU machine: prep_carry.sh BUILD_DIR [OUT_TAR]
# (default .deps/build.tar.xz). A build of every target for sm_90 made here costs no device time, where the vhost
# and ibgda targets alone took 509 s of the H200's 16 cores (2026-12-07). The build directory keeps its absolute
# paths (CTest files, rpaths), so the device side links the same path to its copy of the tree (on_device.sh).
# Object files, static libraries and CMake's own files stay behind; the programs lose their debug information
# (libgpushmem keeps it, for the watchdog's stack frames), and xz makes the whole about 10-30 MiB.
set -eu
b=$(cd "$1" && pwd); out=${2:-.deps/build.tar.xz}
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$(basename "$b")"
tar -C "$b" -cf - --exclude=CMakeFiles --exclude='*.a' --exclude='*.o' --exclude=Testing . | tar -C "$stage/$(basename "$b")" -xf -
for f in "$stage/$(basename "$b")"/bin/*; do
  file "$f" | grep -q ELF && strip --strip-debug "$f"
done
echo "$b" > "$stage/BUILD_PATH"
tar -cJf "$out" -C "$stage" .
ls -la "$out"
