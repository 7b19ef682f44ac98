// on_stream.cu (NVSHMEM-style program): communication ordered on a CUDA stream with kernels.
// Each round, on one stream: a kernel writes this round's source; nvshmemx_int_put_on_stream
// sends it right; nvshmemx_barrier_all_on_stream; a kernel checks what arrived from the left;
// nvshmemx_getmem_on_stream reads the left neighbour's source into private memory;
// nvshmemx_putmem_signal_on_stream (SET the round number); nvshmemx_quiet_on_stream;
// nvshmemx_int_sum_reduce_on_stream; nvshmemx_sync_all_on_stream. The host waits only once per
// round, at the end: stream order alone must keep every step after the one before.
#include "nvprog.h"

constexpr long kN = 50000;
constexpr int kRounds = 3;

__global__ void produce(int *src, long n, int salt) {
  const int me = nvshmem_my_pe();
  for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    src[i] = val(me, i, salt) % 10000;
}
// Counts elements of got that differ from the left neighbour's values of `salt` (bad[1]: the
// first).
__global__ void verify(const int *got, long n, int salt, int *bad) {
  const int np = nvshmem_n_pes(), left = (nvshmem_my_pe() + np - 1) % np;
  for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (got[i] != val(left, i, salt) % 10000 && atomicAdd(bad, 1) == 0)
      bad[1] = static_cast<int>(i);
}

int main() {
  need_gpu("nvshmem_on_stream");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  const int left = (me + np - 1) % np, right = (me + 1) % np;
  checker c{"nvshmem_on_stream", me};
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  guarded src = sym_ints(kN), dst = sym_ints(kN), sig_dst = sym_ints(kN), red = sym_ints(kN);
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  int *priv = nullptr, *bad = nullptr;
  CUDA_CHECK(cudaMalloc(&priv, kN * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&bad, 6 * sizeof(int)));
  c.fill(src, [&](long i) { return val(me, i, 700); });
  c.fill(dst, [&](long i) { return val(me, i, 701); });
  c.fill(sig_dst, [&](long i) { return val(me, i, 702); });
  c.fill(red, [&](long i) { return val(me, i, 703); });
  nvshmem_barrier_all();
  for (int r = 0; r < kRounds; ++r) {
    const int salt = 710 + r;
    CUDA_CHECK(cudaMemsetAsync(bad, 0, 6 * sizeof(int), st));
    produce<<<8, 256, 0, st>>>(src.data(), kN, salt);
    nvshmemx_int_put_on_stream(dst.data(), src.data(), kN, right, st);
    nvshmemx_barrier_all_on_stream(st);
    verify<<<8, 256, 0, st>>>(dst.data(), kN, salt, bad);
    nvshmemx_getmem_on_stream(priv, src.data(), kN * sizeof(int), left, st);
    verify<<<8, 256, 0, st>>>(priv, kN, salt, bad + 2);
    nvshmemx_putmem_signal_on_stream(sig_dst.data(), src.data(), kN * sizeof(int), sig, r + 1,
                                     NVSHMEM_SIGNAL_SET, right, st);
    nvshmemx_quiet_on_stream(st);
    nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, red.data(), src.data(), kN, st);
    nvshmemx_sync_all_on_stream(st);
    verify<<<8, 256, 0, st>>>(sig_dst.data(), kN, salt, bad + 4);
    // Nothing writes src again until every PE has read it (the next round's produce follows a
    // barrier on the stream).
    nvshmemx_barrier_all_on_stream(st);
    int hb[6];
    CUDA_CHECK(cudaMemcpyAsync(hb, bad, sizeof hb, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    c.expect("int_put_on_stream mismatches", hb[1], 0, hb[0]);
    c.expect("getmem_on_stream mismatches", hb[3], 0, hb[2]);
    c.expect("putmem_signal_on_stream mismatches", hb[5], 0, hb[4]);
    uint64_t sv = 0;
    CUDA_CHECK(cudaMemcpy(&sv, sig, sizeof sv, cudaMemcpyDeviceToHost));
    c.expect("signal", r, r + 1, static_cast<long long>(sv));
    c.check("int_sum_reduce_on_stream", red, [&](long i) {
      int t = 0;
      for (int p = 0; p < np; ++p) t += val(p, i, salt) % 10000;
      return t;
    });
    c.check("put_on_stream (host view)", dst, [&](long i) { return val(left, i, salt) % 10000; });
    nvshmem_barrier_all();
  }
  nvshmem_free(sig);
  nvshmem_free(red.base);
  nvshmem_free(sig_dst.base);
  nvshmem_free(dst.base);
  nvshmem_free(src.base);
  CUDA_CHECK(cudaFree(bad));
  CUDA_CHECK(cudaFree(priv));
  CUDA_CHECK(cudaStreamDestroy(st));
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
