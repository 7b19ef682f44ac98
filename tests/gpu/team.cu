// GPU conformance: teams in kernels. TEAM-04 T (device numbering and translation equal the
// host's for a bank of teams), TEAM-05 T/W/B (team_sync by a thread, a warp, a block, with puts
// in team-relative numbering; the counter trick checks that no member leaves a sync early),
// TEAM-08 T (team_ptr of the shared team in a kernel, stores through it).
#include "gpu_test.h"

namespace {

constexpr int kMaxBank = 8;
constexpr int kIters = 200;  // a team sync each: gt::scaled where PEs share a GPU

struct Bank {
  xshmem_team_t t[kMaxBank];
  int n = 0;
};

// Host answers of every query the kernel repeats, per team: my_pe, n_pes, and for every member
// index i < 8 translate(t, i, WORLD) and translate(WORLD, i, t).
struct Answers {
  int my[kMaxBank], np[kMaxBank], to_world[kMaxBank][8], from_world[kMaxBank][8];
};

__global__ void query_kernel(Bank bank, Answers want) {
  const int k = threadIdx.x;
  if (k >= bank.n) return;
  const xshmem_team_t t = bank.t[k];
  GT_CHECK(xshmem_team_my_pe(t) == want.my[k], k, want.my[k], xshmem_team_my_pe(t));
  GT_CHECK(xshmem_team_n_pes(t) == want.np[k], k, want.np[k], xshmem_team_n_pes(t));
  for (int i = 0; i < 8; ++i) {
    const int a = xshmem_team_translate_pe(t, i, XSHMEM_TEAM_WORLD);
    const int b = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, i, t);
    GT_CHECK(a == want.to_world[k][i], k * 100 + i, want.to_world[k][i], a);
    GT_CHECK(b == want.from_world[k][i], k * 100 + 50 + i, want.from_world[k][i], b);
  }
  GT_CHECK(xshmem_team_my_pe(XSHMEM_TEAM_INVALID) == -1, k, -1, xshmem_team_my_pe(-1));
  GT_CHECK(xshmem_team_n_pes(XSHMEM_TEAM_INVALID) == -1, k, -1, xshmem_team_n_pes(-1));
}

// Counter trick per team: every adder of every member adds 1 to counter[it % 2] on member 0,
// quiets, then the team syncs (scope 0: one thread, 1: a warp, 2: a block); after the sync the
// counter must hold size x adders x (it / 2 + 1). A put of (me, it) to the right neighbour in
// team numbering is checked after the next sync.
__global__ void sync_kernel(xshmem_team_t team, int scope, uint64_t *ctr, uint64_t *box,
                            int world_me, int iters) {
  const unsigned tid = threadIdx.x;
  const unsigned adders = scope == 0 ? 1u : (scope == 1 ? 32u : blockDim.x);
  const int tme = xshmem_team_my_pe(team), tn = xshmem_team_n_pes(team);
  const int root = xshmem_team_translate_pe(team, 0, XSHMEM_TEAM_WORLD);
  const int right = xshmem_team_translate_pe(team, (tme + 1) % tn, XSHMEM_TEAM_WORLD);
  const int left = xshmem_team_translate_pe(team, (tme + tn - 1) % tn, XSHMEM_TEAM_WORLD);
  for (int it = 0; it < iters; ++it) {
    if (tid < adders) {
      xshmem_uint64_atomic_add(ctr + it % 2, 1, root);
      xshmem_quiet();
    }
    if (tid == 0) xshmem_uint64_p(box + it % 2, (uint64_t(world_me) << 32) | it, right);
    if (tid == 0) xshmem_quiet();
    if (scope == 0) {
      if (tid == 0) xshmem_team_sync(team);
    } else if (scope == 1) {
      if (tid < 32) xshmemx_team_sync_warp(team);
    } else {
      xshmemx_team_sync_block(team);
    }
    __syncthreads();
    if (tid == 0) {
      const uint64_t want = uint64_t(tn) * adders * (it / 2 + 1);
      const uint64_t v = xshmem_uint64_atomic_fetch(ctr + it % 2, root);
      GT_CHECK(v == want, it, want, v);
      const uint64_t b = *reinterpret_cast<volatile uint64_t *>(box + it % 2);
      GT_CHECK(b == ((uint64_t(left) << 32) | it), it, (uint64_t(left) << 32) | it, b);
    }
    __syncthreads();
  }
}

