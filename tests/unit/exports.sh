#!/bin/bash
# unit.exports: libxshmem.so exports its API only (core/xshmem.map): xshmem_*, xshmemx_*,
# xshmemi_* (the host side of the device API), pxshmem_*, and the OpenSHMEM names shmem_* and
# pshmem_* (<shmem.h>, <pshmem.h>: aliases of xshmem_*, same address); no C++ symbol (_Z*) but API functions
# of C++ linkage in the global namespace (xshmemx_device_handle() returns the device state, a C++
# type) and the two classes of <xshmem/bindings.h> (xshmem::check_error with its typeinfo and
# vtable, xshmem::checks_throw), so nothing else of xshmem:: or of the C++ library leaks; and the
# API is all there (a sample).
# $1 = libxshmem.so
set -u
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $NF}') || { echo "FAIL: nm -D $lib"; exit 1; }
total=$(wc -l <<<"$syms")
# _init and _fini are the ELF start and end routines, in every shared library's dynamic table.
# The deprecated OpenSHMEM names outside the shmem_ prefix (xshmem/compat_deprecated.h) are listed.
bad=$(grep -vE '^(xshmem_|xshmemx_|xshmemi_|pxshmem_|shmem_|pshmem_|_Z)' <<<"$syms" |
  grep -vxE '_init|_fini|p?(_my_pe|_num_pes|start_pes|shmalloc|shfree|shrealloc|shmemalign)')
fail=0
if [ -n "$bad" ]; then
  echo "FAIL: $(wc -l <<<"$bad") exported symbol(s) outside the API, first ones:"
  head -20 <<<"$bad"
  fail=1
fi
cxx=$(grep '^_Z' <<<"$syms" | c++filt | grep -vE '^(xshmem_|xshmemx_|xshmemi_)[a-z0-9_]*\(' |
  grep -vE '^((typeinfo|typeinfo name|vtable) for )?xshmem::(check_error|checks_throw)(::|$)')
if [ -n "$cxx" ]; then
  echo "FAIL: $(wc -l <<<"$cxx") C++ symbol(s) exported outside the API, first ones:"
  head -10 <<<"$cxx"
  fail=1
fi
for api in xshmem_init xshmem_finalize xshmem_malloc xshmem_putmem xshmem_quiet \
           xshmem_barrier_all xshmem_init_attr xshmemi_register_device_state_sink \
           _Z21xshmemx_device_handlev _ZTIN6xshmem11check_errorE; do
  if ! grep -qx "$api" <<<"$syms"; then
    echo "FAIL: $api is not exported"
    fail=1
  fi
done
# The OpenSHMEM names: shmem_X and pshmem_X come in pairs, and an alias is at its xshmem_X's
# address (a sample: RMA, AMO, signal, wait, collective, context, setup).
addr() { nm -D --defined-only "$lib" | awk -v s="$1" '$3 == s {print $1}'; }
nshmem=$(grep -c '^shmem_' <<<"$syms")
npshmem=$(grep -c '^pshmem_' <<<"$syms")
if [ "$nshmem" -lt 1500 ] || [ "$nshmem" != "$npshmem" ]; then
  echo "FAIL: $nshmem shmem_ and $npshmem pshmem_ symbols (expected the same number, >= 1500)"
  fail=1
fi
for api in init long_p long_put int_atomic_fetch_add uint64_atomic_fetch_xor_nbi putmem_signal \
           long_wait_until_any_vector int_sum_reduce ctx_double_get_nbi team_split_2d barrier_all; do
  want=$(addr "xshmem_$api")
  for name in "shmem_$api" "pshmem_$api"; do
    got=$(addr "$name")
    if [ -z "$want" ] || [ "$got" != "$want" ]; then
      echo "FAIL: $name is at '${got}', xshmem_$api at '${want}' (expected one address)"
      fail=1
    fi
  done
done
[ $fail = 0 ] && echo "PASS: $total exported symbols, all of the API ($nshmem shmem_ aliases)"
exit $fail
