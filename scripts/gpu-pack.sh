#!/usr/bin/env bash
# Packs a CUDA build made here (default build-gpu) into .carry/gpu for the device tool: stripped
# GPU programs, xshmem-run, libxshmem and the plugins, plus scripts/gpu-run-carried.sh as run.sh.
# Then, on the GPU machine: device run with carry [".carry"], command "bash .carry/gpu/run.sh".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
dst=$root/.carry/gpu
rm -rf "$dst" && mkdir -p "$dst/bin" "$dst/lib/xshmem"
# the GPU programs built so far (a partial build packs what it has), and the tools
for f in "$build"/bin/gpu_* "$build"/bin/nvshmem_* "$build"/bin/heap_smoke; do if [ -e "$f" ]; then cp "$f" "$dst/bin/"; fi; done
cp "$build"/bin/{xshmem-run,xshmem-example-ring,xshmem-perf,xshmem-info} "$dst/bin/"
cp -a "$build"/lib/libxshmem.so* "$dst/lib/"
cp "$build"/lib/xshmem/*.so "$dst/lib/xshmem/"
strip --strip-debug "$dst"/bin/* "$dst"/lib/libxshmem.so.*.*.* "$dst"/lib/xshmem/*.so
cp "$root/scripts/gpu-run-carried.sh" "$dst/run.sh"
cp "$root/tests/conformance/death_check.sh" "$dst/death_check.sh"
du -sh "$dst"
