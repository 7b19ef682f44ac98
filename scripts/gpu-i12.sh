#!/usr/bin/env bash
# Issue 12's GPU acceptance runs, in one device call (carry .carry): .carry/before = the build
# before the seam change (main 1fa9a8d: xshmem-perf, xshmem-run, libxshmem, plugins, selfops
# built against its headers), .carry/gpu = this tree's (scripts/gpu-pack.sh, plus selfops and the
# proxy GPU test). The carry limit (64 MiB) splits it in two calls: PART=1 carries .carry/before,
# .carry/gpu-a (the after tree's perf programs, gpu_layout_old, the proxy GPU test) and
# .carry/probe; PART=2 carries .carry/gpu (the GPU suite). Logs under $OUT; a summary at the end
# of $OUT/i12.log.
cd "$(dirname "$0")/../.carry" || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out=${OUT:-/tmp}
log=$out/i12.log
: > "$log"
summary=()
run() {  # label timeout tree env... -- prog args   (tree: before | gpu)
  local label=$1 t=$2 tree=$3; shift 3
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  echo "===== $label ($tree)" >> "$log"
  local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/$tree/lib" "${envs[@]}" timeout "$t" "$@" >> "$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-40s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >> "$log" 2>&1
[ -x probe/fi_hmem ] && run probe_fi_hmem 30 before -- probe/fi_hmem
# PART=1: before/after, layout, proxy GPU test; PART=2: the GPU suites (default: both).
# LF_PROGS, LF_STAGED_PROGS, NV_PROGS (set, possibly empty) choose PART=2's programs.
part=${PART:-all}
if [ "$part" != 2 ]; then
# 1. Before/after on one GPU, alternating (B A B A): one PE on itself (selfops), and two PEs
#    sharing the GPU for bandwidth (xshmem-perf dev.put_bw / dev.get_bw; no ping-pong there: the
#    two processes' kernels are time-sliced).
#    bench/dispatch (no runtime) built against each tree's headers, alternating too.
for round in $(seq "${ROUNDS:-2}"); do
  for tree in before gpu-a; do
    [ -x $tree/bin/dispatch ] && run dispatch.$tree.$round 60 $tree -- $tree/bin/dispatch $tree 7
    run selfops.$tree.$round 120 $tree -- $tree/bin/xshmem-run -n 1 $tree/bin/selfops 7
    run perf2.$tree.$round 200 $tree XSHMEM_SYMMETRIC_SIZE=4G -- $tree/bin/xshmem-run -n 2 $tree/bin/xshmem-perf --metrics dev.put_bw,dev.get_bw --min-size 4K --max-size 256M --size-step 16 --reps 5
    run perf2lat.$tree.$round 200 $tree -- $tree/bin/xshmem-run -n 2 $tree/bin/xshmem-perf --metrics dev.atomic_fetch_add_lat,dev.atomic_fetch_add_chain_lat --reps 5
    run perf1.$tree.$round 120 $tree -- $tree/bin/xshmem-run -n 1 $tree/bin/xshmem-perf --metrics dev.device_barrier_all_block_lat,dev.sum_reduce_block_65536_floats --reps 5
  done
done
# 2. A module compiled against an older device-state layout is refused with its one line.
run layout_old_refused 60 gpu-a -- bash gpu-a/death_check.sh --np 2 --status 1 --regex "^(\[pe [01]\] )?xshmem: xshmem_init: failed: kernel module [^ ]*layout\.cu was compiled against device-state layout 0 \(unnumbered\), this libxshmem has [0-9]+; rebuild it against this xshmem \(pe [01]\)$" --max-seconds 20 -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/gpu_layout_old
# 3. The proxy engine with GPU producers (fake transport).
run proxy_gpu 120 gpu-a -- gpu-a/bin/xshmem_proxy_gpu_test
# 3b. Proxy put next to raw fi_write on CPU PEs (host heaps, tcp on lo), on this machine's 16
#     cores: on the 2-core machine five threads share two cores and the round trips measure the
#     scheduler (130-360 us either way). With .carry/lfvar (a libfabric plugin built another
#     way, loaded first through XSHMEM_PLUGIN_PATH), A (gpu-a's plugin) and B alternate.
FWV="XSHMEM_HEAP=host XSHMEM_TRANSPORTS=libfabric XSHMEM_LIBFABRIC_PROVIDER=tcp FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo"
ab() {  # label timeout xshmem-perf args...: A, then B when .carry/lfvar exists
  local label=$1 t=$2; shift 2
  run "$label" "$t" gpu-a $FWV -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf "$@"
  [ -d lfvar ] && run "$label.B" "$t" gpu-a $FWV XSHMEM_PLUGIN_PATH="$PWD/lfvar" -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf "$@"
}
for round in 1 2 3; do
  ab fi_write_vs_put.$round 120 --metrics fi_write_vs_put
done
# Small-put rate (B may add a completion per small put).
ab put_bw_small 60 --metrics put_bw --min-size 8 --max-size 4096 --size-step 8
fi
if [ "$part" != 1 ]; then
# 4. The GPU suite over libfabric, two PEs sharing the GPU: FI_HMEM through shm when the library
#    has it, else the staged path over tcp. XSHMEM_WAIT_TIMEOUT: a stalled wait names itself
#    instead of running into the per-program limit.
LF="XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_SYMMETRIC_SIZE=2G XSHMEM_WAIT_TIMEOUT=60s"
for p in ${LF_PROGS-rma amo sig p2p ord ctx coll team mem}; do
  [ -x gpu/bin/gpu_$p ] || continue
  run lf_shm.gpu_$p ${LF_T:-150} gpu $LF XSHMEM_LIBFABRIC_PROVIDER=shm -- gpu/bin/xshmem-run -n 2 gpu/bin/gpu_$p
done
for p in ${LF_STAGED_PROGS-rma amo sig}; do
  run lf_tcp_staged.gpu_$p ${LF_T:-150} gpu $LF XSHMEM_LIBFABRIC_PROVIDER=tcp XSHMEM_LIBFABRIC_STAGED=1 -- gpu/bin/xshmem-run -n 2 gpu/bin/gpu_$p
done
# 5. The GPU suite over nvlink once (the host dispatch change: HOST_CE).
for p in ${NV_PROGS-$(cd gpu/bin && ls gpu_* | sort)}; do
  run nvlink.$p 90 gpu XSHMEM_SYMMETRIC_SIZE=2G -- gpu/bin/xshmem-run -n 2 gpu/bin/$p
done
fi
grep -h "selfops \|dispatch \|^before \|^gpu-a \|dev\.\(put\|get\)_bw \|dev.atomic\|dev.device_barrier\|dev.sum_reduce\|fi_write\|lat_8B\|=====" "$log" > "$out/perf-lines.log"
printf '%s\n' "${summary[@]}" | tee -a "$log"
