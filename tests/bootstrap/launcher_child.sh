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
  *) echo "launcher_child.sh: unknown mode $1" >&2; exit 2 ;;
esac
