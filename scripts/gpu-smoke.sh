#!/usr/bin/env bash
# GPU heap smoke test on one GPU machine: GPU symmetric heap, nvlink mappings and heap growth,
# with 2 PEs (tests/gpu/heap_smoke.cu). Builds what it needs first.
#
# Usage: scripts/gpu-smoke.sh [build-dir]     (default: <repo>/build-gpu)
# Runs two configurations: small chunks (growth spans several chunks committed after init) and
# the default chunk size with growth past the first chunk. Prints one summary line; exits 0 when
# every run passed, 77 when there is no GPU, 1 otherwise. Logs go to <build-dir>/gpu-smoke/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
jobs=$(nproc 2>/dev/null || echo 2)

if ! cmake -S "$root" -B "$build" -DXSHMEM_ENABLE_CUDA=ON >"$build.configure.log" 2>&1; then
  tail -30 "$build.configure.log"
  echo "gpu-smoke: FAIL: cmake configure failed (see $build.configure.log)"
  exit 1
fi
targets="xshmem xshmem-run xshmem_transport_nvlink xshmem_transport_hostshm xshmem_bootstrap_tcp
         xshmem_gpu_heap_smoke"
if ! cmake --build "$build" -j"$jobs" --target $targets >"$build/gpu-smoke-build.log" 2>&1; then
  tail -40 "$build/gpu-smoke-build.log"
  echo "gpu-smoke: FAIL: build failed (see $build/gpu-smoke-build.log)"
  exit 1
fi
if readelf -d "$build/lib/libxshmem.so" | grep -q 'NEEDED.*libcuda'; then
  echo "gpu-smoke: FAIL: libxshmem.so links libcuda (it must load the driver at run time)"
  exit 1
fi

logs="$build/gpu-smoke"
mkdir -p "$logs"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader >"$logs/gpus.txt" 2>&1 || true

passed=0 failed=0 skipped=0 summary=""
# run <name> <env...>
run() {
  local name=$1
  shift
  local log="$logs/$name.log"
  env "$@" XSHMEM_LOG_LEVEL=info timeout 300 "$build/bin/xshmem-run" -n 2 "$build/bin/heap_smoke" \
    >"$log" 2>&1
  local rc=$?
  local times
  times=$(grep -o 'init [0-9.]* s, finalize [0-9.]* s' "$log" | tr '\n' ';')
  case $rc in
    0) passed=$((passed + 1)); summary+=" $name=ok(${times%;})" ;;
    77) skipped=$((skipped + 1)); summary+=" $name=skip" ;;
    *) failed=$((failed + 1)); summary+=" $name=FAIL(rc $rc)"
       echo "---- $name (rc $rc), last lines of $log:"
       tail -25 "$log" ;;
  esac
  grep -h 'nvlink\] info\|gpu heap on\|paths from' "$log" | sed "s/^/  [$name] /" | head -8
}

run small-chunks XSHMEM_SYMMETRIC_SIZE=1G XSHMEM_CUDA_HEAP_CHUNK=64M HEAP_SMOKE_GROW_BYTES=320M
run default-chunk XSHMEM_SYMMETRIC_SIZE=2G HEAP_SMOKE_GROW_BYTES=1200M

if [ $failed -gt 0 ]; then
  echo "gpu-smoke: FAIL: $passed passed, $failed failed, $skipped skipped:$summary"
  exit 1
elif [ $passed -eq 0 ]; then
  echo "gpu-smoke: SKIP: $(grep -ho 'SKIP: .*' "$logs"/*.log | head -1 | sed 's/^SKIP: //'):$summary"
  exit 77
fi
echo "gpu-smoke: PASS: $passed passed:$summary"
