#!/usr/bin/env bash
# no_wrapper.sh NVCC OUTDIR SOURCE... -- NVCC-FLAGS...: compiles each NVSHMEM-style program to PTX
# (the code the GPU runs, before ptxas) and checks that no function of an NVSHMEM name is left
# in it: every nvshmem_/nvshmemx_ forward of <nvshmem.h> is inlined into the kernels, so the data
# path has no extra call or frame. Prints the kernels, the device functions and the calls found;
# exits 1 on a wrapper or a program without kernels.
set -u
nvcc=$1 out=$2
shift 2
srcs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do srcs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
rc=0
for src in "${srcs[@]}"; do
  name=$(basename "$src" .cu)
  ptx=$out/$name.ptx
  if ! "$nvcc" "$@" -ptx "$src" -o "$ptx"; then
    echo "no_wrapper: $name: nvcc -ptx failed"
    rc=1
    continue
  fi
  entries=$(grep -c "^\.visible \.entry\|^\.entry" "$ptx")
  funcs=$(grep -cE "^(\.visible |\.weak |)\.func" "$ptx")
  calls=$(grep -cE "^\s+call(\.uni)?\s" "$ptx")
  wrappers=$(grep -E "^(\.visible |\.weak |)\.func" "$ptx" | grep -i "nvshmem" | head -5)
  called=$(grep -E "^\s+call" -A1 "$ptx" | grep -i "nvshmem" | head -5)
  echo "no_wrapper: $name: $entries kernels, $funcs device functions, $calls calls"
  if [ "$entries" -eq 0 ]; then
    echo "no_wrapper: $name: no kernel in the PTX"
    rc=1
  fi
  if [ -n "$wrappers$called" ]; then
    echo "no_wrapper: $name: functions of NVSHMEM names in the device code: $wrappers $called"
    rc=1
  fi
done
exit $rc
