#!/usr/bin/env bash
# The main job: installs, builds what the ring example runs (libxshmem, xshmem-run, the example,
# the plugins it loads: target example-deps) and runs it with 4 local PEs. The configuration is
# test.sh's, so the tests afterwards build only the rest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build" example-deps
exec "$root/build/bin/xshmem-run" -n 4 "$root/build/bin/xshmem-example-ring"
