// nvlink_probe: raw measurements behind the device path's design choices, without the runtime.
// One process drives both GPUs (peer access enabled), like ../shared/bench/raw_floor.cu. Each
// line prints a name and a figure; the point is the differences between variants measured in
// the same run:
//   - half round trip of a flag ping-pong with an 8/256-byte payload ordered before the flag by
//     each candidate fence (what put_signal costs),
//   - remote fetch_add back to back, through cuda::atomic_ref vs the atomicAdd_system intrinsic,
//     with and without a table lookup per call (what the dispatch costs),
//   - a 2-GPU block barrier with each fence kind,
//   - 1 GiB put bandwidth: 16-byte stores, TMA bulk stores (cp.async.bulk), the copy engines,
//     and stores plus copy engines together.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 nvlink_probe.cu -o nvlink_probe
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      printf("error %s at line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void st_relaxed(uint64_t *p, uint64_t v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_release(uint64_t *p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t ld_acquire(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t ld_relaxed(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void fence_acq_rel() {
  asm volatile("fence.acq_rel.sys;" ::: "memory");
}
__device__ __forceinline__ void fence_sc() {
  asm volatile("fence.sc.sys;" ::: "memory");
}

// Flag ping-pong with a payload. variant: 0 flag only; 1 payload, fence.sc + relaxed flag;
// 2 payload, fence.acq_rel + relaxed flag; 3 payload, release flag; 4 payload, fence.acq_rel +
// release flag (two fences); 5 payload + relaxed flag, no fence (wrong: for comparison only).
// The receiver checks the payload after it sees the flag (bad counts mismatches).
__global__ void pingpong(uint64_t *my_flag, uint64_t *peer_flag, uint4 *my_data, uint4 *peer_data,
                         int words, int iters, int me, int variant, unsigned long long *ns,
                         unsigned long long *bad) {
  unsigned long long t0 = gtime();
  unsigned long long nbad = 0;
  for (int i = 1; i <= iters; ++i) {
    const uint64_t v = 2 * uint64_t(i) + me;  // distinct per direction
    if (me == 1) {
      while (ld_acquire(my_flag) != 2 * uint64_t(i)) {
      }
      for (int w = 0; w < words && variant != 0; ++w) {
        uint4 d = my_data[w];
        if (d.x != uint32_t(2 * i) + w) ++nbad;
      }
    }
    if (variant != 0) {
      for (int w = 0; w < words; ++w) {
        uint4 d;
        d.x = uint32_t(v) + w;
        d.y = d.z = d.w = uint32_t(i);
        peer_data[w] = d;
      }
    }
    switch (variant) {
      case 1:
        fence_sc();
        st_relaxed(peer_flag, v);
        break;
      case 2:
        fence_acq_rel();
        st_relaxed(peer_flag, v);
        break;
      case 3:
        st_release(peer_flag, v);
        break;
      case 4:
        fence_acq_rel();
        st_release(peer_flag, v);
        break;
      default:
        st_relaxed(peer_flag, v);
        break;
    }
    if (me == 0) {
      while (ld_acquire(my_flag) != 2 * uint64_t(i) + 1) {
      }
      for (int w = 0; w < words && variant != 0; ++w) {
        uint4 d = my_data[w];
        if (d.x != uint32_t(2 * i + 1) + w) ++nbad;
      }
    }
  }
  *ns = gtime() - t0;
  *bad = nbad;
}

// Remote fetch_add, one thread, results summed (the reference's loop). variant: 0 intrinsic
// atomicAdd_system; 1 cuda::atomic_ref<system> relaxed; 2 atomic_ref + address from a table read
// with a plain load each call; 3 atomic_ref + table read with __ldg; 4 intrinsic + __ldg table.
__global__ void fadd(unsigned long long *remote, const uintptr_t *table, int iters, int variant,
                     unsigned long long *ns, unsigned long long *out) {
  unsigned long long acc = 0;
  unsigned long long t0 = gtime();
  for (int i = 0; i < iters; ++i) {
    unsigned long long *p = remote;
    if (variant == 2) p = reinterpret_cast<unsigned long long *>(table[1]);
    if (variant == 3 || variant == 4) p = reinterpret_cast<unsigned long long *>(__ldg(table + 1));
    if (variant == 0 || variant == 4) {
      acc += atomicAdd_system(p, 1ull);
    } else {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> r(*p);
      acc += r.fetch_add(1ull, cuda::memory_order_relaxed);
    }
  }
  *ns = gtime() - t0;
  *out = acc;
}

