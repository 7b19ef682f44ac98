#!/usr/bin/env bash
# Session 11, device call 1: get_bw variants (before, head, v1 inline mailbox, v2 out-of-line
# proxy group get, v3 both) alternating; selfops/dispatch before vs head and v3; the PART=1 perf
# set before vs head; layout refusal; proxy_gpu; fi_write_vs_put on CPU PEs.
cd "$(dirname "$0")/.." || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/c1.log; : > $log
S=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >> $log 2>&1
summary=()
run() { # label timeout lib env... -- cmd
  local label=$1 t=$2 lib=$3; shift 3; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  echo "===== $label" >> $log; local s=$(date +%s.%N)
  env LD_LIBRARY_PATH="$PWD/$lib" "${envs[@]}" timeout "$t" "$@" >> $log 2>&1; local rc=$?
  summary+=("$(printf '%-36s rc=%-4s %6.1fs' "$label" "$rc" "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')")")
}
# 0. SASS of get_bw_kernel per build (cuobjdump is on this machine only).
for v in before head v1 v2 v3 v4; do
  bin=var/$v/xshmem-perf; [ $v = before ] && bin=before/bin/xshmem-perf; [ $v = head ] && bin=gpu-a/bin/xshmem-perf
  ${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)} -sass "$bin" 2>/dev/null | awk '/Function : /{p = /get_bw_kernel/} p' > $OUT/get_bw_kernel-$v.sass
  echo "sass $v: $(wc -l < $OUT/get_bw_kernel-$v.sass) lines, S2R $(grep -c S2R $OUT/get_bw_kernel-$v.sass), CALL $(grep -c CALL $OUT/get_bw_kernel-$v.sass)" >> $log
done
# 1. get_bw/put_bw 4K..1M, the variants alternating (same libxshmem for head and variants).
for r in 1 2 3 4; do
  for v in before head v1 v2 v3 v4; do
    lib=gpu-a/lib xr=gpu-a/bin/xshmem-run bin=var/$v; [ $v = before ] && lib=before/lib xr=before/bin/xshmem-run bin=before/bin
    [ $v = head ] && bin=gpu-a/bin
    run "getbw.$v.$r" 60 $lib XSHMEM_SYMMETRIC_SIZE=3G -- $xr -n 2 $bin/xshmem-perf --metrics dev.get_bw,dev.put_bw --min-size 4K --max-size 1M --size-step 16 --reps 10
  done
done
# 2. One PE on itself (selfops) and bench/dispatch: before, head, v3.
for r in 1 2; do
  for v in before head v3 v4; do
    lib=gpu-a/lib xr=gpu-a/bin/xshmem-run bin=var/$v; [ $v = before ] && lib=before/lib xr=before/bin/xshmem-run bin=before/bin
    [ $v = head ] && bin=gpu-a/bin
    run "dispatch.$v.$r" 60 $lib -- $bin/dispatch $v 7
    run "selfops.$v.$r" 120 $lib -- $xr -n 1 $bin/selfops 7
  done
done
# 3. The rest of the device metrics, before vs head (bandwidth to 256 MiB, atomics, barrier).
for r in 1 2; do
  for v in before head; do
    lib=gpu-a/lib xr=gpu-a/bin/xshmem-run bin=gpu-a/bin; [ $v = before ] && lib=before/lib xr=before/bin/xshmem-run bin=before/bin
    run perf2.$v.$r 200 $lib XSHMEM_SYMMETRIC_SIZE=4G -- $xr -n 2 $bin/xshmem-perf --metrics dev.put_bw,dev.get_bw --min-size 16M --max-size 256M --size-step 16 --reps 5
    run perf2lat.$v.$r 200 $lib -- $xr -n 2 $bin/xshmem-perf --metrics dev.atomic_fetch_add_lat,dev.atomic_fetch_add_chain_lat --reps 5
    run perf1.$v.$r 120 $lib -- $xr -n 1 $bin/xshmem-perf --metrics dev.device_barrier_all_block_lat,dev.sum_reduce_block_65536_floats --reps 5
  done
done
# 4. Layout refusal and the proxy engine with GPU producers.
run layout_old_refused 60 gpu-a/lib -- bash gpu-a/death_check.sh --np 2 --status 1 --regex "^(\[pe [01]\] )?xshmem: xshmem_init: failed: kernel module [^ ]*layout\.cu was compiled against device-state layout 0 \(unnumbered\), this libxshmem has [0-9]+; rebuild it against this xshmem \(pe [01]\)$" --max-seconds 20 -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/gpu_layout_old
run proxy_gpu 120 gpu-a/lib -- gpu-a/bin/xshmem_proxy_gpu_test
# 5. The GPU suite over nvlink (two PEs sharing the GPU), as the call's time allows.
tar xJf gpu-tests.tar.xz -C gpu-a/bin
for p in gpu_rma gpu_rma2 gpu_amo gpu_sig gpu_p2p gpu_ord gpu_ctx gpu_team gpu_mem gpu_coll gpu_coll_move gpu_coll_reduce gpu_coll_scopes gpu_stress gpu_stress_rows heap_smoke; do
  left=$(( 575 - ($(date +%s) - S) )); [ $left -lt 20 ] && { summary+=("nvlink.$p not run (call time)"); continue; }
  [ $left -gt 90 ] && left=90
  run nvlink.$p $left gpu-a/lib XSHMEM_SYMMETRIC_SIZE=2G -- gpu-a/bin/xshmem-run -n 2 gpu-a/bin/$p
done
printf '%s\n' "${summary[@]}" | tee -a $log
