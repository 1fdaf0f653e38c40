#!/bin/bash
# The GPU machine's side of a carried build (prep_carry.sh): on_device.sh COMMAND... unpacks the build where it was
# made (linking that path's source directory to the tree here when they differ) and runs COMMAND there with B set to
# the build, e.g. on_device.sh bash docs/results/2026-12-06-gpu-proxy-2/call8.sh vhost.
set -u
tarball=${TARBALL:-.deps/build.tar.xz}
root=$PWD
stage=/tmp/carried; rm -rf $stage; mkdir -p $stage; tar -xJf "$tarball" -C $stage || exit 1
path=$(cat $stage/BUILD_PATH); src=$(dirname "$path")
if [ "$src" != "$root" ]; then mkdir -p "$(dirname "$src")"; rm -rf "$src"; ln -sfn "$root" "$src"; fi
rm -rf "$path"; mv "$stage/$(basename "$path")" "$path"
cd "$src" && B=$path exec "$@"
