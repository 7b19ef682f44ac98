#!/usr/bin/env bash
# The main job: installs, builds and runs the ring example with 4 local PEs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
exec "$root/build/bin/xshmem-run" -n 4 "$root/build/bin/xshmem-example-ring"
