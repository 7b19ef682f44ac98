// GPU conformance: SIG-01 (put_signal ring with SET and ADD; thread, warp and block variants,
// typed/sized/mem; host API and on-stream) and SIG-03 (the put-with-signal guarantee: the
// receiver waits for the signal, then checks every byte of the payload; sizes 0 to 4 MiB + 1,
// 1000 iterations for small sizes).
//
// Each PE sends to its right neighbour and receives from its left one at the same time: one
// block of a kernel sends, another receives (two blocks: always co-resident). The receiver acks
// each iteration so the sender never overwrites a payload being checked.
#include "gpu_test.h"

namespace {

enum scope_t { kThread, kWarp, kBlock };

struct Area {
  uint8_t *data;  // symmetric payload
  uint64_t *sig;  // symmetric: [0] data signal, [1] ack
  uint8_t *src;   // private source (device)
};

// Payload byte j of iteration `it` sent by `pe`.
__host__ __device__ inline uint8_t payload(int pe, size_t j, int it) {
  return gt::pat(pe * 1000 + it, j, 7);
}

// Block 0 sends `iters` put_signals of n bytes; block 1 receives and checks. `op`: SET (signal
// it+1) or ADD (signal += 1, so it reaches it+1 too). `variant` picks the API form.
__global__ void ring_kernel(Area a, size_t n, int iters, int op, scope_t scope, int variant, int me,
                            int peer, int from) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  for (int it = 0; it < iters; ++it) {
    if (blockIdx.x == 0) {
      for (size_t j = tid; j < n; j += nthreads) a.src[j] = payload(me, j, it);
      __syncthreads();
      uint64_t value = op == XSHMEM_SIGNAL_SET ? uint64_t(it + 1) : 1;
      if (scope == kThread) {
        if (tid == 0) {
          switch (variant) {
            case 0:
              xshmem_putmem_signal(a.data, a.src, n, a.sig, value, op, peer);
              break;
            case 1:
              xshmem_putmem_signal_nbi(a.data, a.src, n, a.sig, value, op, peer);
              xshmem_quiet();
              break;
            case 2:
              xshmem_uint32_put_signal(reinterpret_cast<uint32_t *>(a.data),
                                       reinterpret_cast<const uint32_t *>(a.src), n / 4, a.sig,
                                       value, op, peer);
              break;
            default:
              xshmem_put64_signal_nbi(a.data, a.src, n / 8, a.sig, value, op, peer);
              xshmem_quiet();
              break;
          }
        }
      } else if (scope == kWarp) {
        if (tid < 32) {
          if (variant == 0) {
            xshmemx_putmem_signal_warp(a.data, a.src, n, a.sig, value, op, peer);
          } else {
            xshmemx_uint8_put_signal_nbi_warp(a.data, a.src, n, a.sig, value, op, peer);
          }
        }
      } else {
        if (variant == 0) {
          xshmemx_putmem_signal_block(a.data, a.src, n, a.sig, value, op, peer);
        } else {
          xshmemx_char_put_signal_nbi_block(reinterpret_cast<char *>(a.data),
                                            reinterpret_cast<const char *>(a.src), n, a.sig, value,
                                            op, peer);
        }
      }
      // Wait for the receiver's ack of this iteration before reusing the buffers.
      if (tid == 0) xshmem_signal_wait_until(a.sig + 1, XSHMEM_CMP_GE, uint64_t(it + 1));
      __syncthreads();
    } else {
      if (tid == 0) {
        uint64_t seen = xshmem_signal_wait_until(a.sig, XSHMEM_CMP_GE, uint64_t(it + 1));
        GT_CHECK(seen == uint64_t(it + 1), -1 - it, it + 1, seen);
      }
      __syncthreads();
      for (size_t j = tid; j < n; j += nthreads) {
        uint8_t e = payload(from, j, it);
        GT_CHECK(a.data[j] == e, j, e, a.data[j]);
      }
      __syncthreads();
      if (tid == 0) {
        GT_CHECK(xshmem_signal_fetch(a.sig) == uint64_t(it + 1), -1, it + 1,
                 xshmem_signal_fetch(a.sig));
        xshmem_signal_set(a.sig + 1, uint64_t(it + 1), from);  // ack
      }
    }
  }
}

void reset(Area &a) {
  GT_CUDA(cudaMemset(a.sig, 0, 2 * sizeof(uint64_t)));
  gt::barrier();
}

void ring(Area &a, size_t n, int iters, int op, scope_t scope, int variant) {
  reset(a);
  dim3 block = scope == kBlock ? dim3(16, 4, 2) : scope == kWarp ? dim3(64) : dim3(32);
  ring_kernel<<<2, block>>>(a, n, iters, op, scope, variant, gt::me, gt::peer, gt::from);
  gt::device_sync("ring kernel");
}

