// gpu_ring: pass a token around all PEs from inside a CUDA kernel.
//
// Build (one .cu file, plain nvcc, no -rdc), from an installed xshmem at $PREFIX:
//   nvcc -arch=sm_90 -O2 gpu_ring.cu -I$PREFIX/include -L$PREFIX/lib -lxshmem -o gpu_ring
// Run, one PE per GPU:
//   xshmem-run -n 2 ./gpu_ring
//
// Each PE's kernel waits until its left neighbour has put the message into its buffer and raised
// the signal, adds its own contribution, and puts it on to its right neighbour with
// put-with-signal (a block-wide copy, then the signal). After `laps` laps PE 0 checks the sum.
// The waiting kernel is a single block, so it is trivially co-resident (see README, "Writing
// kernels", for kernels whose many blocks wait).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <xshmem/xshmem.h>

#define CHECK_CUDA(call)                                                             \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "gpu_ring: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kWords = 4096;  // message size: 16 KiB

__global__ void ring(int *msg, int *scratch, uint64_t *sig, int laps) {
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int right = (me + 1) % n;
  for (int lap = 0; lap < laps; ++lap) {
    const uint64_t expected = static_cast<uint64_t>(lap) + 1;
    if (me == 0 && lap == 0) {
      for (int i = threadIdx.x; i < kWords; i += blockDim.x) scratch[i] = i;  // the token
    } else {
      // Wait for the left neighbour's message of this lap, then add this PE's part.
      if (threadIdx.x == 0) xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, me == 0 ? lap : expected);
      __syncthreads();
      for (int i = threadIdx.x; i < kWords; i += blockDim.x) scratch[i] = msg[i] + me;
    }
    __syncthreads();
    // Every thread of the block calls the _block variant with the same arguments.
    xshmemx_int_put_signal_block(msg, scratch, kWords, sig, expected, XSHMEM_SIGNAL_SET, right);
  }
  if (me == 0) {  // the last lap's message comes back to PE 0
    if (threadIdx.x == 0) xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, laps);
    __syncthreads();
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("gpu_ring: no GPU here, nothing to do\n");
    return 77;
  }
  xshmem_init();  // picks this PE's GPU and makes it current
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int laps = 10;

  int *msg = static_cast<int *>(xshmem_malloc(kWords * sizeof(int)));  // symmetric
  auto *sig = static_cast<uint64_t *>(xshmem_calloc(1, sizeof(uint64_t)));
  int *scratch = nullptr;  // private
  CHECK_CUDA(cudaMalloc(&scratch, kWords * sizeof(int)));
  xshmem_barrier_all();

  // The kernel waits for its left neighbour's signal: a kernel that waits on other PEs (or on
  // other blocks) goes through xshmemx_collective_launch, which refuses a grid that cannot be
  // resident at once instead of letting it deadlock.
  int lap_count = laps;
  void *args[] = {&msg, &scratch, &sig, &lap_count};
  CHECK_CUDA(xshmemx_collective_launch(reinterpret_cast<const void *>(ring), dim3(1), dim3(256),
                                       args, 0, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  xshmem_barrier_all();

  int status = 0;
  if (me == 0) {
    // Every lap, every PE but 0 added its number: laps * (0 + 1 + ... + n-1).
    const int added = laps * (n * (n - 1) / 2);
    int *host = static_cast<int *>(malloc(kWords * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(host, msg, kWords * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kWords; ++i) {
      if (host[i] != i + added) {
        fprintf(stderr, "gpu_ring: word %d is %d, expected %d\n", i, host[i], i + added);
        status = 1;
        break;
      }
    }
    if (status == 0) printf("gpu_ring: %d PEs, %d laps, message correct\n", n, laps);
    free(host);
  }
  CHECK_CUDA(cudaFree(scratch));
  xshmem_free(sig);
  xshmem_free(msg);
  xshmem_finalize();
  return status;
}
