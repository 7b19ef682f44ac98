#!/bin/bash
# Runs a command and checks how it ended (used by the bootstrap CTest entries).
#
#   expect_run.sh [--rc N] [--max-seconds S] [--grep REGEX]... [--each-pe-nonzero N] -- cmd args...
#
# --rc N               the command's exit status must be N ("nonzero": anything but 0)
# --max-seconds S      it must end within S seconds
# --grep REGEX         its combined output must match REGEX (grep -E), once per option
# --each-pe-nonzero N  xshmem-run's per-PE report must show PEs 0..N-1 all ending non-zero
set -u
want_rc="" max_s="" each_pe=""
greps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rc) want_rc=$2; shift 2 ;;
    --max-seconds) max_s=$2; shift 2 ;;
    --grep) greps+=("$2"); shift 2 ;;
    --each-pe-nonzero) each_pe=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "expect_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$@" >"$out" 2>&1
rc=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
cat "$out"
echo "expect_run.sh: exit status $rc after $secs s"
ok=1
if [ "$want_rc" = nonzero ]; then
  if [ "$rc" = 0 ]; then echo "expect_run.sh: FAIL: exit status 0, expected non-zero"; ok=0; fi
elif [ -n "$want_rc" ] && [ "$rc" != "$want_rc" ]; then
  echo "expect_run.sh: FAIL: exit status $rc, expected $want_rc"; ok=0
fi
if [ -n "$max_s" ] && awk -v s="$secs" -v m="$max_s" 'BEGIN { exit !(s > m) }'; then
  echo "expect_run.sh: FAIL: took $secs s, expected at most $max_s s"; ok=0
fi
for re in "${greps[@]}"; do
  if ! grep -Eq -- "$re" "$out"; then
    echo "expect_run.sh: FAIL: output does not match '$re'"; ok=0
  fi
done
if [ -n "$each_pe" ]; then
  for ((k = 0; k < each_pe; k++)); do
    line=$(grep -E "^xshmem-run: pe $k (exited with status|was killed by signal)" "$out" | tail -1)
    if [ -z "$line" ] || echo "$line" | grep -q "exited with status 0$"; then
      echo "expect_run.sh: FAIL: pe $k did not end non-zero ('$line')"; ok=0
    fi
  done
fi
[ $ok = 1 ] && echo "expect_run.sh: PASS" && exit 0
exit 1
