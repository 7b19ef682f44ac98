// GPU conformance: ORD-01 (fence message passing). The sender puts data (blocking or nbi,
// sizes varying with the iteration), fences, then raises a flag (p, atomic_set or a second
// put, rotating); the receiver waits for the flag, then checks every word of the data. 10^4
// iterations; the receiver acks each one before the sender reuses its buffers. Delays vary with
// the iteration. The forbidden outcome (flag seen, data stale) must never occur.
#include "gpu_test.h"

namespace {

constexpr int kIters = 10000;
constexpr int kMaxWords = 1024;

__host__ __device__ inline uint32_t word(int pe, int it, int i) {
  return static_cast<uint32_t>(pe) * 0x01000193u ^ static_cast<uint32_t>(it) * 0x9E3779B1u ^
         static_cast<uint32_t>(i);
}

// Block 0 sends to peer, block 1 receives from `from`; `scope`: 0 thread, 1 warp, 2 block puts.
__global__ void mp_kernel(uint32_t *data, uint64_t *flags, uint32_t *src, int scope, int me,
                          int peer, int from) {
  const unsigned tid = threadIdx.x;
  for (int it = 0; it < kIters; ++it) {
    int n = 1 + static_cast<int>((static_cast<unsigned>(it) * 2654435761u >> 7) % kMaxWords);
    if (blockIdx.x == 0) {
      for (int i = tid; i < n; i += blockDim.x) src[i] = word(me, it, i);
      __syncthreads();
      if (scope == 0) {
        if (tid == 0) {
          if (it % 2) {
            xshmem_uint32_put(data, src, n, peer);
          } else {
            xshmem_uint32_put_nbi(data, src, n, peer);
          }
        }
      } else if (scope == 1) {
        if (tid < 32) xshmemx_uint32_put_nbi_warp(data, src, n, peer);
      } else {
        xshmemx_uint32_put_block(data, src, n, peer);
      }
      if (tid == 0) {
        for (int d = 0; d < (it % 7) * 50; ++d) __nanosleep(10);
        xshmem_fence();
        switch (it % 3) {
          case 0:
            xshmem_uint64_p(flags, uint64_t(it + 1), peer);
            break;
          case 1:
            xshmem_uint64_atomic_set(flags, uint64_t(it + 1), peer);
            break;
          default: {
            uint64_t v = uint64_t(it + 1);
            xshmem_uint64_put(flags, &v, 1, peer);
          }
        }
        xshmem_uint64_wait_until(flags + 1, XSHMEM_CMP_GE, uint64_t(it + 1));  // ack
      }
      __syncthreads();
    } else {
      if (tid == 0) xshmem_uint64_wait_until(flags, XSHMEM_CMP_GE, uint64_t(it + 1));
      __syncthreads();
      for (int i = tid; i < n; i += blockDim.x) {
        uint32_t e = word(from, it, i);
        uint32_t got = reinterpret_cast<volatile uint32_t *>(data)[i];
        GT_CHECK(got == e, it * 10000LL + i, e, got);
      }
      __syncthreads();
      if (tid == 0) xshmem_uint64_p(flags + 1, uint64_t(it + 1), from);
    }
  }
}

void mp(uint32_t *data, uint64_t *flags, uint32_t *src, int scope) {
  GT_CUDA(cudaMemset(flags, 0, 2 * sizeof(uint64_t)));
  gt::barrier();
  mp_kernel<<<2, 128>>>(data, flags, src, scope, gt::me, gt::peer, gt::from);
  gt::device_sync("mp kernel");
}

}  // namespace

int main() {
  gt::start("gpu_ord");
  auto *data = static_cast<uint32_t *>(xshmem_malloc(kMaxWords * sizeof(uint32_t)));
  auto *flags = static_cast<uint64_t *>(xshmem_malloc(2 * sizeof(uint64_t)));
  if (data == nullptr || flags == nullptr) return 1;
  uint32_t *src;
  GT_CUDA(cudaMalloc(&src, kMaxWords * sizeof(uint32_t)));
  gt::run("ORD-01 fence message passing 10^4 T", [&] { mp(data, flags, src, 0); });
  gt::run("ORD-01 fence message passing 10^4 W", [&] { mp(data, flags, src, 1); });
  gt::run("ORD-01 fence message passing 10^4 B", [&] { mp(data, flags, src, 2); });
  GT_CUDA(cudaFree(src));
  xshmem_free(flags);
  xshmem_free(data);
  return gt::finish();
}
