#!/usr/bin/env bash
# Session 21's second call: STR-04 with the CQ mirror (one poller of the host CQ per queue, one
# waiter per warp) and neighbours over ibgda on the model, then the drained posting rates at 1 PE.
cd "$(dirname "$0")" || exit 1
export XSHMEM_IBGDA_TIMEOUT=20s
IB_PROGS="gpu_stress_rows:STR-04@60 gpu_rma2:RMA-07@30 gpu_stress_rows:STR-05,STR-06@40 gpu_coll_scopes:COLL-13@50" BUDGET=${B1:-185} bash probe.sh
cp $OUT/c.log $OUT/c1.log
echo "===== perf n1" > $OUT/perf.log
env LD_LIBRARY_PATH=$PWD/gpu/lib timeout ${B2:-75} gpu/bin/xshmem-run -n 1 gpu/bin/xshmem-perf --metrics dev.gda_post.drained --reps 1 --progress >> $OUT/perf.log 2>&1
echo "perf rc=$?" >> $OUT/perf.log