// Block barrier between the two GPUs, 128 threads. variant: 0 fence.sc + relaxed store;
// 1 fence.acq_rel + relaxed store; 2 release store only; 3 fence.sc + release red.add (today's
// runtime shape: quiet, then a release add).
__global__ void barrier(uint64_t *my_flag, uint64_t *peer_flag, int iters, int variant,
                        unsigned long long *ns) {
  unsigned long long t0 = gtime();
  for (int i = 1; i <= iters; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      switch (variant) {
        case 0:
          fence_sc();
          st_relaxed(peer_flag, i);
          break;
        case 1:
          fence_acq_rel();
          st_relaxed(peer_flag, i);
          break;
        case 2:
          st_release(peer_flag, i);
          break;
        default:
          fence_sc();
          asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(peer_flag), "l"(1ull)
                       : "memory");
          break;
      }
      while (ld_acquire(my_flag) < uint64_t(i)) {
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *ns = gtime() - t0;
}

// 16-byte stores, grid-stride.
__global__ void copy16(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// TMA bulk copy global -> shared -> (peer) global, one issuing thread per block, kStages
// buffers of kChunk bytes in flight.
constexpr int kChunk = 16384;
constexpr int kStages = 4;
__global__ void tma_copy(char *dst, const char *src, size_t bytes) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t bar[kStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(&bar[s]));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const size_t nchunks = bytes / kChunk;
  uint32_t phase[kStages] = {0, 0, 0, 0};
  int k = 0;
  for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x, ++k) {
    const int s = k % kStages;
    // Buffer s is free once at most kStages-1 later bulk stores are still reading smem.
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kStages - 1) : "memory");
    uint32_t sbuf = static_cast<uint32_t>(__cvta_generic_to_shared(smem + s * kChunk));
    uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar[s]));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(kChunk)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(sbuf),
        "l"(src + c * kChunk), "r"(kChunk), "r"(sbar)
        : "memory");
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
          "0, p; }"
          : "=r"(done)
          : "r"(sbar), "r"(phase[s])
          : "memory");
    }
    phase[s] ^= 1;
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * kChunk),
        "r"(sbuf), "r"(kChunk)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void check_bytes(const char *a, const char *b, size_t n, unsigned long long *bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicAdd(bad, 1ull);
}

__global__ void fill(char *p, size_t n, int salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<char>((i * 2654435761u) >> 13 ^ salt);
}

