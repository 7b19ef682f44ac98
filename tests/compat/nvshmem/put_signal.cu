// put_signal.cu (NVSHMEM-style program): put-with-signal as a producer/consumer handshake.
// Every block of a collective-launched kernel sends its chunk of round r to the right neighbour
// with nvshmemx_int_put_signal_nbi_block (signal ADD on the block's own word), then waits with
// nvshmem_signal_wait_until for its left neighbour's chunk of the same round and checks it in the
// kernel: the signal must not arrive before the data. Thread 0 of each block then sends a tail
// with nvshmem_int_put_signal (SET, blocking form) and raises a counter with nvshmemx_signal_op.
// The host checks every region, signal and guard afterwards.
#include "nvprog.h"

constexpr int kBlocks = 8, kRounds = 3;
constexpr long kChunk = 3000;  // elements per block and round
constexpr long kTail = 5;      // elements of each block's blocking put-signal tail
constexpr long kRegion = kBlocks * kChunk;

struct args_t {
  int *data;        // symmetric: kRounds regions of kRegion elements
  const int *src;   // private: the same layout, this PE's values
  int *tail;        // symmetric: kBlocks * kTail
  uint64_t *sig;    // symmetric: kBlocks words (ADD per round)
  uint64_t *tsig;   // symmetric: kBlocks words (SET)
  uint64_t *count;  // symmetric: 1 word raised by every block of the left neighbour
  int *bad;         // private: mismatches seen in the kernel, then the first index
};

__device__ inline int salt_of(int round) {
  return 40 + round;
}

__global__ void exchange(args_t a) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  const int b = blockIdx.x;
  for (int r = 0; r < kRounds; ++r) {
    const long off = r * kRegion + b * kChunk;
    nvshmemx_int_put_signal_nbi_block(a.data + off, a.src + off, kChunk, a.sig + b, b + 1,
                                      NVSHMEM_SIGNAL_ADD, right);
    if (threadIdx.x == 0) {
      const uint64_t want = static_cast<uint64_t>(r + 1) * (b + 1);
      const uint64_t got = nvshmem_signal_wait_until(a.sig + b, NVSHMEM_CMP_GE, want);
      if (got < want) atomicAdd(a.bad, 1);  // the left neighbour may be a round ahead
    }
    __syncthreads();
    for (long i = threadIdx.x; i < kChunk; i += blockDim.x) {
      const long x = b * kChunk + i;
      if (a.data[off + i] != val(left, x, salt_of(r)) && atomicAdd(a.bad, 1) == 0)
        a.bad[1] = static_cast<int>(off + i);
    }
  }
  if (threadIdx.x == 0) {
    nvshmem_int_put_signal(a.tail + b * kTail, a.src + b * kTail, kTail, a.tsig + b, 7 + b,
                           NVSHMEM_SIGNAL_SET, right);
    nvshmem_fence();
    nvshmemx_signal_op(a.count, 1, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_quiet();
    // Block 0 waits for every block of the left neighbour, then reads the count again.
    if (b == 0) {
      nvshmem_signal_wait_until(a.count, NVSHMEM_CMP_GE, kBlocks);
      if (nvshmem_signal_fetch(a.count) != kBlocks) atomicAdd(a.bad, 1);
    }
  }
}

int main() {
  need_gpu("nvshmem_put_signal");
  nvshmem_init();
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes(), left = (me + np - 1) % np;
  checker c{"nvshmem_put_signal", me};
  guarded data = sym_ints(kRounds * kRegion), tail = sym_ints(kBlocks * kTail);
  c.fill(data, [&](long i) { return val(me, i, 77); });
  c.fill(tail, [&](long i) { return val(me, i, 78); });
  std::vector<int> h(kRounds * kRegion);
  for (long i = 0; i < kRounds * kRegion; ++i)
    h[i] = val(me, i % kRegion, 40 + static_cast<int>(i / kRegion));
  int *src = nullptr, *bad = nullptr;
  CUDA_CHECK(cudaMalloc(&src, h.size() * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(src, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&bad, 2 * sizeof(int)));
  CUDA_CHECK(cudaMemset(bad, 0, 2 * sizeof(int)));
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(2 * kBlocks + 1, sizeof(uint64_t)));
  args_t a{data.data(), src, tail.data(), sig, sig + kBlocks, sig + 2 * kBlocks, bad};
  nvshmem_barrier_all();
  void *args[] = {&a};
  CUDA_CHECK(static_cast<cudaError_t>(nvshmemx_collective_launch(
      reinterpret_cast<const void *>(exchange), dim3(kBlocks), dim3(256), args, 0, 0)));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  int hb[2];
  CUDA_CHECK(cudaMemcpy(hb, bad, sizeof hb, cudaMemcpyDeviceToHost));
  c.expect("in-kernel mismatches (data before its signal)", hb[1], 0, hb[0]);
  c.check("data", data,
          [&](long i) { return val(left, i % kRegion, 40 + static_cast<int>(i / kRegion)); });
  // The tail came from the first kBlocks * kTail elements of the left neighbour's round-0 source.
  c.check("tail", tail, [&](long i) { return val(left, i, 40); });
  std::vector<uint64_t> hs(2 * kBlocks + 1);
  CUDA_CHECK(cudaMemcpy(hs.data(), sig, hs.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) {
    c.expect("signal (ADD)", b, static_cast<long long>(kRounds) * (b + 1),
             static_cast<long long>(hs[b]));
    c.expect("signal (SET)", b, 7 + b, static_cast<long long>(hs[kBlocks + b]));
  }
  c.expect("counter (signal_op ADD)", 0, kBlocks, static_cast<long long>(hs[2 * kBlocks]));

  nvshmem_barrier_all();
  nvshmem_free(sig);
  nvshmem_free(tail.base);
  nvshmem_free(data.base);
  CUDA_CHECK(cudaFree(bad));
  CUDA_CHECK(cudaFree(src));
  const int rc = c.finish();
  nvshmem_finalize();
  return rc;
}
