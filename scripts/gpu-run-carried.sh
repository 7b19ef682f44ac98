#!/usr/bin/env bash
# Runs the GPU programs packed by scripts/gpu-pack.sh on the device machine (as .carry/gpu/run.sh): heap smoke, the GPU suite twice, the ring example, memcheck on a subset; logs into $OUT/gpu.log, summary last.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out=${OUT:-/tmp}
log=$out/gpu.log
: > "$log"
nvidia-smi topo -m >> "$log" 2>&1
summary=()
run() {  # label timeout env... -- prog args
  local label=$1 t=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  echo "===== $label" >> "$log"
  local s=$(date +%s.%N)
  env "${envs[@]}" timeout "$t" "$@" >> "$log" 2>&1
  local rc=$?
  local e=$(date +%s.%N)
  summary+=("$(printf '%-22s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$e" 'BEGIN{print b-a}')")")
}
R=bin/xshmem-run
# REPS (default 2): suite repetitions; MEMCHECK (default 1): compute-sanitizer memcheck subset.
reps=${REPS:-2}
progs=$(cd bin && ls gpu_* | grep -v '^gpu_err' | sort)
run heap_smoke 120 XSHMEM_LOG_LEVEL=info XSHMEM_SYMMETRIC_SIZE=1G XSHMEM_CUDA_HEAP_CHUNK=64M HEAP_SMOKE_GROW_BYTES=320M -- $R -n 2 bin/heap_smoke
for rep in $(seq 1 "$reps"); do
  for p in $progs; do
    run $p.$rep 90 XSHMEM_SYMMETRIC_SIZE=2G -- $R -n 2 bin/$p
  done
done
# The reductions again with each algorithm forced (the plain runs above take auto).
if [ -x bin/gpu_coll_reduce ]; then
  for algo in direct rsag; do
    run gpu_coll_reduce.$algo 120 XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_COLL_REDUCE_ALGO=$algo -- $R -n 2 bin/gpu_coll_reduce
  done
fi
# The data-movement collectives with the tree broadcast and the ring fcollect/collect forced.
if [ -x bin/gpu_coll_move ]; then
  run gpu_coll_move.tree_ring 120 XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_COLL_BCAST_ALGO=tree XSHMEM_COLL_FCOLLECT_ALGO=ring -- $R -n 2 bin/gpu_coll_move
fi
# ERR-11: a device-side mistake on PE 0 stops the whole job (death_check.sh: nonzero on every PE,
# the diagnostic, status 86, < 10 s). The exact regexes are in tests/gpu/device_tests.cmake.
if [ -x bin/gpu_err_device ]; then
  for sc in bad_pe_put bad_pe_atomic nonsym_put misaligned_atomic past_heap_get null_put; do
    run err11_$sc 60 -- bash death_check.sh --np 2 --regex "xshmem: device [a-z_]+ \(block 3,0,0 thread 5,0,0\): .*\(pe 0\)" --max-seconds 10 -- $R -n 2 bin/gpu_err_device $sc
  done
  # Returning from main without finalize: the processes exit (status of the launcher logged).
  run exit_without_finalize 30 -- $R -n 2 bin/gpu_err_device_unchecked no_finalize
  run init05_device_global_exit 60 -- bash death_check.sh --np 2 --status 42 --regex "xshmem: xshmem_global_exit \(device, block 3,0,0 thread 5,0,0\): status 42" --max-seconds 10 -- $R -n 2 bin/gpu_err_device_unchecked global_exit
  run err11_unchecked 60 -- bash death_check.sh --np 2 --status 87 --regex "xshmem: device kernel: the GPU context failed .*\(pe 0\)" --max-seconds 10 -- $R -n 2 bin/gpu_err_device_unchecked misaligned_atomic
fi
run example_ring_4pe 60 -- $R -n 4 bin/xshmem-example-ring
# MEMCHECK_PROGS: the programs run under compute-sanitizer memcheck.
[ "${MEMCHECK:-1}" = 1 ] && for p in ${MEMCHECK_PROGS:-gpu_mem gpu_p2p gpu_coll}; do
  run memcheck_$p 240 XSHMEM_SYMMETRIC_SIZE=2G -- $R -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 bin/$p
done
printf '%s\n' "${summary[@]}" | tee -a "$log"
