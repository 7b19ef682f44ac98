#!/usr/bin/env bash
# Session 17 device calls: the GPU suite over ibgda on the software NIC model (GPU threads post
# mlx5 entries into queues in page-locked host memory; each PE's model thread executes them),
# two PEs sharing one GPU, with this tree's library (.carry/gpu, scripts/gpu-pack.sh).
#   IB_PROGS   program[:case prefixes][@cap] ... over ibgda (GT_CASES for that program)
#   MIX_PROGS  the same at 3 PEs with pair 0-1 over ibgda and the rest over nvlink
#   NV_PROGS   over nvlink (the baseline of the same programs)
#   PERF       xshmem-perf arguments run at 2 PEs over ibgda (one run per entry, ';' separated)
#   FIRST      commands (';' separated) run before anything else
# Every program is capped (CAP seconds, or @cap) and the call by BUDGET seconds; summary at the
# end of $OUT/c.log.
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
  [ $left -lt 15 ] && { summary+=("$(printf '%-40s skipped (call budget)' "$label")"); return; }
  [ $t -gt $left ] && t=$left
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/gpu/lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  summary+=("$(printf '%-40s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >> $log 2>&1
IB="XSHMEM_TRANSPORTS=ibgda XSHMEM_IBGDA_NIC=model XSHMEM_IBGDA_MODEL_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s"
IFS=';' read -ra firsts <<< "${FIRST-}"; i=0
for c in "${firsts[@]}"; do i=$((i+1)); run first.$i 90 -- bash -c "$c"; done
split() { cap=${CAP:-150}; e=$1; case $e in *@*) cap=${e##*@}; e=${e%@*} ;; esac
  p=${e%%:*} cases=; [ "$p" != "$e" ] && cases=${e#*:}; }
for e in ${IB_PROGS-}; do
  split "$e"
  run ib.$p${cases:+.$cases} $cap $IB GT_CASES="$cases" -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
for e in ${MIX_PROGS-}; do
  split "$e"
  run mix3.$p${cases:+.$cases} $cap $IB XSHMEM_TRANSPORTS=nvlink,ibgda XSHMEM_PAIR_TRANSPORTS=0-1:ibgda GT_CASES="$cases" -- gpu/bin/xshmem-run -n 3 gpu/bin/$p
done
for e in ${NV_PROGS-}; do
  split "$e"
  run nvlink.$p${cases:+.$cases} $cap XSHMEM_SYMMETRIC_SIZE=2G GT_CASES="$cases" -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
IFS=';' read -ra perfs <<< "${PERF-}"
for a in "${perfs[@]}"; do
  [ -n "$a" ] || continue
  run "perf.${a// /_}" ${CAP:-150} $IB -- gpu/bin/xshmem-run -n 2 gpu/bin/xshmem-perf $a
done
printf '%s\n' "${summary[@]}" | tee -a $log
