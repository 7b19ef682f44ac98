#!/usr/bin/env bash
# Session 12, last device call: selfops and bench/dispatch, before (1fa9a8d) / head (f44b131's
# headers) / head2 (this tree: non-fetching atomics as their own ops), alternating, with the SASS
# of the fadd_indep and add loops; then the suite (c3.sh: LF_PROGS over libfabric, NV_PROGS).
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c5.log; : > $log
OD=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
for v in before head head2; do
  d=head2; [ $v = before ] && d=before/bin; [ $v = head ] && d=gpu-a/bin
  $OD -sass $d/selfops 2>/dev/null | awk '/Function : /{p = /fadd_indep_lat/} p' > $OUT/selfops-fadd_indep-$v.sass
  $OD -sass $d/dispatch 2>/dev/null | awk '/Function : /{p = /k_add/} p' > $OUT/dispatch-add-$v.sass
  echo "sass $v: selfops fadd_indep ATOMG $(grep -c ATOMG $OUT/selfops-fadd_indep-$v.sass) RED $(grep -c 'RED' $OUT/selfops-fadd_indep-$v.sass); dispatch k_add ATOMG $(grep -c ATOMG $OUT/dispatch-add-$v.sass) RED $(grep -c 'RED' $OUT/dispatch-add-$v.sass) CALL $(grep -c CALL $OUT/dispatch-add-$v.sass)" >> $log
done
for r in 1 2; do
  for v in before head head2; do
    lib=gpu-b/lib bin=head2; [ $v = before ] && lib=before/lib bin=before/bin; [ $v = head ] && bin=gpu-a/bin
    echo "===== dispatch.$v.$r" >> $log; LD_LIBRARY_PATH=$PWD/$lib timeout 60 $bin/dispatch $v 7 >> $log 2>&1
    echo "===== selfops.$v.$r" >> $log; LD_LIBRARY_PATH=$PWD/$lib timeout 120 gpu-b/bin/xshmem-run -n 1 $bin/selfops 7 >> $log 2>&1
  done
done
OUT=$OUT BUDGET=$(( ${BUDGET:-570} - 30 )) bash probe/c3.sh
