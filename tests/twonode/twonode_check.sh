#!/bin/bash
# Runs one twonode CTest entry: first makes sure `xshmem-run --nodes 2` can make its namespaces
# and veth pair here (root, a kernel with veth); when it cannot, exits 77 (skipped) saying why.
#
#   twonode_check.sh XSHMEM_RUN expect EXPECT_RUN_ARGS...   tests/bootstrap/expect_run.sh's checks
#   twonode_check.sh XSHMEM_RUN cleanup                     the launcher is SIGKILLed: the PEs and
#                                                           their namespaces must be gone within 5 s
set -u
run=$1 mode=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

probe=$("$run" -n 2 --nodes 2 --timeout 10 true 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  echo "$probe"
  if echo "$probe" | grep -Eq "cannot create the network and UTS namespaces|creating the veth pair .* failed: (Operation not supported|Operation not permitted|Permission denied)"; then
    echo "twonode: skipped: xshmem-run --nodes 2 cannot make two nodes on this machine (above); it needs root and the veth kernel module"
    exit 77
  fi
  echo "twonode: FAIL: xshmem-run -n 2 --nodes 2 true exited with status $rc"
  exit 1
fi

case "$mode" in
  expect) exec bash "$here/../bootstrap/expect_run.sh" "$@" ;;
  cleanup) ;;
  *) echo "twonode_check.sh: unknown mode $mode" >&2; exit 2 ;;
esac

# cleanup: two PEs (one per node) write their pid and network namespace, then sleep; the launcher
# is killed with SIGKILL (no chance to clean up), so only the kernel's rules can clean up.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$run" -n 2 --nodes 2 --no-prefix sh -c \
  'readlink /proc/self/ns/net > "$0/ns.$XSHMEM_BOOTSTRAP_TCP_RANK.tmp" && cat /proc/sys/kernel/hostname >> "$0/ns.$XSHMEM_BOOTSTRAP_TCP_RANK.tmp" &&
   echo $$ >> "$0/ns.$XSHMEM_BOOTSTRAP_TCP_RANK.tmp" && mv "$0/ns.$XSHMEM_BOOTSTRAP_TCP_RANK.tmp" "$0/ns.$XSHMEM_BOOTSTRAP_TCP_RANK" &&
   exec sleep 120' "$dir" &
launcher=$!
for ((i = 0; i < 100; i++)); do
  [ -f "$dir/ns.0" ] && [ -f "$dir/ns.1" ] && break
  sleep 0.1
done
if ! [ -f "$dir/ns.0" ] || ! [ -f "$dir/ns.1" ]; then
  echo "twonode: FAIL: the two pes did not start within 10 s"
  kill -KILL "$launcher"
  exit 1
fi
ours=$(readlink /proc/self/ns/net)
ok=1
declare -a ns pids
for k in 0 1; do
  mapfile -t l <"$dir/ns.$k"
  ns[$k]=${l[0]} pids[$k]=${l[2]}
  echo "pe $k: pid ${l[2]}, host ${l[1]}, ${l[0]} (the launcher's: $ours)"
  if [ "${l[0]}" = "$ours" ]; then echo "twonode: FAIL: pe $k runs in the launcher's network namespace"; ok=0; fi
done
if [ "${ns[0]}" = "${ns[1]}" ]; then echo "twonode: FAIL: both pes share ${ns[0]}"; ok=0; fi

kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
alive() {  # a pid that exists and is no zombie
  local st
  st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}
for ((i = 0; i < 50; i++)); do
  alive "${pids[0]}" || alive "${pids[1]}" || break
  sleep 0.1
done
for k in 0 1; do
  if alive "${pids[$k]}"; then
    echo "twonode: FAIL: pe $k (pid ${pids[$k]}) still runs 5 s after the launcher was killed"
    kill -KILL "${pids[$k]}"
    ok=0
  fi
done
# No process is left in either node's network namespace: nothing holds it, so it (and the veth
# pair in it) is gone.
for p in /proc/[0-9]*; do
  n=$(readlink "$p/ns/net" 2>/dev/null) || continue
  if [ "$n" = "${ns[0]}" ] || [ "$n" = "${ns[1]}" ]; then
    echo "twonode: FAIL: ${p#/proc/} ($(tr '\0' ' ' <"$p/cmdline")) still lives in $n"
    ok=0
  fi
done
[ $ok = 1 ] && echo "twonode: PASS: the pes and their namespaces ended with the killed launcher" && exit 0
exit 1
