#!/usr/bin/env bash
# run_pytest.sh PYTHON LAUNCHER... -- TEST_FILE  (or PYTHON - TEST_FILE: no launcher)
# Runs pytest on TEST_FILE with PYTHON, under the launcher when one is given (every PE runs the
# same tests in the same order). Exit 77 (CTest: skipped) when PYTHON lacks pytest, numpy or torch.
set -uo pipefail
py=$1
shift
launcher=()
while [ "$1" != "--" ] && [ "$1" != "-" ]; do
  launcher+=("$1")
  shift
done
shift
file=$1
for mod in pytest numpy torch; do
  if ! "$py" -c "import $mod" 2>/dev/null; then
    echo "run_pytest: skipped: $py cannot import $mod (Debian: python3-$mod)"
    exit 77
  fi
done
exec "${launcher[@]}" "$py" -m pytest -q -p no:cacheprovider -x "$file"
