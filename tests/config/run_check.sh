#!/usr/bin/env bash
# Runs a command and checks its exit status and output (the cfg.* CTest entries):
#   run_check.sh [--rc N|nonzero] [--grep ERE]... [--count N ERE]... [--max-seconds S] -- cmd...
# --grep ERE     some line of the combined output matches ERE (grep -E)
# --count N ERE  exactly N lines match ERE (a message printed once, not once per PE or twice)
# --max-seconds  the command ends within S seconds (default 60; killed at 3x)
set -u
want_rc="" max_s=60
greps=() counts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rc) want_rc=$2; shift 2 ;;
    --grep) greps+=("$2"); shift 2 ;;
    --count) counts+=("$2" "$3"); shift 3 ;;
    --max-seconds) max_s=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "run_check.sh: no command" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
timeout -k 5 $((max_s * 3)) "$@" >"$out" 2>&1
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "---- output (status $rc, $secs s) ----"
cat "$out"
echo "---- checks ----"
ok=1
if [[ "$want_rc" == nonzero ]]; then
  if [[ $rc -eq 0 ]]; then echo "FAIL: status 0, expected nonzero"; ok=0; fi
elif [[ -n "$want_rc" && "$rc" != "$want_rc" ]]; then
  echo "FAIL: status $rc, expected $want_rc"; ok=0
else
  echo "ok: status $rc"
fi
if [[ $rc -eq 124 || $rc -eq 137 ]]; then echo "FAIL: did not end within $((max_s * 3)) s"; ok=0; fi
if awk -v s="$secs" -v m="$max_s" 'BEGIN { exit !(s > m) }'; then
  echo "FAIL: took $secs s, expected at most $max_s s"; ok=0
fi
for re in "${greps[@]}"; do
  if line=$(grep -E -m1 -- "$re" "$out"); then echo "ok: /$re/: $line"
  else echo "FAIL: no line matches /$re/"; ok=0; fi
done
for ((i = 0; i < ${#counts[@]}; i += 2)); do
  n=${counts[i]} re=${counts[i + 1]}
  got=$(grep -Ec -- "$re" "$out")
  if [[ "$got" == "$n" ]]; then echo "ok: $got line(s) match /$re/"
  else echo "FAIL: $got line(s) match /$re/, expected $n"; ok=0; fi
done
[[ $ok == 1 ]] && echo "PASS" && exit 0
exit 1
