#!/usr/bin/env bash
# Session 11, device calls 2+: the GPU suite, two PEs sharing the H200. NV_PROGS over nvlink,
# then LF_PROGS over libfabric (shm provider, staged path for GPU heaps), each program capped by
# CAP seconds and the call by BUDGET seconds.
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c2.log; : > $log
S=$(date +%s)
[ -f gpu-tests.tar.xz ] && tar xJf gpu-tests.tar.xz -C gpu-a/bin
summary=()
run() { # label timeout env... -- cmd
  local label=$1 t=$2; shift 2; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local left=$(( ${BUDGET:-570} - ($(date +%s) - S) ))
  [ $left -lt 15 ] && { summary+=("$(printf '%-36s skipped (call budget)' "$label")"); return; }
  [ $t -gt $left ] && t=$left
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/gpu-a/lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  summary+=("$(printf '%-36s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
for p in ${NV_PROGS-}; do
  run nvlink.$p ${NV_CAP:-90} XSHMEM_SYMMETRIC_SIZE=2G -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/$p
done
LF="XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s XSHMEM_LIBFABRIC_PROVIDER=shm"
for p in ${LF_PROGS-}; do
  run lf_shm.$p ${CAP:-200} $LF -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/$p
done
printf '%s\n' "${summary[@]}" | tee -a $log