__global__ void shared_ptr_kernel(uint64_t *sym, int world_me) {
  const int sn = xshmem_team_n_pes(XSHMEM_TEAM_SHARED);
  const int sme = xshmem_team_my_pe(XSHMEM_TEAM_SHARED);
  GT_CHECK(sn >= 1, 0, 1, sn);
  GT_CHECK(xshmem_team_ptr(XSHMEM_TEAM_SHARED, sym, sn) == nullptr, 1, 0, 1);
  for (int i = 0; i < sn; ++i) {
    auto *p = static_cast<uint64_t *>(xshmem_team_ptr(XSHMEM_TEAM_SHARED, sym, i));
    GT_CHECK(p != nullptr, 2, 1, 0);
    if (p != nullptr) p[1 + sme] = 0x5E000000ull + uint64_t(world_me) * 1000 + i;
  }
}

void fill_answers(const Bank &bank, Answers &a) {
  for (int k = 0; k < bank.n; ++k) {
    a.my[k] = xshmem_team_my_pe(bank.t[k]);
    a.np[k] = xshmem_team_n_pes(bank.t[k]);
    for (int i = 0; i < 8; ++i) {
      a.to_world[k][i] = xshmem_team_translate_pe(bank.t[k], i, XSHMEM_TEAM_WORLD);
      a.from_world[k][i] = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, i, bank.t[k]);
    }
  }
}

}  // namespace

int main() {
  gt::start("gpu_team");
  const int n = gt::npes, me = gt::me;
  Bank bank;
  bank.t[bank.n++] = XSHMEM_TEAM_WORLD;
  bank.t[bank.n++] = XSHMEM_TEAM_SHARED;
  bank.t[bank.n++] = XSHMEMX_TEAM_NODE;
  xshmem_team_t even = XSHMEM_TEAM_INVALID, odd = XSHMEM_TEAM_INVALID, rev = XSHMEM_TEAM_INVALID;
  if (xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) != 0 ||
      xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n > 1 ? 1 : 0, n > 1 ? 2 : 1, n > 1 ? n / 2 : 1,
                                nullptr, 0, &odd) != 0 ||
      xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev) != 0) {
    fprintf(stderr, "pe %d: team split failed\n", me);
    return 1;
  }
  bank.t[bank.n++] = even;
  bank.t[bank.n++] = odd;
  bank.t[bank.n++] = rev;
  Answers want{};
  fill_answers(bank, want);
  gt::run("TEAM-04 device numbering = host, bank of 6 teams T", [&] {
    query_kernel<<<1, 32>>>(bank, want);
    gt::device_sync("query kernel");
  });

  auto *ctr = static_cast<uint64_t *>(xshmem_calloc(4, sizeof(uint64_t)));
  auto *box = ctr + 2;
  const char *names[] = {"T", "W", "B"};
  for (xshmem_team_t t : {XSHMEM_TEAM_WORLD, rev, (me % 2) ? odd : even}) {
    for (int scope = 0; scope < 3; ++scope) {
      char label[96];
      snprintf(label, sizeof label, "TEAM-05 team_sync + team numbering, team %d %s",
               static_cast<int>(t == XSHMEM_TEAM_WORLD ? 0 : (t == rev ? 1 : 2)), names[scope]);
      gt::run(label, [&] {
        GT_CUDA(cudaMemset(ctr, 0, 4 * sizeof(uint64_t)));
        gt::barrier();
        // At least 4: the counters alternate by parity.
        sync_kernel<<<1, 96>>>(t, scope, ctr, box, me, gt::scaled(kIters, 10, 4));
        gt::device_sync("team sync kernel");
      });
    }
  }
  gt::run("TEAM-08 team_ptr of SHARED in a kernel, stores through it T", [&] {
    GT_CUDA(cudaMemset(ctr, 0, 4 * sizeof(uint64_t)));
    gt::barrier();
    shared_ptr_kernel<<<1, 1>>>(ctr, me);
    gt::barrier();
    uint64_t host[4];
    GT_CUDA(cudaMemcpy(host, ctr, sizeof host, cudaMemcpyDeviceToHost));
    const int sn = xshmem_team_n_pes(XSHMEM_TEAM_SHARED);
    for (int i = 0; i < sn && i < 3; ++i) {
      const int writer = xshmem_team_translate_pe(XSHMEM_TEAM_SHARED, i, XSHMEM_TEAM_WORLD);
      const uint64_t expect =
          0x5E000000ull + uint64_t(writer) * 1000 + xshmem_team_my_pe(XSHMEM_TEAM_SHARED);
      GT_CHECK(host[1 + i] == expect, i, expect, host[1 + i]);
    }
  });
  xshmem_free(ctr);
  xshmem_team_destroy(rev);
  xshmem_team_destroy(odd);
  xshmem_team_destroy(even);
  return gt::finish();
}
