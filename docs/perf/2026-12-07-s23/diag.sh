#!/usr/bin/env bash
# STR-04 over ibgda on the model with a sampler: after SAMPLE_AT s, every thread of every PE
# process (name, syscall, wchan, and a gdb backtrace when gdb exists).
cd "$(dirname "$0")" || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
[ -d gpu/bin ] || tar xJf gpu-bin.tar.xz -C gpu || exit 1
log=$OUT/diag${TAG}.log; : > $log
which gdb eu-stack pstack >> $log 2>&1
nvidia-smi --query-gpu=name,clocks.sm,multiprocessor_count --format=csv >> $log 2>&1 || nvidia-smi -L >> $log
env LD_LIBRARY_PATH="$PWD/gpu/lib" XSHMEM_TRANSPORTS=ibgda XSHMEM_IBGDA_NIC=model XSHMEM_IBGDA_MODEL_IFACE=lo \
  XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s XSHMEM_IBGDA_TIMEOUT=${TMO:-40s} GT_CASES="${CASES:-STR-04}" \
  timeout ${CAP:-120} gpu/bin/xshmem-run -n 2 gpu/bin/${PROG:-gpu_stress_rows} >> $OUT/run${TAG}.log 2>&1 &
sleep ${SAMPLE_AT:-15}
for pid in $(pgrep -f "gpu/bin/${PROG:-gpu_stress_rows}" | sort); do
  [ "$(cat /proc/$pid/comm)" = xshmem-run ] && continue
  echo "===== pid $pid $(tr '\0' ' ' < /proc/$pid/cmdline) env pe: $(tr '\0' '\n' < /proc/$pid/environ | grep -E '^XSHMEM_(PE|RANK|MY)' | tr '\n' ' ')" >> $log
  for t in /proc/$pid/task/*; do
    echo "-- tid ${t##*/} $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cat $t/syscall | cut -d' ' -f1-3)" >> $log
  done
  if which gdb >/dev/null 2>&1; then timeout 60 gdb -batch -p $pid -ex 'thread apply all bt 25' >> $log 2>&1; fi
done
nvidia-smi >> $log 2>&1
wait
tail -5 $OUT/run${TAG}.log >> $log
