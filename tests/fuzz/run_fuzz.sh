#!/usr/bin/env bash
# SEC-03: one fuzz.SEC-03.<name> CTest entry. First every committed regression input of the
# harness runs once (a crash found earlier stays fixed), then libFuzzer mutates the committed
# corpus for a bounded time. New inputs go to <fuzz build>/work/<name>, never into the source tree.
#   run_fuzz.sh <name> <fuzz build dir> <tests/fuzz dir> <seconds> <max_len> [pending reason]
# Exits 77 (skipped) with the reason when the harness could not be built: no clang/libFuzzer
# (fuzz.build says why), or a parser header that is not in this tree yet (the pending reason).
set -uo pipefail
name=$1 fb=$2 dir=$3 secs=$4 max_len=$5 pending=${6:-}
bin="$fb/bin/fuzz_$name"
if [ ! -x "$bin" ]; then
  if [ -f "$fb/SKIPPED" ]; then
    echo "fuzz.SEC-03.$name: skipped: the fuzz build was skipped: $(cat "$fb/SKIPPED")"
  elif [ -n "$pending" ]; then
    echo "fuzz.SEC-03.$name: skipped: $pending"
  else
    echo "fuzz.SEC-03.$name: $bin is missing although fuzz.build ran; see its output"
    exit 1
  fi
  exit 77
fi
corpus="$dir/corpus/$name" regress="$dir/regressions/$name"
work="$fb/work/$name" artifacts="$fb/artifacts/$name/"
mkdir -p "$work" "$artifacts"
opts=(-rss_limit_mb=1024 -malloc_limit_mb=1024 -timeout=25 -max_len="$max_len"
  -artifact_prefix="$artifacts" -print_final_stats=1)
[ -f "$dir/dict/$name.dict" ] && opts+=(-dict="$dir/dict/$name.dict")

if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
  echo "fuzz.SEC-03.$name: replaying $(ls "$regress" | wc -l) regression inputs of $regress"
  if ! "$bin" "${opts[@]}" "$regress"/* >"$fb/work/$name.regress.log" 2>&1; then
    cat "$fb/work/$name.regress.log"
    echo "fuzz.SEC-03.$name: FAIL: a regression input of $regress fails again"
    exit 1
  fi
fi
echo "fuzz.SEC-03.$name: fuzzing for $secs s from $corpus"
"$bin" "${opts[@]}" -max_total_time="$secs" "$work" "$corpus" >"$fb/work/$name.log" 2>&1
rc=$?
grep -E "^(#[0-9]+[[:space:]]+(INITED|DONE))|^(stat::number_of_executed_units|stat::peak_rss_mb)|^Done|^INFO: Seed" \
  "$fb/work/$name.log"
if [ "$rc" != 0 ]; then
  tail -n 80 "$fb/work/$name.log"
  crash=$(ls -t "$artifacts" 2>/dev/null | head -n 1)
  echo "fuzz.SEC-03.$name: FAIL: the harness found an input that breaks the parser: ${artifacts}$crash"
  echo "  reproduce: $bin ${artifacts}$crash"
  echo "  once fixed, commit it as tests/fuzz/regressions/$name/<what it is> (it then runs every time)"
  exit 1
fi
echo "fuzz.SEC-03.$name: ok"
