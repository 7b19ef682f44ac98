// nvshmem_compile.cu: an NVSHMEM-style program built against xshmem's <nvshmem.h> and
// <nvshmemx.h> with plain nvcc (no -rdc). Build-only check (issue 14 item 9, first part): host
// init and teardown, a kernel with thread, warp and block puts, put-with-signal and
// signal_wait_until, an atomic, a team, a collective, on-stream calls, the collective launch,
// half and bfloat16 RMA and collectives.
// Build-only; the programs of tests/compat/nvshmem/ run the NVSHMEM names and check the values.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

#include <cuda_runtime.h>

__global__ void exchange(int *data, int *recv, uint64_t *sig, long *counter, int n) {
  int me = nvshmem_my_pe();
  int peer = (me + 1) % nvshmem_n_pes();
  int t = threadIdx.x;
  // Thread form: one element per thread.
  if (t < n) nvshmem_int_p(recv + t, data[t], peer);
  // Warp and block forms.
  if (t < 32) nvshmemx_int_put_warp(recv, data, n, peer);
  nvshmemx_putmem_nbi_block(recv, data, n * sizeof(int), peer);
  nvshmemx_int_put_signal_block(recv, data, n, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
  if (t == 0) {
    nvshmem_fence();
    nvshmemx_signal_op(sig, 1, NVSHMEM_SIGNAL_ADD, peer);
    nvshmem_putmem_signal_nbi(recv, data, n * sizeof(int), sig, 1, NVSHMEM_SIGNAL_SET, peer);
    nvshmem_quiet();
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
    long old = nvshmem_long_atomic_fetch_add(counter, 1, peer);
    nvshmem_long_atomic_inc(counter, peer);
    (void)nvshmem_long_atomic_compare_swap(counter, old, old + 1, peer);
    nvshmem_long_wait_until(counter, NVSHMEM_CMP_GE, 1);
    int *p = static_cast<int *>(nvshmem_ptr(recv, peer));
    if (p != nullptr) p[0] = 1;
    (void)nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, recv);
    (void)nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  }
  __syncthreads();
  nvshmemx_barrier_all_block();
  nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, recv, data, n);
  if (t < 32) nvshmemx_int_fcollect_warp(NVSHMEM_TEAM_WORLD, recv, data, 1);
}

// half and bfloat16 (moved as their 16 bits): thread, warp and block forms, a collective.
__global__ void halves(half *h, __nv_bfloat16 *b, uint64_t *sig, int n) {
  const int peer = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  const int t = threadIdx.x;
  if (t < n) nvshmem_half_p(h + t, __float2half(1.5f * t), peer);
  if (t == 0) {
    const __nv_bfloat16 v = nvshmem_bfloat16_g(b, peer);
    nvshmem_bfloat16_p(b + 1, v, peer);
    nvshmem_half_put_signal_nbi(h, h + n, n, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
    nvshmem_bfloat16_iput(b, b + n, 2, 1, n / 2, peer);
  }
  if (t < 32) nvshmemx_half_get_warp(h + n, h, n, peer);
  nvshmemx_bfloat16_put_nbi_block(b + n, b, n, peer);
  nvshmemx_half_fcollect_block(NVSHMEM_TEAM_WORLD, h, h + n, 1);
}

int main() {
  nvshmem_init();
  int me = nvshmem_my_pe();
  int npes = nvshmem_n_pes();
  const int n = 64;
  int *data = static_cast<int *>(nvshmem_malloc(n * sizeof(int)));
  int *recv = static_cast<int *>(nvshmem_calloc(n * (size_t)npes, sizeof(int)));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  long *counter = static_cast<long *>(nvshmem_align(64, sizeof(long)));

  nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
  nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even);
  if (even != NVSHMEM_TEAM_INVALID) {
    std::printf("pe %d: %d of %d in the even team\n", me, nvshmem_team_my_pe(even),
                nvshmem_team_n_pes(even));
  }

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int n_arg = n;
  void *args[] = {&data, &recv, &sig, &counter, &n_arg};
  nvshmemx_collective_launch((const void *)exchange, dim3(1), dim3(128), args, 0, stream);
  half *h = static_cast<half *>(nvshmem_calloc(2 * n, sizeof(half)));
  __nv_bfloat16 *b = static_cast<__nv_bfloat16 *>(nvshmem_calloc(2 * n, sizeof(__nv_bfloat16)));
  halves<<<1, 64, 0, stream>>>(h, b, sig, n);
  nvshmem_half_put(h + n, h, n, (me + 1) % npes);  // the host forms too
  (void)nvshmem_bfloat16_g(b, (me + 1) % npes);
  nvshmemx_putmem_on_stream(recv, data, n * sizeof(int), (me + 1) % npes, stream);
  nvshmemx_int_put_on_stream(recv, data, n, (me + 1) % npes, stream);
  nvshmemx_putmem_signal_on_stream(recv, data, n * sizeof(int), sig, 1, NVSHMEM_SIGNAL_SET,
                                   (me + 1) % npes, stream);
  nvshmemx_quiet_on_stream(stream);
  nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, recv, data, n, stream);
  nvshmemx_barrier_all_on_stream(stream);
  cudaStreamSynchronize(stream);

  // Host forms.
  nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, recv, data, n, 0);
  nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, recv, data, 1);
  nvshmem_long_max_reduce(NVSHMEM_TEAM_WORLD, counter, counter, 1);
  nvshmem_barrier_all();
  nvshmem_sync_all();

  if (even != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(even);
  cudaStreamDestroy(stream);
  nvshmem_free(counter);
  nvshmem_free(sig);
  nvshmem_free(recv);
  nvshmem_free(data);
  nvshmem_finalize();
  return 0;
}
