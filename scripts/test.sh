#!/usr/bin/env bash
# Installs, builds (warnings are errors) and runs every test: unit, bootstrap, conformance on
# hostshm at 1, 2, 3, 4 and 8 PEs, death tests. Extra arguments go to ctest. The configuration
# is example.sh's (scripts/build.sh), so what the example built is not built again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/check-format.sh"
"$root/scripts/build.sh" "$root/build"
cd "$root/build"
ctest --output-on-failure --timeout 600 "$@"
