#!/bin/bash
# sdk.example.build: configures and builds plugins/example out of tree against the installed
# prefix only, in a fresh build folder, and checks the plugin it makes.
#
#   example_build.sh <example source> <prefix> <example build dir> <xshmem source tree>
set -u
src=$1 prefix=$2 bdir=$3 tree=$4
fail() { echo "sdk.example.build: FAIL: $*"; exit 1; }
rm -rf "$bdir"
start=$(date +%s)
"${CMAKE:-cmake}" -S "$src" -B "$bdir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS=-Werror >"$bdir.log" 2>&1 || { cat "$bdir.log"; fail "configure failed"; }
"${CMAKE:-cmake}" --build "$bdir" >>"$bdir.log" 2>&1 || { cat "$bdir.log"; fail "build failed"; }
echo "sdk.example.build: configured and built in $(($(date +%s) - start)) s"
so=$bdir/libxshmem_transport_example.so
[ -e "$so" ] || fail "$so was not built"
grep -q "xshmem_DIR:PATH=$prefix" "$bdir/CMakeCache.txt" ||
  fail "find_package(xshmem) did not take the package from $prefix: $(grep xshmem_DIR "$bdir/CMakeCache.txt")"
# The compile used the installed headers only.
if grep -rq -e "$tree/plugins/include" -e "$tree/core/include" "$bdir/CMakeFiles"; then
  fail "the build names the source tree's include folders"
fi
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^_' | sort | tr '\n' ' ')
[ "$syms" = "xshmem_transport_plugin_v1 " ] || fail "exports '$syms', expected only xshmem_transport_plugin_v1"
if readelf -d "$so" | grep -q 'NEEDED.*libxshmem'; then fail "links libxshmem"; fi
echo "sdk.example.build: $so exports $syms"
