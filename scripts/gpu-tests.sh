#!/usr/bin/env bash
# Builds and runs the GPU test suite (2 PEs, one GPU each) and prints a summary table.
#
#   scripts/gpu-tests.sh [--build DIR] [--repeat N] [--memcheck] [--np N] [PROGRAM...]
#
# --build DIR   build folder (default: build-gpu), configured with CUDA and warnings as errors
# --repeat N    run the whole suite N times (acceptance: 2, "twice in a row")
# --memcheck    also run gpu_mem, gpu_p2p and gpu_coll under compute-sanitizer memcheck
# --np N        PEs per program (default 2)
# PROGRAM...    only these programs (names as in the table: gpu_rma, heap_smoke, ...)
#
# It also compiles examples/gpu_ring.cu the way a user would (plain `nvcc -arch=sm_90`, no -rdc,
# against the build tree's headers and libxshmem) and runs it. Exit status: 0 when everything
# ran and passed, 77 when no GPU is usable (everything skipped), 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-gpu"
repeat=1
memcheck=0
np=2
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --memcheck) memcheck=1; shift ;;
    --np) np=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) only+=("$1"); shift ;;
  esac
done

nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -DXSHMEM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
  { echo "gpu-tests: cmake configure failed"; exit 1; }
# The default target: libxshmem, plugins, xshmem-run and every GPU program.
cmake --build "$build" -j"$jobs" >/dev/null 2>"$build/gpu-tests-build.err" ||
  { echo "gpu-tests: build failed:"; tail -40 "$build/gpu-tests-build.err"; exit 1; }

bin="$build/bin"
run="$bin/xshmem-run"
logs="$build/gpu-test-logs"
mkdir -p "$logs"

# The user build: one .cu, plain nvcc, linked with libxshmem.
user_bin="$build/gpu_ring_user"
if "$nvcc" -arch=sm_90 -O2 "$root/examples/gpu_ring.cu" -I"$root/core/include" \
    -I"$root/device/include" -I"$root/plugins/include" -L"$build/lib" -lxshmem \
    -Xlinker -rpath="$build/lib" -o "$user_bin" >"$logs/user_build.log" 2>&1; then
  user_build=ok
else
  user_build=FAILED
fi

programs=(gpu_rma gpu_amo gpu_sig gpu_p2p gpu_ord gpu_coll gpu_mem heap_smoke gpu_ring_user)
if [ ${#only[@]} -gt 0 ]; then programs=("${only[@]}"); fi

declare -a rows
failed=0
skipped=0
passed=0
run_one() {  # name, label, command...
  local name=$1 label=$2; shift 2
  local log="$logs/$label.log" start end rc status cases fails
  start=$(date +%s.%N)
  timeout 900 "$@" >"$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  case $rc in
    0) status=PASS; passed=$((passed + 1)) ;;
    77) status=SKIP; skipped=$((skipped + 1)) ;;
    124) status=TIMEOUT; failed=$((failed + 1)) ;;
    *) status="FAIL($rc)"; failed=$((failed + 1)) ;;
  esac
  cases=$(grep -cE '^(PASS|FAIL) ' "$log")
  fails=$(grep -cE '^FAIL ' "$log")
  rows+=("$(printf '%-28s %-10s %6s %6s %9.1f  %s' "$label" "$status" "$cases" "$fails" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$log")")
  if [ "$status" != PASS ] && [ "$status" != SKIP ]; then
    echo "---- $label ($status): last lines of $log"
    tail -15 "$log"
  fi
}

for ((r = 1; r <= repeat; r++)); do
  for p in "${programs[@]}"; do
    exe="$bin/$p"
    [ "$p" = gpu_ring_user ] && exe="$user_bin"
    label="$p"
    [ "$repeat" -gt 1 ] && label="$p#$r"
    if [ ! -x "$exe" ]; then
      rows+=("$(printf '%-28s %-10s' "$label" "MISSING")")
      failed=$((failed + 1))
      continue
    fi
    env=()
    [ "$p" = heap_smoke ] &&
      env=(env XSHMEM_SYMMETRIC_SIZE=1G XSHMEM_CUDA_HEAP_CHUNK=64M HEAP_SMOKE_GROW_BYTES=320M)
    run_one "$p" "$label" ${env[@]+"${env[@]}"} "$run" -n "$np" "$exe"
  done
done

if [ "$memcheck" = 1 ]; then
  sanitizer=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
  for p in gpu_mem gpu_p2p gpu_coll; do
    run_one "$p" "memcheck:$p" "$run" -n "$np" "$sanitizer" --tool memcheck --error-exitcode 1 \
      "$bin/$p"
  done
fi

echo
echo "user build of examples/gpu_ring.cu (nvcc -arch=sm_90, no -rdc): $user_build"
printf '%-28s %-10s %6s %6s %9s  %s\n' program result cases failed seconds log
for row in "${rows[@]}"; do echo "$row"; done
echo "passed $passed, failed $failed, skipped $skipped"
if [ "$user_build" != ok ]; then
  echo "user build log:"; cat "$logs/user_build.log"; exit 1
fi
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ "$passed" -eq 0 ]; then exit 77; fi
exit 0
