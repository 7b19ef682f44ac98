#!/usr/bin/env bash
# Runs a death-test job and checks how it died (CONFORMANCE.md §4.13, tier C):
#   death_check.sh --np N --regex ERE [--max-seconds S] [--status X] -- <launcher> -n N <binary> ...
# Passes when: the job's status is nonzero; its output has a line matching ERE (the one-line
# diagnostic "xshmem: <call>: <argument ...> (pe N)"), and each diagnostic appears exactly once
# in the whole output (not again through the log or the bootstrap's abort); the launcher reports
# every PE 0..N-1 as
# exited nonzero ("xshmem-run: pe K exited with status S" or killed by a signal); at least one PE
# exited with status X (default XSHMEM_EXIT_CHECK, 86); the job took less than S seconds (default
# 10).
set -u
shopt -s extglob
np="" regex="" max_s=10 want=86
while [[ $# -gt 0 ]]; do
  case "$1" in
    --np) np="$2"; shift 2 ;;
    --regex) regex="$2"; shift 2 ;;
    --max-seconds) max_s="$2"; shift 2 ;;
    --status) want="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "death_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$np" || -z "$regex" || $# -eq 0 ]]; then
  echo "usage: death_check.sh --np N --regex ERE [--max-seconds S] -- command..." >&2
  exit 2
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
# The backstop is 3x the budget: a hang still ends, and is reported as too slow.
timeout -k 5 $((max_s * 3)) "$@" >"$out" 2>&1
status=$?
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')

echo "---- job output (status $status, ${elapsed} s) ----"
cat "$out"
# A program that cannot run its scenario here (no GPU, say) exits 77 after a "SKIP" line.
if [[ $status -eq 77 ]] && grep -Eq '^(\[pe [0-9]+\] )?SKIP' "$out"; then
  echo "---- skipped: $(grep -E -m1 '^(\[pe [0-9]+\] )?SKIP' "$out")"
  exit 77
fi
echo "---- checks ----"
fail=0
if [[ $status -eq 0 ]]; then
  echo "FAIL: the job exited with status 0; expected a checked-mode abort"
  fail=1
elif [[ $status -eq 124 || $status -eq 137 ]]; then
  echo "FAIL: the job did not end within $((max_s * 3)) s (hang)"
  fail=1
else
  echo "ok: job status $status"
fi
if grep -Eq -- "$regex" "$out"; then
  echo "ok: diagnostic matches /$regex/: $(grep -E -m1 -- "$regex" "$out")"
else
  echo "FAIL: no output line matches /$regex/"
  fail=1
fi
if [[ $(grep -Ec -- '^[^:]*xshmem: ' "$out") -eq 0 ]]; then
  echo "FAIL: no 'xshmem: ' diagnostic line at all"
  fail=1
fi
# Each diagnostic appears once: its text ("xshmem: ... (pe N)") occurs in no other line of the
# PE that printed it (a log line or an abort message on its stderr) and in no log or abort line
# of another PE. Another PE's own diagnostic may read the same ("(pe -)" before init).
while IFS= read -r diag; do
  text=${diag#\[pe +([0-9])\] }
  prefix=${diag%"$text"}
  n=$(awk -v p="$prefix" -v t="$text" 'index($0, t) && (substr($0, 1, length(p)) == p ||
        $0 !~ /^(\[pe [0-9]+\] )?xshmem: /) { n++ } END { print n + 0 }' "$out")
  if [[ $n -eq 1 ]]; then
    echo "ok: printed once: $diag"
  else
    echo "FAIL: printed $n times (expected once): $diag"
    fail=1
  fi
done < <(grep -E -- '^(\[pe [0-9]+\] )?xshmem: ' "$out" | sort -u)
saw_check=0
for ((k = 0; k < np; ++k)); do
  line=$(grep -E -m1 -- "xshmem-run: pe $k (exited with status [0-9]+|.*signal)" "$out")
  if [[ -z "$line" ]]; then
    echo "FAIL: the launcher did not report pe $k as exited nonzero"
    fail=1
  elif [[ "$line" =~ exited\ with\ status\ 0$ ]]; then
    echo "FAIL: pe $k exited with status 0: $line"
    fail=1
  else
    echo "ok: $line"
    [[ "$line" =~ status\ $want ]] && saw_check=1
  fi
done
if [[ $saw_check -eq 0 ]]; then
  echo "FAIL: no PE exited with status $want"
  fail=1
fi
if awk -v e="$elapsed" -v m="$max_s" 'BEGIN { exit !(e < m) }'; then
  echo "ok: ${elapsed} s < ${max_s} s"
else
  echo "FAIL: the job took ${elapsed} s (limit ${max_s} s)"
  fail=1
fi
exit $fail
