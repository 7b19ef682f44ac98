#!/usr/bin/env bash
# What xshmem-info --plan predicts is what init decides (issue 5): runs an <np>-PE job on this
# machine with XSHMEM_LOG_LEVEL=info, takes the transport matrix PE 0 logs, and compares it cell by
# cell with the matrix of `xshmem-info --plan <np>x1`; both must also name <want> for every pair.
# PE 0's log must carry the topology summary and its NIC per PE line as well.
#   check_plan_consistency.sh <xshmem-run> <program> <xshmem-info> <np> <want>
set -euo pipefail
run=$1 prog=$2 info=$3 np=$4 want=$5

job=$(XSHMEM_LOG_LEVEL=info timeout 60 "$run" -n "$np" "$prog" 2>&1) || {
  echo "$job"
  echo "FAIL: the $np-PE job failed"
  exit 1
}
# PE 0's matrix: the line after the title is the column header, then one row per PE
# ("<pe> <name> <name> ..."), each prefixed by the log's "[host:pid pe 0 core] ".
init=$(grep -E '\[[^]]* pe 0 core\] ' <<<"$job" |
  awk -v np="$np" '/transport per pe pair/ { on = 1; skip = 1; next }
    on && skip { skip = 0; next }
    on && n < np { sub(/^.*\] info: +/, ""); print; n++ }')
plan=$("$info" --plan "${np}x1") || {
  echo "$plan"
  echo "FAIL: xshmem-info --plan ${np}x1 failed"
  exit 1
}
# The plan's matrix: "transport matrix (...):", a header, then "<pe> <name> <name> ..." ("-": none).
predicted=$(awk -v np="$np" '/^transport matrix/ { on = 1; skip = 1; next }
    on && skip { skip = 0; next }
    on && n < np { $1 = $1; print; n++ }' <<<"$plan")
echo "init (pe 0's log):"
echo "$init"
echo "xshmem-info --plan ${np}x1:"
echo "$predicted"

fail=0
[ "$(wc -l <<<"$init")" -eq "$np" ] && [ -n "$init" ] ||
  { echo "FAIL: found $(grep -c . <<<"$init") matrix rows in pe 0's log, expected $np"; fail=1; }
[ "$(wc -l <<<"$predicted")" -eq "$np" ] && [ -n "$predicted" ] ||
  { echo "FAIL: found $(grep -c . <<<"$predicted") matrix rows in the plan, expected $np"; fail=1; }
if [ $fail -eq 0 ]; then
  mismatches=$(paste -d'|' <(echo "$init") <(echo "$predicted") | while IFS='|' read -r a b; do
    read -r -a ia <<<"$a"
    read -r -a pb <<<"$b"
    for ((j = 1; j <= np; j++)); do
      if [ "${ia[$j]:-?}" != "${pb[$j]:-?}" ]; then
        echo "FAIL: pe ${ia[0]} -> pe $((j - 1)): init chose ${ia[$j]:-?}, the plan says ${pb[$j]:-?}"
      elif [ "${ia[$j]}" != "$want" ]; then
        echo "FAIL: pe ${ia[0]} -> pe $((j - 1)): both say ${ia[$j]}, expected $want"
      fi
    done
  done)
  if [ -n "$mismatches" ]; then
    echo "$mismatches"
    fail=1
  fi
fi
grep -Eq '\[[^]]* pe 0 topology\] info: topology: host ' <<<"$job" ||
  { echo "FAIL: pe 0 logged no topology summary line"; fail=1; }
grep -Eq '\[[^]]* pe 0 topology\] info: nic per pe' <<<"$job" ||
  { echo "FAIL: pe 0 logged no NIC per pe line"; fail=1; }
grep -E '\] info: (topology|nic per pe|  pe [0-9]+:)' <<<"$job" || true
[ $fail -eq 0 ] && echo "PASS: init and xshmem-info --plan ${np}x1 agree: $want for every pair"
exit $fail
