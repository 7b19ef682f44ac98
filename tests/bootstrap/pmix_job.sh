#!/bin/bash
# Runs a job of N processes under mpirun (Open MPI's PMIx server) and checks how it ended through
# expect_run.sh; exits 77 (skipped, with the reason) when mpirun or the pmix plugin is missing.
#
#   pmix_job.sh MPIRUN PLUGIN [expect_run.sh options...] -- N prog args...
#
# Open MPI as root needs --allow-run-as-root; --oversubscribe lets N exceed the cores. The
# launcher's out-of-band and PMIx traffic stays on the loopback interface.
set -u
here=$(dirname "$0")
mpirun=$1 plugin=$2
shift 2
expect=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do expect+=("$1"); shift; done
[ $# -gt 0 ] && shift
np=$1
shift
if ! command -v "$mpirun" >/dev/null 2>&1; then
  echo "SKIP: no mpirun ('$mpirun' not found): install openmpi-bin to run the pmix tests"
  exit 77
fi
if [ ! -f "$plugin" ]; then
  echo "SKIP: the pmix bootstrap plugin $plugin was not built (libpmix-dev missing at configure time)"
  exit 77
fi
exec "$here/expect_run.sh" "${expect[@]}" -- "$mpirun" --allow-run-as-root --oversubscribe \
  --mca oob_tcp_if_include lo --mca btl self,vader -np "$np" "$@"
