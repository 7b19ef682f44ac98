// GPU conformance: the device context forms (docs/semantics.md "Contexts").
//
// CTX-01 T/W/B: contexts made on the host with every option set (0, SERIALIZED, PRIVATE,
// NOSTORE and combinations), XSHMEM_CTX_DEFAULT, and team contexts (WORLD reversed, and the even
// or odd half) used in a kernel through the thread ctx forms: put / put_nbi, fetch_add + add,
// compare_swap (equal and not equal), put_signal / put_signal_nbi, fence, quiet, get, g,
// atomic_fetch, ctx_get_team. In a team context `pe` is team-relative: each PE sends to its right
// neighbour in the team's numbering, and the receiver checks the data came from its left
// neighbour, so an untranslated PE number lands on the wrong PE (for n = 2 the reversed team's
// numbers are the world's swapped, and the half teams hold one PE: the PE sends to itself).
// T: thread 0 issues everything; W: each of the 32 threads of warp 0 issues its own slice with
// the thread forms; B: every thread of an 8x4x4 block does (there are no _warp/_block ctx forms).
// SERIALIZED and PRIVATE contexts are the program's promise of one thread at a time: in W and B
// thread 0 alone drives those, the other threads share the rest.
// Phase 1 sends and ctx_quiets, and thread 0 waits for the put_signal it receives (every PE
// signals before it waits, so no wait depends on a wait); after a host barrier, phase 2 checks
// the received data, counters and swap words, and gets back what this PE sent.
//
// CTX-02 B and ORD-09 T/B: a ring with acknowledgements; thread l owns context l (64 contexts),
// puts its slice nbi to the right neighbour and then either ctx_quiet(A) and a flag through a
// second context B, or fence(A) and a flag through A; the receiver waits for the flag, checks
// the slice, acks. ORD-06 T/W/B: the same ring on a reversed-team context with pe_quiet /
// ctx_pe_quiet (team-relative target list) before the flag; pe_quiet with npes 0 and NULL
// returns at once. ORD-09 T also checks that fence/quiet/pe_quiet on XSHMEM_CTX_INVALID are
// no-ops and ctx_get_team(INVALID) fails.
//
// Deadlock: one block per PE; in the ring every thread sends before it waits, and waits only for
// the thread of the same index on its neighbours, which also sends before waiting (the ack of
// round r is sent before that thread waits for its own ack).
#include "gpu_test.h"

