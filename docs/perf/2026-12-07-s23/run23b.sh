#!/usr/bin/env bash
# Session 23 call 2: after the launcher sets CUDA_MODULE_LOADING=EAGER for proxy jobs: STR-04 T
# through xshmem-run's default (EAGER set by it), STR-04 T with LAZY forced (the init warning;
# expected to hang, capped), the NVSHMEM-style programs over the model, the whole gpu_stress_rows
# and gpu_ring/gpu_rma/gpu_amo/gpu_sig/gpu_coll over the model.
cd "$(dirname "$0")" || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
[ -d gpu/bin ] || tar xJf gpu-bin.tar.xz -C gpu || exit 1
M="XSHMEM_TRANSPORTS=ibgda XSHMEM_IBGDA_NIC=model XSHMEM_IBGDA_MODEL_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s XSHMEM_IBGDA_TIMEOUT=15s"
run() { # label cap env... -- prog
  local l=$1 c=$2; shift 2; local e=(); while [ "$1" != "--" ]; do e+=("$1"); shift; done; shift
  local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/gpu/lib" $M "${e[@]}" timeout $c gpu/bin/xshmem-run -n 2 "$@" > $OUT/$l.log 2>&1; local rc=$?
  printf '%-28s rc=%-4s %6.1fs\n' $l $rc $(echo "$(date +%s.%N) - $s" | bc) >> $OUT/sum.log
}
run str04T_default 60 GT_CASES="STR-04 signal_flood T" -- gpu/bin/gpu_stress_rows
run str04T_lazy 25 CUDA_MODULE_LOADING=LAZY GT_CASES="STR-04 signal_flood T" -- gpu/bin/gpu_stress_rows
for p in on_stream ring put_block put_signal collectives teams; do run ib_nv_$p 60 -- gpu/bin/nvshmem_$p; done
run stress_rows_all 240 -- gpu/bin/gpu_stress_rows
for p in gpu_ring gpu_rma gpu_amo gpu_sig gpu_coll; do run ib_$p 90 -- gpu/bin/$p; done
cat $OUT/sum.log
for f in $OUT/*.log; do echo "=== $f"; grep -E "warn|cases|passed|failed|FAIL|rc=" $f | head -8; done
