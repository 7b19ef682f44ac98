#!/bin/bash
# unit.plan_asks_plugins: xshmem-info --plan asks every loaded transport plugin's predict.
# $1 = xshmem-info, $2 = a folder holding unittest_predict (with predict) and unittest_nopredict.
set -u
info=$1 dir=$2
fail=0
export XSHMEM_HEAP=host XSHMEM_LOG_LEVEL=warn
# Only hostshm and the two test plugins are allowed: the plan lists every allowed loaded transport,
# and which in-tree ones are built (nvlink with CUDA, libfabric with libfabric-dev) varies.
export XSHMEM_TRANSPORTS=hostshm,unittest_predict,unittest_nopredict
out=$(XSHMEM_PLUGIN_PATH=$dir timeout 50 "$info" --plan 4 --pairs 2>&1)
echo "$out"
want() {
  if ! grep -qE -- "$1" <<<"$out"; then
    echo "FAIL: no line matching: $1"
    fail=1
  fi
}
want '^plan of .*\(transports: hostshm, unittest_predict; not predicted: unittest_nopredict\)$'
# The matrix: even PE sums take the cheaper test transport, odd ones hostshm. The test rule looks
# at the PE numbers, so the plan groups the pairs by PE (8 classes each, not 2).
want '^0 +unittest_predict +hostshm +unittest_predict +hostshm$'
want '^1 +hostshm +unittest_predict +hostshm +unittest_predict$'
want '^3 +hostshm +unittest_predict +hostshm +unittest_predict$'
want '^  unittest_predict 8 pairs in 8 class\(es\)$'
want '^ +1 -> 3: unittest_predict: test rule: pe sum 4 is even \[hostshm yes: same host: the heaps are shared memory\]$'
want '^ +1 x, first 2 -> 1: hostshm: same host: the heaps are shared memory \[unittest_predict no: test rule: pe sum 3 is odd\]$'
# The same in the JSON (plain shell: CI has no python; whitespace removed before matching).
json=$(XSHMEM_PLUGIN_PATH=$dir timeout 50 "$info" --json --plan 4 --pairs 2>/dev/null | tr -d ' \n')
u=unittest_predict h=hostshm
for part in \
  "\"pair_counts\":{\"$h\":8,\"$u\":8}" \
  "\"transports\":[\"$h\",\"$u\"]" \
  '"not_predicted":["unittest_nopredict"]' \
  '{"from":0,"to":3,"transport":"hostshm","why":"hostshm:samehost:theheapsaresharedmemory[unittest_predictno:testrule:pesum3isodd]"}' \
  '{"from":1,"to":3,"transport":"unittest_predict","why":"unittest_predict:testrule:pesum4iseven[hostshmyes:samehost:theheapsaresharedmemory]"}'; do
  if ! grep -qF -- "$part" <<<"$json"; then
    echo "FAIL: the JSON lacks $part"
    fail=1
  fi
done
# Without the folder: no test transport in the plan.
plain=$(timeout 50 "$info" --plan 4 2>&1)
if grep -q unittest_predict <<<"$plain"; then
  echo "FAIL: unittest_predict in the plan without XSHMEM_PLUGIN_PATH"
  fail=1
fi
[ $fail = 0 ] && echo "PASS: the plan shows the predicting plugin's pairs"
exit $fail
