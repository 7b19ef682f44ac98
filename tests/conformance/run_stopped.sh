#!/usr/bin/env bash
# xshmem-run with a stopped child (issue 11, item 3):
#   run_stopped.sh <xshmem-run> <scenario>
# stop_alone: pe 1 stops itself (SIGSTOP) and pe 0 exits 0. The launcher must print
#   "xshmem-run: pe 1 (pid P) was stopped by signal 19 (SIGSTOP)", end (it kills the stopped PE
#   once every other PE has ended) with a nonzero status within 10 s, and leave no process behind.
# stop_continue: pe 1 stops itself, pe 0 continues it (SIGCONT) after 1 s and both exit 0. The
#   launcher must print the stop line and "pe 1 (pid P) continued", and exit 0.
# The PEs are shell commands: the launcher's supervision is under test, not the library.
set -u
run=$1 scenario=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out
case "$scenario" in
  stop_alone)
    pe='if [ "$XSHMEM_BOOTSTRAP_TCP_RANK" = 1 ]; then echo $$ >"$D/pid1"; kill -STOP $$; echo "pe 1 ran on"; fi; exit 0' ;;
  stop_continue)
    pe='if [ "$XSHMEM_BOOTSTRAP_TCP_RANK" = 1 ]; then echo $$ >"$D/pid1"; kill -STOP $$; echo "pe 1 continued"; exit 0; fi
        for i in $(seq 50); do [ -s "$D/pid1" ] && break; sleep 0.1; done; sleep 1; kill -CONT "$(cat "$D/pid1")"; exit 0' ;;
  *) echo "run_stopped: unknown scenario $scenario" >&2; exit 2 ;;
esac
start=$(date +%s.%N)
D=$dir timeout -k 5 30 "$run" -n 2 sh -c "$pe" >"$out" 2>&1
rc=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
echo "---- xshmem-run output (status $rc, $secs s) ----"
cat "$out"
echo "---- checks ----"
fail=0
pid=$(cat "$dir/pid1" 2>/dev/null || echo none)
stop_re="^xshmem-run: pe 1 \\(pid $pid\\) was stopped by signal 19 \\(SIGSTOP\\)$"
if [[ $(grep -Ec -- "$stop_re" "$out") -eq 1 ]]; then
  echo "ok: one stop line: $(grep -E -- "$stop_re" "$out")"
else
  echo "FAIL: expected exactly one line matching /$stop_re/"
  fail=1
fi
if [[ $rc -eq 124 ]] || awk -v e="$secs" 'BEGIN { exit !(e >= 29) }'; then
  echo "FAIL: xshmem-run did not end within 30 s (status $rc): a hang"
  fail=1
fi
case "$scenario" in
  stop_alone)
    if [[ $rc -ne 0 && $rc -ne 124 ]]; then echo "ok: status $rc (nonzero)"; else echo "FAIL: status $rc; expected a nonzero status other than 124"; fail=1; fi
    if grep -Eq "^xshmem-run: pe 1 \\(pid $pid\\) is stopped and every other pe has ended; killing it$" "$out"; then
      echo "ok: the launcher killed the stopped pe"
    else
      echo "FAIL: no line saying that the stopped pe 1 was killed"
      fail=1
    fi
    if grep -q "pe 1 ran on" "$out"; then echo "FAIL: pe 1 was continued"; fail=1; fi
    if awk -v e="$secs" 'BEGIN { exit !(e < 10) }'; then echo "ok: $secs s < 10 s"; else echo "FAIL: took $secs s"; fail=1; fi
    ;;
  stop_continue)
    if [[ $rc -eq 0 ]]; then echo "ok: status 0"; else echo "FAIL: status $rc; expected 0"; fail=1; fi
    if grep -Eq "^xshmem-run: pe 1 \\(pid $pid\\) continued$" "$out"; then
      echo "ok: continue line"
    else
      echo "FAIL: no line 'xshmem-run: pe 1 (pid $pid) continued'"
      fail=1
    fi
    if grep -q "^\[pe 1\] pe 1 continued" "$out"; then echo "ok: pe 1 ran to its end"; else echo "FAIL: pe 1 did not run on"; fail=1; fi
    ;;
esac
if [[ "$pid" != none ]] && kill -0 "$pid" 2>/dev/null; then
  echo "FAIL: pe 1 (pid $pid) is still alive"
  kill -KILL "$pid" 2>/dev/null
  fail=1
else
  echo "ok: no process left (pid $pid is gone)"
fi
exit $fail
