// collectives.cu (NVSHMEM-style program): the collectives of NVSHMEM_TEAM_WORLD from a kernel
// (block, warp and thread forms, collective-launched) and from the host, on PE-dependent data:
// sum/max/min/xor reductions, fcollect, broadcast, alltoall, barriers, a half-precision broadcast.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>

#include "nvprog.h"

enum op_t {
  kSumBlock,
  kMaxBlock,
  kMinWarp,
  kXorThread,
  kFcollectBlock,
  kBroadcastBlock,
  kAlltoallWarp,
  kBarrierBlock,
  kHalfBroadcastBlock,
  kOps
};
const char *const kOpName[kOps] = {"int_sum_reduce_block", "long_max_reduce_block (as int)",
                                   "int_min_reduce_warp",  "uint32_xor_reduce (thread)",
                                   "int_fcollect_block",   "int_broadcast_block",
                                   "int_alltoall_warp",    "barrier_all_block",
                                   "half_broadcast_block"};
constexpr long kN = 1000;  // elements per PE

// Small values for the arithmetic reductions (no overflow at any PE count the tests use).
__host__ __device__ inline int small(int pe, long i, int salt) {
  return val(pe, i, salt) % 100000 - 50000;
}

__global__ void coll(int op, int *dst, int *src, long n, uint64_t *counter) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  switch (op) {
    case kSumBlock:
      nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, n);
      break;
    case kMaxBlock:
      nvshmemx_long_max_reduce_block(NVSHMEM_TEAM_WORLD, reinterpret_cast<long *>(dst),
                                     reinterpret_cast<long *>(src), n / 2);
      break;
    case kMinWarp:
      if (threadIdx.x < 32) nvshmemx_int_min_reduce_warp(NVSHMEM_TEAM_WORLD, dst, src, n);
      break;
    case kXorThread:
      if (threadIdx.x == 0)
        nvshmem_uint32_xor_reduce(NVSHMEM_TEAM_WORLD, reinterpret_cast<uint32_t *>(dst),
                                  reinterpret_cast<const uint32_t *>(src), n);
      break;
    case kFcollectBlock:
      nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, dst, src, n);
      break;
    case kBroadcastBlock:
      nvshmemx_int_broadcast_block(NVSHMEM_TEAM_WORLD, dst, src, n, np - 1);
      break;
    case kAlltoallWarp:
      if (threadIdx.x < 32) nvshmemx_int_alltoall_warp(NVSHMEM_TEAM_WORLD, dst, src, n);
      break;
    case kBarrierBlock:
      // Every PE adds 1 to every PE's counter, then the barrier: after it, every counter holds np.
      if (threadIdx.x < np) nvshmem_uint64_atomic_add(counter, 1, threadIdx.x);
      nvshmemx_barrier_all_block();
      if (threadIdx.x == 0) dst[0] = static_cast<int>(nvshmem_uint64_atomic_fetch(counter, me));
      break;
    case kHalfBroadcastBlock:
      nvshmemx_half_broadcast_block(NVSHMEM_TEAM_WORLD, reinterpret_cast<half *>(dst),
                                    reinterpret_cast<const half *>(src), 2 * n, 0);
      break;
  }
}

