// ring.cu (NVSHMEM-style program): the "simple shift" of NVSHMEM's examples and a token ring.
//   1. shift: every thread of a kernel puts one element to its right neighbour (nvshmem_int_p),
//      then nvshmemx_barrier_all_on_stream; each PE checks what its left neighbour sent.
//   2. get: every thread reads one element of its left neighbour's buffer (nvshmem_int_g).
//   3. token ring: a collective-launched block waits for its left neighbour's signal, adds its
//      part and forwards the message with nvshmemx_int_put_signal_block, for several laps.
#include "nvprog.h"

constexpr int kShift = 1000;  // elements of the shift (several per thread)
constexpr int kWords = 2048;  // the token's size
constexpr int kLaps = 5;

__global__ void shift(int *dst, int n) {
  const int me = nvshmem_my_pe(), right = (me + 1) % nvshmem_n_pes();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    nvshmem_int_p(dst + i, val(me, i, 1), right);
}

__global__ void gather_left(int *out, const int *src, int n) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes(), left = (me + np - 1) % np;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = nvshmem_int_g(src + i, left);
}

__global__ void token(int *msg, int *scratch, uint64_t *sig, int laps) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes(), right = (me + 1) % np;
  for (int lap = 0; lap < laps; ++lap) {
    if (me == 0 && lap == 0) {
      for (int i = threadIdx.x; i < kWords; i += blockDim.x) scratch[i] = val(0, i, 3);
    } else {
      // PE 0 waits for the previous lap's message, the others for this lap's.
      if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, me == 0 ? lap : lap + 1);
      __syncthreads();
      for (int i = threadIdx.x; i < kWords; i += blockDim.x) scratch[i] = msg[i] + me + 1;
    }
    __syncthreads();
    nvshmemx_int_put_signal_block(msg, scratch, kWords, sig, lap + 1, NVSHMEM_SIGNAL_SET, right);
  }
  if (me == 0 && threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, laps);
  __syncthreads();
}

int main() {
  need_gpu("nvshmem_ring");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes(), left = (me + np - 1) % np;
  checker c{"nvshmem_ring", me};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // 1. shift
  guarded dst = sym_ints(kShift);
  c.fill(dst, [&](long i) { return val(me, i, 100); });
  nvshmem_barrier_all();
  shift<<<2, 128, 0, stream>>>(dst.data(), kShift);
  nvshmemx_barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  c.check("shift", dst, [&](long i) { return val(left, i, 1); });

  // 2. get (the source keeps this PE's values; out is private)
  guarded src = sym_ints(kShift), out = sym_ints(kShift);
  c.fill(src, [&](long i) { return val(me, i, 2); });
  c.fill(out, [&](long i) { return val(me, i, 101); });
  nvshmem_barrier_all();
  gather_left<<<3, 96, 0, stream>>>(out.data(), src.data(), kShift);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  c.check("get", out, [&](long i) { return val(left, i, 2); });
  c.check("get source", src, [&](long i) { return val(me, i, 2); });

  // 3. token ring
  guarded msg = sym_ints(kWords);
  c.fill(msg, [&](long i) { return val(me, i, 102); });
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  int *scratch = nullptr;
  CUDA_CHECK(cudaMalloc(&scratch, kWords * sizeof(int)));
  nvshmem_barrier_all();
  int *m = msg.data(), laps = kLaps;
  void *args[] = {&m, &scratch, &sig, &laps};
  CUDA_CHECK(static_cast<cudaError_t>(nvshmemx_collective_launch(
      reinterpret_cast<const void *>(token), dim3(1), dim3(256), args, 0, stream)));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  nvshmem_barrier_all();
  // Every lap adds pe + 1 on every PE but PE 0's first hop; the message PE me holds last came
  // from its left neighbour in the last lap.
  const long added_per_lap = static_cast<long>(np) * (np + 1) / 2;
  c.check("token", msg, [&](long i) {
    // The message arriving at PE me in lap L has been through PEs 0..me-1 (lap L) after L full
    // laps; PE 0 receives it after the last full lap.
    const long through =
        me == 0 ? laps * added_per_lap - 1
                : (laps - 1) * added_per_lap - 1 + static_cast<long>(me) * (me + 1) / 2;
    return static_cast<int>(val(0, i, 3) + through);
  });
  uint64_t sv = 0;
  CUDA_CHECK(cudaMemcpy(&sv, sig, sizeof sv, cudaMemcpyDeviceToHost));
  c.expect("token signal", 0, laps, static_cast<long long>(sv));

  nvshmem_barrier_all();
  CUDA_CHECK(cudaFree(scratch));
  nvshmem_free(sig);
  nvshmem_free(msg.base);
  nvshmem_free(out.base);
  nvshmem_free(src.base);
  nvshmem_free(dst.base);
  CUDA_CHECK(cudaStreamDestroy(stream));
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
