// GPU conformance: COLL-01 (barrier, no early exit) and COLL-02 (sync variants). Every adder
// of every PE adds 1 to one counter on PE 0 (PE 0's adds are its own GPU atomics, a PROXY peer's
// are applied by PE 0's transport: docs/semantics.md "Atomicity across paths"), then its group
// barriers; after the barrier every PE reads the counter and must see npes x adders x iteration,
// and the word after it (a guard) still 0; a second barrier keeps the next round's adds out of
// this round's reads. 1000 iterations (100 where PEs share a GPU). Adders:
// one thread (T), every thread of a warp (W), every thread of a (3D) block (B), so the group forms
// must complete the AMOs of every member, not only of the thread that runs the dissemination.
// COLL-02: each adder quiets (sync does not complete remote updates), then the group calls
// sync_all. Also the host API on the GPU heap (H) and on a stream (S).
#include "gpu_test.h"

namespace {

constexpr int kIters = 1000;

// kind: 0 T barrier_all, 1 W barrier_all_warp, 2 B barrier_all_block, 3 T quiet + sync_all,
// 4 W quiet + sync_all_warp, 5 B quiet + sync_all_block.
__host__ __device__ inline unsigned adders_of(int kind, unsigned threads) {
  return kind == 2 || kind == 5 ? threads : (kind == 1 || kind == 4 ? 32u : 1u);
}

__global__ void coll_kernel(uint64_t *counter, int kind, int npes, int iters) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned adders = adders_of(kind, threads);
  const bool sync = kind >= 3;
  const int me = xshmem_my_pe();
  for (int it = 1; it <= iters; ++it) {
    if (tid < adders) {
      xshmem_uint64_atomic_add(counter, 1, 0);
      if (sync) xshmem_quiet();
    }
    for (int round = 0; round < 2; ++round) {
      switch (kind) {
        case 0:
          if (tid == 0) xshmem_barrier_all();
          break;
        case 1:
          if (tid < 32) xshmemx_barrier_all_warp();
          break;
        case 2:
          xshmemx_barrier_all_block();
          break;
        case 3:
          if (tid == 0) xshmem_sync_all();
          break;
        case 4:
          if (tid < 32) xshmemx_sync_all_warp();
          break;
        default:
          xshmemx_sync_all_block();
          break;
      }
      __syncthreads();
      if (round == 0 && tid == 0) {
        const uint64_t want = uint64_t(adders) * npes * it;
        const uint64_t v = xshmem_uint64_atomic_fetch(counter, 0);
        GT_CHECK(v == want, it * 1000LL + me, want, v);
        const uint64_t guard = xshmem_uint64_atomic_fetch(counter + 1, 0);
        GT_CHECK(guard == 0, it * 1000LL + 1, 0, guard);
      }
    }
  }
}

void device_barrier(uint64_t *counter, int kind) {
  GT_CUDA(cudaMemset(counter, 0, sizeof(uint64_t) * 2));
  gt::barrier();
  dim3 block = kind == 2 || kind == 5 ? dim3(8, 4, 3) : dim3(64);
  int npes = gt::npes, iters = gt::scaled(kIters);  // two barriers (round trips) per iteration
  void *args[] = {&counter, &kind, &npes, &iters};
  GT_CUDA(xshmemx_collective_launch(reinterpret_cast<const void *>(coll_kernel), dim3(1), block,
                                    args, 0, nullptr));
  gt::device_sync("coll kernel");
}

// xshmemx_collective_launch refuses a grid one block larger than what fits at once, and
// launches one that fits.
void collective_launch_limits(uint64_t *counter) {
  GT_CUDA(cudaMemset(counter, 0, sizeof(uint64_t) * 2));
  const int fit = gt::max_resident_blocks(coll_kernel, 64);
  int kind = 0, npes = gt::npes, iters = 1;
  void *args[] = {&counter, &kind, &npes, &iters};
  cudaError_t e = xshmemx_collective_launch(reinterpret_cast<const void *>(coll_kernel),
                                            dim3(fit + 1), dim3(64), args, 0, nullptr);
  GT_CHECK(e == cudaErrorCooperativeLaunchTooLarge, fit + 1, cudaErrorCooperativeLaunchTooLarge, e);
  (void)cudaGetLastError();
}

void host_barrier(uint64_t *counter, bool on_stream) {
  GT_CUDA(cudaMemset(counter, 0, sizeof(uint64_t) * 2));
  gt::barrier();
  cudaStream_t s;
  GT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // On a stream each barrier is a kernel that waits for the other PE's (a round trip).
  const int iters = on_stream ? gt::scaled(kIters) : kIters / 4;
  for (int it = 1; it <= iters; ++it) {
    xshmem_uint64_atomic_add(counter, 1, 0);
    if (on_stream) {
      xshmemx_barrier_all_on_stream(s);
      GT_CUDA(cudaStreamSynchronize(s));
    } else {
      xshmem_barrier_all();
    }
    const uint64_t want = uint64_t(gt::npes) * it;
    const uint64_t v = xshmem_uint64_atomic_fetch(counter, 0);
    GT_CHECK(v == want, it * 1000LL + gt::me, want, v);
    const uint64_t guard = xshmem_uint64_atomic_fetch(counter + 1, 0);
    GT_CHECK(guard == 0, it * 1000LL + 1, 0, guard);
    xshmem_sync_all();
  }
  GT_CUDA(cudaStreamDestroy(s));
}

}  // namespace

int main() {
  gt::start("gpu_coll");
  // counter[0]: the counter; counter[1]: a guard word.
  auto *counter = static_cast<uint64_t *>(xshmem_malloc(sizeof(uint64_t) * 2));
  if (counter == nullptr) return 1;
  const char *device_cases[] = {"COLL-01 barrier_all x%d T",
                                "COLL-01 barrier_all_warp, 32 adders x%d W",
                                "COLL-01 barrier_all_block, 96 adders x%d B",
                                "COLL-02 quiet+sync_all x%d T",
                                "COLL-02 quiet+sync_all_warp x%d W",
                                "COLL-02 quiet+sync_all_block x%d B"};
  for (int kind = 0; kind < 6; ++kind) {
    char name[96];
    snprintf(name, sizeof name, device_cases[kind], gt::scaled(kIters));
    gt::run(name, [&] { device_barrier(counter, kind); });
  }
  gt::run("COLL-01 collective launch refuses an oversized grid H",
          [&] { collective_launch_limits(counter); });
  gt::run("COLL-01 barrier_all x250 H", [&] { host_barrier(counter, false); });
  char name[96];
  snprintf(name, sizeof name, "COLL-01 barrier_all_on_stream x%d S", gt::scaled(kIters));
  gt::run(name, [&] { host_barrier(counter, true); });
  xshmem_free(counter);
  return gt::finish();
}