int main() {
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaSetDevice(1));
  CK(cudaDeviceEnablePeerAccess(0, 0));
  uint64_t *flag[2];
  uint4 *data[2];
  unsigned long long *ns[2], *bad[2];
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&flag[d], 64));
    CK(cudaMalloc(&data[d], 4096));
    CK(cudaMalloc(&ns[d], 8));
    CK(cudaMalloc(&bad[d], 8));
  }
  auto reset = [&] {
    for (int d = 0; d < 2; ++d) {
      CK(cudaSetDevice(d));
      CK(cudaMemset(flag[d], 0, 64));
      CK(cudaMemset(data[d], 0, 4096));
      CK(cudaDeviceSynchronize());
    }
  };
  auto both_sync = [&] {
    for (int d = 0; d < 2; ++d) {
      CK(cudaSetDevice(d));
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
  };
  const int IT = 20000;
  const char *pp_names[] = {"flag_only",
                            "fence_sc+relaxed",
                            "fence_acq_rel+relaxed",
                            "release_store",
                            "fence_acq_rel+release(today)",
                            "no_fence(wrong)"};
  for (int words : {1, 16}) {
    for (int v = 0; v < 6; ++v) {
      if (words == 16 && v == 0) continue;
      for (int rep = 0; rep < 2; ++rep) {
        reset();
        for (int d = 1; d >= 0; --d) {
          CK(cudaSetDevice(d));
          pingpong<<<1, 1>>>(flag[d], flag[1 - d], data[d], data[1 - d], words, IT, d, v, ns[d],
                             bad[d]);
        }
        both_sync();
        unsigned long long h = 0, b0 = 0, b1 = 0;
        CK(cudaSetDevice(0));
        CK(cudaMemcpy(&h, ns[0], 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&b0, bad[0], 8, cudaMemcpyDeviceToHost));
        CK(cudaSetDevice(1));
        CK(cudaMemcpy(&b1, bad[1], 8, cudaMemcpyDeviceToHost));
        if (rep == 1)
          printf("pingpong_half_rtt payload=%dB %-30s %.3f us  (payload mismatches %llu/%llu)\n",
                 words * 16, pp_names[v], h / 1e3 / IT / 2, b0, b1);
      }
    }
  }

  // fetch_add: GPU 0 adds into GPU 1's counter.
  unsigned long long *ctr;
  uintptr_t *table;
  CK(cudaSetDevice(1));
  CK(cudaMalloc(&ctr, 8));
  CK(cudaMemset(ctr, 0, 8));
  CK(cudaDeviceSynchronize());
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&table, 16));
  uintptr_t ht[2] = {0, reinterpret_cast<uintptr_t>(ctr)};
  CK(cudaMemcpy(table, ht, 16, cudaMemcpyHostToDevice));
  const char *fa_names[] = {"atomicAdd_system", "atomic_ref_relaxed", "atomic_ref+table_ld",
                            "atomic_ref+table_ldg", "atomicAdd_system+table_ldg"};
  for (int v = 0; v < 5; ++v) {
    for (int rep = 0; rep < 2; ++rep) {
      fadd<<<1, 1>>>(ctr, table, IT, v, ns[0], bad[0]);
      CK(cudaDeviceSynchronize());
      unsigned long long h;
      CK(cudaMemcpy(&h, ns[0], 8, cudaMemcpyDeviceToHost));
      if (rep == 1) printf("fetch_add_lat %-28s %.3f us\n", fa_names[v], h / 1e3 / IT);
    }
  }

  const char *bar_names[] = {"fence_sc+relaxed", "fence_acq_rel+relaxed", "release_store",
                             "fence_sc+red.release.add(today-ish)"};
  for (int v = 0; v < 4; ++v) {
    for (int rep = 0; rep < 2; ++rep) {
      reset();
      for (int d = 1; d >= 0; --d) {
        CK(cudaSetDevice(d));
        barrier<<<1, 128>>>(flag[d], flag[1 - d], IT, v, ns[d]);
      }
      both_sync();
      unsigned long long h;
      CK(cudaSetDevice(0));
      CK(cudaMemcpy(&h, ns[0], 8, cudaMemcpyDeviceToHost));
      if (rep == 1) printf("barrier_block_lat %-36s %.3f us\n", bar_names[v], h / 1e3 / IT);
    }
  }

  // 1 GiB puts from GPU 0 into GPU 1.
  const size_t bytes = size_t(1) << 30;
  char *src, *dst, *ref;
  unsigned long long *nbad;
  CK(cudaSetDevice(1));
  CK(cudaMalloc(&dst, bytes));
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&ref, 8));
  CK(cudaMalloc(&nbad, 8));
  fill<<<528, 1024>>>(src, bytes, 7);
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  auto verify = [&](const char *what) {
    CK(cudaSetDevice(1));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    CK(cudaMemset(nbad, 0, 8));
    check_bytes<<<528, 1024>>>(src, dst, bytes, nbad);
    CK(cudaDeviceSynchronize());
    unsigned long long h;
    CK(cudaMemcpy(&h, nbad, 8, cudaMemcpyDeviceToHost));
    if (h) printf("  %s: %llu wrong bytes\n", what, h);
  };
  auto timeit = [&](const char *name, auto &&launch) {
    float best = 1e30f;
    for (int rep = 0; rep < 6; ++rep) {
      CK(cudaEventRecord(a, s1));
      launch();
      CK(cudaEventRecord(b, s1));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (rep > 0 && ms < best) best = ms;
    }
    CK(cudaGetLastError());
    printf("put_bw_1GiB %-40s %.1f GB/s\n", name, bytes / best / 1e6);
    CK(cudaMemset(dst, 0, 0));
    verify(name);
  };
  for (int g : {264, 528, 1056})
    timeit(g == 528 ? "int4_stores_528x1024"
                    : (g == 264 ? "int4_stores_264x1024" : "int4_stores_1056x1024"),
           [&] { copy16<<<g, 1024, 0, s1>>>((uint4 *)dst, (const uint4 *)src, bytes / 16); });
  CK(cudaFuncSetAttribute(tma_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, kChunk * kStages));
  for (int g : {132, 264, 396})
    timeit(g == 132 ? "tma_bulk_132x32" : (g == 264 ? "tma_bulk_264x32" : "tma_bulk_396x32"),
           [&] { tma_copy<<<g, 32, kChunk * kStages, s1>>>(dst, src, bytes); });
  timeit("copy_engine_cudaMemcpyAsync",
         [&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s1)); });
  timeit("copy_engine_cudaMemcpyPeerAsync",
         [&] { CK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s1)); });
  for (int pct : {20, 30, 40}) {
    char name[64];
    snprintf(name, sizeof name, "stores_%d%%+copy_engine_%d%%", pct, 100 - pct);
    const size_t kb = (bytes / 100 * pct) & ~size_t(4095);
    timeit(name, [&] {
      CK(cudaEventRecord(a, s1));
      CK(cudaStreamWaitEvent(s2, a));
      CK(cudaMemcpyAsync(dst + kb, src + kb, bytes - kb, cudaMemcpyDefault, s2));
      copy16<<<264, 1024, 0, s1>>>((uint4 *)dst, (const uint4 *)src, kb / 16);
      cudaEvent_t j;
      CK(cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
      CK(cudaEventRecord(j, s2));
      CK(cudaStreamWaitEvent(s1, j));
      CK(cudaEventDestroy(j));
    });
  }
  printf("probe done\n");
  return 0;
}
