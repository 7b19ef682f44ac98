#!/usr/bin/env bash
# Builds osh_compare.c against xshmem (build/bin/xshmem-cc) and Open MPI's OSHMEM (oshcc), runs
# the two alternately for a number of rounds and prints the medians side by side. A benchmark run
# by hand, not a CTest test. See README.md.
#
#   bench/osh-compare/run.sh [-n PES] [-r ROUNDS] [-s SCALE] [-b BUILD_DIR] [-k]
#     -n PES      PEs per run (default 2)
#     -r ROUNDS   rounds; each runs xshmem, then OSHMEM (default 5)
#     -s SCALE    factor on the program's iteration counts (default 1)
#     -b DIR      xshmem build folder holding bin/xshmem-cc and bin/xshmem-run (default build)
#     -k          keep the work folder (binaries and raw outputs) and print its path
#
# Without oshcc or oshrun it says so in one line, runs xshmem alone, prints its medians and exits 3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pes=2
rounds=5
scale=1
build=$root/build
keep=0
while getopts "n:r:s:b:kh" opt; do
  case $opt in
    n) pes=$OPTARG ;;
    r) rounds=$OPTARG ;;
    s) scale=$OPTARG ;;
    b) build=$(cd "$OPTARG" && pwd) ;;
    k) keep=1 ;;
    h)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) exit 2 ;;
  esac
done

xcc=$build/bin/xshmem-cc
xrun=$build/bin/xshmem-run
for f in "$xcc" "$xrun"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f missing: configure and build xshmem first (see README.md)" >&2
    exit 2
  fi
done

have_osh=1
if ! command -v oshcc >/dev/null || ! command -v oshrun >/dev/null; then
  echo "run.sh: oshcc/oshrun not found: Open MPI OSHMEM absent, running xshmem only" >&2
  have_osh=0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/osh-compare.XXXXXX")
if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; fi

"$xcc" -O2 -o "$work/osh_compare.xshmem" "$here/osh_compare.c"
if [ "$have_osh" = 1 ]; then
  oshcc -O2 -o "$work/osh_compare.oshmem" "$here/osh_compare.c"
fi

# Open MPI's launch: shared memory only, out-of-band on loopback, one core per PE.
# More PEs than cores: oversubscribed, cores shared (bound PEs then outnumber the cores).
bind=core
if [ "$pes" -gt "$(nproc)" ]; then bind=core:overload-allowed; fi
osh_args=(-np "$pes" --mca btl 'self,vader' --mca osc '^rdma' -x 'UCX_TLS=self,sm,cma'
  --bind-to "$bind" --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo)
if [ "$(id -u)" = 0 ]; then osh_args+=(--allow-run-as-root); fi
if [ "$pes" -gt "$(nproc)" ]; then osh_args+=(--oversubscribe); fi

run_one() { # which round
  local which=$1 r=$2 out=$work/$1.$2.out
  if [ "$which" = xshmem ]; then
    XSHMEM_TRANSPORTS=${XSHMEM_TRANSPORTS:-hostshm} \
      "$xrun" -np "$pes" "$work/osh_compare.xshmem" "$scale" 2>"$work/$which.$r.err" |
      sed 's/^\[pe [0-9]*\] //' >"$out" || { # xshmem-run prefixes lines with "[pe K] "
      echo "run.sh: xshmem run $r failed; its output:" >&2
      cat "$out" "$work/$which.$r.err" >&2
      exit 1
    }
  else
    oshrun "${osh_args[@]}" "$work/osh_compare.oshmem" "$scale" >"$out" 2>"$work/$which.$r.err" || {
      echo "run.sh: OSHMEM run $r failed; its output:" >&2
      cat "$out" "$work/$which.$r.err" >&2
      exit 1
    }
  fi
  grep -q '^metric=pingpong_fence_rtt ' "$out" || {
    echo "run.sh: $which run $r printed no last metric; its output:" >&2
    cat "$out" "$work/$which.$r.err" >&2
    exit 1
  }
}

for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds: xshmem" >&2
  run_one xshmem "$r"
  if [ "$have_osh" = 1 ]; then
    echo "round $r/$rounds: OSHMEM" >&2
    run_one oshmem "$r"
  fi
done

echo "PEs: $pes, rounds: $rounds, scale: $scale, host: $(hostname), $(nproc) cores"
echo "xshmem: $(grep -h '^api=' "$work/xshmem.1.out")"
if [ "$have_osh" = 1 ]; then echo "OSHMEM: $(grep -h '^api=' "$work/oshmem.1.out")"; fi
echo

# Median per metric and implementation; then the table in metric order of the program.
med() { # implementation metric
  cat "$work/$1".*.out | sed -n "s/^metric=$2 value=\([^ ]*\) .*/\1/p" | sort -g |
    awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
         else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
{
  printf '| metric | unit | xshmem median | OSHMEM median | xshmem/OSHMEM | better |\n'
  printf '|---|---|---:|---:|---:|---|\n'
  sed -n 's/^metric=\([^ ]*\) value=[^ ]* unit=\(.*\)/\1 \2/p' "$work/xshmem.1.out" |
    while read -r m unit; do
      x=$(med xshmem "$m")
      o=n/a
      if [ "$have_osh" = 1 ]; then o=$(med oshmem "$m"); fi
      if [ "$unit" = us ]; then better=lower; else better=higher; fi
      awk -v m="$m" -v u="$unit" -v x="$x" -v o="$o" -v b="$better" 'BEGIN {
        ratio = (o == "n/a" || o + 0 == 0) ? "n/a" : sprintf("%.3g", x / o)
        printf "| %s | %s | %.4g | %s | %s | %s |\n", m, u, x, (o == "n/a") ? o : sprintf("%.4g", o),
               ratio, b }'
    done
}
if [ "$keep" = 1 ]; then echo && echo "raw outputs: $work"; fi
if [ "$have_osh" = 0 ]; then exit 3; fi
