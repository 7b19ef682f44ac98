#!/usr/bin/env bash
# Device call (carry .carry/gpu.tar.xz unpacked to .carry/gpu, .carry/gpu2, .carry/before,
# .carry/gpu-a, .carry/lfvar): an A/B of the libfabric plugin on CPU PEs (host heaps, tcp on lo),
# fi_write_vs_put alternating. A = .carry/gpu-a's plugin, B = the plugin in .carry/lfvar, loaded
# first through XSHMEM_PLUGIN_PATH (issue 12: B posts puts of at most the inject size with
# fi_writemsg FI_INJECT | FI_COMPLETION | FI_DELIVERY_COMPLETE, so quiet waits for their
# completions instead of reading a byte back). Then the scaled P2P-04 over libfabric shm
# (.carry/gpu2/bin/gpu_p2p), gpu_rma over nvlink, and the SASS of both trees' xshmem-perf.
# Logs in $OUT/ab.log.
cd "$(dirname "$0")/../.carry" || exit 1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/ab.log; : > $log
(for t in before gpu-a; do /usr/local/cuda/bin/cuobjdump -sass $t/bin/xshmem-perf > $OUT/perf_$t.sass 2>&1; done; cd $OUT && tar czf sass.tgz perf_*.sass && rm -f perf_*.sass)
E="XSHMEM_HEAP=host XSHMEM_TRANSPORTS=libfabric XSHMEM_LIBFABRIC_PROVIDER=tcp FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo LD_LIBRARY_PATH=$PWD/gpu-a/lib"
fwv() {
  for v in A B; do
    P=XSHMEM_LOG_LEVEL=warn; [ $v = B ] && P="XSHMEM_PLUGIN_PATH=$PWD/lfvar"
    echo "===== fwv.$v.$1" >> $log
    env $E $P timeout 45 gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics fi_write_vs_put >> $log 2>&1
  done
}
fwv 1
G="LD_LIBRARY_PATH=$PWD/gpu/lib XSHMEM_SYMMETRIC_SIZE=2G"
echo "===== lf_shm.gpu_p2p (scaled P2P-04)" >> $log; s=$(date +%s)
env $G XSHMEM_TRANSPORTS=libfabric FI_TCP_IFACE=lo XSHMEM_LIBFABRIC_IFACE=lo XSHMEM_LIBFABRIC_PROVIDER=shm timeout 60 gpu/bin/xshmem-run -n 2 gpu2/bin/gpu_p2p >> $log 2>&1; echo "rc=$? $(( $(date +%s) - s ))s" >> $log
echo "===== nvlink.gpu_rma" >> $log; s=$(date +%s)
env $G timeout 60 gpu/bin/xshmem-run -n 2 gpu/bin/gpu_rma >> $log 2>&1; echo "rc=$? $(( $(date +%s) - s ))s" >> $log
fwv 2
for v in A B; do
  P=XSHMEM_LOG_LEVEL=warn; [ $v = B ] && P="XSHMEM_PLUGIN_PATH=$PWD/lfvar"
  echo "===== putbw.$v" >> $log
  env $E $P timeout 30 gpu-a/bin/xshmem-run -n 2 gpu-a/bin/xshmem-perf --metrics put_bw --min-size 8 --max-size 4096 --size-step 8 >> $log 2>&1
done
grep -E "^=====|^rc=|put_vs_fi_write +(8 B|1 MiB)|lat_8B|put_bw +[0-9]|FAIL|error" $log | cut -c1-150
