// xshmem-perf: metrics of the device API (kernels), PE 0 -> PE 1 unless said otherwise.
//
// Every metric mirrors one measurement of the reference program shared/bench/nvshmem_baseline.cu
// (NVSHMEM) so the two print comparable lines: the same kernels with xshmem's names, the same
// grids, sizes and iteration counts, the same timing (cudaEvent around one launch for bandwidth,
// %globaltimer inside the kernel for latency). Unlike the reference, each measurement is repeated
// opt.reps times (median reported) and the data moved by the last repetition is checked at the
// receiver. Metric names are the reference's with a "dev." prefix.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "perf.h"

namespace xshmem::perf {
namespace {

constexpr int kSender = 0;
constexpr int kReceiver = 1;
// The reference's iteration counts of the latency kernels.
constexpr int kLatIters = 10000;
constexpr int kSignalIters = 2000;

// ---- Kernels ------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Byte i of the pattern `seed`: byte (i % 8) of a 64-bit word that is a bijection of (seed, i / 8),
// so shifted, stale or partial copies differ somewhere.
__device__ __forceinline__ uint8_t pattern_byte(uint64_t seed, size_t i) {
  const uint64_t w = ((i >> 3) + seed * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  return static_cast<uint8_t>(w >> ((i & 7) * 8));
}

__global__ void fill_kernel(uint8_t *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += gridDim.x * size_t{blockDim.x})
    p[i] = pattern_byte(seed, i);
}

// Counts the wrong bytes into *bad and keeps the lowest wrong offset in *first.
__global__ void check_kernel(const uint8_t *p, size_t n, uint64_t seed, unsigned long long *bad,
                             unsigned long long *first) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += gridDim.x * size_t{blockDim.x}) {
    if (p[i] != pattern_byte(seed, i)) {
      atomicAdd(bad, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

// The reference's put_bw_kernel: every block puts its chunk `iters` times, then one quiet.
__global__ void put_bw_kernel(uint8_t *dst, const uint8_t *src, size_t chunk, int peer, int iters) {
  for (int it = 0; it < iters; ++it) {
    const size_t off = size_t{blockIdx.x} * chunk;
    xshmemx_putmem_nbi_block(dst + off, src + off, chunk, peer);
  }
  __syncthreads();
  if (threadIdx.x == 0) xshmem_quiet();
}

// The reference's get_bw_kernel: every block gets its chunk `iters` times, then one quiet.
__global__ void get_bw_kernel(uint8_t *dst, const uint8_t *src, size_t chunk, int peer, int iters) {
  for (int it = 0; it < iters; ++it) {
    const size_t off = size_t{blockIdx.x} * chunk;
    xshmemx_getmem_nbi_block(dst + off, src + off, chunk, peer);
  }
  __syncthreads();
  if (threadIdx.x == 0) xshmem_quiet();
}

// Sequence numbers continue across launches (base), so no flag is reset between repetitions.
__global__ void p_pingpong_kernel(int *flag, int me, int peer, int base, int iters,
                                  unsigned long long *ns) {
  const unsigned long long t0 = globaltimer();
  for (int i = 1; i <= iters; ++i) {
    const int v = base + i;
    if (me == kSender) {
      xshmem_int_p(flag, v, peer);
      xshmem_int_wait_until(flag, XSHMEM_CMP_EQ, -v);
    } else {
      xshmem_int_wait_until(flag, XSHMEM_CMP_EQ, v);
      xshmem_int_p(flag, -v, peer);
    }
  }
  *ns = globaltimer() - t0;
}

// The payload's first word carries the sequence number (one local store before each put); the
// payload lands in the peer's inbox, the signal says it did.
__global__ void signal_pingpong_kernel(uint64_t *inbox, uint64_t *outbox, uint64_t *sig,
                                       size_t bytes, int me, int peer, uint64_t base, int iters,
                                       unsigned long long *ns) {
  const unsigned long long t0 = globaltimer();
  for (int i = 1; i <= iters; ++i) {
    const uint64_t seq = base + static_cast<uint64_t>(i);
    if (me == kSender) {
      outbox[0] = seq;
      xshmem_putmem_signal(inbox, outbox, bytes, sig, seq, XSHMEM_SIGNAL_SET, peer);
      xshmem_signal_wait_until(sig, XSHMEM_CMP_EQ, seq);
    } else {
      xshmem_signal_wait_until(sig, XSHMEM_CMP_EQ, seq);
      outbox[0] = seq;
      xshmem_putmem_signal(inbox, outbox, bytes, sig, seq, XSHMEM_SIGNAL_SET, peer);
    }
  }
  *ns = globaltimer() - t0;
}

// Back-to-back fetch_adds, the results summed as the reference does (no wait on each result);
// the sum of the returned old values is compared with the sum of the expected ones at the end.
__global__ void fetch_add_kernel(uint64_t *ctr, int peer, uint64_t start, int iters,
                                 unsigned long long *ns, unsigned long long *bad) {
  uint64_t acc = 0, expect = start, expect_acc = 0;
  const unsigned long long t0 = globaltimer();
  for (int i = 0; i < iters; ++i) {
    const uint64_t inc = static_cast<uint64_t>(i % 7) + 1;
    acc += xshmem_uint64_atomic_fetch_add(ctr, inc, peer);
    expect_acc += expect;
    expect += inc;
  }
  *ns = globaltimer() - t0;
  *bad = acc != expect_acc ? 1 : 0;
}

// A dependent chain: each call's increment comes from the previous call's result, so no call can
// start before the one before it has returned (the round-trip latency of one remote atomic).
__global__ void fetch_add_chain_kernel(uint64_t *ctr, int peer, uint64_t start, int iters,
                                       unsigned long long *ns, unsigned long long *bad) {
  uint64_t expect = start, nbad = 0;
  const unsigned long long t0 = globaltimer();
  uint64_t inc = 1;
  for (int i = 0; i < iters; ++i) {
    const uint64_t old = xshmem_uint64_atomic_fetch_add(ctr, inc, peer);
    if (old != expect) ++nbad;
    expect += inc;
    inc = (old & 3) + 1;  // depends on the value just fetched
  }
  *ns = globaltimer() - t0;
  *bad = nbad;
}

__global__ void barrier_kernel(int iters, unsigned long long *ns) {
  const unsigned long long t0 = globaltimer();
  for (int i = 0; i < iters; ++i) xshmemx_barrier_all_block();
  if (threadIdx.x == 0) *ns = globaltimer() - t0;
}

// ---- collectives: data movement ----
// The reference's alltoall_kernel: one block runs `iters` world alltoalls of n floats per PE.
__global__ void alltoall_block_kernel(float *dst, const float *src, size_t n, int iters) {
  for (int i = 0; i < iters; ++i) xshmemx_float_alltoall_block(XSHMEM_TEAM_WORLD, dst, src, n);
}
// ---- end collectives: data movement ----

// ---- collectives: reductions ----
// The reference's reduce_kernel: one block, `iters` block-scope float sum reductions on the world.
__global__ void sum_reduce_kernel(float *dst, const float *src, size_t n, int iters) {
  for (int i = 0; i < iters; ++i) xshmemx_float_sum_reduce_block(XSHMEM_TEAM_WORLD, dst, src, n);
}
// Small integers, so every sum is exact whatever the order.
__host__ __device__ __forceinline__ float reduce_value(size_t i, int pe) {
  return static_cast<float>((i * 7 + static_cast<size_t>(pe) * 13) % 1021);
}
__global__ void reduce_fill_kernel(float *p, size_t n, int pe) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += gridDim.x * size_t{blockDim.x})
    p[i] = reduce_value(i, pe);
}
__global__ void reduce_check_kernel(const float *p, size_t n, int npes, unsigned long long *bad,
                                    unsigned long long *first) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += gridDim.x * size_t{blockDim.x}) {
    float want = 0;
    for (int pe = 0; pe < npes; ++pe) want += reduce_value(i, pe);
    if (p[i] != want) {
      atomicAdd(bad, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}
// ---- end collectives: reductions ----

// ---- Host side ----------------------------------------------------------------------------------

// A stream, two events and a few device counters, per metric.
struct Gpu {
  cudaStream_t st{};
  cudaEvent_t e0{}, e1{};
  unsigned long long *ns = nullptr, *bad = nullptr, *first = nullptr;
  Gpu() {
    PERF_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    PERF_CUDA(cudaEventCreate(&e0));
    PERF_CUDA(cudaEventCreate(&e1));
    PERF_CUDA(cudaMalloc(&ns, 3 * sizeof(unsigned long long)));
    bad = ns + 1;
    first = ns + 2;
  }
  ~Gpu() {
    cudaFree(ns);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
  }
  Gpu(const Gpu &) = delete;
  Gpu &operator=(const Gpu &) = delete;
  unsigned long long read(const unsigned long long *p) {
    unsigned long long v = 0;
    PERF_CUDA(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
  }
  void sync() {
    PERF_CUDA(cudaGetLastError());
    PERF_CUDA(cudaStreamSynchronize(st));
  }
  // Fills n bytes of p with pattern `seed`.
  void fill(void *p, size_t n, uint64_t seed) {
    fill_kernel<<<1024, 256, 0, st>>>(static_cast<uint8_t *>(p), n, seed);
    sync();
  }
  // Checks n bytes of p against pattern `seed`; returns the first wrong offset or SIZE_MAX.
  size_t check(const void *p, size_t n, uint64_t seed) {
    const unsigned long long init[2] = {0, ~0ull};
    PERF_CUDA(cudaMemcpy(bad, init, sizeof init, cudaMemcpyHostToDevice));
    check_kernel<<<1024, 256, 0, st>>>(static_cast<const uint8_t *>(p), n, seed, bad, first);
    sync();
    return read(bad) == 0 ? SIZE_MAX : static_cast<size_t>(read(first));
  }
};

// A symmetric buffer freed collectively when it goes out of scope.
struct SymFree {
  void operator()(void *p) const { xshmem_free(p); }
};
template <typename T>
using SymBuf = std::unique_ptr<T, SymFree>;
template <typename T>
SymBuf<T> sym_alloc(Context &ctx, size_t count) {
  void *p = xshmem_calloc(count, sizeof(T));
  if (p == nullptr) {
    if (ctx.me == 0) {
      std::fprintf(stderr,
                   "xshmem-perf: xshmem_calloc of %zu bytes failed: the symmetric heap is too "
                   "small; the device bandwidth metrics need 2 GiB (XSHMEM_SYMMETRIC_SIZE=3G)\n",
                   count * sizeof(T));
    }
    xshmem_global_exit(1);
  }
  return SymBuf<T>(static_cast<T *>(p));
}

std::string grid_text(int blocks, int threads) {
  return std::to_string(blocks) + "x" + std::to_string(threads);
}

// One put_bw configuration: `blocks` x `threads`, chunk = size / blocks per block, one warm-up
// launch of `warm` iterations, then opt.reps timed launches of `iters` (the sender's figures).
// The receiver checks the bytes of the last launch. Returns the per-repetition GB/s (PE 0).
std::vector<double> put_case(Context &ctx, Gpu &gpu, uint8_t *dst, uint8_t *src,
                             const std::string &metric, size_t size, int blocks, int threads,
                             int iters, int warm, const std::string &note) {
  const size_t chunk = size / static_cast<size_t>(blocks);
  const size_t moved = chunk * static_cast<size_t>(blocks);
  const uint64_t seed = (uint64_t{size} << 20) ^ (uint64_t(blocks) << 8) ^ uint64_t(threads);
  if (ctx.me == kSender) gpu.fill(src, moved, seed);
  if (ctx.me == kReceiver) {
    PERF_CUDA(cudaMemsetAsync(dst, 0xA5, moved, gpu.st));
    gpu.sync();
  }
  xshmem_barrier_all();
  std::vector<double> gbps;
  if (ctx.me == kSender) {
    put_bw_kernel<<<blocks, threads, 0, gpu.st>>>(dst, src, chunk, kReceiver, warm);
    gpu.sync();
    for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
      PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
      put_bw_kernel<<<blocks, threads, 0, gpu.st>>>(dst, src, chunk, kReceiver, iters);
      PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
      PERF_CUDA(cudaGetLastError());
      PERF_CUDA(cudaEventSynchronize(gpu.e1));
      float ms = 0;
      PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
      gbps.push_back(static_cast<double>(moved) * iters / ms / 1e6);
    }
  }
  xshmem_barrier_all();  // the sender's kernels ended with quiet: every byte has landed
  bool ok = true;
  if (ctx.me == kReceiver) {
    const size_t off = gpu.check(dst, moved, seed);
    if (off != SIZE_MAX) {
      std::fprintf(stderr, "xshmem-perf: pe %d: %s size %zu grid %s: wrong data at byte %zu\n",
                   ctx.me, metric.c_str(), size, grid_text(blocks, threads).c_str(), off);
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record(metric, size, gbps, "GB/s", static_cast<uint64_t>(iters), ok,
             ok ? note : note + ", wrong data");
  return gbps;
}

// The reference's put_bw sizes and sweep; records dev.put_bw (the reference grid per size),
// dev.put_bw_sweep (every grid at 256 MiB and 1 GiB), dev.put_bw_best (the best sweep grid per
// size) and dev.put_bw_unaligned_1GiB (66 x 256 at 1 GiB: 16268815-byte chunks, not 16-byte
// aligned).
void put_bw(Context &ctx) {
  const size_t big = size_t{1} << 30;
  auto src = sym_alloc<uint8_t>(ctx, big);
  auto dst = sym_alloc<uint8_t>(ctx, big);
  Gpu gpu;
  for (size_t size :
       {size_t{4096}, size_t{65536}, size_t{1} << 20, size_t{16} << 20, size_t{256} << 20, big}) {
    const int blocks = static_cast<int>(std::min<size_t>(size / 4096 ? size / 4096 : 1, 264));
    const int iters = size >= (size_t{256} << 20) ? 5 : 50;
    put_case(ctx, gpu, dst.get(), src.get(), "dev.put_bw", size, blocks, 512, iters, 2,
             grid_text(blocks, 512));
  }
  for (size_t size : {size_t{256} << 20, big}) {
    double best = -1;
    std::vector<double> best_values;
    std::string best_grid;
    for (int blocks : {32, 66, 132, 264, 528, 1056}) {
      for (int threads : {256, 1024}) {
        auto v = put_case(ctx, gpu, dst.get(), src.get(), "dev.put_bw_sweep", size, blocks, threads,
                          5, 1, grid_text(blocks, threads));
        if (!v.empty() && median(v) > best) {
          best = median(v);
          best_values = v;
          best_grid = grid_text(blocks, threads);
        }
      }
    }
    // The sweep rows are verified; this one repeats the best of them.
    if (!best_values.empty())
      ctx.record("dev.put_bw_best", size, best_values, "GB/s", 5, true, "grid " + best_grid);
  }
  put_case(ctx, gpu, dst.get(), src.get(), "dev.put_bw_unaligned_1GiB", big, 66, 256, 5, 1,
           "66x256, chunk " + std::to_string(big / 66) + " B");
}

// PE 0 gets from PE 1 with the reference's grids and sizes (blocks = size / 4 KiB, at most 264, x
// 512 threads); PE 0 checks the bytes of the last launch. As in the reference, the small sizes
// read the same remote bytes again and again (the peer's L2 serves them).
void get_bw(Context &ctx) {
  const size_t big = size_t{1} << 30;
  auto src = sym_alloc<uint8_t>(ctx, big);
  auto dst = sym_alloc<uint8_t>(ctx, big);
  Gpu gpu;
  for (size_t size :
       {size_t{4096}, size_t{65536}, size_t{1} << 20, size_t{16} << 20, size_t{256} << 20, big}) {
    const int blocks = static_cast<int>(std::min<size_t>(size / 4096 ? size / 4096 : 1, 264));
    const int iters = size >= (size_t{256} << 20) ? 5 : 50;
    const size_t chunk = size / static_cast<size_t>(blocks), moved = chunk * blocks;
    const uint64_t seed = 0x6E7ull ^ size;
    if (ctx.me == kReceiver) gpu.fill(src.get(), moved, seed);
    if (ctx.me == kSender) {
      PERF_CUDA(cudaMemsetAsync(dst.get(), 0xA5, moved, gpu.st));
      gpu.sync();
    }
    xshmem_barrier_all();
    std::vector<double> gbps;
    bool ok = true;
    if (ctx.me == kSender) {
      get_bw_kernel<<<blocks, 512, 0, gpu.st>>>(dst.get(), src.get(), chunk, kReceiver, 2);
      gpu.sync();
      for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
        PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
        get_bw_kernel<<<blocks, 512, 0, gpu.st>>>(dst.get(), src.get(), chunk, kReceiver, iters);
        PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
        PERF_CUDA(cudaGetLastError());
        PERF_CUDA(cudaEventSynchronize(gpu.e1));
        float ms = 0;
        PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
        gbps.push_back(static_cast<double>(moved) * iters / ms / 1e6);
      }
      const size_t off = gpu.check(dst.get(), moved, seed);
      if (off != SIZE_MAX) {
        std::fprintf(stderr, "xshmem-perf: pe %d: dev.get_bw size %zu: wrong data at byte %zu\n",
                     ctx.me, size, off);
        ok = false;
      }
    }
    xshmem_barrier_all();
    ok = ctx.all_ok(ok);
    ctx.record("dev.get_bw", size, gbps, "GB/s", static_cast<uint64_t>(iters), ok,
               grid_text(blocks, 512) + (size <= (size_t{1} << 20) ? ", same bytes re-read" : ""));
  }
}

// Both PEs put 1 GiB into each other at once (264 x 512); PE 0's figure per direction.
void put_bw_bidir(Context &ctx) {
  const size_t big = size_t{1} << 30;
  auto src = sym_alloc<uint8_t>(ctx, big);
  auto dst = sym_alloc<uint8_t>(ctx, big);
  Gpu gpu;
  const int blocks = 264, threads = 512, iters = 5;
  const size_t chunk = big / blocks, moved = chunk * blocks;
  const bool active = ctx.me == kSender || ctx.me == kReceiver;
  const int peer = ctx.me == kSender ? kReceiver : kSender;
  auto seed_of = [](int pe) { return 0xB1D1ull + static_cast<uint64_t>(pe); };
  if (active) {
    gpu.fill(src.get(), moved, seed_of(ctx.me));
    put_bw_kernel<<<blocks, threads, 0, gpu.st>>>(dst.get(), src.get(), chunk, peer, 1);
    gpu.sync();
  }
  std::vector<double> gbps;
  for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
    xshmem_barrier_all();  // both start together
    if (!active) continue;
    PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
    put_bw_kernel<<<blocks, threads, 0, gpu.st>>>(dst.get(), src.get(), chunk, peer, iters);
    PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
    PERF_CUDA(cudaGetLastError());
    PERF_CUDA(cudaEventSynchronize(gpu.e1));
    float ms = 0;
    PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
    gbps.push_back(static_cast<double>(moved) * iters / ms / 1e6);
  }
  xshmem_barrier_all();
  bool ok = true;
  if (active) {
    const size_t off = gpu.check(dst.get(), moved, seed_of(peer));
    if (off != SIZE_MAX) {
      std::fprintf(stderr,
                   "xshmem-perf: pe %d: dev.put_bw_bidir_per_dir_1GiB: wrong data at byte %zu\n",
                   ctx.me, off);
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record("dev.put_bw_bidir_per_dir_1GiB", big, gbps, "GB/s", iters, ok,
             grid_text(blocks, threads) + ", both PEs at once");
}

// Runs launch(base, iters) on the active PEs once untimed, then opt.reps times; each launch
// writes its nanoseconds to gpu.ns. Returns microseconds per iteration / divisor (PE 0) and
// leaves in *next_base the base after the last launch.
template <typename Launch>
std::vector<double> latency_reps(Context &ctx, Gpu &gpu, bool active, int iters, double divisor,
                                 Launch &&launch, uint64_t *next_base = nullptr) {
  uint64_t base = 0;
  std::vector<double> us;
  for (unsigned rep = 0; rep <= ctx.opt.reps; ++rep) {  // rep 0: warm-up
    xshmem_barrier_all();
    if (active) {
      launch(base);
      gpu.sync();
      if (rep > 0) us.push_back(static_cast<double>(gpu.read(gpu.ns)) / 1e3 / iters / divisor);
    }
    base += static_cast<uint64_t>(iters);
  }
  xshmem_barrier_all();
  if (next_base) *next_base = base;
  return us;
}

void p_pingpong_half_rtt(Context &ctx) {
  auto flag = sym_alloc<int>(ctx, 1);
  Gpu gpu;
  const bool active = ctx.me == kSender || ctx.me == kReceiver;
  const int peer = ctx.me == kSender ? kReceiver : kSender;
  uint64_t last = 0;
  auto us = latency_reps(
      ctx, gpu, active, kLatIters, 2,
      [&](uint64_t base) {
        p_pingpong_kernel<<<1, 1, 0, gpu.st>>>(flag.get(), ctx.me, peer, static_cast<int>(base),
                                               kLatIters, gpu.ns);
      },
      &last);
  bool ok = true;
  if (active) {
    int v = 0;
    PERF_CUDA(cudaMemcpy(&v, flag.get(), sizeof v, cudaMemcpyDeviceToHost));
    const int expect = ctx.me == kSender ? -static_cast<int>(last) : static_cast<int>(last);
    if (v != expect) {
      std::fprintf(stderr, "xshmem-perf: pe %d: dev.p_pingpong_half_rtt: flag %d, expected %d\n",
                   ctx.me, v, expect);
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record("dev.p_pingpong_half_rtt", 0, us, "us", kLatIters, ok, "1 thread");
}

// inbox and outbox are the two halves of one symmetric block; outbox holds this PE's pattern
// (seed pe + 1) after its first word. After the last repetition, each inbox must hold the last
// sequence number and the peer's pattern.
void put_signal_pingpong(Context &ctx, size_t bytes, const char *metric) {
  const size_t words = bytes / sizeof(uint64_t);
  auto buf = sym_alloc<uint64_t>(ctx, 2 * words);
  auto sig = sym_alloc<uint64_t>(ctx, 1);
  uint64_t *inbox = buf.get(), *outbox = buf.get() + words;
  Gpu gpu;
  const bool active = ctx.me == kSender || ctx.me == kReceiver;
  const int peer = ctx.me == kSender ? kReceiver : kSender;
  std::vector<uint64_t> host(words);
  fill_pattern(host.data(), bytes, static_cast<uint64_t>(ctx.me) + 1);
  PERF_CUDA(cudaMemcpy(outbox, host.data(), bytes, cudaMemcpyHostToDevice));
  PERF_CUDA(cudaMemset(sig.get(), 0, sizeof(uint64_t)));
  uint64_t last = 0;
  auto us = latency_reps(
      ctx, gpu, active, kSignalIters, 2,
      [&](uint64_t base) {
        signal_pingpong_kernel<<<1, 1, 0, gpu.st>>>(inbox, outbox, sig.get(), bytes, ctx.me, peer,
                                                    base, kSignalIters, gpu.ns);
      },
      &last);
  bool ok = true;
  if (active) {
    std::vector<uint64_t> got(words), expect(words);
    PERF_CUDA(cudaMemcpy(got.data(), inbox, bytes, cudaMemcpyDeviceToHost));
    fill_pattern(expect.data(), bytes, static_cast<uint64_t>(peer) + 1);
    expect[0] = last;
    if (got != expect) {
      std::fprintf(stderr,
                   "xshmem-perf: pe %d: %s: the last payload differs from pe %d's (first word "
                   "%llu, expected %llu)\n",
                   ctx.me, metric, peer, static_cast<unsigned long long>(got[0]),
                   static_cast<unsigned long long>(last));
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record(metric, bytes, us, "us", kSignalIters, ok, "1 thread");
}

void put_signal_pingpong_8(Context &ctx) {
  put_signal_pingpong(ctx, 8, "dev.put_signal_pingpong_half_rtt_8B");
}
void put_signal_pingpong_256(Context &ctx) {
  put_signal_pingpong(ctx, 256, "dev.put_signal_pingpong_half_rtt_256B");
}
void put_signal_pingpong_4096(Context &ctx) {
  put_signal_pingpong(ctx, 4096, "dev.put_signal_pingpong_half_rtt_4096B");
}
void put_signal_pingpong_65536(Context &ctx) {
  put_signal_pingpong(ctx, 65536, "dev.put_signal_pingpong_half_rtt_65536B");
}

// The increments of one launch of fetch_add_kernel, summed.
uint64_t fetch_add_total(int iters) {
  uint64_t t = 0;
  for (int i = 0; i < iters; ++i) t += static_cast<uint64_t>(i % 7) + 1;
  return t;
}

void atomic_fetch_add_lat(Context &ctx) {
  auto ctr = sym_alloc<uint64_t>(ctx, 1);
  Gpu gpu;
  const uint64_t per_launch = fetch_add_total(kLatIters);
  bool ok = true;
  uint64_t launches = 0;
  auto us = latency_reps(ctx, gpu, ctx.me == kSender, kLatIters, 1, [&](uint64_t) {
    fetch_add_kernel<<<1, 1, 0, gpu.st>>>(ctr.get(), kReceiver, launches * per_launch, kLatIters,
                                          gpu.ns, gpu.bad);
    ++launches;
    gpu.sync();
    if (gpu.read(gpu.bad) != 0) ok = false;
  });
  if (!ok)
    std::fprintf(stderr, "xshmem-perf: pe %d: dev.atomic_fetch_add_lat: wrong old values\n",
                 ctx.me);
  if (ctx.me == kReceiver) {
    uint64_t v = 0;
    const uint64_t expect = per_launch * (ctx.opt.reps + 1);
    PERF_CUDA(cudaMemcpy(&v, ctr.get(), sizeof v, cudaMemcpyDeviceToHost));
    if (v != expect) {
      std::fprintf(
          stderr, "xshmem-perf: pe %d: dev.atomic_fetch_add_lat: counter %llu, expected %llu\n",
          ctx.me, static_cast<unsigned long long>(v), static_cast<unsigned long long>(expect));
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record("dev.atomic_fetch_add_lat", 0, us, "us", kLatIters, ok, "1 thread, uint64");
}

// Like dev.atomic_fetch_add_lat, but every call waits for the value of the one before.
void atomic_fetch_add_chain_lat(Context &ctx) {
  auto ctr = sym_alloc<uint64_t>(ctx, 1);
  Gpu gpu;
  bool ok = true;
  uint64_t start = 0;
  auto us = latency_reps(ctx, gpu, ctx.me == kSender, kLatIters, 1, [&](uint64_t) {
    fetch_add_chain_kernel<<<1, 1, 0, gpu.st>>>(ctr.get(), kReceiver, start, kLatIters, gpu.ns,
                                                gpu.bad);
    gpu.sync();
    if (gpu.read(gpu.bad) != 0) ok = false;
    PERF_CUDA(
        cudaMemcpy(&start, xshmem_ptr(ctr.get(), kReceiver), sizeof start, cudaMemcpyDeviceToHost));
  });
  if (!ok)
    std::fprintf(stderr, "xshmem-perf: pe %d: dev.atomic_fetch_add_chain_lat: wrong old values\n",
                 ctx.me);
  ok = ctx.all_ok(ok);
  ctx.record("dev.atomic_fetch_add_chain_lat", 0, us, "us", kLatIters, ok,
             "1 thread, uint64, each increment from the last result");
}

// Host-initiated puts on a stream (xshmemx_putmem_on_stream: the copy engines), PE 0 -> PE 1.
void put_bw_on_stream(Context &ctx) {
  const size_t big = size_t{1} << 30;
  auto src = sym_alloc<uint8_t>(ctx, big);
  auto dst = sym_alloc<uint8_t>(ctx, big);
  Gpu gpu;
  for (size_t size : {size_t{65536}, size_t{1} << 20, size_t{16} << 20, size_t{256} << 20, big}) {
    const int iters = size >= (size_t{256} << 20) ? 5 : 50;
    const uint64_t seed = 0x5E7Eull ^ size;
    if (ctx.me == kSender) gpu.fill(src.get(), size, seed);
    if (ctx.me == kReceiver) {
      PERF_CUDA(cudaMemsetAsync(dst.get(), 0xA5, size, gpu.st));
      gpu.sync();
    }
    xshmem_barrier_all();
    std::vector<double> gbps;
    if (ctx.me == kSender) {
      xshmemx_putmem_on_stream(dst.get(), src.get(), size, kReceiver, gpu.st);  // warm-up
      gpu.sync();
      for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
        PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
        for (int i = 0; i < iters; ++i)
          xshmemx_putmem_on_stream(dst.get(), src.get(), size, kReceiver, gpu.st);
        xshmemx_quiet_on_stream(gpu.st);
        PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
        PERF_CUDA(cudaEventSynchronize(gpu.e1));
        float ms = 0;
        PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
        gbps.push_back(static_cast<double>(size) * iters / ms / 1e6);
      }
    }
    xshmem_barrier_all();
    bool ok = true;
    if (ctx.me == kReceiver) {
      const size_t off = gpu.check(dst.get(), size, seed);
      if (off != SIZE_MAX) {
        std::fprintf(stderr,
                     "xshmem-perf: pe %d: dev.put_bw_on_stream size %zu: wrong data at %zu\n",
                     ctx.me, size, off);
        ok = false;
      }
    }
    ok = ctx.all_ok(ok);
    ctx.record("dev.put_bw_on_stream", size, gbps, "GB/s", static_cast<uint64_t>(iters), ok,
               "xshmemx_putmem_on_stream (copy engines)");
  }
}

void device_barrier_all_block_lat(Context &ctx) {
  Gpu gpu;
  auto us = latency_reps(ctx, gpu, true, kLatIters, 1, [&](uint64_t) {
    barrier_kernel<<<1, 128, 0, gpu.st>>>(kLatIters, gpu.ns);
  });
  ctx.record("dev.device_barrier_all_block_lat", 0, us, "us", kLatIters, true,
             "128 threads, " + std::to_string(ctx.npes) + " PEs");
}

// ---- collectives: data movement ----
// dev.alltoall_block_<N>_floats: the reference's alltoall measurement (one block of 256 threads
// per PE, world team, N floats of source per PE: N / npes per destination, 20 iterations per
// timed launch, after one warm-up launch). Block j of PE p's source holds pattern (p, j); after
// the last launch every PE checks that its dest block j holds pattern (j, me).
void alltoall_block(Context &ctx) {
  constexpr int kIters = 20;
  const size_t sizes[] = {256, size_t{1} << 16, size_t{1} << 22};
  auto src = sym_alloc<float>(ctx, sizes[2]);
  auto dst = sym_alloc<float>(ctx, sizes[2]);
  Gpu gpu;
  auto seed = [](int from, int to, size_t n) {
    return (uint64_t(n) << 24) ^ (uint64_t(from) << 12) ^ uint64_t(to) ^ 0xA77A11ull;
  };
  for (size_t total : sizes) {
    const size_t n = total / static_cast<size_t>(ctx.npes), bytes = n * sizeof(float);
    for (int j = 0; j < ctx.npes; ++j) gpu.fill(src.get() + j * n, bytes, seed(ctx.me, j, total));
    PERF_CUDA(cudaMemsetAsync(dst.get(), 0xA5, total * sizeof(float), gpu.st));
    gpu.sync();
    xshmem_barrier_all();
    alltoall_block_kernel<<<1, 256, 0, gpu.st>>>(dst.get(), src.get(), n, 1);  // warm-up
    gpu.sync();
    std::vector<double> us;
    for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
      xshmem_barrier_all();
      PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
      alltoall_block_kernel<<<1, 256, 0, gpu.st>>>(dst.get(), src.get(), n, kIters);
      PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
      PERF_CUDA(cudaGetLastError());
      PERF_CUDA(cudaEventSynchronize(gpu.e1));
      float ms = 0;
      PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
      us.push_back(static_cast<double>(ms) * 1e3 / kIters);
    }
    xshmem_barrier_all();  // every PE's last alltoall has ended (each ends with a team barrier)
    bool ok = true;
    for (int j = 0; j < ctx.npes && ok; ++j) {
      const size_t off = gpu.check(dst.get() + j * n, bytes, seed(j, ctx.me, total));
      if (off != SIZE_MAX) {
        std::fprintf(stderr,
                     "xshmem-perf: pe %d: dev.alltoall_block_%zu_floats: block from pe %d wrong "
                     "at byte %zu\n",
                     ctx.me, total, j, off);
        ok = false;
      }
    }
    ok = ctx.all_ok(ok);
    ctx.record("dev.alltoall_block_" + std::to_string(total) + "_floats", total, us, "us", kIters,
               ok, "1 block x 256 threads, " + std::to_string(ctx.npes) + " PEs");
  }
}
// ---- end collectives: data movement ----

// ---- collectives: reductions ----
// The reference's reduce loop: per size, one untimed launch of 1 iteration, then launches of 20
// timed with events (opt.reps of them here; the median is reported); every PE launches, PE 0's
// figure is recorded. The last launch's dest is checked on every PE.
void sum_reduce_block(Context &ctx) {
  const size_t sizes[] = {256, size_t{1} << 16, size_t{1} << 22};
  const size_t max_n = size_t{1} << 22;
  auto src = sym_alloc<float>(ctx, max_n);
  auto dst = sym_alloc<float>(ctx, max_n);
  Gpu gpu;
  constexpr int kIters = 20;
  for (size_t n : sizes) {
    reduce_fill_kernel<<<264, 256, 0, gpu.st>>>(src.get(), n, ctx.me);
    gpu.sync();
    xshmem_barrier_all();
    sum_reduce_kernel<<<1, 256, 0, gpu.st>>>(dst.get(), src.get(), n, 1);
    gpu.sync();
    std::vector<double> us;
    for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
      xshmem_barrier_all();
      PERF_CUDA(cudaEventRecord(gpu.e0, gpu.st));
      sum_reduce_kernel<<<1, 256, 0, gpu.st>>>(dst.get(), src.get(), n, kIters);
      PERF_CUDA(cudaEventRecord(gpu.e1, gpu.st));
      PERF_CUDA(cudaGetLastError());
      PERF_CUDA(cudaEventSynchronize(gpu.e1));
      float ms = 0;
      PERF_CUDA(cudaEventElapsedTime(&ms, gpu.e0, gpu.e1));
      us.push_back(static_cast<double>(ms) * 1e3 / kIters);
    }
    xshmem_barrier_all();
    const unsigned long long init[2] = {0, ~0ull};
    PERF_CUDA(cudaMemcpy(gpu.bad, init, sizeof init, cudaMemcpyHostToDevice));
    reduce_check_kernel<<<264, 256, 0, gpu.st>>>(dst.get(), n, ctx.npes, gpu.bad, gpu.first);
    gpu.sync();
    bool ok = gpu.read(gpu.bad) == 0;
    if (!ok)
      std::fprintf(stderr,
                   "xshmem-perf: pe %d: dev.sum_reduce_block %zu floats: wrong sum at %llu\n",
                   ctx.me, n, gpu.read(gpu.first));
    ok = ctx.all_ok(ok);
    ctx.record("dev.sum_reduce_block_" + std::to_string(n) + "_floats", n * sizeof(float), us, "us",
               kIters, ok, "1 x 256 threads, world team of " + std::to_string(ctx.npes));
  }
}
// ---- end collectives: reductions ----

const MetricDef kDeviceMetrics[] = {
    {"dev.put_bw", "GB/s", Where::kDevice, 2,
     "kernel xshmemx_putmem_nbi_block + quiet, one block per chunk, the reference's grids and "
     "sizes (4 KiB - 1 GiB); also records dev.put_bw_sweep, dev.put_bw_best and "
     "dev.put_bw_unaligned_1GiB",
     put_bw},
    {"dev.put_bw_sweep", "GB/s", Where::kDevice, 2,
     "dev.put_bw at 256 MiB and 1 GiB, grids 32-1056 blocks x 256/1024 threads", nullptr},
    {"dev.put_bw_best", "GB/s", Where::kDevice, 2, "the best grid of dev.put_bw_sweep per size",
     nullptr},
    {"dev.put_bw_unaligned_1GiB", "GB/s", Where::kDevice, 2,
     "dev.put_bw 1 GiB, 66 x 256, chunk per block not 16-byte aligned", nullptr},
    {"dev.get_bw", "GB/s", Where::kDevice, 2,
     "kernel xshmemx_getmem_nbi_block + quiet from PE 1, the reference's grids and sizes", get_bw},
    {"dev.put_bw_bidir_per_dir_1GiB", "GB/s", Where::kDevice, 2,
     "both PEs put 1 GiB into each other at once (264 x 512), per direction", put_bw_bidir},
    {"dev.p_pingpong_half_rtt", "us", Where::kDevice, 2,
     "kernel, one thread: xshmem_int_p + xshmem_int_wait_until ping-pong", p_pingpong_half_rtt},
    {"dev.put_signal_pingpong_half_rtt_8B", "us", Where::kDevice, 2,
     "kernel, one thread: xshmem_putmem_signal + signal_wait_until ping-pong, 8 B",
     put_signal_pingpong_8},
    {"dev.put_signal_pingpong_half_rtt_256B", "us", Where::kDevice, 2, "the same, 256 B",
     put_signal_pingpong_256},
    {"dev.put_signal_pingpong_half_rtt_4096B", "us", Where::kDevice, 2, "the same, 4096 B",
     put_signal_pingpong_4096},
    {"dev.put_signal_pingpong_half_rtt_65536B", "us", Where::kDevice, 2, "the same, 65536 B",
     put_signal_pingpong_65536},
    {"dev.atomic_fetch_add_lat", "us", Where::kDevice, 2,
     "kernel, one thread: xshmem_uint64_atomic_fetch_add on PE 1, back to back",
     atomic_fetch_add_lat},
    {"dev.atomic_fetch_add_chain_lat", "us", Where::kDevice, 2,
     "kernel, one thread: fetch_add whose increment depends on the previous result (latency "
     "of one remote atomic)",
     atomic_fetch_add_chain_lat},
    {"dev.put_bw_on_stream", "GB/s", Where::kDevice, 2,
     "host: xshmemx_putmem_on_stream + quiet_on_stream, 64 KiB - 1 GiB (copy engines)",
     put_bw_on_stream},
    {"dev.device_barrier_all_block_lat", "us", Where::kDevice, 1,
     "kernel, one block of 128 threads per PE: xshmemx_barrier_all_block",
     device_barrier_all_block_lat},
    // ---- collectives: reductions ----
    {"dev.sum_reduce_block", "us", Where::kDevice, 1,
     "kernel, one block of 256 threads per PE: xshmemx_float_sum_reduce_block on the world, 20 "
     "back to back, 256 / 65536 / 4194304 floats; records dev.sum_reduce_block_<n>_floats",
     sum_reduce_block},
    {"dev.sum_reduce_block_256_floats", "us", Where::kDevice, 1, "dev.sum_reduce_block, 256 floats",
     nullptr},
    {"dev.sum_reduce_block_65536_floats", "us", Where::kDevice, 1,
     "dev.sum_reduce_block, 65536 floats", nullptr},
    {"dev.sum_reduce_block_4194304_floats", "us", Where::kDevice, 1,
     "dev.sum_reduce_block, 4194304 floats", nullptr},
    // ---- collectives: data movement ----
    {"dev.alltoall_block_256_floats", "us", Where::kDevice, 1,
     "kernel, one block of 256 threads per PE: xshmemx_float_alltoall_block on WORLD, 256 floats "
     "of source per PE, 20 per launch; also records the 65536 and 4194304 sizes",
     alltoall_block},
    {"dev.alltoall_block_65536_floats", "us", Where::kDevice, 1,
     "dev.alltoall_block with 65536 floats of source per PE", nullptr},
    {"dev.alltoall_block_4194304_floats", "us", Where::kDevice, 1,
     "dev.alltoall_block with 4194304 floats of source per PE", nullptr},
    // ---- end collectives: data movement ----
};

}  // namespace

std::vector<MetricDef> device_metrics() {
  return {std::begin(kDeviceMetrics), std::end(kDeviceMetrics)};
}

bool device_heap_on_gpu(Context &ctx, std::string &why) {
  void *p = xshmem_malloc(64);
  bool ok = false;
  if (p == nullptr) {
    why = "xshmem_malloc(64) failed";
  } else {
    cudaPointerAttributes attr{};
    const cudaError_t e = cudaPointerGetAttributes(&attr, p);
    if (e != cudaSuccess) {
      why = std::string("cudaPointerGetAttributes on a symmetric block failed: ") +
            cudaGetErrorString(e);
      cudaGetLastError();  // clear it
    } else if (attr.type != cudaMemoryTypeDevice) {
      why = "the symmetric heap is in host memory (XSHMEM_HEAP=device puts it on the GPU)";
    } else {
      ok = true;
    }
    xshmem_free(p);
  }
  ok = ctx.all_ok(ok);
  if (!ok && why.empty()) why = "the symmetric heap is not in GPU memory on every PE";
  return ok;
}

}  // namespace xshmem::perf
