#!/bin/bash
# Runs lf_dead_peer and checks that PE 0 ended non-zero within MAX seconds of starting its loop
# (PE 1 dies or freezes 0.3 s into it) with an error line naming pe 1: for "stop" (a frozen peer:
# its sockets stay open, the bootstrap notices nothing for 60 s) the line must be the transport's
# (STOP_RE, by default the libfabric transport's put or get line); for "kill" any component's line
# naming pe 1 will do (the bootstrap may notice the closed connection first). Reaps the peer (a
# stopped one stays behind otherwise). The program is transport-agnostic (XSHMEM_TRANSPORTS).
#
#   dead_peer_check.sh MAX PROG kill|stop [STOP_RE]
set -u
max=$1 prog=$2 mode=$3 stop_re=${4:-'libfabric\] error: (put|get) to pe 1'}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout -s KILL 40 "$prog" "$mode" >"$out" 2>&1
rc=$?
end=$(date +%s.%N)
peer=$(sed -n 's/^lf_dead_peer: peer pid \([0-9]*\)$/\1/p' "$out" | head -1)
if [ -n "$peer" ] && kill -0 "$peer" 2>/dev/null; then kill -KILL "$peer" 2>/dev/null; fi
start=$(sed -n 's/^lf_dead_peer: loop start \([0-9.]*\)$/\1/p' "$out" | head -1)
cat "$out"
ok=1
if [ -z "$start" ]; then
  echo "dead_peer_check.sh: FAIL: pe 0 never started its loop"; ok=0; start=$end
fi
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
echo "dead_peer_check.sh: $mode: exit status $rc, $secs s after pe 0 started its loop"
if [ "$rc" = 0 ]; then echo "dead_peer_check.sh: FAIL: exit status 0"; ok=0; fi
if awk -v s="$secs" -v m="$max" 'BEGIN { exit !(s > m) }'; then
  echo "dead_peer_check.sh: FAIL: took $secs s, expected at most $max s"; ok=0
fi
if [ "$mode" = stop ]; then re=$stop_re; else re='error: .*pe 1\b'; fi
if ! grep -Eq "$re" "$out"; then
  echo "dead_peer_check.sh: FAIL: no error line matching '$re'"; ok=0
fi
[ $ok = 1 ] && echo "dead_peer_check.sh: PASS" && exit 0
exit 1
