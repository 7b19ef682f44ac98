// teams.cu (NVSHMEM-style program): teams made by nvshmem_team_split_strided and
// nvshmem_team_split_2d, queried from the host and from a kernel (team_my_pe, team_n_pes,
// team_translate_pe), used by a block reduction and fcollect over the team, synchronised with
// nvshmemx_team_sync_on_stream; NVSHMEMX_TEAM_NODE on one node.
#include <algorithm>

#include "nvprog.h"

constexpr long kN = 500;
constexpr int kQ = 8;  // answers each kernel writes per team

// out[0..kQ): the team's view of this PE from the device.
__global__ void query(nvshmem_team_t t, int *out) {
  if (threadIdx.x != 0) return;
  const int my = nvshmem_team_my_pe(t), n = nvshmem_team_n_pes(t);
  out[0] = my;
  out[1] = n;
  out[2] = n > 0 ? nvshmem_team_translate_pe(t, 0, NVSHMEM_TEAM_WORLD) : -2;
  out[3] = n > 0 ? nvshmem_team_translate_pe(t, n - 1, NVSHMEM_TEAM_WORLD) : -2;
  out[4] = nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, nvshmem_my_pe(), t);
  out[5] = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  out[6] = nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD);
  out[7] = 12345;
}

__global__ void team_work(nvshmem_team_t t, int *sum, const int *src, int *all, long n) {
  nvshmemx_int_sum_reduce_block(t, sum, src, n);
  nvshmemx_int_fcollect_block(t, all, src, n);
  nvshmemx_team_sync_block(t);
}

int main() {
  need_gpu("nvshmem_teams");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  checker c{"nvshmem_teams", me};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // My parity's team: PEs me % 2, me % 2 + 2, ...
  const int parity = me % 2, members = (np - parity + 1) / 2;
  nvshmem_team_t mine = NVSHMEM_TEAM_INVALID, other = NVSHMEM_TEAM_INVALID;
  nvshmem_team_t even = NVSHMEM_TEAM_INVALID, odd = NVSHMEM_TEAM_INVALID;
  nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (np + 1) / 2, nullptr, 0, &even);
  if (np > 1) nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, np / 2, nullptr, 0, &odd);
  mine = parity ? odd : even;
  other = parity ? even : odd;
  c.expect("my parity team is valid", 0, 1, mine != NVSHMEM_TEAM_INVALID);
  c.expect("the other parity team is invalid here", 0, 1, other == NVSHMEM_TEAM_INVALID);
  c.expect("host team_my_pe", 0, me / 2, nvshmem_team_my_pe(mine));
  c.expect("host team_n_pes", 0, members, nvshmem_team_n_pes(mine));
  nvshmem_team_config_t cfg;
  c.expect("team_get_config", 0, 0, nvshmem_team_get_config(mine, 0, &cfg));

  int *q = nullptr;
  CUDA_CHECK(cudaMalloc(&q, 2 * kQ * sizeof(int)));
  query<<<1, 32, 0, stream>>>(mine, q);
  query<<<1, 32, 0, stream>>>(NVSHMEM_TEAM_WORLD, q + kQ);
  int h[2 * kQ];
  CUDA_CHECK(cudaMemcpyAsync(h, q, sizeof h, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const int want_mine[kQ] = {me / 2, members, parity, parity + 2 * (members - 1),
                             me / 2, me,      np,     12345};
  const int want_world[kQ] = {me, np, 0, np - 1, me, me, np, 12345};
  for (int i = 0; i < kQ; ++i) {
    c.expect("device query of my parity team", i, want_mine[i], h[i]);
    c.expect("device query of TEAM_WORLD", i, want_world[i], h[kQ + i]);
  }

  // A 2-D split: rows of 2 PEs (x) and columns (y).
  nvshmem_team_t xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
  c.expect("team_split_2d", 0, 0,
           nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, nullptr, 0, &xt, nullptr, 0, &yt));
  const int rows = (np + 1) / 2;
  c.expect("x team my_pe", 0, me % 2, nvshmem_team_my_pe(xt));
  c.expect("x team n_pes", 0, std::min(2, np - 2 * (me / 2)), nvshmem_team_n_pes(xt));
  c.expect("y team my_pe", 0, me / 2, nvshmem_team_my_pe(yt));
  c.expect("y team n_pes", 0, me % 2 == 0 ? rows : np / 2, nvshmem_team_n_pes(yt));

  // Work over my parity team from a kernel, then a team sync on the stream.
  guarded sum = sym_ints(kN), src = sym_ints(kN), all = sym_ints(np * kN);
  guarded got{all.base, members * kN};  // what the team's fcollect fills
  c.fill(sum, [&](long i) { return val(me, i, 600); });
  c.fill(src, [&](long i) { return val(me, i, 601) % 1000; });
  c.fill(got, [&](long i) { return val(me, i, 602); });
  nvshmem_barrier_all();
  int *sp = sum.data(), *srp = src.data(), *ap = all.data();
  long n = kN;
  void *args[] = {&mine, &sp, &srp, &ap, &n};
  CUDA_CHECK(static_cast<cudaError_t>(nvshmemx_collective_launch(
      reinterpret_cast<const void *>(team_work), dim3(1), dim3(128), args, 0, stream)));
  nvshmemx_team_sync_on_stream(mine, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  c.check("team sum_reduce_block", sum, [&](long i) {
    int t = 0;
    for (int p = parity; p < np; p += 2) t += val(p, i, 601) % 1000;
    return t;
  });
  c.check("team fcollect_block", got,
          [&](long i) { return val(parity + 2 * static_cast<int>(i / kN), i % kN, 601) % 1000; });
  nvshmem_barrier_all();

  nvshmem_team_destroy(xt);
  nvshmem_team_destroy(yt);
  if (even != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(even);
  if (odd != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(odd);
  nvshmem_free(all.base);
  nvshmem_free(src.base);
  nvshmem_free(sum.base);
  CUDA_CHECK(cudaFree(q));
  CUDA_CHECK(cudaStreamDestroy(stream));
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
