#!/bin/bash
# unit.exports: libxshmem.so exports its API only (core/xshmem.map): xshmem_*, xshmemx_*,
# xshmemi_* (the host side of the device API) and pxshmem_*; no C++ symbol (_Z*) but API functions
# of C++ linkage in the global namespace (xshmemx_device_handle() returns the device state, a C++
# type), so nothing of xshmem:: or of the C++ library leaks; and the API is all there (a sample).
# $1 = libxshmem.so
set -u
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $NF}') || { echo "FAIL: nm -D $lib"; exit 1; }
total=$(wc -l <<<"$syms")
# _init and _fini are the ELF start and end routines, in every shared library's dynamic table.
bad=$(grep -vE '^(xshmem_|xshmemx_|xshmemi_|pxshmem_|_Z)' <<<"$syms" | grep -vxE '_init|_fini')
fail=0
if [ -n "$bad" ]; then
  echo "FAIL: $(wc -l <<<"$bad") exported symbol(s) outside the API, first ones:"
  head -20 <<<"$bad"
  fail=1
fi
cxx=$(grep '^_Z' <<<"$syms" | c++filt | grep -vE '^(xshmem_|xshmemx_|xshmemi_)[a-z0-9_]*\(')
if [ -n "$cxx" ]; then
  echo "FAIL: $(wc -l <<<"$cxx") C++ symbol(s) exported outside the API, first ones:"
  head -10 <<<"$cxx"
  fail=1
fi
for api in xshmem_init xshmem_finalize xshmem_malloc xshmem_putmem xshmem_quiet \
           xshmem_barrier_all xshmem_init_attr xshmemi_register_device_state_sink \
           _Z21xshmemx_device_handlev; do
  if ! grep -qx "$api" <<<"$syms"; then
    echo "FAIL: $api is not exported"
    fail=1
  fi
done
[ $fail = 0 ] && echo "PASS: $total exported symbols, all of the API"
exit $fail