// Host API and on-stream put_signal: the host sends, a receiver kernel checks.
__global__ void recv_kernel(Area a, size_t n, int iters, int from) {
  const unsigned tid = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    if (tid == 0) xshmem_signal_wait_until(a.sig, XSHMEM_CMP_GE, uint64_t(it + 1));
    __syncthreads();
    for (size_t j = tid; j < n; j += blockDim.x) {
      uint8_t e = payload(from, j, it);
      GT_CHECK(a.data[j] == e, j, e, a.data[j]);
    }
    __syncthreads();
    if (tid == 0) xshmem_signal_set(a.sig + 1, uint64_t(it + 1), from);
  }
}

void host_ring(Area &a, size_t n, int iters, int op, bool on_stream) {
  reset(a);
  cudaStream_t recv_stream, send_stream;
  GT_CUDA(cudaStreamCreateWithFlags(&recv_stream, cudaStreamNonBlocking));
  GT_CUDA(cudaStreamCreateWithFlags(&send_stream, cudaStreamNonBlocking));
  recv_kernel<<<1, 256, 0, recv_stream>>>(a, n, iters, gt::from);
  GT_CUDA(cudaGetLastError());
  std::vector<uint8_t> host(n);
  for (int it = 0; it < iters; ++it) {
    for (size_t j = 0; j < n; ++j) host[j] = payload(gt::me, j, it);
    uint64_t value = op == XSHMEM_SIGNAL_SET ? uint64_t(it + 1) : 1;
    if (on_stream) {
      GT_CUDA(cudaMemcpyAsync(a.src, host.data(), n, cudaMemcpyHostToDevice, send_stream));
      xshmemx_putmem_signal_on_stream(a.data, a.src, n, a.sig, value, op, gt::peer, send_stream);
      GT_CUDA(cudaStreamSynchronize(send_stream));
    } else if (it % 2 == 0) {
      xshmem_putmem_signal(a.data, host.data(), n, a.sig, value, op, gt::peer);
    } else {
      xshmem_putmem_signal_nbi(a.data, host.data(), n, a.sig, value, op, gt::peer);
      xshmem_quiet();
    }
    uint64_t ack = xshmem_signal_wait_until(a.sig + 1, XSHMEM_CMP_GE, uint64_t(it + 1));
    GT_CHECK(ack == uint64_t(it + 1), it, it + 1, ack);
  }
  GT_CUDA(cudaStreamSynchronize(recv_stream));
  GT_CUDA(cudaStreamDestroy(recv_stream));
  GT_CUDA(cudaStreamDestroy(send_stream));
}

}  // namespace

int main() {
  gt::start("gpu_sig");
  const size_t max_n = (size_t(4) << 20) + 1;
  Area a;
  a.data = static_cast<uint8_t *>(xshmem_malloc(max_n + 64));
  a.sig = static_cast<uint64_t *>(xshmem_malloc(2 * sizeof(uint64_t)));
  if (a.data == nullptr || a.sig == nullptr) return 1;
  GT_CUDA(cudaMalloc(&a.src, max_n + 64));

  const char *scopes = "TWB";
  for (scope_t s : {kThread, kWarp, kBlock}) {
    int variants = s == kThread ? 4 : 2;
    for (int v = 0; v < variants; ++v) {
      for (int op : {XSHMEM_SIGNAL_SET, XSHMEM_SIGNAL_ADD}) {
        char name[96];
        snprintf(name, sizeof name, "SIG-01 ring %s variant %d %c", op ? "ADD" : "SET", v,
                 scopes[s]);
        gt::run(name, [&] { ring(a, 4104, 20, op, s, v); });
      }
    }
  }
  for (int op : {XSHMEM_SIGNAL_SET, XSHMEM_SIGNAL_ADD}) {
    gt::run(op ? "SIG-01 ring ADD H" : "SIG-01 ring SET H",
            [&] { host_ring(a, 1000, 20, op, false); });
    gt::run(op ? "SIG-01 ring ADD S" : "SIG-01 ring SET S",
            [&] { host_ring(a, 1000, 20, op, true); });
  }
  const size_t sizes[] = {0, 1, 8, 17, 4096, 65537, (size_t(1) << 20) + 3, max_n};
  for (size_t n : sizes) {
    int iters = n <= 65537 ? 1000 : 20;
    for (scope_t s : {kThread, kWarp, kBlock}) {
      if (s == kThread && n > 65537) continue;  // one thread copying MiBs per iteration: slow
      char name[96];
      snprintf(name, sizeof name, "SIG-03 ordering %zu B x %d %c", n, iters, scopes[s]);
      gt::run(name, [&] { ring(a, n, iters, XSHMEM_SIGNAL_SET, s, 0); });
    }
  }
  GT_CUDA(cudaFree(a.src));
  xshmem_free(a.sig);
  xshmem_free(a.data);
  return gt::finish();
}
