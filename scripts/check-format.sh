#!/usr/bin/env bash
# Fails if a tracked C, C++ or CUDA file differs from what clang-format (.clang-format) makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "check-format: clang-format not installed; skipped"
  exit 0
fi
bad=$(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run 2>&1 | grep -c "warning:" || true)
if [ "$bad" != 0 ]; then
  git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run 2>&1 | grep "warning:" | cut -d: -f1 | sort -u
  echo "check-format: $bad lines need clang-format -i"
  exit 1
fi
echo "check-format: ok"