int main() {
  need_gpu("nvshmem_collectives");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  checker c{"nvshmem_collectives", me};
  guarded dst = sym_ints(np * kN), src = sym_ints(np * kN);
  auto *counter = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  for (int op = 0; op < kOps; ++op) {
    const int salt = 200 + op;
    const bool many = op == kFcollectBlock || op == kAlltoallWarp;
    guarded d{dst.base, many ? np * kN : kN}, s{src.base, op == kAlltoallWarp ? np * kN : kN};
    c.fill(d, [&](long i) { return val(me, i, 300 + op); });
    c.fill(s, [&](long i) { return small(me, i, salt); });
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(uint64_t)));
    nvshmem_barrier_all();
    int o = op, *dp = d.data(), *sp = s.data();
    long n = kN;
    void *args[] = {&o, &dp, &sp, &n, &counter};
    CUDA_CHECK(static_cast<cudaError_t>(nvshmemx_collective_launch(
        reinterpret_cast<const void *>(coll), dim3(1), dim3(256), args, 0, 0)));
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    const char *what = kOpName[op];
    auto sum_of = [&](long i) {
      long long t = 0;
      for (int p = 0; p < np; ++p) t += small(p, i, salt);
      return static_cast<int>(t);
    };
    switch (op) {
      case kSumBlock:
        c.check(what, d, sum_of);
        break;
      case kMaxBlock: {  // longs assembled from int pairs: compare as longs
        std::vector<long> want(kN / 2);
        for (long j = 0; j < kN / 2; ++j) {
          long best = 0;
          for (int p = 0; p < np; ++p) {
            int pair[2] = {small(p, 2 * j, salt), small(p, 2 * j + 1, salt)};
            long v;
            memcpy(&v, pair, sizeof v);
            if (p == 0 || v > best) best = v;
          }
          want[j] = best;
        }
        c.check(what, d, [&](long i) {
          int pair[2];
          memcpy(pair, &want[i / 2], sizeof pair);
          return pair[i % 2];
        });
        break;
      }
      case kMinWarp:
        c.check(what, d, [&](long i) {
          int m = small(0, i, salt);
          for (int p = 1; p < np; ++p) m = std::min(m, small(p, i, salt));
          return m;
        });
        break;
      case kXorThread:
        c.check(what, d, [&](long i) {
          int x = 0;
          for (int p = 0; p < np; ++p) x ^= small(p, i, salt);
          return x;
        });
        break;
      case kFcollectBlock:
        c.check(what, d, [&](long i) { return small(static_cast<int>(i / kN), i % kN, salt); });
        break;
      case kBroadcastBlock:
        c.check(what, d, [&](long i) { return small(np - 1, i, salt); });
        break;
      case kAlltoallWarp:  // block p of PE me's dst is block me of PE p's src
        c.check(what, d,
                [&](long i) { return small(static_cast<int>(i / kN), me * kN + i % kN, salt); });
        break;
      case kBarrierBlock:
        c.check(what, d, [&](long i) { return i == 0 ? np : val(me, i, 300 + op); });
        break;
      case kHalfBroadcastBlock:  // 2n halves = n ints of bits from PE 0
        c.check(what, d, [&](long i) { return small(0, i, salt); });
        break;
    }
    c.check("source", s, [&](long i) { return small(me, i, salt); });
  }

  // Host forms on the same buffers.
  {
    guarded d{dst.base, kN}, s{src.base, kN};
    c.fill(d, [&](long i) { return val(me, i, 400); });
    c.fill(s, [&](long i) { return small(me, i, 401); });
    nvshmem_barrier_all();
    nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, d.data(), s.data(), kN);
    c.check("host int_sum_reduce", d, [&](long i) {
      long long t = 0;
      for (int p = 0; p < np; ++p) t += small(p, i, 401);
      return static_cast<int>(t);
    });
    nvshmem_barrier_all();  // every PE has read its result before the next collective writes
    nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, d.data(), s.data(), kN, 0);
    c.check("host int_broadcast", d, [&](long i) { return small(0, i, 401); });
    guarded f{dst.base, np * kN};
    nvshmem_barrier_all();
    c.fill(f, [&](long i) { return val(me, i, 402); });
    nvshmem_barrier_all();
    nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, f.data(), s.data(), kN);
    c.check("host int_fcollect", f,
            [&](long i) { return small(static_cast<int>(i / kN), i % kN, 401); });
    nvshmem_barrier_all();
  }

  nvshmem_free(counter);
  nvshmem_free(src.base);
  nvshmem_free(dst.base);
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
