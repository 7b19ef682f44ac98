// GPU conformance: STR-07 (device grid storm). A grid of 384 blocks x 128 threads; every unit
// (T: thread, W: warp, B: block) runs a few rounds, each one operation on a pseudo-random PE
// (itself included), chosen with the kind by a seeded hash of (seed, PE, unit, round):
//   put   (putmem or putmem_nbi, thread/warp/block form) of 1..S bytes into the unit's own slot for
//         that round at the target: slots are disjoint per (source PE, unit, round);
//   get   (thread/warp/block form) of S bytes of the target's read-only area, checked at once;
//   AMO   (atomic_add or fetch_add, by the unit's first thread) of 1..256 to one of 64 counters at
//         the target, shared by every unit of every PE; a fetched value plus the addend never
//         exceeds the counter's final total.
// Then every thread quiets. The host model replays the same hash: after a barrier each PE checks
// every slot of every source (the payload where a put landed, its own guard pattern everywhere
// else) and the 64 counters' totals. The kernel does not wait, so the grid may exceed one wave.
// Where PEs share a GPU over a proxy transport the grid is 12 blocks (gt::proxy_narrowed).
#include <vector>

#include "gpu_test.h"

namespace {

enum scope_t { kThread, kWarp, kBlock };
const char *const kScopeName[] = {"T", "W", "B"};

constexpr unsigned kBlocks = 384;
constexpr unsigned kThreads = 128;
constexpr int kCounters = 64;
constexpr size_t kRo = 1 << 20;  // read-only area
constexpr int kSaltPayload = 61, kSaltRo = 62, kSaltGuard = 63;

using gt::mix;

// The grid's blocks: kBlocks, or gt::proxy_narrowed(kBlocks, 32) where PEs share a GPU over a
// proxy transport (main sets it before the first case; the kernels get it from gridDim).
unsigned g_blocks = kBlocks;
__host__ __device__ inline unsigned units_of(scope_t sc, unsigned blocks) {
  return sc == kThread ? blocks * kThreads : sc == kWarp ? blocks * (kThreads / 32) : blocks;
}
__host__ __device__ inline int rounds_of(scope_t sc) {
  return sc == kThread ? 4 : 8;
}
__host__ __device__ inline size_t slot_of(scope_t sc) {  // S: bytes per slot
  return sc == kThread ? 32 : sc == kWarp ? 256 : 1024;
}

struct op_t {
  int target, kind;  // kind 0 put, 1 get, 2 AMO
  bool nbi, fetch;
  size_t len;  // put length
  int counter;
  uint64_t add;
};
__host__ __device__ inline op_t op_of(uint64_t seed, int s, unsigned u, int r, int n, size_t S) {
  const uint64_t h = mix(seed, s, u, r);
  op_t op;
  op.target = static_cast<int>(h % uint64_t(n));
  op.kind = static_cast<int>((h >> 8) % 3);
  op.len = 1 + (h >> 16) % S;
  op.counter = static_cast<int>((h >> 28) % kCounters);
  op.add = ((h >> 36) & 0xFF) + 1;
  op.nbi = (h >> 44) & 1;
  op.fetch = (h >> 45) & 1;
  return op;
}

struct area_t {
  uint8_t *inbox;         // symmetric: n x units x rounds x S
  const uint8_t *ro;      // symmetric: kRo bytes, owner's pattern
  uint64_t *ctr;          // symmetric: kCounters
  const uint8_t *src;     // private: units x rounds x S, this PE's payload pattern
  uint8_t *got;           // private: units x S
  const uint64_t *total;  // private: n x kCounters, the model's final counter values
};

__global__ void storm_kernel(area_t a, scope_t sc, uint64_t seed, int me, int n) {
  const unsigned tid = threadIdx.x;
  const unsigned u = sc == kThread ? blockIdx.x * kThreads + tid
                     : sc == kWarp ? blockIdx.x * (kThreads / 32) + tid / 32
                                   : blockIdx.x;
  const unsigned rank = sc == kThread ? 0 : sc == kWarp ? tid % 32 : tid;
  const unsigned size = sc == kThread ? 1 : sc == kWarp ? 32 : blockDim.x;
  const int R = rounds_of(sc);
  const size_t S = slot_of(sc);
  const unsigned units = units_of(sc, gridDim.x);
  uint8_t *got = a.got + size_t(u) * S;
  for (int r = 0; r < R; ++r) {
    const op_t op = op_of(seed, me, u, r, n, S);
    const size_t k = size_t(u) * R + r;  // this unit's slot of this round
    if (op.kind == 0) {
      uint8_t *dst = a.inbox + (size_t(me) * units * R + k) * S;
      const uint8_t *src = a.src + k * S;
      if (sc == kThread) {
        if (op.nbi) {
          xshmem_putmem_nbi(dst, src, op.len, op.target);
        } else {
          xshmem_putmem(dst, src, op.len, op.target);
        }
      } else if (sc == kWarp) {
        if (op.nbi) {
          xshmemx_putmem_nbi_warp(dst, src, op.len, op.target);
        } else {
          xshmemx_putmem_warp(dst, src, op.len, op.target);
        }
      } else if (op.nbi) {
        xshmemx_putmem_nbi_block(dst, src, op.len, op.target);
      } else {
        xshmemx_putmem_block(dst, src, op.len, op.target);
      }
    } else if (op.kind == 1) {
      const size_t off = (k * S) % kRo;
      if (sc == kThread) {
        xshmem_getmem(got, a.ro + off, S, op.target);
      } else if (sc == kWarp) {
        xshmemx_getmem_warp(got, a.ro + off, S, op.target);
      } else {
        xshmemx_getmem_block(got, a.ro + off, S, op.target);
      }
      for (size_t b = rank; b < S; b += size) {
        const uint8_t e = gt::pat(op.target, off + b, kSaltRo);
        GT_CHECK(got[b] == e, k * 10000LL + b, e, got[b]);
      }
      // The group's next get must not overwrite bytes another member still checks.
      if (sc == kWarp) {
        __syncwarp();
      } else if (sc == kBlock) {
        __syncthreads();
      }
    } else if (rank == 0) {
      uint64_t *c = a.ctr + op.counter;
      if (op.fetch) {
        const uint64_t old = xshmem_uint64_atomic_fetch_add(c, op.add, op.target);
        const uint64_t total = a.total[op.target * kCounters + op.counter];
        GT_CHECK(old + op.add <= total, k * 10000LL + 9999, total, old + op.add);
      } else {
        xshmem_uint64_atomic_add(c, op.add, op.target);
      }
    }
  }
  xshmem_quiet();
}

// Every byte of every source's slots: payload where the model put, this PE's guard elsewhere.
__global__ void verify_kernel(const uint8_t *inbox, const uint64_t *ctr, const uint64_t *total,
                              scope_t sc, unsigned units, uint64_t seed, int me, int n) {
  const int R = rounds_of(sc);
  const size_t S = slot_of(sc);
  const size_t per_source = size_t(units) * R * S;
  for (size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x; x < per_source * n;
       x += size_t(gridDim.x) * blockDim.x) {
    const int s = static_cast<int>(x / per_source);
    const size_t rel = x % per_source, k = rel / S, b = rel % S;
    const op_t op = op_of(seed, s, unsigned(k / R), int(k % R), n, S);
    const uint8_t e = op.kind == 0 && op.target == me && b < op.len ? gt::pat(s, rel, kSaltPayload)
                                                                    : gt::pat(me, x, kSaltGuard);
    GT_CHECK(inbox[x] == e, x, e, inbox[x]);
  }
  if (blockIdx.x == 0 && threadIdx.x < kCounters) {
    const uint64_t want = total[me * kCounters + threadIdx.x];
    GT_CHECK(ctr[threadIdx.x] == want, 1000000000LL + threadIdx.x, want, ctr[threadIdx.x]);
  }
}

void storm(scope_t sc) {
  const int n = gt::npes, R = rounds_of(sc);
  const size_t S = slot_of(sc);
  const unsigned units = units_of(sc, g_blocks);
  const size_t per_source = size_t(units) * R * S;
  area_t a{};
  a.inbox = static_cast<uint8_t *>(xshmem_malloc(per_source * n));
  auto *ro = static_cast<uint8_t *>(xshmem_malloc(kRo));
  a.ro = ro;
  a.ctr = static_cast<uint64_t *>(xshmem_malloc(kCounters * sizeof(uint64_t)));
  if (a.inbox == nullptr || ro == nullptr || a.ctr == nullptr) {
    GT_CHECK(false, 0, 1, 0);
    return;
  }
  uint8_t *src;
  uint64_t *total;
  GT_CUDA(cudaMalloc(&src, per_source));
  GT_CUDA(cudaMalloc(&a.got, size_t(units) * S));
  GT_CUDA(cudaMalloc(&total, size_t(n) * kCounters * sizeof(uint64_t)));
  a.src = src;
  a.total = total;
  gt::fill(src, per_source, gt::me, kSaltPayload);
  gt::fill(ro, kRo, gt::me, kSaltRo);
  for (int pass = 0; pass < 2; ++pass) {
    const uint64_t seed = 0x5EED0000u + 16 * uint64_t(sc) + uint64_t(pass);
    // The model: every PE's counters after every unit of every PE has run.
    std::vector<uint64_t> model(size_t(n) * kCounters, 0);
    size_t puts = 0;
    for (int s = 0; s < n; ++s)
      for (unsigned u = 0; u < units; ++u)
        for (int r = 0; r < R; ++r) {
          const op_t op = op_of(seed, s, u, r, n, S);
          if (op.kind == 2) model[size_t(op.target) * kCounters + op.counter] += op.add;
          if (op.kind == 0 && op.target == gt::me) ++puts;
        }
    GT_CHECK(puts > 0, pass, 1, 0);  // the storm reaches this PE
    GT_CUDA(
        cudaMemcpy(total, model.data(), model.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
    gt::fill(a.inbox, per_source * n, gt::me, kSaltGuard);
    GT_CUDA(cudaMemset(a.ctr, 0, kCounters * sizeof(uint64_t)));
    gt::barrier();
    storm_kernel<<<g_blocks, kThreads>>>(a, sc, seed, gt::me, n);
    gt::barrier();
    verify_kernel<<<264, 256>>>(a.inbox, a.ctr, total, sc, units, seed, gt::me, n);
    gt::device_sync("STR-07 verify");
  }
  xshmem_barrier_all();
  GT_CUDA(cudaFree(total));
  GT_CUDA(cudaFree(a.got));
  GT_CUDA(cudaFree(src));
  xshmem_free(a.ctr);
  xshmem_free(ro);
  xshmem_free(a.inbox);
}

}  // namespace

int main() {
  gt::start("gpu_stress");
  g_blocks = static_cast<unsigned>(gt::proxy_narrowed(kBlocks, 32));
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    char label[96];
    snprintf(label, sizeof label, "STR-07 grid storm %ux%u, model check %s", g_blocks, kThreads,
             kScopeName[sc]);
    gt::run(label, [&] { storm(sc); });
  }
  return gt::finish();
}
