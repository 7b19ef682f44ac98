#!/usr/bin/env bash
# Session 21's call: STR-04 and neighbours over ibgda on the model (probe.sh), a libfabric GPU
# check of the bounce lanes, then the GDA posting rates at 1 PE with --progress.
cd "$(dirname "$0")" || exit 1
export XSHMEM_IBGDA_TIMEOUT=20s
FIRST="env XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s GT_CASES=RMA-07 gpu/bin/xshmem-run -n 2 gpu/bin/gpu_rma2" \
IB_PROGS="gpu_stress_rows:STR-04@120 gpu_rma2:RMA-07@60 gpu_stress_rows:STR-05,STR-06@90" BUDGET=${B1:-330} bash probe.sh
cp $OUT/c.log $OUT/c1.log
echo "===== perf n1" > $OUT/perf.log
env LD_LIBRARY_PATH=$PWD/gpu/lib timeout ${B2:-150} gpu/bin/xshmem-run -n 1 gpu/bin/xshmem-perf --metrics dev.gda_post.undrained,dev.gda_post.drained --reps 3 --progress >> $OUT/perf.log 2>&1
echo "perf rc=$?" >> $OUT/perf.log