namespace {

constexpr int kMaxCtx = 10;
constexpr size_t kN = 384;  // int64 elements per context (divisible by 1, 32, 128)
constexpr size_t kM = 29;   // put_signal payload (uint64)
constexpr int kMaxL = 128;  // issuing threads at most

struct Ctxs {
  int count;
  xshmem_ctx_t ctx[kMaxCtx];
  xshmem_team_t team[kMaxCtx];
  int tpe[kMaxCtx];   // the target, numbered in the context's team
  int from[kMaxCtx];  // world PE that targets this PE in that team
  // Whether several threads may use the context at once: not for SERIALIZED and PRIVATE ones
  // (the program's promise); with L > 1 threads those are driven by thread 0 alone.
  bool shared[kMaxCtx];
};

// Symmetric buffers, per context k.
struct Bufs {
  int64_t *dst[kMaxCtx];    // guarded, kN
  uint64_t *sdst[kMaxCtx];  // guarded, kM
  int64_t *back[kMaxCtx];   // guarded, kN
  int64_t *src[kMaxCtx];    // kN
  uint64_t *ssrc[kMaxCtx];  // kM
  uint64_t *words;          // per k: sig, then ctr[kMaxL], then cs[kMaxL]
};
constexpr size_t kWordsPerCtx = 1 + 2 * kMaxL;

__host__ __device__ inline uint64_t h64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ inline int64_t val(int pe, int k, size_t i, int salt) {
  return static_cast<int64_t>(
      h64((uint64_t(pe) << 48) ^ (uint64_t(k) << 40) ^ (uint64_t(salt) << 32) ^ i));
}
__host__ __device__ inline uint64_t addv(int pe, int k, int l, int salt) {
  return (h64(uint64_t(pe) * 1000003 + k * 131 + l + (uint64_t(salt) << 20)) >> 8) | 1;
}
__host__ __device__ inline uint64_t csv(int pe, int k, int l, int salt) {
  return h64(uint64_t(pe) * 7919 + k * 257 + l + (uint64_t(salt) << 24)) | (1ull << 63);
}
__host__ __device__ inline uint64_t sigv(int pe, int k, int salt) {
  return h64(uint64_t(pe) * 31 + k + (uint64_t(salt) << 16)) | 1;
}

__device__ inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__global__ void ctx_send(Ctxs c, Bufs b, int L, int me, int salt) {
  const unsigned l = linear_tid();
  if (l < static_cast<unsigned>(L)) {
    for (int k = 0; k < c.count; ++k) {
      const int Lk = c.shared[k] ? L : 1;
      if (l >= static_cast<unsigned>(Lk)) continue;
      const size_t per = kN / Lk, a = l * per;
      const xshmem_ctx_t ctx = c.ctx[k];
      const int tpe = c.tpe[k];
      uint64_t *w = b.words + k * kWordsPerCtx;
      uint64_t *ctr = w + 1, *cs = w + 1 + kMaxL;
      for (size_t i = a; i < a + per; ++i) b.src[k][i] = val(me, k, i, salt);
      if ((k + salt) % 2)
        xshmem_ctx_int64_put(ctx, b.dst[k] + a, b.src[k] + a, per, tpe);
      else
        xshmem_ctx_int64_put_nbi(ctx, b.dst[k] + a, b.src[k] + a, per, tpe);
      uint64_t old = xshmem_ctx_uint64_atomic_fetch_add(ctx, ctr + l, addv(me, k, l, salt), tpe);
      GT_CHECK(old == 0, k * 1000 + l, 0, old);
      xshmem_ctx_uint64_atomic_add(ctx, ctr + l, 1, tpe);
      old = xshmem_ctx_uint64_atomic_compare_swap(ctx, cs + l, 0, csv(me, k, l, salt), tpe);
      GT_CHECK(old == 0, k * 1000 + l, 0, old);
      old = xshmem_ctx_uint64_atomic_compare_swap(ctx, cs + l, 12345, 7, tpe);  // cond differs
      GT_CHECK(old == csv(me, k, l, salt), k * 1000 + l, csv(me, k, l, salt), old);
      xshmem_ctx_fence(ctx);
      xshmem_ctx_quiet(ctx);
      xshmem_team_t t = -7;
      const int rc = xshmem_ctx_get_team(ctx, &t);
      GT_CHECK(rc == 0 && t == c.team[k], k, c.team[k], t);
    }
  }
  if (l != 0) return;
  for (int k = 0; k < c.count; ++k) {
    for (size_t i = 0; i < kM; ++i) b.ssrc[k][i] = static_cast<uint64_t>(val(me, k + 64, i, salt));
    uint64_t *sig = b.words + k * kWordsPerCtx;
    if ((k + salt) % 2) {
      xshmem_ctx_uint64_put_signal(c.ctx[k], b.sdst[k], b.ssrc[k], kM, sig, sigv(me, k, salt),
                                   XSHMEM_SIGNAL_SET, c.tpe[k]);
    } else {
      xshmem_ctx_uint64_put_signal_nbi(c.ctx[k], b.sdst[k], b.ssrc[k], kM, sig, sigv(me, k, salt),
                                       XSHMEM_SIGNAL_SET, c.tpe[k]);
      xshmem_ctx_quiet(c.ctx[k]);
    }
  }
  // Every PE has signalled (above) before it waits here.
  for (int k = 0; k < c.count; ++k) {
    uint64_t *sig = b.words + k * kWordsPerCtx;
    const uint64_t got = xshmem_signal_wait_until(sig, XSHMEM_CMP_NE, 0);
    GT_CHECK(got == sigv(c.from[k], k, salt), k, sigv(c.from[k], k, salt), got);
    for (size_t i = 0; i < kM; ++i) {
      const uint64_t want = static_cast<uint64_t>(val(c.from[k], k + 64, i, salt));
      const uint64_t v = reinterpret_cast<volatile uint64_t *>(b.sdst[k])[i];
      GT_CHECK(v == want, k * 1000 + i, want, v);
    }
  }
}

__global__ void ctx_check(Ctxs c, Bufs b, int L, int me, int salt) {
  const unsigned l = linear_tid();
  if (l >= static_cast<unsigned>(L)) return;
  for (int k = 0; k < c.count; ++k) {
    const int Lk = c.shared[k] ? L : 1;
    if (l >= static_cast<unsigned>(Lk)) continue;
    const size_t per = kN / Lk, a = l * per;
    const xshmem_ctx_t ctx = c.ctx[k];
    const int tpe = c.tpe[k], from = c.from[k];
    uint64_t *w = b.words + k * kWordsPerCtx;
    uint64_t *ctr = w + 1, *cs = w + 1 + kMaxL;
    for (size_t i = a; i < a + per; ++i)
      GT_CHECK(b.dst[k][i] == val(from, k, i, salt), k * 1000 + i, val(from, k, i, salt),
               b.dst[k][i]);
    GT_CHECK(ctr[l] == addv(from, k, l, salt) + 1, k * 1000 + l, addv(from, k, l, salt) + 1,
             ctr[l]);
    GT_CHECK(cs[l] == csv(from, k, l, salt), k * 1000 + l, csv(from, k, l, salt), cs[l]);
    // What this PE sent now sits at its target: read it back through the context.
    xshmem_ctx_int64_get(ctx, b.back[k] + a, b.dst[k] + a, per, tpe);
    for (size_t i = a; i < a + per; ++i)
      GT_CHECK(b.back[k][i] == val(me, k, i, salt), k * 1000 + i, val(me, k, i, salt),
               b.back[k][i]);
    const int64_t g = xshmem_ctx_int64_g(ctx, b.dst[k] + a, tpe);
    GT_CHECK(g == val(me, k, a, salt), k * 1000 + a, val(me, k, a, salt), g);
    const uint64_t f = xshmem_ctx_uint64_atomic_fetch(ctx, ctr + l, tpe);
    GT_CHECK(f == addv(me, k, l, salt) + 1, k * 1000 + l, addv(me, k, l, salt) + 1, f);
  }
}

// ---- ring with acks: CTX-02, ORD-09, ORD-06 -----------------------------------------------------
constexpr size_t kW = 17;    // uint64 per thread and round
constexpr int kRounds = 60;  // two round trips each: gt::scaled where PEs share a GPU

struct Ring {
  const xshmem_ctx_t *a;  // [L] per-thread contexts (may repeat)
  xshmem_ctx_t b;         // the flag context of ORD-09's quiet variant
  int tpe_to, tpe_from;   // right and left neighbour in the contexts' team
  int to, from;           // world PEs of the right and left neighbours
  int mode;               // 0: quiet(A)+flag on B / fence(A)+flag on A; 1: pe_quiet variants
  uint64_t *data;         // symmetric [L * kW], guarded
  uint64_t *src;          // [L * kW]
  uint64_t *flag, *ack;   // symmetric [L] each
  int rounds;             // kRounds, or gt::scaled (at least 4: the variants alternate)
};

__global__ void ring_kernel(Ring r, int L, int me) {
  const unsigned l = linear_tid();
  if (l >= static_cast<unsigned>(L)) return;
  const xshmem_ctx_t a = r.a[l];
  uint64_t *mine = r.data + l * kW;
  uint64_t *src = r.src + l * kW;
  if (r.mode == 1) {
    xshmem_pe_quiet(nullptr, 0);  // returns at once
    xshmem_ctx_pe_quiet(a, nullptr, 0);
  }
  for (int it = 0; it < r.rounds; ++it) {
    const uint64_t want_round = uint64_t(it) + 1;
    for (size_t i = 0; i < kW; ++i) src[i] = static_cast<uint64_t>(val(me, l, i, it + 1000));
    if (r.mode == 0) {
      if (it % 2) {
        xshmem_ctx_uint64_put_nbi(a, mine, src, kW, r.tpe_to);
        xshmem_ctx_quiet(a);  // completes A's put
        xshmem_ctx_uint64_atomic_set(r.b, r.flag + l, want_round, r.tpe_to);
        xshmem_ctx_quiet(r.b);
      } else {
        xshmem_ctx_uint64_put(a, mine, src, kW, r.tpe_to);
        xshmem_ctx_fence(a);  // orders A's put before A's flag
        xshmem_ctx_uint64_p(a, r.flag + l, want_round, r.tpe_to);
        xshmem_ctx_quiet(a);
      }
    } else {
      xshmem_ctx_uint64_put_nbi(a, mine, src, kW, r.tpe_to);
      if (it % 2) {
        const int targets[1] = {r.tpe_to};  // team numbering
        xshmem_ctx_pe_quiet(a, targets, 1);
        xshmem_ctx_uint64_atomic_set(a, r.flag + l, want_round, r.tpe_to);
      } else {
        // The plain pe_quiet lists world PEs; the flag goes through the default context.
        const int targets[1] = {r.to};
        xshmem_pe_quiet(targets, 1);
        xshmem_uint64_atomic_set(r.flag + l, want_round, r.to);
      }
      xshmem_ctx_quiet(a);
      xshmem_quiet();
    }
    xshmem_uint64_wait_until(r.flag + l, XSHMEM_CMP_GE, want_round);
    for (size_t i = 0; i < kW; ++i) {
      const uint64_t want = static_cast<uint64_t>(val(r.from, l, i, it + 1000));
      const uint64_t v = reinterpret_cast<volatile uint64_t *>(mine)[i];
      GT_CHECK(v == want, it * 10000LL + l * 100 + i, want, v);
    }
    // Ack to the left neighbour: it may overwrite `mine` now.
    xshmem_ctx_uint64_atomic_set(a, r.ack + l, want_round, r.tpe_from);
    xshmem_ctx_quiet(a);
    xshmem_uint64_wait_until(r.ack + l, XSHMEM_CMP_GE, want_round);
  }
}

__global__ void invalid_kernel() {
  xshmem_ctx_fence(XSHMEM_CTX_INVALID);
  xshmem_ctx_quiet(XSHMEM_CTX_INVALID);
  xshmem_ctx_pe_quiet(XSHMEM_CTX_INVALID, nullptr, 3);
  xshmem_pe_quiet(nullptr, 0);
  xshmem_team_t t = 77;
  int rc = xshmem_ctx_get_team(XSHMEM_CTX_INVALID, &t);
  GT_CHECK(rc != 0, 0, 1, rc);
  GT_CHECK(t == XSHMEM_TEAM_INVALID, 1, XSHMEM_TEAM_INVALID, t);
  t = 77;
  rc = xshmem_ctx_get_team(XSHMEM_CTX_DEFAULT, &t);
  GT_CHECK(rc == 0 && t == XSHMEM_TEAM_WORLD, 2, XSHMEM_TEAM_WORLD, t);
}

}  // namespace

