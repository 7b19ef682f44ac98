#!/usr/bin/env bash
# Session 16 (from session 13's), device calls: the GPU suite over libfabric (shm provider, staged path, two PEs
# sharing the H200) with this tree's library (.carry/gpu, scripts/gpu-pack.sh), the programs in
# LF_PROGS each capped by CAP seconds and the call by BUDGET seconds (an entry prog:A,B runs the
# cases whose labels start with A or B, GT_CASES); STAGED_PROGS the same over tcp with XSHMEM_LIBFABRIC_STAGED=1; NV_PROGS
# over nvlink; FIRST: commands run before (gpu_heap_apply). Summary at the end of $OUT/c.log.
cd "$(dirname "$0")" || exit 1  # .carry: gpu/ (lib/, run.sh) and gpu-bin.tar.xz (bin/)
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c.log; : > $log
S=$(date +%s)
[ -d gpu/bin ] || tar xJf gpu-bin.tar.xz -C gpu || exit 1
summary=()
run() { # label timeout env... -- cmd
  local label=$1 t=$2; shift 2; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local left=$(( ${BUDGET:-570} - ($(date +%s) - S) ))
  [ $left -lt 15 ] && { summary+=("$(printf '%-36s skipped (call budget)' "$label")"); return; }
  [ $t -gt $left ] && t=$left
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/gpu/lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  summary+=("$(printf '%-36s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >> $log 2>&1
LF="XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s"
for p in ${FIRST-}; do
  run first.$p.np1 60 -- gpu/bin/xshmem-run -n 1 gpu/bin/$p
  run first.$p.np2 60 -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
for e in ${LF_PROGS-}; do  # program[:case prefixes][@cap] (GT_CASES for that program)
  cap=${CAP:-150}; case $e in *@*) cap=${e##*@}; e=${e%@*} ;; esac
  p=${e%%:*} cases=; [ "$p" != "$e" ] && cases=${e#*:}
  run lf_shm.$p${cases:+.$cases} $cap $LF XSHMEM_LIBFABRIC_PROVIDER=shm GT_CASES="$cases" -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
for p in ${STAGED_PROGS-}; do
  run lf_tcp_staged.$p ${CAP:-150} $LF XSHMEM_LIBFABRIC_PROVIDER=tcp XSHMEM_LIBFABRIC_STAGED=1 -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
for p in ${NV_PROGS-}; do
  run nvlink.$p ${NV_CAP:-90} XSHMEM_SYMMETRIC_SIZE=2G -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
printf '%s\n' "${summary[@]}" | tee -a $log
