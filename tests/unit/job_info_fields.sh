#!/bin/bash
# unit.job_info_fields: the job info 1.2 fields a transport's init reads (the unittest_jobinfo
# plugin logs them): CPU PEs with no NIC transport allowed have no NIC and no GPU, one proxy
# channel and a host heap; each PE names its own rank.
#   job_info_fields.sh <xshmem-run> <program>   (XSHMEM_PLUGIN_PATH holds the plugin)
set -u
out=$(timeout 50 "$1" -n 2 "$2" 2>&1)
rc=$?
grep unittest_jobinfo <<<"$out"
if [ $rc != 0 ]; then
  echo "$out" | tail -20
  echo "FAIL: the job exited $rc"
  exit 1
fi
for pe in 0 1; do
  if ! grep -qE "^\[pe $pe\] .*unittest_jobinfo\] warn: pe $pe of 2: nic none, gpu_pci none, num_channels 1, heap_kind host$" <<<"$out"; then
    echo "FAIL: no job info line of pe $pe with the expected fields"
    exit 1
  fi
done
echo "PASS: both PEs' transports saw the 1.2 fields"
