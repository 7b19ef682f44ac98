#!/usr/bin/env bash
# Session 10 exploration call: SASS of get_bw_kernel (before/head/variants), get_bw rounds,
# libfabric adaptive-inject A/B, then the GPU suite over libfabric (staged) as time allows.
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/b.log; : > $log
S=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >> $log 2>&1
for t in before/bin gpu-a/bin var/vA var/vB var/vC; do
  /usr/local/cuda/bin/cuobjdump -sass $t/xshmem-perf 2>&1 | gzip > $OUT/sass_$(echo $t | tr / _).txt.gz
done
run() { # label timeout lib env... -- cmd
  local label=$1 t=$2 lib=$3; shift 3; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/$lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  echo "rc=$rc $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')s $label" | tee -a $log
}
for r in 1 2 3; do
  for v in before/bin gpu-a/bin var/vA var/vB var/vC; do
    lib=gpu-a/lib xr=gpu-a/bin/xshmem-run; [ $v = before/bin ] && lib=before/lib xr=before/bin/xshmem-run
    run "getbw.$v.$r" 60 $lib XSHMEM_SYMMETRIC_SIZE=1G -- $xr -n 2 $v/xshmem-perf --metrics dev.get_bw,dev.put_bw --min-size 4K --max-size 1M --size-step 16 --reps 10
  done
done
FWV="XSHMEM_HEAP=host XSHMEM_TRANSPORTS=libfabric XSHMEM_LIBFABRIC_PROVIDER=tcp FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo"
for r in 1 2 3; do
  run fwv.new.$r 60 gpu-a/lib $FWV -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics fi_write_vs_put
  run fwv.old.$r 60 gpu-a/lib $FWV XSHMEM_PLUGIN_PATH=$PWD/lfvar -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics fi_write_vs_put
done
run putbw.new 60 gpu-a/lib $FWV -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics put_bw --min-size 8 --max-size 4096 --size-step 8
run putbw.old 60 gpu-a/lib $FWV XSHMEM_PLUGIN_PATH=$PWD/lfvar -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics put_bw --min-size 8 --max-size 4096 --size-step 8
LF="XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_LIBFABRIC_PROVIDER=shm"
for p in ${LF_PROGS:-p2p ord ctx coll team mem sig rma amo}; do
  left=$(( 570 - ($(date +%s) - S) )); [ $left -lt 20 ] && break; [ $left -gt ${CAP:-200} ] && left=${CAP:-200}
  run lf_shm.gpu_$p $left gpu-a/lib $LF -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/gpu_$p
done
