#!/usr/bin/env bash
# Session 12, device calls: (1) host and device fetch_add latency over libfabric (shm, staged, two
# PEs sharing the H200), f44b131's library (RMW copies on the target) against this tree's
# (heap_amo kernels), alternating; (2) the GPU suite over libfabric with this tree's library,
# LF_PROGS, each capped by CAP seconds and the call by BUDGET seconds; NV_PROGS over nvlink.
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c3.log; : > $log
S=$(date +%s)
tar xJf gpu-tests.tar.xz -C gpu-b/bin && tar xJf gpu-b-tests.tar.xz -C gpu-b/bin
summary=()
run() { # label timeout lib env... -- cmd
  local label=$1 t=$2 lib=$3; shift 3; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local left=$(( ${BUDGET:-570} - ($(date +%s) - S) ))
  [ $left -lt 15 ] && { summary+=("$(printf '%-36s skipped (call budget)' "$label")"); return; }
  [ $t -gt $left ] && t=$left
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/$lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  summary+=("$(printf '%-36s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
LF="XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s XSHMEM_LIBFABRIC_PROVIDER=shm"
if [ -n "${PERF-}" ]; then
  for r in 1 2; do
    for v in a b; do
      run lat.$v.$r 60 gpu-$v/lib $LF -- gpu-b/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics atomic_fetch_add_lat,dev.atomic_fetch_add_lat --iters 200 --reps 3
    done
  done
fi
for p in ${NV_FIRST-}; do
  run nvlink.$p ${NV_CAP:-90} gpu-b/lib XSHMEM_SYMMETRIC_SIZE=2G -- gpu-b/bin/xshmem-run -n 2 gpu-b/bin/$p
done
for p in ${LF_PROGS-}; do
  run lf_shm.$p ${CAP:-200} gpu-b/lib $LF -- gpu-b/bin/xshmem-run -n 2 gpu-b/bin/$p
done
for p in ${NV_PROGS-}; do
  run nvlink.$p ${NV_CAP:-90} gpu-b/lib XSHMEM_SYMMETRIC_SIZE=2G -- gpu-b/bin/xshmem-run -n 2 gpu-b/bin/$p
done
printf '%s\n' "${summary[@]}" | tee -a $log
