#!/usr/bin/env bash
# Configures and builds xshmem. Usage: scripts/build.sh [build-dir] [target | -Dcmake-option]...
# example.sh and test.sh configure build/ alike (RelWithDebInfo, warnings are errors), so running
# one after the other rebuilds nothing: example.sh builds only the targets it runs
# (example-deps), test.sh everything else. A -D option (or XSHMEM_CMAKE_ARGS) changes the
# configuration, and a different configuration rebuilds what it changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
options=() targets=()
for a in "$@"; do
  case "$a" in
    -D*) options+=("$a") ;;
    *) targets+=(--target "$a") ;;
  esac
done
# shellcheck disable=SC2086  # XSHMEM_CMAKE_ARGS is a list of words
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXSHMEM_WERROR=ON \
  ${XSHMEM_CMAKE_ARGS:-} "${options[@]}"
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
