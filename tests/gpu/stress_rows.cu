// GPU conformance: the STR rows of CONFORMANCE.md §4.12 in device columns (the host versions are
// tests/conformance/stress.cc; STR-07 is tests/gpu/stress.cu). Every pseudo-random choice comes
// from mix(seed, ...), so every PE (and the host model) can replay every other PE's schedule; the
// seed is XT_STRESS_SEED (default 1), printed by PE 0, and a failure of STR-03 prints the seed and
// the epoch for replay.
//
// STR-01 T amo_hammer: 64 x 256 threads per PE, K iterations each (>= 10^6 atomics in all):
//   fetch_add(1) tickets on one counter at PE 0 (each ticket marked with fetch_or in a bitmap at
//   PE 0: a bit already set is a duplicate; at the end bits [0, T) all set, the rest clear: the
//   tickets form a permutation), add / inc / compare_swap-loop totals on PE 0, and add /
//   fetch_add / compare_swap-loop increments on 256 rotating counters of pseudo-random PEs. The
//   host model replays the schedule: exact totals everywhere.
// STR-02 T/W/B alltoall_storm: every unit puts to every PE each round (blocking putmem, putmem_nbi
//   + quiet, or putmem_signal_nbi ADD) a seeded number of bytes into its own (source, unit,
//   round) slot, counts a signal per message and puts the payload's checksum into a separate
//   (source, unit, round) checksum slot. The receiver checks every byte of every slot (payload,
//   then its own guard pattern), the signal counts and the checksums.
// STR-03 T/W/B random_ops_vs_model: per epoch, a seeded schedule (the same on every PE) of put /
//   p / put_nbi / iput / atomic_set / put_signal runs (one writer unit per cell per epoch, fence
//   or quiet after some), get / g runs (cells nobody writes in the epoch, read by one unit and
//   checked at once) and atomic adds (commutative, every PE adds to every add cell); after the
//   epoch kernel and a barrier, a check kernel reads a pseudo-random PE's memory with get (unit
//   form) and g and its own memory directly against the model, and the host compares its own
//   memory with the host model (a mismatch prints seed and epoch).
// STR-04 T/W/B signal_flood: every unit of every PE sends putmem_signal_nbi ADD (seeded addend)
//   of its own payload slots into one root PE; the root's waiter kernel (launched after its own
//   senders) polls the signal up to the exact total (bounded by a 5 s timeout), then checks every
//   slot; non-roots check that nothing landed in their copy. Roots 0 and n - 1.
// STR-05 T/W/B collective_soak: one collectively launched kernel of 4 blocks; block b drives team
//   b of a bank (WORLD, WORLD reversed, two split duplicates of WORLD) through kSoakSteps seeded
//   collectives (team sync with a counter, broadcastmem, fcollectmem, alltoallmem, float
//   sum_reduce, int max_reduce, int sum_reduce, long sum_inscan) with seeded sizes, the same
//   sequence on every member; every byte of the destination (guards included) is checked after
//   every collective (the readiness scheme of tests/gpu/coll_scopes.cu: two destinations used by
//   parity, re-poisoned right after the check).
// STR-06 T heap_churn_under_traffic: rounds of collective xshmem_malloc / free / realloc, the same
//   decisions on every PE; after each heap action the host checks that every live block still
//   holds what the last traffic wrote (realloc: the surviving prefix) and its guard words; then a
//   kernel writes every live block of the right neighbour (p, atomic_set, atomic_swap and
//   compare_swap whose fetched old value is checked, p + quiet + g read back) and the host checks
//   after a barrier.
//
// Deadlock: STR-01/02/03/06 kernels never wait for another block or PE (compare_swap loops are
// lock-free: some contender always succeeds), so their grids may exceed one wave. STR-04: only the
// root's one-block waiter waits, for senders that never wait; it is launched after the root's own
// senders on the same stream, and bounded by a timeout. STR-05: 4 blocks (checked against the
// resident limit; xshmemx_collective_launch refuses more); block b waits only for block b of the
// other members of team b, which run the same sequence.
#include <algorithm>
#include <vector>

#include "gpu_test.h"

namespace {

enum scope_t { kThread, kWarp, kBlock };
const char *const kScopeName[] = {"T", "W", "B"};

uint64_t g_seed = 1;

using gt::mix;

// A unit's index, rank and size in scope sc (T: a thread, W: a warp, B: a block).
struct unit_t {
  unsigned u, rank, size;
};
__device__ inline unit_t unit_of(scope_t sc) {
  const unsigned tid = threadIdx.x;
  if (sc == kThread) return {blockIdx.x * blockDim.x + tid, 0, 1};
  if (sc == kWarp) return {blockIdx.x * (blockDim.x / 32) + tid / 32, tid % 32, 32};
  return {blockIdx.x, tid, blockDim.x};
}
__device__ inline void group_sync(scope_t sc) {
  if (sc == kWarp) {
    __syncwarp();
  } else if (sc == kBlock) {
    __syncthreads();
  }
}
inline unsigned units_for(scope_t sc, unsigned blocks, unsigned threads) {
  return sc == kThread ? blocks * threads : sc == kWarp ? blocks * (threads / 32) : blocks;
}

// A symmetric region with guard bands (gt::Guarded) allocated on its own.
gt::Guarded sym_guarded(size_t n) {
  gt::Guarded g{static_cast<uint8_t *>(xshmem_malloc(n + 2 * gt::kGuardBand)), n};
  if (g.block == nullptr) {
    fprintf(stderr, "pe %d: xshmem_malloc(%zu) failed\n", gt::me, n + 2 * gt::kGuardBand);
    exit(1);
  }
  return g;
}

// ================================ STR-01 amo_hammer (T) =======================================

constexpr unsigned kHamBlocks = 64, kHamThreads = 256;
constexpr int kRot = 256;  // rotating counters at every PE

int ham_iters(int n) {
  return n <= 2 ? 32 : std::max(8, 64 / n);
}
// Where PEs share a GPU over a proxy transport every remote atomic waits for the one proxy thread
// and the GPU's time slices (with 4 blocks of 256 threads a round trip took seconds, so the
// compare_swap loops ran past kTimeoutNs): 1 block of 64 threads and 8 iterations there
// (gt::proxy_narrowed, gt::scaled).
unsigned ham_blocks() {
  return static_cast<unsigned>(gt::proxy_narrowed(kHamBlocks, 64));
}
unsigned ham_threads() {
  return static_cast<unsigned>(gt::proxy_narrowed(kHamThreads, 4));
}

struct ham_t {
  uint64_t *w;            // symmetric: [0] ticket, [1] add total, [2] inc total, [3] cswap total
  uint64_t *bm;           // symmetric: ticket bitmap (used at PE 0)
  uint64_t *rot;          // symmetric: kRot rotating counters
  const uint64_t *total;  // private: n x kRot, the model's final rotating counters
  uint64_t tickets;       // the model's ticket count T
  int iters;
};

struct ham_op_t {
  int kind, target, j;
  uint64_t v;
};
__host__ __device__ inline ham_op_t ham_op(uint64_t seed, int pe, unsigned g, int i, int n) {
  const uint64_t h = mix(seed, pe, g, 0x0100000000ull + i);
  ham_op_t op;
  op.kind = static_cast<int>((g + unsigned(i)) % 4);
  op.target = static_cast<int>(h % uint64_t(n));
  op.v = (h >> 8) % 7 + 1;
  op.j = static_cast<int>((h >> 16) % kRot);
  return op;
}
// compare_swap on the one counter: thread 0 of every block (bounded contention: 64 n threads).
__host__ __device__ inline bool ham_cas_one(unsigned g) {
  return g % 256 == 0;
}

// Lock-free: a failed compare_swap means another contender's succeeded. Bounded anyway, so a
// broken compare_swap is a recorded failure (the totals then differ too), not a hang.
__device__ void cas_increment(uint64_t *word, int pe) {
  uint64_t cur = xshmem_uint64_atomic_fetch(word, pe);
  const uint64_t t0 = gt::now_ns();
  for (;;) {
    const uint64_t seen = xshmem_uint64_atomic_compare_swap(word, cur, cur + 1, pe);
    if (seen == cur) break;
    if (gt::now_ns() - t0 > gt::kTimeoutNs) {
      GT_CHECK(false, -3, cur, seen);
      break;
    }
    cur = seen;
  }
}

__global__ void ham_kernel(ham_t a, uint64_t seed, int me, int n) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < a.iters; ++i) {
    const ham_op_t op = ham_op(seed, me, g, i, n);
    switch (op.kind) {
      case 0: {
        const uint64_t t = xshmem_uint64_atomic_fetch_add(a.w + 0, 1, 0);
        GT_CHECK(t < a.tickets, g, a.tickets, t);
        if (t < a.tickets) {
          const uint64_t bit = 1ull << (t % 64);
          const uint64_t old = xshmem_uint64_atomic_fetch_or(a.bm + t / 64, bit, 0);
          GT_CHECK((old & bit) == 0, t, 0, 1);  // a ticket fetched twice
        }
        break;
      }
      case 1:
        xshmem_uint64_atomic_add(a.w + 1, op.v, 0);
        xshmem_uint64_atomic_add(a.rot + op.j, op.v, op.target);
        break;
      case 2: {
        xshmem_uint64_atomic_inc(a.w + 2, 0);
        const uint64_t old = xshmem_uint64_atomic_fetch_add(a.rot + op.j, op.v, op.target);
        const uint64_t total = a.total[op.target * kRot + op.j];
        GT_CHECK(old + op.v <= total, 1000000 + op.j, total, old + op.v);
        break;
      }
      default:
        if (ham_cas_one(g)) {
          cas_increment(a.w + 3, 0);
        } else {
          cas_increment(a.rot + op.j, op.target);
        }
        break;
    }
  }
}

