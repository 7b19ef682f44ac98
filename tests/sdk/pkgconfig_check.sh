#!/bin/bash
# sdk.pkgconfig: compiles pc_hello.c with `pkg-config --cflags --libs xshmem` against the
# installed prefix (the flags carry an rpath to its libdir) and runs it as 2 PEs with the
# installed xshmem-run, no LD_LIBRARY_PATH; then checks the plugin package's variables.
#
#   pkgconfig_check.sh <pc_hello.c> <prefix> <work dir>
set -u
src=$1 prefix=$2 work=$3
fail() { echo "sdk.pkgconfig: FAIL: $*"; exit 1; }
pcdir=$(ls -d "$prefix"/lib/pkgconfig "$prefix"/lib/*/pkgconfig 2>/dev/null | head -1)
[ -n "$pcdir" ] || fail "no pkgconfig folder under $prefix/lib"
export PKG_CONFIG_PATH=$pcdir
unset LD_LIBRARY_PATH XSHMEM_PLUGIN_PATH
flags=$(pkg-config --cflags --libs xshmem) || fail "pkg-config xshmem failed"
libdir=$(pkg-config --variable=libdir xshmem)
echo "sdk.pkgconfig: pkg-config --cflags --libs xshmem: $flags"
mkdir -p "$work"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror "$src" $flags -o "$work/pc_hello" ||
  fail "cc with pkg-config's flags failed"
readelf -d "$work/pc_hello" | grep -Eq "\((RUNPATH|RPATH)\).*\[(.*:)?$libdir(:.*)?\]" ||
  fail "pc_hello has no RUNPATH to $libdir: $(readelf -d "$work/pc_hello" | grep PATH)"
plugindir=$(pkg-config --variable=plugindir xshmem-plugin)
[ -e "$plugindir/libxshmem_transport_hostshm.so" ] ||
  fail "xshmem-plugin.pc plugindir $plugindir holds no libxshmem_transport_hostshm.so"
[ -z "$(pkg-config --libs xshmem-plugin | tr -d " ")" ] || fail "xshmem-plugin.pc links a library"
XSHMEM_SYMMETRIC_SIZE=16M timeout 60 "$prefix/bin/xshmem-run" -n 2 "$work/pc_hello"
rc=$?
[ $rc = 0 ] || fail "the installed xshmem-run -n 2 pc_hello exited $rc"
echo "sdk.pkgconfig: ok"