int main() {
  gt::start("gpu_ctx");
  const int n = gt::npes, me = gt::me;
  cudaFuncAttributes fa;
  GT_CUDA(cudaFuncGetAttributes(&fa, ctx_send));
  GT_CUDA(cudaFuncGetAttributes(&fa, ctx_check));
  GT_CUDA(cudaFuncGetAttributes(&fa, ring_kernel));

  xshmem_team_t rev = XSHMEM_TEAM_INVALID, even = XSHMEM_TEAM_INVALID, odd = XSHMEM_TEAM_INVALID;
  if (xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev) != 0 ||
      xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) != 0 ||
      xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd) != 0) {
    fprintf(stderr, "pe %d: team split failed\n", me);
    return 1;
  }
  const xshmem_team_t half = me % 2 ? odd : even;

  // CTX-01's contexts.
  Ctxs c{};
  const long opts[] = {0,
                       XSHMEM_CTX_SERIALIZED,
                       XSHMEM_CTX_PRIVATE,
                       XSHMEM_CTX_NOSTORE,
                       XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_NOSTORE,
                       XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_PRIVATE | XSHMEM_CTX_NOSTORE};
  for (long o : opts) {
    xshmem_ctx_t x = XSHMEM_CTX_INVALID;
    if (xshmem_ctx_create(o, &x) != 0 || x == XSHMEM_CTX_INVALID) {
      fprintf(stderr, "pe %d: ctx_create(0x%lx) failed\n", me, o);
      return 1;
    }
    c.ctx[c.count] = x;
    c.shared[c.count] = (o & (XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_PRIVATE)) == 0;
    c.team[c.count] = XSHMEM_TEAM_WORLD;
    c.tpe[c.count] = gt::peer;
    c.from[c.count] = gt::from;
    ++c.count;
  }
  c.ctx[c.count] = XSHMEM_CTX_DEFAULT;
  c.shared[c.count] = true;
  c.team[c.count] = XSHMEM_TEAM_WORLD;
  c.tpe[c.count] = gt::peer;
  c.from[c.count] = gt::from;
  ++c.count;
  xshmem_ctx_t rev_ctx = XSHMEM_CTX_INVALID, half_ctx = XSHMEM_CTX_INVALID;
  if (xshmem_team_create_ctx(rev, XSHMEM_CTX_SERIALIZED, &rev_ctx) != 0 ||
      xshmem_team_create_ctx(half, XSHMEM_CTX_PRIVATE | XSHMEM_CTX_NOSTORE, &half_ctx) != 0) {
    fprintf(stderr, "pe %d: team_create_ctx failed\n", me);
    return 1;
  }
  // Reversed team: the world right neighbour, in the team's numbering.
  c.ctx[c.count] = rev_ctx;
  c.shared[c.count] = false;  // SERIALIZED
  c.team[c.count] = rev;
  c.tpe[c.count] = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, gt::peer, rev);
  c.from[c.count] = gt::from;
  ++c.count;
  // Half team: the right neighbour in the half's own numbering (itself for a 1-PE half).
  {
    const int hs = xshmem_team_n_pes(half), hm = xshmem_team_my_pe(half);
    c.ctx[c.count] = half_ctx;
    c.shared[c.count] = false;  // PRIVATE
    c.team[c.count] = half;
    c.tpe[c.count] = (hm + 1) % hs;
    c.from[c.count] = xshmem_team_translate_pe(half, (hm + hs - 1) % hs, XSHMEM_TEAM_WORLD);
    ++c.count;
  }

  gt::Carver carve{static_cast<uint8_t *>(xshmem_malloc(size_t{4} << 20)), nullptr};
  if (carve.next == nullptr) return 1;
  carve.end = carve.next + (size_t{4} << 20);
  Bufs b{};
  gt::Guarded gd[kMaxCtx], gs[kMaxCtx], gb[kMaxCtx];
  for (int k = 0; k < c.count; ++k) {
    gd[k] = gt::guarded(carve, kN * 8);
    gs[k] = gt::guarded(carve, kM * 8);
    gb[k] = gt::guarded(carve, kN * 8);
    b.dst[k] = gd[k].as<int64_t>();
    b.sdst[k] = gs[k].as<uint64_t>();
    b.back[k] = gb[k].as<int64_t>();
    b.src[k] = reinterpret_cast<int64_t *>(carve.take(kN * 8));
    b.ssrc[k] = reinterpret_cast<uint64_t *>(carve.take(kM * 8));
  }
  b.words = reinterpret_cast<uint64_t *>(carve.take(kMaxCtx * kWordsPerCtx * 8));

  struct Shape {
    const char *label;
    int L;
    dim3 block;
  } const shapes[] = {
      {"CTX-01 6 option sets + DEFAULT + 2 team ctxs: put/amo/put_signal/get, thread 0 T", 1,
       dim3(32)},
      {"CTX-01 the same, each thread of warp 0 its own slice (thread ctx forms) W", 32, dim3(64)},
      {"CTX-01 the same, every thread of an 8x4x4 block (thread ctx forms) B", 128, dim3(8, 4, 4)},
  };
  int salt = 1;
  for (const Shape &s : shapes) {
    gt::run(s.label, [&] {
      for (int k = 0; k < c.count; ++k) {
        gt::arm(gd[k], 100 + k);
        gt::arm(gs[k], 200 + k);
        gt::arm(gb[k], 300 + k);
      }
      GT_CUDA(cudaMemset(b.words, 0, kMaxCtx * kWordsPerCtx * 8));
      gt::barrier();
      ctx_send<<<1, s.block>>>(c, b, s.L, me, salt);
      gt::barrier();  // every context quieted, kernels done
      ctx_check<<<1, s.block>>>(c, b, s.L, me, salt);
      gt::barrier();
      for (int k = 0; k < c.count; ++k) {
        gt::check_guards(gd[k], 100 + k);
        gt::check_guards(gs[k], 200 + k);
        gt::check_guards(gb[k], 300 + k);
      }
    });
    ++salt;
  }
  gt::run("ORD-09 fence/quiet/pe_quiet on CTX_INVALID are no-ops, get_team(INVALID) T", [&] {
    invalid_kernel<<<1, 1>>>();
    gt::device_sync("invalid ctx kernel");
  });

  // The rings.
  constexpr int kRingL = 64;
  std::vector<xshmem_ctx_t> per_thread(kMaxL, XSHMEM_CTX_INVALID);
  xshmem_ctx_t *d_ctx = nullptr;
  GT_CUDA(cudaMalloc(&d_ctx, kMaxL * sizeof(xshmem_ctx_t)));
  gt::Guarded rdata = gt::guarded(carve, kMaxL * kW * 8);
  auto *rsrc = reinterpret_cast<uint64_t *>(carve.take(kMaxL * kW * 8));
  auto *rflags = reinterpret_cast<uint64_t *>(carve.take(2 * kMaxL * 8));
  xshmem_ctx_t flag_ctx = XSHMEM_CTX_INVALID;
  // Shared by the ring's threads: no SERIALIZED promise.
  if (xshmem_ctx_create(0, &flag_ctx) != 0) return 1;
  auto ring = [&](int L, dim3 block, int mode, const std::vector<xshmem_ctx_t> &ctxs, int tpe_to,
                  int tpe_from) {
    GT_CUDA(cudaMemcpy(d_ctx, ctxs.data(), L * sizeof(xshmem_ctx_t), cudaMemcpyHostToDevice));
    gt::arm(rdata, 400 + mode);
    GT_CUDA(cudaMemset(rflags, 0, 2 * kMaxL * 8));
    gt::barrier();
    const int rounds = gt::scaled(kRounds, 10, 4);
    Ring r{d_ctx,    flag_ctx, tpe_to,         tpe_from,
           gt::peer, gt::from, mode,           rdata.as<uint64_t>(),
           rsrc,     rflags,   rflags + kMaxL, rounds};
    ring_kernel<<<1, block>>>(r, L, me);
    gt::barrier();
    gt::check_guards(rdata, 400 + mode);
  };
  // CTX-02: one context per thread (64), each put completed by its own ctx_quiet.
  gt::run("CTX-02 64 contexts, one per thread, ctx_quiet(A) before a flag on B B", [&] {
    std::vector<xshmem_ctx_t> v(kRingL);
    for (int l = 0; l < kRingL; ++l) {
      const int rc =
          xshmem_ctx_create(l % 3 == 0 ? XSHMEM_CTX_NOSTORE : XSHMEM_CTX_SERIALIZED, &v[l]);
      GT_CHECK(rc == 0 && v[l] != XSHMEM_CTX_INVALID, l, 0, rc);
    }
    ring(kRingL, dim3(kRingL), 0, v, gt::peer, gt::from);
    for (xshmem_ctx_t x : v) xshmem_ctx_destroy(x);
  });
  gt::run("ORD-09 ctx_quiet(A)+flag on B, fence(A)+flag on A, ring with acks T", [&] {
    xshmem_ctx_t a = XSHMEM_CTX_INVALID;
    GT_CHECK(xshmem_ctx_create(XSHMEM_CTX_SERIALIZED, &a) == 0, 0, 0, 1);
    ring(1, dim3(32), 0, std::vector<xshmem_ctx_t>{a}, gt::peer, gt::from);
    xshmem_ctx_destroy(a);
  });
  gt::run("ORD-09 per-thread PRIVATE contexts (64), ring with acks B", [&] {
    std::vector<xshmem_ctx_t> v(kRingL);
    for (int l = 0; l < kRingL; ++l)
      GT_CHECK(xshmem_ctx_create(XSHMEM_CTX_PRIVATE, &v[l]) == 0, l, 0, 1);
    ring(kRingL, dim3(8, 8), 0, v, gt::peer, gt::from);
    for (xshmem_ctx_t x : v) xshmem_ctx_destroy(x);
  });
  // ORD-06: every issuing thread shares the reversed team's context (team-relative targets).
  // A context of the reversed team that every issuing thread uses at once (options 0).
  xshmem_ctx_t rev_shared = XSHMEM_CTX_INVALID;
  if (xshmem_team_create_ctx(rev, 0, &rev_shared) != 0) return 1;
  const int rev_to = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, gt::peer, rev);
  const int rev_from = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, gt::from, rev);
  struct RingShape {
    const char *label;
    int L;
    dim3 block;
  } const ord06[] = {
      {"ORD-06 pe_quiet / ctx_pe_quiet (team ctx) before the flag, ring T", 1, dim3(32)},
      {"ORD-06 pe_quiet / ctx_pe_quiet, each thread of warp 0 W", 32, dim3(32)},
      {"ORD-06 pe_quiet / ctx_pe_quiet, every thread of a 16x8 block B", 128, dim3(16, 8)},
  };
  for (const RingShape &s : ord06) {
    gt::run(s.label, [&] {
      std::vector<xshmem_ctx_t> v(s.L, rev_shared);
      ring(s.L, s.block, 1, v, rev_to, rev_from);
    });
  }

  gt::barrier();
  GT_CUDA(cudaFree(d_ctx));
  xshmem_ctx_destroy(flag_ctx);
  xshmem_ctx_destroy(rev_shared);
  for (int k = 0; k < c.count; ++k)
    xshmem_ctx_destroy(c.ctx[k] == XSHMEM_CTX_DEFAULT ? XSHMEM_CTX_INVALID : c.ctx[k]);
  xshmem_free(carve.end - (size_t{4} << 20));
  xshmem_team_destroy(odd);
  xshmem_team_destroy(even);
  xshmem_team_destroy(rev);
  return gt::finish();
}