void amo_hammer() {
  const int n = gt::npes, me = gt::me, iters = gt::scaled(ham_iters(n), 1, 8);
  const unsigned blocks = ham_blocks(), threads = blocks * ham_threads();
  const uint64_t seed = mix(g_seed, 0x501);
  // The model: every PE's contributions.
  uint64_t T = 0, w1 = 0, w2 = 0, w3 = 0;
  std::vector<uint64_t> rot(size_t(n) * kRot, 0);
  for (int p = 0; p < n; ++p)
    for (unsigned g = 0; g < threads; ++g)
      for (int i = 0; i < iters; ++i) {
        const ham_op_t op = ham_op(seed, p, g, i, n);
        uint64_t &r = rot[size_t(op.target) * kRot + op.j];
        if (op.kind == 0) ++T;
        if (op.kind == 1) w1 += op.v, r += op.v;
        if (op.kind == 2) ++w2, r += op.v;
        if (op.kind == 3) {
          if (ham_cas_one(g)) {
            ++w3;
          } else {
            ++r;
          }
        }
      }
  const size_t bm_words = T / 64 + 1;
  gt::Guarded w = sym_guarded(4 * sizeof(uint64_t)), bm = sym_guarded(bm_words * 8),
              rc = sym_guarded(kRot * sizeof(uint64_t));
  gt::arm(w, 11);
  gt::arm(bm, 12);
  gt::arm(rc, 13);
  GT_CUDA(cudaMemset(w.data(), 0, w.n));
  GT_CUDA(cudaMemset(bm.data(), 0, bm.n));
  GT_CUDA(cudaMemset(rc.data(), 0, rc.n));
  uint64_t *total;
  GT_CUDA(cudaMalloc(&total, rot.size() * sizeof(uint64_t)));
  GT_CUDA(cudaMemcpy(total, rot.data(), rot.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  ham_t a{w.as<uint64_t>(), bm.as<uint64_t>(), rc.as<uint64_t>(), total, T, iters};
  if (me == 0)
    printf("     STR-01: %d PEs x %u threads x %d iterations, %llu tickets\n", n, threads, iters,
           (unsigned long long)T);
  gt::barrier();
  ham_kernel<<<blocks, ham_threads()>>>(a, seed, me, n);
  gt::barrier();
  // Totals (PE 0's words; zero elsewhere), the bitmap, the rotating counters.
  uint64_t hw[4];
  GT_CUDA(cudaMemcpy(hw, w.data(), sizeof hw, cudaMemcpyDeviceToHost));
  const uint64_t want[4] = {T, w1, w2, w3};
  for (int k = 0; k < 4; ++k) GT_CHECK(hw[k] == (me == 0 ? want[k] : 0), k, want[k], hw[k]);
  std::vector<uint64_t> hb(bm_words), hr(kRot);
  GT_CUDA(cudaMemcpy(hb.data(), bm.data(), bm.n, cudaMemcpyDeviceToHost));
  GT_CUDA(cudaMemcpy(hr.data(), rc.data(), rc.n, cudaMemcpyDeviceToHost));
  for (size_t k = 0; k < bm_words; ++k) {
    uint64_t e = 0;
    if (me == 0) {
      const uint64_t lo = k * 64;
      e = lo + 64 <= T ? ~0ull : lo >= T ? 0 : (1ull << (T - lo)) - 1;
    }
    GT_CHECK(hb[k] == e, 100 + k, e, hb[k]);
  }
  for (int j = 0; j < kRot; ++j)
    GT_CHECK(hr[j] == rot[size_t(me) * kRot + j], 10000000 + j, rot[size_t(me) * kRot + j], hr[j]);
  gt::check_guards(w, 11);
  gt::check_guards(bm, 12);
  gt::check_guards(rc, 13);
  xshmem_barrier_all();
  GT_CUDA(cudaFree(total));
  xshmem_free(rc.block);
  xshmem_free(bm.block);
  xshmem_free(w.block);
}

// ============================== STR-02 alltoall_storm (T/W/B) =================================

constexpr unsigned kStormBlocks = 32, kStormThreads = 128;
constexpr int kSaltStormSrc = 21, kSaltStormGuard = 22;

int storm_rounds(scope_t sc) {
  return sc == kThread ? 3 : 6;
}
__host__ __device__ inline size_t storm_slot(scope_t sc) {
  return sc == kThread ? 64 : sc == kWarp ? 512 : 4096;
}
__host__ __device__ inline size_t storm_len(uint64_t seed, int src, unsigned u, int r, int to,
                                            size_t S) {
  return 1 + mix(seed, src, u, (uint64_t(r) << 32) + to) % S;
}
__host__ __device__ inline uint64_t fnv(uint64_t h, uint8_t b) {
  return (h ^ b) * 0x100000001B3ull;
}
constexpr uint64_t kFnv0 = 0xCBF29CE484222325ull;

struct storm_t {
  uint8_t *inbox;      // symmetric: n x units x R x S
  uint64_t *sig;       // symmetric: n x units
  uint64_t *cks;       // symmetric: n x units x R
  const uint8_t *src;  // private: units x R x n x S, this PE's pattern of salt `salt`
  unsigned units;
  int R, salt;
};

__global__ void storm2_kernel(storm_t a, scope_t sc, uint64_t seed, int me, int n) {
  const unit_t un = unit_of(sc);
  const size_t S = storm_slot(sc);
  const int R = a.R;
  for (int r = 0; r < R; ++r) {
    for (int k = 0; k < n; ++k) {
      const int to = (me + k) % n;
      const size_t len = storm_len(seed, me, un.u, r, to, S);
      const size_t slot = (size_t(me) * a.units + un.u) * R + r;
      uint8_t *dst = a.inbox + slot * S;
      const uint8_t *src = a.src + ((size_t(un.u) * R + r) * n + to) * S;
      uint64_t *sig = a.sig + size_t(me) * a.units + un.u;
      const int method = static_cast<int>((unsigned(r) + unsigned(k) + un.u) % 3);
      if (method == 0) {
        if (sc == kThread) {
          xshmem_putmem(dst, src, len, to);
        } else if (sc == kWarp) {
          xshmemx_putmem_warp(dst, src, len, to);
        } else {
          xshmemx_putmem_block(dst, src, len, to);
        }
        if (un.rank == 0) xshmem_uint64_atomic_add(sig, 1, to);
      } else if (method == 1) {
        if (sc == kThread) {
          xshmem_putmem_nbi(dst, src, len, to);
        } else if (sc == kWarp) {
          xshmemx_putmem_nbi_warp(dst, src, len, to);
        } else {
          xshmemx_putmem_nbi_block(dst, src, len, to);
        }
        xshmem_quiet();
        if (un.rank == 0) xshmem_uint64_atomic_add(sig, 1, to);
      } else {
        if (sc == kThread) {
          xshmem_putmem_signal_nbi(dst, src, len, sig, 1, XSHMEM_SIGNAL_ADD, to);
        } else if (sc == kWarp) {
          xshmemx_putmem_signal_nbi_warp(dst, src, len, sig, 1, XSHMEM_SIGNAL_ADD, to);
        } else {
          xshmemx_putmem_signal_nbi_block(dst, src, len, sig, 1, XSHMEM_SIGNAL_ADD, to);
        }
        xshmem_quiet();
      }
      if (un.rank == 0) {
        // The checksum of what this unit sent, into its own checksum slot at the target.
        uint64_t h = kFnv0;
        for (size_t b = 0; b < len; ++b) h = fnv(h, src[b]);
        xshmem_uint64_p(a.cks + slot, h, to);
      }
      group_sync(sc);
    }
  }
  xshmem_quiet();
}

__global__ void storm2_verify(storm_t a, scope_t sc, uint64_t seed, int me, int n) {
  const size_t S = storm_slot(sc);
  const int R = a.R;
  const size_t slots = size_t(n) * a.units * R;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (size_t x = first; x < slots * S; x += stride) {
    const size_t slot = x / S, b = x % S;
    const int s = static_cast<int>(slot / (size_t(a.units) * R));
    const unsigned u = static_cast<unsigned>(slot / R % a.units);
    const int r = static_cast<int>(slot % R);
    const size_t len = storm_len(seed, s, u, r, me, S);
    const uint8_t e = b < len ? gt::pat(s, ((size_t(u) * R + r) * n + me) * S + b, a.salt)
                              : gt::pat(me, x, kSaltStormGuard);
    GT_CHECK(a.inbox[x] == e, x, e, a.inbox[x]);
  }
  for (size_t slot = first; slot < slots; slot += stride) {
    const int s = static_cast<int>(slot / (size_t(a.units) * R));
    const unsigned u = static_cast<unsigned>(slot / R % a.units);
    const int r = static_cast<int>(slot % R);
    const size_t len = storm_len(seed, s, u, r, me, S);
    uint64_t h = kFnv0;
    for (size_t b = 0; b < len; ++b)
      h = fnv(h, gt::pat(s, ((size_t(u) * R + r) * n + me) * S + b, a.salt));
    GT_CHECK(a.cks[slot] == h, 2000000000LL + slot, h, a.cks[slot]);
    if (r == 0) {
      const uint64_t sg = a.sig[size_t(s) * a.units + u];
      GT_CHECK(sg == uint64_t(R), 3000000000LL + slot, R, sg);
    }
  }
}

void alltoall_storm(scope_t sc) {
  const int n = gt::npes, R = storm_rounds(sc);
  const size_t S = storm_slot(sc);
  // 4 blocks where PEs share a GPU over a proxy transport (gt::proxy_narrowed).
  const unsigned blocks = static_cast<unsigned>(gt::proxy_narrowed(kStormBlocks, 8));
  const unsigned units = units_for(sc, blocks, kStormThreads);
  const size_t slots = size_t(n) * units * R;
  gt::Guarded inbox = sym_guarded(slots * S), sig = sym_guarded(size_t(n) * units * 8),
              cks = sym_guarded(slots * 8);
  uint8_t *src;
  GT_CUDA(cudaMalloc(&src, size_t(units) * R * n * S));
  storm_t a{inbox.data(), sig.as<uint64_t>(), cks.as<uint64_t>(), src, units, R, 0};
  for (int pass = 0; pass < 2; ++pass) {
    const uint64_t seed = mix(g_seed, 0x502, sc, pass);
    a.salt = kSaltStormSrc + 100 * pass + 10 * static_cast<int>(sc);  // fresh payloads
    gt::fill(src, size_t(units) * R * n * S, gt::me, a.salt);
    gt::arm(inbox, 23 + pass);
    gt::fill(inbox.data(), slots * S, gt::me, kSaltStormGuard);
    gt::arm(sig, 25 + pass);
    gt::arm(cks, 27 + pass);
    GT_CUDA(cudaMemset(sig.data(), 0, sig.n));
    GT_CUDA(cudaMemset(cks.data(), 0, cks.n));
    gt::barrier();
    storm2_kernel<<<blocks, kStormThreads>>>(a, sc, seed, gt::me, n);
    gt::barrier();
    storm2_verify<<<264, 256>>>(a, sc, seed, gt::me, n);
    gt::device_sync("STR-02 verify");
    gt::check_guards(inbox, 23 + pass);
    gt::check_guards(sig, 25 + pass);
    gt::check_guards(cks, 27 + pass);
  }
  xshmem_barrier_all();
  GT_CUDA(cudaFree(src));
  xshmem_free(cks.block);
  xshmem_free(sig.block);
  xshmem_free(inbox.block);
}

// =========================== STR-03 random_ops_vs_model (T/W/B) ===============================

constexpr size_t kCells = 2048;    // uint64 cells at every PE
constexpr size_t kAddCells = 512;  // the last kAddCells cells: atomic add cells
constexpr size_t kRunCells = kCells - kAddCells;
constexpr int kEpochs = 12;
constexpr unsigned kRomBlocks = 32, kRomThreads = 128;
constexpr int kMaxRun = 8;

// kGet / kG: a run that nobody writes this epoch, read by its one reader unit with get (unit
// form) or g and checked against the model at once.
enum rom_kind : int { kPut, kP, kPutNbi, kIput, kSet, kPutSignal, kGet, kG, kAdd, kRomKinds };
struct rom_op_t {
  int target, cell, len, kind, flags;  // flags: 1 fence after, 2 quiet after, 4 nbi put_signal
};
__host__ __device__ inline uint64_t rom_val(uint64_t seed, int e, int t, size_t c) {
  return mix(seed, e, t, 0x700000000ull + c);
}
__host__ __device__ inline uint64_t rom_add(uint64_t seed, int e, int t, size_t c, int w) {
  return mix(seed, e, (uint64_t(t) << 32) + c, 0x800000000ull + w) & 0xFFFF;
}

struct rom_t {
  uint64_t *mem;          // symmetric: kCells
  const rom_op_t *ops;    // private: this PE's ops of the epoch, by unit
  const int *off;         // private: units + 1 offsets into ops
  uint64_t *scratch;      // private: units x 2 kMaxRun
  const uint64_t *model;  // private: n x kCells, the model after the epoch
  uint64_t *got;          // private: units x 512
};

__global__ void rom_kernel(rom_t a, scope_t sc, uint64_t seed, int e) {
  const unit_t un = unit_of(sc);
  uint64_t *vals = a.scratch + size_t(un.u) * 2 * kMaxRun;
  for (int k = a.off[un.u]; k < a.off[un.u + 1]; ++k) {
    const rom_op_t op = a.ops[k];
    uint64_t *dst = a.mem + op.cell;
    const int len = op.len, t = op.target;
    // The values at stride 1 in the unit's scratch (2 kMaxRun words: iput spreads them to
    // stride 2 below).
    for (int i = static_cast<int>(un.rank); i < len && op.kind != kGet && op.kind != kG;
         i += static_cast<int>(un.size)) {
      const uint64_t v = op.kind == kAdd ? rom_add(seed, e, t, op.cell, xshmem_my_pe())
                                         : rom_val(seed, e, t, op.cell + i);
      vals[i] = v;
    }
    group_sync(sc);
    switch (op.kind) {
      case kPut:
        if (sc == kThread) {
          xshmem_uint64_put(dst, vals, len, t);
        } else if (sc == kWarp) {
          xshmemx_uint64_put_warp(dst, vals, len, t);
        } else {
          xshmemx_uint64_put_block(dst, vals, len, t);
        }
        break;
      case kP:
        for (int i = static_cast<int>(un.rank); i < len; i += static_cast<int>(un.size))
          xshmem_uint64_p(dst + i, vals[i], t);
        break;
      case kPutNbi:
        if (sc == kThread) {
          xshmem_uint64_put_nbi(dst, vals, len, t);
        } else if (sc == kWarp) {
          xshmemx_uint64_put_nbi_warp(dst, vals, len, t);
        } else {
          xshmemx_uint64_put_nbi_block(dst, vals, len, t);
        }
        xshmem_quiet();
        break;
      case kIput: {
        // Spread the values to stride 2 in place (from the top down: vals[i] is read before
        // any write reaches it; one member), then iput with sst 2.
        uint64_t *vals2 = vals;
        if (un.rank == 0)
          for (int i = len - 1; i >= 0; --i) vals2[2 * i] = vals[i];
        group_sync(sc);
        if (sc == kThread) {
          xshmem_uint64_iput(dst, vals2, 1, 2, len, t);
        } else if (sc == kWarp) {
          xshmemx_uint64_iput_warp(dst, vals2, 1, 2, len, t);
        } else {
          xshmemx_uint64_iput_block(dst, vals2, 1, 2, len, t);
        }
        break;
      }
      case kSet:
        for (int i = static_cast<int>(un.rank); i < len; i += static_cast<int>(un.size))
          xshmem_uint64_atomic_set(dst + i, vals[i], t);
        break;
      case kPutSignal: {
        // len - 1 cells of payload, the last cell of the run is the signal (SET to its value).
        const size_t nb = size_t(len - 1) * sizeof(uint64_t);
        uint64_t *sig = dst + (len - 1);
        if (sc == kThread) {
          if (op.flags & 4) {
            xshmem_putmem_signal_nbi(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
            xshmem_quiet();
          } else {
            xshmem_putmem_signal(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
          }
        } else if (sc == kWarp) {
          if (op.flags & 4) {
            xshmemx_putmem_signal_nbi_warp(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
            xshmem_quiet();
          } else {
            xshmemx_putmem_signal_warp(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
          }
        } else if (op.flags & 4) {
          xshmemx_putmem_signal_nbi_block(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
          xshmem_quiet();
        } else {
          xshmemx_putmem_signal_block(dst, vals, nb, sig, vals[len - 1], XSHMEM_SIGNAL_SET, t);
        }
        break;
      }
      case kGet:
        if (sc == kThread) {
          xshmem_uint64_get(vals, dst, len, t);
        } else if (sc == kWarp) {
          xshmemx_uint64_get_warp(vals, dst, len, t);
        } else {
          xshmemx_uint64_get_block(vals, dst, len, t);
        }
        group_sync(sc);  // every member reads what the group fetched
        for (int i = static_cast<int>(un.rank); i < len; i += static_cast<int>(un.size)) {
          const uint64_t want = a.model[size_t(t) * kCells + op.cell + i];
          GT_CHECK(vals[i] == want, 300000 + e * 10000LL + op.cell + i, want, vals[i]);
        }
        break;
      case kG:
        for (int i = static_cast<int>(un.rank); i < len; i += static_cast<int>(un.size)) {
          const uint64_t v = xshmem_uint64_g(dst + i, t);
          const uint64_t want = a.model[size_t(t) * kCells + op.cell + i];
          GT_CHECK(v == want, 400000 + e * 10000LL + op.cell + i, want, v);
        }
        break;
      default:  // kAdd: one cell, commutative with every other PE's adds
        if (un.rank == 0) xshmem_uint64_atomic_add(dst, vals[0], t);
        break;
    }
    if (op.flags & 1) xshmem_fence();
    if (op.flags & 2) xshmem_quiet();
    group_sync(sc);  // the scratch is rewritten by the next op
  }
  xshmem_quiet();
}

// After the epoch: own memory directly, `other`'s memory by get (unit form, chunks of 8/64/512
// cells) and g, all against the model.
__global__ void rom_check(rom_t a, scope_t sc, int me, int other) {
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t c = first; c < kCells; c += stride) {
    const uint64_t e = a.model[size_t(me) * kCells + c];
    GT_CHECK(a.mem[c] == e, c, e, a.mem[c]);
  }
  const unit_t un = unit_of(sc);
  const size_t chunk = sc == kThread ? 8 : sc == kWarp ? 64 : 512;
  const size_t c0 = size_t(un.u) * chunk;
  if (c0 < kCells) {
    uint64_t *got = a.got + size_t(un.u) * 512;
    if (sc == kThread) {
      xshmem_uint64_get(got, a.mem + c0, chunk, other);
    } else if (sc == kWarp) {
      xshmemx_uint64_get_warp(got, a.mem + c0, chunk, other);
    } else {
      xshmemx_uint64_get_block(got, a.mem + c0, chunk, other);
    }
    for (size_t i = un.rank; i < chunk; i += un.size) {
      const uint64_t e = a.model[size_t(other) * kCells + c0 + i];
      GT_CHECK(got[i] == e, 100000 + c0 + i, e, got[i]);
    }
    if (un.rank == 0) {
      const uint64_t v = xshmem_uint64_g(a.mem + c0 + chunk - 1, other);
      const uint64_t e = a.model[size_t(other) * kCells + c0 + chunk - 1];
      GT_CHECK(v == e, 200000 + c0 + chunk - 1, e, v);
    }
  }
}

void random_ops(scope_t sc) {
  const int n = gt::npes, me = gt::me;
  const uint64_t seed = mix(g_seed, 0x503, sc);
  // 4 blocks where PEs share a GPU over a proxy transport (gt::proxy_narrowed).
  const unsigned blocks = static_cast<unsigned>(gt::proxy_narrowed(kRomBlocks, 8));
  const unsigned units = units_for(sc, blocks, kRomThreads);
  gt::Guarded mem = sym_guarded(kCells * sizeof(uint64_t));
  gt::arm(mem, 31);
  GT_CUDA(cudaMemset(mem.data(), 0, mem.n));
  std::vector<uint64_t> model(size_t(n) * kCells, 0);
  const size_t max_ops = size_t(n) * kCells;  // at most one op per cell and target
  rom_op_t *ops;
  int *off;
  uint64_t *scratch, *dmodel, *got;
  GT_CUDA(cudaMalloc(&ops, max_ops * sizeof(rom_op_t)));
  GT_CUDA(cudaMalloc(&off, (units + 1) * sizeof(int)));
  GT_CUDA(cudaMalloc(&scratch, size_t(units) * 2 * kMaxRun * sizeof(uint64_t)));
  GT_CUDA(cudaMalloc(&dmodel, model.size() * sizeof(uint64_t)));
  GT_CUDA(cudaMalloc(&got, size_t(units) * 512 * sizeof(uint64_t)));
  rom_t a{mem.as<uint64_t>(), ops, off, scratch, dmodel, got};
  std::vector<std::vector<rom_op_t>> by_unit(units);
  std::vector<uint64_t> host(kCells);
  for (int e = 0; e < kEpochs; ++e) {
    for (auto &v : by_unit) v.clear();
    // The schedule of epoch e: the same on every PE; this PE keeps its own ops.
    for (int t = 0; t < n; ++t) {
      uint64_t *mt = model.data() + size_t(t) * kCells;
      for (size_t c = 0; c < kRunCells;) {
        const uint64_t h = mix(seed, e, t, 0x300000000ull + c);
        const int writer = static_cast<int>(h % uint64_t(n));
        int kind = static_cast<int>((h >> 8) % kAdd);
        const size_t run = 1 + (h >> 16) % kMaxRun;
        const int len = static_cast<int>(std::min(run, kRunCells - c));
        if (kind == kPutSignal && len < 2) kind = kPut;
        const int flags = ((h >> 40) % 4 == 0 ? 1 : 0) | ((h >> 42) % 5 == 0 ? 2 : 0) |
                          ((h >> 44) % 2 == 0 ? 4 : 0);
        if (writer == me)
          by_unit[(h >> 24) % units].push_back({t, static_cast<int>(c), len, kind, flags});
        if (kind != kGet && kind != kG)
          for (int i = 0; i < len; ++i) mt[c + i] = rom_val(seed, e, t, c + i);
        c += size_t(len);
      }
      for (size_t c = kRunCells; c < kCells; ++c)
        for (int w = 0; w < n; ++w) {
          mt[c] += rom_add(seed, e, t, c, w);
          if (w == me) {
            const uint64_t h = mix(seed, e, (uint64_t(t) << 32) + c, 0x900000000ull);
            by_unit[h % units].push_back({t, static_cast<int>(c), 1, kAdd, (h >> 40) % 8 == 0});
          }
        }
    }
    std::vector<rom_op_t> flat;
    std::vector<int> offs(units + 1, 0);
    for (unsigned u = 0; u < units; ++u) {
      offs[u] = static_cast<int>(flat.size());
      flat.insert(flat.end(), by_unit[u].begin(), by_unit[u].end());
    }
    offs[units] = static_cast<int>(flat.size());
    if (!flat.empty())
      GT_CUDA(cudaMemcpy(ops, flat.data(), flat.size() * sizeof(rom_op_t), cudaMemcpyHostToDevice));
    GT_CUDA(cudaMemcpy(off, offs.data(), offs.size() * sizeof(int), cudaMemcpyHostToDevice));
    GT_CUDA(
        cudaMemcpy(dmodel, model.data(), model.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
    gt::barrier();  // every PE checked the previous epoch before anyone writes again
    rom_kernel<<<blocks, kRomThreads>>>(a, sc, seed, e);
    gt::barrier();
    const int other = static_cast<int>(mix(seed, e, me, 0x9) % uint64_t(n));
    rom_check<<<blocks, kRomThreads>>>(a, sc, me, other);
    gt::device_sync("STR-03 check");
    // The host model against this PE's memory.
    GT_CUDA(cudaMemcpy(host.data(), mem.data(), mem.n, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t c = 0; c < kCells; ++c) {
      const uint64_t want = model[size_t(me) * kCells + c];
      if (host[c] != want) {
        if (++bad == 1)
          fprintf(stderr,
                  "pe %d: STR-03 %s seed %llu (XT_STRESS_SEED=%llu) epoch %d: cell %zu is 0x%llx, "
                  "the model says 0x%llx\n",
                  me, kScopeName[sc], (unsigned long long)seed, (unsigned long long)g_seed, e, c,
                  (unsigned long long)host[c], (unsigned long long)want);
        GT_CHECK(false, e * 100000LL + c, want, host[c]);
      }
    }
  }
  gt::check_guards(mem, 31);
  xshmem_barrier_all();
  GT_CUDA(cudaFree(got));
  GT_CUDA(cudaFree(dmodel));
  GT_CUDA(cudaFree(scratch));
  GT_CUDA(cudaFree(off));
  GT_CUDA(cudaFree(ops));
  xshmem_free(mem.block);
}

// ============================== STR-04 signal_flood (T/W/B) ===================================

constexpr unsigned kFloodBlocks = 64, kFloodThreads = 128;
constexpr int kSaltFloodSrc = 41, kSaltFloodGuard = 42;

__host__ __device__ inline int flood_msgs(scope_t sc) {
  return sc == kThread ? 4 : 8;
}
__host__ __device__ inline size_t flood_slot(scope_t sc) {
  return sc == kThread ? 32 : sc == kWarp ? 256 : 2048;
}
__host__ __device__ inline uint64_t flood_add(uint64_t seed, int pe, unsigned u, int m) {
  return 1 + mix(seed, pe, u, 0x400000000ull + m) % 1000;
}

struct flood_t {
  uint8_t *slots;      // symmetric: n x units x M x S
  uint64_t *sig;       // symmetric: 1 word
  const uint8_t *src;  // private: units x M x S, this PE's pattern of salt `salt`
  unsigned units;
  int salt;
};

__global__ void flood_send(flood_t a, scope_t sc, uint64_t seed, int me, int root) {
  const unit_t un = unit_of(sc);
  const int M = flood_msgs(sc);
  const size_t S = flood_slot(sc);
  for (int m = 0; m < M; ++m) {
    const size_t k = size_t(un.u) * M + m;
    uint8_t *dst = a.slots + (size_t(me) * a.units * M + k) * S;
    const uint8_t *src = a.src + k * S;
    const uint64_t add = flood_add(seed, me, un.u, m);
    if (sc == kThread) {
      xshmem_putmem_signal_nbi(dst, src, S, a.sig, add, XSHMEM_SIGNAL_ADD, root);
    } else if (sc == kWarp) {
      xshmemx_putmem_signal_nbi_warp(dst, src, S, a.sig, add, XSHMEM_SIGNAL_ADD, root);
    } else {
      xshmemx_putmem_signal_nbi_block(dst, src, S, a.sig, add, XSHMEM_SIGNAL_ADD, root);
    }
  }
  xshmem_quiet();
}

// One block: the root's thread 0 waits for the exact total (bounded), then every thread checks
// every slot. Elsewhere: the slots keep this PE's guard pattern.
__global__ void flood_check(flood_t a, scope_t sc, int me, int n, bool root, uint64_t total,
                            uint64_t timeout_ns) {
  __shared__ int ok;
  const int M = flood_msgs(sc);
  const size_t S = flood_slot(sc);
  if (threadIdx.x == 0) {
    ok = 1;
    if (root) {
      const uint64_t t0 = gt::now_ns();
      uint64_t v = xshmem_signal_fetch(a.sig);
      while (v < total && gt::now_ns() - t0 < timeout_ns) v = xshmem_signal_fetch(a.sig);
      GT_CHECK(v == total, -1, total, v);
      if (v < total) ok = 0;  // timed out: the slot check would only repeat the failure
      __threadfence();
    }
  }
  __syncthreads();
  if (!ok) return;
  const size_t per_src = size_t(a.units) * M * S;
  for (size_t x = threadIdx.x; x < per_src * n; x += blockDim.x) {
    const int s = static_cast<int>(x / per_src);
    const uint8_t e = root ? gt::pat(s, x % per_src, a.salt) : gt::pat(me, x, kSaltFloodGuard);
    GT_CHECK(a.slots[x] == e, x, e, a.slots[x]);
  }
}

__global__ void flood_final(const uint64_t *sig, uint64_t total) {
  GT_CHECK(*sig == total, -2, total, *sig);
}

void signal_flood(scope_t sc) {
  const int n = gt::npes, me = gt::me, M = flood_msgs(sc);
  const size_t S = flood_slot(sc);
  // 8 blocks where PEs share a GPU over a proxy transport (gt::proxy_narrowed), 1 at thread
  // scope (512 put_signals per PE, as many as W's 8 blocks x 4 warps x 8): there every
  // put_signal's data reaches the target's GPU heap through a copy of its proxy, which waits for
  // the other process's time slice (about 5 ms on one H100), and 4096 of them took 32 s, past the
  // check's wait. The root's wait for the total then gets 30 s, not 5: it starts when this PE's
  // own flood ends, and the other PE's may still run.
  const unsigned blocks =
      static_cast<unsigned>(gt::proxy_narrowed(kFloodBlocks, sc == kThread ? 64 : 8));
  const uint64_t check_ns = gt::proxy_shared() ? 6 * gt::kTimeoutNs : gt::kTimeoutNs;
  const unsigned units = units_for(sc, blocks, kFloodThreads);
  const size_t per_src = size_t(units) * M * S;
  gt::Guarded slots = sym_guarded(per_src * n), sig = sym_guarded(sizeof(uint64_t));
  uint8_t *src;
  GT_CUDA(cudaMalloc(&src, per_src));
  flood_t a{slots.data(), sig.as<uint64_t>(), src, units, 0};
  for (int pass = 0; pass < 2; ++pass) {
    const int root = pass == 0 ? 0 : n - 1;
    const uint64_t seed = mix(g_seed, 0x504, sc, pass);
    uint64_t total = 0;
    for (int p = 0; p < n; ++p)
      for (unsigned u = 0; u < units; ++u)
        for (int m = 0; m < M; ++m) total += flood_add(seed, p, u, m);
    // Fresh payloads per pass and scope.
    a.salt = kSaltFloodSrc + 100 * pass + 10 * static_cast<int>(sc);
    gt::fill(src, per_src, me, a.salt);
    gt::arm(slots, 43 + pass);
    gt::fill(slots.data(), per_src * n, me, kSaltFloodGuard);
    gt::arm(sig, 45 + pass);
    GT_CUDA(cudaMemset(sig.data(), 0, sizeof(uint64_t)));
    gt::barrier();
    flood_send<<<blocks, kFloodThreads>>>(a, sc, seed, me, root);
    flood_check<<<1, 1024>>>(a, sc, me, n, me == root, total, check_ns);
    gt::barrier();
    flood_final<<<1, 1>>>(a.sig, me == root ? total : 0);
    gt::device_sync("STR-04 final");
    gt::check_guards(slots, 43 + pass);
    gt::check_guards(sig, 45 + pass);
  }
  xshmem_barrier_all();
  GT_CUDA(cudaFree(src));
  xshmem_free(sig.block);
  xshmem_free(slots.block);
}

// ============================= STR-05 collective_soak (T/W/B) =================================

constexpr int kBank = 4;
constexpr int kSoakSteps = 600;     // per block (team): 2400 collectives per case (gt::scaled)
constexpr size_t kSoakCap = 2048;   // bytes per member block, at most
constexpr size_t kSoakGuard = 256;  // guard bytes before and after each destination
constexpr unsigned kSoakThreads = 128;
enum soak_kind : int {
  kSync,
  kBcast,
  kFcollect,
  kAlltoall,
  kFloatSum,
  kIntMax,
  kIntSum,
  kLongInscan,
  kSoakKinds
};

using TeamDesc = gt::team_desc;
struct SoakBank {
  TeamDesc t[kBank];
};
using gt::describe;

struct soak_step_t {
  int kind;
  size_t nb;  // bytes per member block, a multiple of 8 (0 allowed)
  int root;
};
__host__ __device__ inline soak_step_t soak_step(uint64_t seed, int b, int c, int size) {
  const uint64_t h = mix(seed, b, c, 0x505);
  soak_step_t s;
  s.kind = static_cast<int>(h % kSoakKinds);
  // Never 0: a reduction of 0 elements returns without synchronising the team, which would
  // break the readiness scheme (a member could write into collective c + 2's destination of a
  // peer that has not checked collective c yet).
  const size_t elems = (h >> 12) % 8 == 0 ? 1 + (h >> 16) % (kSoakCap / 8) : 1 + (h >> 16) % 24;
  s.nb = elems * 8;
  s.root = static_cast<int>((h >> 40) % uint64_t(size));
  return s;
}
__host__ __device__ inline uint8_t soak_src(int pe, int c, int b, int j, size_t i) {
  return gt::pat(pe, size_t(j) * kSoakCap + i, 0x1000 + c * 8 + b);
}
__host__ __device__ inline uint8_t soak_poison(int me, int c, int b, size_t o) {
  return gt::pat(me, o, 0x9000 + c * 8 + b);
}
// Element i of world PE pe's reduction source of collective c (block b), by kind.
__host__ __device__ inline uint64_t soak_h(int pe, int c, int b, size_t i) {
  return mix(pe, c, b, 0xA00000000ull + i);
}
__host__ __device__ inline float soak_f(int pe, int c, int b, size_t i) {
  return static_cast<float>(static_cast<int>(soak_h(pe, c, b, i) % 2001) - 1000);
}
__host__ __device__ inline int soak_i(int pe, int c, int b, size_t i, int kind) {
  const uint64_t h = soak_h(pe, c, b, i);
  return kind == kIntMax ? static_cast<int>(static_cast<uint32_t>(h))
                         : static_cast<int>(h % 2000001) - 1000000;
}
__host__ __device__ inline long soak_l(int pe, int c, int b, size_t i) {
  return static_cast<long>(soak_h(pe, c, b, i) % (1ull << 40)) - (1l << 39);
}

struct SoakBufs {
  uint8_t *base;  // symmetric; block b at base + b * per_block
  size_t per_block;
  size_t dst_bytes;  // 2 kSoakGuard + kSoakCap npes
  __host__ __device__ uint8_t *src(int b) const { return base + b * per_block; }
  __host__ __device__ uint8_t *dst(int b, int parity) const {
    return base + b * per_block + dst_bytes * (1 + parity);
  }
  __host__ __device__ uint64_t *ctr(int b) const {
    return reinterpret_cast<uint64_t *>(base + b * per_block + 3 * dst_bytes);
  }
};

__global__ void soak_poison_kernel(SoakBufs bufs, int me) {
  const int b = blockIdx.x;
  for (int c = 0; c < 2; ++c) {
    uint8_t *d = bufs.dst(b, c);
    for (size_t o = threadIdx.x; o < bufs.dst_bytes; o += blockDim.x)
      d[o] = soak_poison(me, c, b, o);
  }
  if (threadIdx.x < 2) bufs.ctr(b)[threadIdx.x] = 0;
}

__device__ int soak_call(const soak_step_t &s, scope_t sc, unsigned tid, const TeamDesc &t,
                         uint8_t *dst, const uint8_t *src) {
  const xshmem_team_t h = t.handle;
  const size_t nb = s.nb;
  float *fd = reinterpret_cast<float *>(dst);
  const float *fs = reinterpret_cast<const float *>(src);
  int *id = reinterpret_cast<int *>(dst);
  const int *is = reinterpret_cast<const int *>(src);
  long *ld = reinterpret_cast<long *>(dst);
  const long *ls = reinterpret_cast<const long *>(src);
  if (sc == kThread) {
    if (tid != 0) return 0;
    switch (s.kind) {
      case kSync:
        return xshmem_team_sync(h);
      case kBcast:
        return xshmem_broadcastmem(h, dst, src, nb, s.root);
      case kFcollect:
        return xshmem_fcollectmem(h, dst, src, nb);
      case kAlltoall:
        return xshmem_alltoallmem(h, dst, src, nb);
      case kFloatSum:
        return xshmem_float_sum_reduce(h, fd, fs, nb / 4);
      case kIntMax:
        return xshmem_int_max_reduce(h, id, is, nb / 4);
      case kIntSum:
        return xshmem_int_sum_reduce(h, id, is, nb / 4);
      default:
        return xshmem_long_sum_inscan(h, ld, ls, nb / 8);
    }
  }
  if (sc == kWarp) {
    if (tid >= 32) return 0;
    switch (s.kind) {
      case kSync:
        return xshmemx_team_sync_warp(h);
      case kBcast:
        return xshmemx_broadcastmem_warp(h, dst, src, nb, s.root);
      case kFcollect:
        return xshmemx_fcollectmem_warp(h, dst, src, nb);
      case kAlltoall:
        return xshmemx_alltoallmem_warp(h, dst, src, nb);
      case kFloatSum:
        return xshmemx_float_sum_reduce_warp(h, fd, fs, nb / 4);
      case kIntMax:
        return xshmemx_int_max_reduce_warp(h, id, is, nb / 4);
      case kIntSum:
        return xshmemx_int_sum_reduce_warp(h, id, is, nb / 4);
      default:
        return xshmemx_long_sum_inscan_warp(h, ld, ls, nb / 8);
    }
  }
  switch (s.kind) {
    case kSync:
      return xshmemx_team_sync_block(h);
    case kBcast:
      return xshmemx_broadcastmem_block(h, dst, src, nb, s.root);
    case kFcollect:
      return xshmemx_fcollectmem_block(h, dst, src, nb);
    case kAlltoall:
      return xshmemx_alltoallmem_block(h, dst, src, nb);
    case kFloatSum:
      return xshmemx_float_sum_reduce_block(h, fd, fs, nb / 4);
    case kIntMax:
      return xshmemx_int_max_reduce_block(h, id, is, nb / 4);
    case kIntSum:
      return xshmemx_int_sum_reduce_block(h, id, is, nb / 4);
    default:
      return xshmemx_long_sum_inscan_block(h, ld, ls, nb / 8);
  }
}

// Expected byte at offset o of the destination block (guards included) after a data-movement
// collective, or -1 where the poison must remain (reductions are checked as values).
__device__ int soak_expected(const soak_step_t &s, const TeamDesc &t, int c, int b, size_t o) {
  if (o < kSoakGuard) return -1;
  const size_t r = o - kSoakGuard, nb = s.nb;
  switch (s.kind) {
    case kBcast:
      return r < nb ? soak_src(t.wpe(s.root), c, b, 0, r) : -1;
    case kFcollect:
      return r < nb * t.size ? soak_src(t.wpe(static_cast<int>(r / nb)), c, b, 0, r % nb) : -1;
    case kAlltoall:
      return r < nb * t.size ? soak_src(t.wpe(static_cast<int>(r / nb)), c, b, t.me, r % nb) : -1;
    default:
      return -1;
  }
}

__global__ void soak_kernel(SoakBank bank, SoakBufs bufs, scope_t sc, uint64_t seed, int me,
                            int steps) {
  const int b = blockIdx.x;
  const TeamDesc t = bank.t[b];
  const unsigned tid = threadIdx.x, threads = blockDim.x;
  uint8_t *src = bufs.src(b);
  uint64_t *ctr = bufs.ctr(b);
  const int root_pe = t.wpe(0);  // the sync counters live at member 0
  int syncs = 0;
  for (int c = 0; c < steps; ++c) {
    const soak_step_t s = soak_step(seed, b, c, t.size);
    uint8_t *dst = bufs.dst(b, c % 2) + kSoakGuard;
    const bool red = s.kind >= kFloatSum;
    // A fresh source of this PE, collective and block.
    if (s.kind == kFloatSum) {
      float *fs = reinterpret_cast<float *>(src);
      for (size_t i = tid; i < s.nb / 4; i += threads) fs[i] = soak_f(me, c, b, i);
    } else if (s.kind == kIntMax || s.kind == kIntSum) {
      int *is = reinterpret_cast<int *>(src);
      for (size_t i = tid; i < s.nb / 4; i += threads) is[i] = soak_i(me, c, b, i, s.kind);
    } else if (s.kind == kLongInscan) {
      long *ls = reinterpret_cast<long *>(src);
      for (size_t i = tid; i < s.nb / 8; i += threads) ls[i] = soak_l(me, c, b, i);
    } else if (s.kind == kAlltoall) {
      for (size_t i = tid; i < s.nb * t.size; i += threads)
        src[i] = soak_src(me, c, b, static_cast<int>(i / s.nb), i % s.nb);
    } else if (s.kind != kSync) {
      for (size_t i = tid; i < s.nb; i += threads) src[i] = soak_src(me, c, b, 0, i);
    }
    if (s.kind == kSync && tid == 0) {
      xshmem_uint64_atomic_add(ctr + syncs % 2, 1, root_pe);
      xshmem_quiet();  // sync does not complete remote updates
    }
    __syncthreads();
    const int rc = soak_call(s, sc, tid, t, dst, src);
    GT_CHECK(rc == 0, c, 0, rc);
    __syncthreads();
    uint8_t *block = dst - kSoakGuard;
    const size_t span = 2 * kSoakGuard + kSoakCap * t.size;
    for (size_t o = tid; o < span; o += threads) {
      if (red && o >= kSoakGuard && o < kSoakGuard + s.nb) continue;
      const int e = soak_expected(s, t, c, b, o);
      const uint8_t want = e < 0 ? soak_poison(me, c, b, o) : static_cast<uint8_t>(e);
      GT_CHECK(block[o] == want, c * 100000LL + o, want, block[o]);
    }
    if (s.kind == kFloatSum) {
      const float *fd = reinterpret_cast<const float *>(dst);
      for (size_t i = tid; i < s.nb / 4; i += threads) {
        float want = 0.0f;
        for (int k = 0; k < t.size; ++k) want += soak_f(t.wpe(k), c, b, i);
        GT_CHECK(fd[i] == want, c * 100000LL + i, (long long)want, (long long)fd[i]);
      }
    } else if (s.kind == kIntMax || s.kind == kIntSum) {
      const int *id = reinterpret_cast<const int *>(dst);
      for (size_t i = tid; i < s.nb / 4; i += threads) {
        int want = soak_i(t.wpe(0), c, b, i, s.kind);
        for (int k = 1; k < t.size; ++k) {
          const int v = soak_i(t.wpe(k), c, b, i, s.kind);
          want = s.kind == kIntMax ? (v > want ? v : want) : want + v;
        }
        GT_CHECK(id[i] == want, c * 100000LL + i, want, id[i]);
      }
    } else if (s.kind == kLongInscan) {
      const long *ld = reinterpret_cast<const long *>(dst);
      for (size_t i = tid; i < s.nb / 8; i += threads) {
        long want = 0;
        for (int k = 0; k <= t.me; ++k) want += soak_l(t.wpe(k), c, b, i);
        GT_CHECK(ld[i] == want, c * 100000LL + i, want, ld[i]);
      }
    }
    if (s.kind == kSync && tid == 0) {
      // Every member added before any left: exactly size adds per sync on this parity.
      const uint64_t want = uint64_t(t.size) * (syncs / 2 + 1);
      const uint64_t v = xshmem_uint64_atomic_fetch(ctr + syncs % 2, root_pe);
      GT_CHECK(v == want, c, want, v);
    }
    if (s.kind == kSync) ++syncs;
    __syncthreads();
    // Ready for collective c + 2 (no member writes it before everyone entered c + 1).
    for (size_t o = tid; o < span; o += threads) block[o] = soak_poison(me, c + 2, b, o);
    __syncthreads();
  }
}

struct SoakSetup {
  SoakBank bank{};
  SoakBufs bufs{};
  xshmem_team_t rev = XSHMEM_TEAM_INVALID, dup1 = XSHMEM_TEAM_INVALID, dup2 = XSHMEM_TEAM_INVALID;
};

bool soak_setup(SoakSetup &st) {
  const int n = gt::npes;
  bool ok = xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &st.rev) == 0;
  ok = ok && xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &st.dup1) == 0;
  ok = ok && xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &st.dup2) == 0;
  if (!ok) return false;
  st.bank.t[0] = describe(XSHMEM_TEAM_WORLD);
  st.bank.t[1] = describe(st.rev);
  st.bank.t[2] = describe(st.dup1);
  st.bank.t[3] = describe(st.dup2);
  st.bufs.dst_bytes = 2 * kSoakGuard + kSoakCap * n;
  st.bufs.per_block = 3 * st.bufs.dst_bytes + 256;
  st.bufs.base = static_cast<uint8_t *>(xshmem_malloc(kBank * st.bufs.per_block));
  return st.bufs.base != nullptr;
}

void soak_teardown(SoakSetup &st) {
  xshmem_barrier_all();
  if (st.bufs.base) xshmem_free(st.bufs.base);
  if (st.dup2 != XSHMEM_TEAM_INVALID) xshmem_team_destroy(st.dup2);
  if (st.dup1 != XSHMEM_TEAM_INVALID) xshmem_team_destroy(st.dup1);
  if (st.rev != XSHMEM_TEAM_INVALID) xshmem_team_destroy(st.rev);
}

void collective_soak(const SoakSetup &st, scope_t sc) {
  const int resident = gt::max_resident_blocks(soak_kernel, kSoakThreads);
  GT_CHECK(kBank <= resident, 0, kBank, resident);
  if (kBank > resident) return;
  soak_poison_kernel<<<kBank, 256>>>(st.bufs, gt::me);
  gt::barrier();  // destinations and counters ready on every PE
  SoakBank bk = st.bank;
  SoakBufs bf = st.bufs;
  scope_t s = sc;
  uint64_t seed = mix(g_seed, 0x505, sc);
  int me = gt::me;
  // A round trip (or more) per collective where PEs share a GPU: gt::scaled, at least 8 steps.
  int steps = gt::scaled(kSoakSteps, 10, 8);
  void *args[] = {&bk, &bf, &s, &seed, &me, &steps};
  GT_CUDA(xshmemx_collective_launch(reinterpret_cast<const void *>(soak_kernel), dim3(kBank),
                                    dim3(kSoakThreads), args, 0, nullptr));
  gt::device_sync("STR-05 soak kernel");
}

// ========================= STR-06 heap_churn_under_traffic (T) ================================

constexpr size_t kChurnGuard = 32;  // guard words before and after every block's data
constexpr int kChurnRounds = 60;
constexpr size_t kChurnMaxWords = 4000;

struct churn_block_t {
  uint64_t *p = nullptr;  // symmetric: kChurnGuard + words + kChurnGuard words
  size_t words = 0;
  uint64_t tag = 0, gseed = 0;
  size_t known = 0;   // words that hold the previous traffic's values (tag prev)
  uint64_t prev = 0;  // the previous traffic's tag
};
__host__ __device__ inline uint64_t churn_val(uint64_t tag, int pe, size_t i) {
  return mix(tag, pe, i, 0x606);
}
__host__ __device__ inline uint64_t churn_guard(uint64_t gseed, int pe, size_t i) {
  return mix(gseed, pe, i, 0x607);
}

// One live block's traffic: every thread owns words i = g, g + stride, ... of the right
// neighbour's copy.
struct churn_arg_t {
  uint64_t *data;
  size_t words, known;
  uint64_t tag, prev;
};
constexpr int kChurnMaxLive = 64;
struct churn_args_t {
  churn_arg_t b[kChurnMaxLive];
  int count;
};

__global__ void churn_kernel(churn_args_t a, int me, int right) {
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int k = 0; k < a.count; ++k) {
    const churn_arg_t b = a.b[k];
    for (size_t i = first; i < b.words; i += stride) {
      uint64_t *dst = b.data + i;
      const uint64_t v = churn_val(b.tag, me, i);
      const bool known = i < b.known;
      const uint64_t old = churn_val(b.prev, me, i);
      switch ((i + k) % 5) {
        case 0:
          xshmem_uint64_p(dst, v, right);
          break;
        case 1:
          xshmem_uint64_atomic_set(dst, v, right);
          break;
        case 2: {
          const uint64_t seen = xshmem_uint64_atomic_swap(dst, v, right);
          if (known) GT_CHECK(seen == old, i, old, seen);
          break;
        }
        case 3:
          if (known) {
            const uint64_t seen = xshmem_uint64_atomic_compare_swap(dst, old, v, right);
            GT_CHECK(seen == old, 1000000 + i, old, seen);
          } else {
            xshmem_uint64_atomic_set(dst, v, right);
          }
          break;
        default: {
          xshmem_uint64_p(dst, v, right);
          xshmem_quiet();
          const uint64_t back = xshmem_uint64_g(dst, right);
          GT_CHECK(back == v, 2000000 + i, v, back);
          break;
        }
      }
    }
  }
  xshmem_quiet();
}

// The host's check of a live block: data words [0, upto) hold `tag` from `from`, and the guards.
void churn_check(const churn_block_t &b, size_t upto, uint64_t tag, int from, int r, bool back) {
  std::vector<uint64_t> h(kChurnGuard + b.words + kChurnGuard);
  GT_CUDA(cudaMemcpy(h.data(), b.p, h.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < upto; ++i)
    GT_CHECK(h[kChurnGuard + i] == churn_val(tag, from, i), r * 100000LL + i,
             churn_val(tag, from, i), h[kChurnGuard + i]);
  for (size_t g = 0; g < kChurnGuard; ++g) {
    GT_CHECK(h[g] == churn_guard(b.gseed, gt::me, g), -1 - r * 1000LL - g,
             churn_guard(b.gseed, gt::me, g), h[g]);
    if (back)
      GT_CHECK(h[kChurnGuard + b.words + g] == churn_guard(b.gseed, gt::me, kChurnGuard + g),
               -500 - r * 1000LL - g, churn_guard(b.gseed, gt::me, kChurnGuard + g),
               h[kChurnGuard + b.words + g]);
  }
}
void churn_write_guards(const churn_block_t &b, bool front) {
  std::vector<uint64_t> g(kChurnGuard);
  if (front) {
    for (size_t i = 0; i < kChurnGuard; ++i) g[i] = churn_guard(b.gseed, gt::me, i);
    GT_CUDA(cudaMemcpy(b.p, g.data(), g.size() * 8, cudaMemcpyHostToDevice));
  }
  for (size_t i = 0; i < kChurnGuard; ++i) g[i] = churn_guard(b.gseed, gt::me, kChurnGuard + i);
  GT_CUDA(cudaMemcpy(b.p + kChurnGuard + b.words, g.data(), g.size() * 8, cudaMemcpyHostToDevice));
}

void heap_churn() {
  const int n = gt::npes, me = gt::me;
  const int right = gt::peer, from = gt::from;
  const uint64_t seed = mix(g_seed, 0x506);
  std::vector<churn_block_t> live;
  // Where PEs share a GPU over a proxy transport every word's operation waits for the proxy and
  // the GPU's time slices (round trips for the swaps, compare-swaps and gets): 60 rounds of up to
  // 64 blocks of 4000 words on 32 x 128 threads ran past 200 s there (0.7 s over nvlink), so the
  // counts scale: 8 rounds (gt::scaled), blocks of at most 64 words, 4 blocks of 128 threads.
  const int rounds = gt::scaled(kChurnRounds, 1, 8);
  const size_t max_words = gt::proxy_shared() ? 64 : kChurnMaxWords;
  const unsigned grid = static_cast<unsigned>(gt::proxy_narrowed(32, 8));
  auto bytes_of = [](size_t words) { return (2 * kChurnGuard + words) * sizeof(uint64_t); };
  for (int r = 0; r < rounds; ++r) {
    const uint64_t h = mix(seed, r, 0x6);
    // Same decisions on every PE (collective calls): allocate, free, or realloc one block.
    int action = live.size() < 3 ? 0 : static_cast<int>(h % 3);
    if (live.size() >= kChurnMaxLive) action = 1;
    if (action == 0) {
      churn_block_t b;
      b.words = 1 + (h >> 8) % max_words;
      b.p = static_cast<uint64_t *>(xshmem_malloc(bytes_of(b.words)));
      if (b.p == nullptr) {
        GT_CHECK(false, r, 1, 0);
        break;
      }
      b.tag = mix(h, 1);
      b.gseed = mix(h, 2);
      churn_write_guards(b, true);
      live.push_back(b);
    } else if (action == 1) {
      const size_t k = (h >> 8) % live.size();
      xshmem_free(live[k].p);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      const size_t k = (h >> 8) % live.size();
      churn_block_t &b = live[k];
      const size_t words = 1 + (h >> 20) % max_words;
      // realloc moves the guard words with the data: the front guard and the data prefix survive.
      auto *q = static_cast<uint64_t *>(xshmem_realloc(b.p, bytes_of(words)));
      if (q == nullptr) {
        GT_CHECK(false, r, 1, 0);
        break;
      }
      const size_t keep = std::min(words, b.words);
      b.p = q;
      b.words = words;
      b.known = std::min(b.known, keep);
      churn_check(b, b.known, b.prev, from, r, false);
      churn_write_guards(b, false);
    }
    // Every live block still holds the last traffic (realloc: its surviving prefix).
    for (const churn_block_t &b : live) churn_check(b, b.known, b.prev, from, r, true);
    xshmem_barrier_all();  // every PE checked its copies before the next traffic overwrites them
    churn_args_t args{};
    args.count = static_cast<int>(live.size());
    for (size_t k = 0; k < live.size(); ++k) {
      churn_block_t &b = live[k];
      b.tag = mix(b.tag, r, 0x608);
      args.b[k] = {b.p + kChurnGuard, b.words, b.known, b.tag, b.prev};
    }
    churn_kernel<<<grid, 128>>>(args, me, right);
    gt::barrier();
    for (churn_block_t &b : live) {
      churn_check(b, b.words, b.tag, from, r, true);
      b.prev = b.tag;
      b.known = b.words;
    }
  }
  (void)n;
  xshmem_barrier_all();
  for (churn_block_t &b : live) xshmem_free(b.p);
}

}  // namespace

int main() {
  if (const char *s = getenv("XT_STRESS_SEED"); s && *s) g_seed = strtoull(s, nullptr, 0);
  gt::start("gpu_stress_rows");
  if (gt::me == 0) printf("     seed %llu (XT_STRESS_SEED)\n", (unsigned long long)g_seed);
  gt::run("STR-01 amo_hammer T", [] { amo_hammer(); });
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    char label[96];
    snprintf(label, sizeof label, "STR-02 alltoall_storm %s", kScopeName[sc]);
    gt::run(label, [&] { alltoall_storm(sc); });
  }
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    char label[96];
    snprintf(label, sizeof label, "STR-03 random_ops_vs_model %s", kScopeName[sc]);
    gt::run(label, [&] { random_ops(sc); });
  }
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    char label[96];
    snprintf(label, sizeof label, "STR-04 signal_flood %s", kScopeName[sc]);
    gt::run(label, [&] { signal_flood(sc); });
  }
  {
    SoakSetup st;
    const bool ok = soak_setup(st);
    for (scope_t sc : {kThread, kWarp, kBlock}) {
      char label[96];
      snprintf(label, sizeof label, "STR-05 collective_soak %s", kScopeName[sc]);
      gt::run(label, [&] {
        GT_CHECK(ok, 0, 1, 0);
        if (ok) collective_soak(st, sc);
      });
    }
    soak_teardown(st);
  }
  gt::run("STR-06 heap_churn_under_traffic T", [] { heap_churn(); });
  return gt::finish();
}
