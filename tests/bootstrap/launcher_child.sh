#!/bin/sh
# What a PE does in the xshmem-run tests (run by xshmem-run, which sets XSHMEM_BOOTSTRAP_TCP_*).
rank=$XSHMEM_BOOTSTRAP_TCP_RANK
case "$1" in
  output)  # a line on each stream, and a last line without newline
    echo "out $rank of $XSHMEM_BOOTSTRAP_TCP_SIZE"
    echo "err $rank" >&2
    printf 'partial %s' "$rank" ;;
  fail)  # pe $2 exits with status $3, the others wait
    if [ "$rank" = "$2" ]; then exit "$3"; fi
    exec sleep 60 ;;
  signal)  # pe $2 kills itself with signal $3, the others wait
    if [ "$rank" = "$2" ]; then kill -s "$3" $$; fi
    exec sleep 60 ;;
  ignore_term)  # ignores SIGTERM: only SIGKILL ends it
    trap '' TERM
    sleep 60 ;;
  orphan)  # leaves a background grandchild behind and exits 0
    sleep 300 &
    echo "grandchild $!"
    exit 0 ;;
  check_orphans)  # run by CTest directly: $2 is xshmem-run; the grandchildren must be gone
    out=$("$2" -n 2 --timeout 20 "$0" orphan) || { echo "xshmem-run failed: $out"; exit 1; }
    echo "$out"
    pids=$(echo "$out" | sed -n 's/.*grandchild \([0-9]*\).*/\1/p')
    [ "$(echo "$pids" | wc -w)" = 2 ] || { echo "expected 2 grandchild pids"; exit 1; }
    sleep 0.5  # whoever adopted them reaps them asynchronously; a zombie counts as gone
    for pid in $pids; do
      state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
      if [ -n "$state" ] && [ "$state" != Z ]; then
        echo "grandchild $pid survived xshmem-run (state $state)"; exit 1
      fi
    done
    echo "both grandchildren are gone" ;;
  *) echo "launcher_child.sh: unknown mode $1" >&2; exit 2 ;;
esac
