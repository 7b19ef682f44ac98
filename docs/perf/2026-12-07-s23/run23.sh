#!/usr/bin/env bash
# Session 23 call 1: STR-04 T over ibgda on the model (default, CUDA_MODULE_LOADING=EAGER, 1 PE),
# then the NVSHMEM-style programs over nvlink and ibgda (2 PEs sharing the GPU). diag.sh is
# docs/perf/2026-12-07-s22/diag.sh, copied beside this script into .carry.
cd "$(dirname "$0")" || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
[ -d gpu/bin ] || tar xJf gpu-bin.tar.xz -C gpu || exit 1
date > $OUT/t.log
CASES="STR-04 signal_flood T" TAG=a TMO=15s CAP=40 SAMPLE_AT=8 bash diag.sh
date >> $OUT/t.log
CUDA_MODULE_LOADING=EAGER CASES="STR-04 signal_flood T" TAG=b TMO=15s CAP=40 SAMPLE_AT=8 bash diag.sh
date >> $OUT/t.log
env LD_LIBRARY_PATH="$PWD/gpu/lib" XSHMEM_TRANSPORTS=ibgda XSHMEM_IBGDA_NIC=model XSHMEM_IBGDA_MODEL_IFACE=lo \
  XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s XSHMEM_IBGDA_TIMEOUT=15s GT_CASES="STR-04 signal_flood T" \
  timeout 40 gpu/bin/xshmem-run -n 1 gpu/bin/gpu_stress_rows > $OUT/run_n1.log 2>&1; echo "n1 rc=$?" >> $OUT/run_n1.log
date >> $OUT/t.log
for p in ring put_block put_signal collectives teams on_stream; do
  env LD_LIBRARY_PATH="$PWD/gpu/lib" XSHMEM_SYMMETRIC_SIZE=1G timeout 40 gpu/bin/xshmem-run -n 2 gpu/bin/nvshmem_$p > $OUT/nv_$p.log 2>&1; echo "nvlink nvshmem_$p rc=$?" >> $OUT/nv.log
done
date >> $OUT/t.log
for p in ring put_block put_signal collectives teams on_stream; do
  env LD_LIBRARY_PATH="$PWD/gpu/lib" XSHMEM_SYMMETRIC_SIZE=1G XSHMEM_TRANSPORTS=ibgda XSHMEM_IBGDA_NIC=model XSHMEM_IBGDA_MODEL_IFACE=lo XSHMEM_IBGDA_TIMEOUT=20s timeout 40 gpu/bin/xshmem-run -n 2 gpu/bin/nvshmem_$p > $OUT/ib_$p.log 2>&1; echo "ibgda nvshmem_$p rc=$?" >> $OUT/nv.log
done
date >> $OUT/t.log
cat $OUT/nv.log
for f in $OUT/*.log; do echo "=== $f"; grep -E "watchdog|inside|rc=|passed|failed|FAIL|assert" $f | head -20; done
