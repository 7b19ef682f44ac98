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
# Open MPI 4.1's mpirun itself now and then dies of a segmentation fault in its own
# PMIx_server_finalize after a job that aborted (CI: abort.np4 ended with 139, the abort code 7
# already sent): that run says nothing about xshmem, so it is run once more, saying so.
run() {
  "$here/expect_run.sh" "${expect[@]}" -- "$mpirun" --allow-run-as-root --oversubscribe \
    --mca oob_tcp_if_include lo --mca btl self,vader -np "$np" "$@"
}
out=$(run "$@")
rc=$?
echo "$out"
if [ $rc != 0 ] && echo "$out" | grep -Eq "\] .*\(PMIx_server_finalize\+"; then
  echo "pmix_job.sh: mpirun crashed in its own PMIx_server_finalize (an Open MPI fault); running once more"
  run "$@"
  rc=$?
fi
exit $rc
