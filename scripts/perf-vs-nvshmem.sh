#!/usr/bin/env bash
# Runs on the 2-GPU device machine: xshmem-perf (device metrics dev.*, init_ms, finalize_ms) from
# the packed build (.carry/gpu, made by scripts/gpu-pack.sh: bin/, lib/), then the NVSHMEM
# reference program and raw_floor.cu (.carry/bench: a copy of shared/bench), then
# tools/probe/nvlink_probe if packed at .carry/probe/nvlink_probe, and prints the outputs so the figures compare line by line (dev.<name> vs <name>).
#   device run with carry [".carry"], command "bash scripts/perf-vs-nvshmem.sh"
# Environment: GPU_DIR (default .carry/gpu), BENCH_DIR (default .carry/bench), PERF_ARGS (extra
# xshmem-perf arguments), XSHMEM_SYMMETRIC_SIZE (default 3G: the bandwidth metrics take 2 GiB).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpu=$(cd "${GPU_DIR:-$root/.carry/gpu}" && pwd)
bench=$(cd "${BENCH_DIR:-$root/.carry/bench}" && pwd)
out=${OUT:-/tmp/perf-vs-nvshmem}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export XSHMEM_SYMMETRIC_SIZE=${XSHMEM_SYMMETRIC_SIZE:-3G}

nvidia-smi topo -m > "$out/topo.txt" 2>&1 || true

echo "===== xshmem-perf"
(cd "$gpu" && LD_LIBRARY_PATH=$gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 540 \
  bin/xshmem-run -n 2 bin/xshmem-perf --csv "$out/xshmem.csv" ${PERF_ARGS:-}) \
  2>&1 | tee "$out/xshmem.txt"
rc_x=${PIPESTATUS[0]}

echo "===== NVSHMEM reference"
timeout 540 bash "$bench/run_nvshmem_baseline.sh" 2>&1 | tee "$out/nvshmem.txt"
rc_n=${PIPESTATUS[0]}

echo "===== raw_floor.cu (no runtime: the NVLink ceilings)"
nvcc -O3 -arch=sm_90 -o /tmp/raw_floor "$bench/raw_floor.cu" && timeout 120 /tmp/raw_floor 2>&1 | tee "$out/raw_floor.txt"
if [ -x "${PROBE:-$root/.carry/probe/nvlink_probe}" ]; then
  echo "===== tools/probe/nvlink_probe.cu"
  timeout 120 "${PROBE:-$root/.carry/probe/nvlink_probe}" 2>&1 | tee "$out/probe.txt"
fi

echo "===== exit status: xshmem-perf $rc_x, nvshmem reference $rc_n"
[ "$rc_x" -eq 0 ] && [ "$rc_n" -eq 0 ]
