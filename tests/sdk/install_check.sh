#!/bin/bash
# sdk.install: installs the build into a fresh prefix and checks the layout the SDK promises
# (README "Installing"; cmake/xshmem_install.cmake), then that the installed tools run with no
# LD_LIBRARY_PATH and find the installed plugins.
#
#   install_check.sh <build dir> <prefix>
set -u
build=$1 prefix=$2
fail() { echo "sdk.install: FAIL: $*"; exit 1; }
rm -rf "$prefix"
"${CMAKE:-cmake}" --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 ||
  { cat "$prefix.log"; fail "cmake --install $build --prefix $prefix failed"; }
echo "sdk.install: installed $(grep -c 'Installing:' "$prefix.log") files into $prefix"
libdir=$(ls -d "$prefix"/lib "$prefix"/lib/*-linux-gnu 2>/dev/null | while read -r d; do
  [ -e "$d/libxshmem.so" ] && echo "$d"; done | head -1)
[ -n "$libdir" ] || fail "no libxshmem.so under $prefix/lib"
for f in include/xshmem/xshmem.h include/xshmem/xshmemx.h include/xshmem/types.h \
         include/shmem.h include/shmemx.h include/pshmem.h include/xshmem/compat_api.h \
         include/nvshmem.h include/nvshmemx.h \
         include/xshmem/device/state.h include/xshmem/device/proxy.h include/xshmem/device/proxy_ring.h \
         include/xshmem/plugin/transport_v1.h include/xshmem/plugin/services_v1.h \
         include/xshmem/plugin/bootstrap_v1.h include/xshmem/plugin/common.h \
         bin/xshmem-run bin/xshmem-info bin/xshmem-perf bin/xshmem-cc bin/xshmem-c++; do
  [ -e "$prefix/$f" ] || fail "$prefix/$f is missing"
done
for f in libxshmem.so xshmem/libxshmem_transport_hostshm.so xshmem/libxshmem_bootstrap_tcp.so \
         cmake/xshmem/xshmemConfig.cmake cmake/xshmem/xshmemConfigVersion.cmake \
         pkgconfig/xshmem.pc pkgconfig/xshmem-plugin.pc; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f is missing"
done
# No header of the SDK may include a header that is not installed.
for h in "$prefix"/include/*.h "$prefix"/include/xshmem/*.h "$prefix"/include/xshmem/*/*.h; do
  grep -ho '#include <xshmem/[^>]*>' "$h" | sed 's/#include <\(.*\)>/\1/' | while read -r inc; do
    [ -e "$prefix/include/$inc" ] || echo "missing $inc (included by $h)"
  done
done | grep . && fail "an installed header includes a header that is not installed"
# An OpenSHMEM program compiles against the prefix alone (#include <shmem.h>, C11 and C++).
printf '#include <shmem.h>\n#include <pshmem.h>\n#include <shmemx.h>\nint main(void) { shmem_init(); long x = 0; shmem_p(&x, 1L, 0); pshmem_finalize(); return 0; }\n' >"$prefix.shmem.c"
cp "$prefix.shmem.c" "$prefix.shmem.cc"
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$prefix.shmem.c" ||
  fail "a C11 program with #include <shmem.h> does not compile against $prefix/include"
"${CXX:-c++}" -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$prefix.shmem.cc" ||
  fail "a C++ program with #include <shmem.h> does not compile against $prefix/include"
echo "sdk.install: shmem.h, pshmem.h, shmemx.h compile from the prefix (C11, C++)"
# The tools run from the prefix alone: RUNPATH, not LD_LIBRARY_PATH.
for t in xshmem-run xshmem-info xshmem-perf; do
  rp=$(readelf -d "$prefix/bin/$t" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p;s/.*(RPATH).*\[\(.*\)\]/\1/p')
  case "$rp" in *'$ORIGIN'*) ;; *) fail "$prefix/bin/$t has RUNPATH '$rp', expected \$ORIGIN/..." ;; esac
  echo "sdk.install: $t RUNPATH $rp"
done
out=$(cd / && env -u LD_LIBRARY_PATH -u XSHMEM_PLUGIN_PATH "$prefix/bin/xshmem-info" 2>&1)
echo "$out" | grep -E '^ *(loaded|transports:) ' | head -8
found=$(echo "$out" | sed -n 's/^ *loaded *transport *hostshm *//p' | head -1)
[ -n "$found" ] && [ "$(realpath "$found")" = "$(realpath "$libdir/xshmem/libxshmem_transport_hostshm.so")" ] ||
  fail "the installed xshmem-info loaded hostshm from '$found', not from $libdir/xshmem"
# The package files and the compiler wrappers point into the prefix, not the build or source tree.
if grep -rl -e "$build" "$libdir/cmake/xshmem" "$libdir/pkgconfig" "$prefix/bin/xshmem-cc" \
    "$prefix/bin/xshmem-c++"; then
  fail "the package files above name the build tree $build"
fi
echo "sdk.install: ok"
