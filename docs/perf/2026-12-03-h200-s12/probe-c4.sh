#!/usr/bin/env bash
# Session 12, device call: selfops and bench/dispatch, before (1fa9a8d) / head / varB (amo.h
# without its PROXY branch: a diagnostic, not a product build), 2 rounds alternating, and the
# SASS of selfops' fadd_indep_lat per build; then c3.sh's suite (LF_PROGS, NV_PROGS).
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c4.log; : > $log
OD=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
for v in before head varB; do
  bin=varB/selfops; [ $v = before ] && bin=before/bin/selfops; [ $v = head ] && bin=gpu-a/bin/selfops
  $OD -sass "$bin" 2>/dev/null | awk '/Function : /{p = /fadd_indep_lat/} p' > $OUT/fadd_indep-$v.sass
  echo "sass $v: $(wc -l < $OUT/fadd_indep-$v.sass) lines, ATOMG $(grep -c ATOMG $OUT/fadd_indep-$v.sass), RED $(grep -c 'RED' $OUT/fadd_indep-$v.sass), CALL $(grep -c CALL $OUT/fadd_indep-$v.sass)" >> $log
done
for r in 1 2; do
  for v in before head varB; do
    lib=gpu-b/lib bin=varB; [ $v = before ] && lib=before/lib bin=before/bin; [ $v = head ] && bin=gpu-a/bin
    echo "===== dispatch.$v.$r" >> $log; LD_LIBRARY_PATH=$PWD/$lib timeout 60 $bin/dispatch $v 7 >> $log 2>&1
    echo "===== selfops.$v.$r" >> $log; LD_LIBRARY_PATH=$PWD/$lib timeout 120 gpu-b/bin/xshmem-run -n 1 $bin/selfops 7 >> $log 2>&1
  done
done
OUT=$OUT BUDGET=$(( ${BUDGET:-570} - 40 )) bash probe/c3.sh
