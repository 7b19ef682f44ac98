// GPU conformance: COLL-01 (barrier, no early exit). Every PE adds 1 to a counter on PE 0, then
// barriers; after the barrier every PE reads the counter and must see npes x iteration; a
// second barrier keeps the next round's adds out of this round's reads. 1000 iterations, with
// the device barrier run by one thread, by a warp, by a whole (3D) block, with sync_all after a
// quiet, and by the host API on the GPU heap (H) and on a stream (S).
#include "gpu_test.h"

namespace {

constexpr int kIters = 1000;

// kind: 0 thread barrier_all, 1 warp, 2 block, 3 thread quiet + sync_all.
__global__ void coll_kernel(uint64_t *counter, int kind, int npes) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (int it = 1; it <= kIters; ++it) {
    if (tid == 0) xshmem_uint64_atomic_add(counter, 1, 0);
    for (int round = 0; round < 2; ++round) {
      if (kind == 0) {
        if (tid == 0) xshmem_barrier_all();
      } else if (kind == 1) {
        if (tid < 32) xshmemx_barrier_all_warp();
      } else if (kind == 2) {
        xshmemx_barrier_all_block();
      } else if (tid == 0) {
        xshmem_quiet();
        xshmem_sync_all();
      }
      __syncthreads();
      if (round == 0 && tid == 0) {
        uint64_t v = xshmem_uint64_atomic_fetch(counter, 0);
        GT_CHECK(v == uint64_t(npes) * it, it, uint64_t(npes) * it, v);
      }
    }
  }
}

void device_barrier(uint64_t *counter, int kind) {
  GT_CUDA(cudaMemset(counter, 0, sizeof(uint64_t)));
  gt::barrier();
  dim3 block = kind == 2 ? dim3(8, 4, 3) : dim3(64);
  coll_kernel<<<1, block>>>(counter, kind, gt::npes);
  gt::device_sync("coll kernel");
}

void host_barrier(uint64_t *counter, bool on_stream) {
  GT_CUDA(cudaMemset(counter, 0, sizeof(uint64_t)));
  gt::barrier();
  cudaStream_t s;
  GT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int iters = on_stream ? kIters : kIters / 4;
  for (int it = 1; it <= iters; ++it) {
    xshmem_uint64_atomic_add(counter, 1, 0);
    if (on_stream) {
      xshmemx_barrier_all_on_stream(s);
      GT_CUDA(cudaStreamSynchronize(s));
    } else {
      xshmem_barrier_all();
    }
    uint64_t v = xshmem_uint64_atomic_fetch(counter, 0);
    GT_CHECK(v == uint64_t(gt::npes) * it, it, uint64_t(gt::npes) * it, v);
    xshmem_sync_all();
  }
  GT_CUDA(cudaStreamDestroy(s));
}

}  // namespace

int main() {
  gt::start("gpu_coll");
  auto *counter = static_cast<uint64_t *>(xshmem_malloc(sizeof(uint64_t)));
  if (counter == nullptr) return 1;
  gt::run("COLL-01 barrier_all x1000 T", [&] { device_barrier(counter, 0); });
  gt::run("COLL-01 barrier_all_warp x1000 W", [&] { device_barrier(counter, 1); });
  gt::run("COLL-01 barrier_all_block x1000 B", [&] { device_barrier(counter, 2); });
  gt::run("COLL-01 quiet+sync_all x1000 T", [&] { device_barrier(counter, 3); });
  gt::run("COLL-01 barrier_all x250 H", [&] { host_barrier(counter, false); });
  gt::run("COLL-01 barrier_all_on_stream x1000 S", [&] { host_barrier(counter, true); });
  xshmem_free(counter);
  return gt::finish();
}
