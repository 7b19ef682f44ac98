// GPU conformance: SIG-01 (put_signal ring with SET and ADD; thread, warp and block variants,
// typed/sized/mem; host API and on-stream), SIG-02 (nbi put_signal to every PE + quiet, sources
// overwritten at once, signal observed => data complete), SIG-03 (the put-with-signal guarantee:
// the receiver waits for the signal, then checks every byte of the payload; sizes 0 to 4 MiB + 1,
// 1000 iterations for small sizes, gt::scaled where PEs share a GPU), SIG-04 (every group of every
// PE ADDs into one signal; signal_set alone and concurrent), SIG-05 (signal_fetch;
// signal_wait_until with the six comparisons and trap values, one thread / a warp / a block of
// waiters) and SIG-06 (zero-length put_signal, NULL buffers, still updates the signal); SIG-02, 04,
// 05, 06 in columns T, W and B.
//
// SIG-01/03: each PE sends to its right neighbour and receives from its left one at the same
// time: one block of a kernel sends, another receives (two blocks: always co-resident). The
// receiver acks each iteration so the sender never overwrites a payload being checked.
// SIG-02/04/05/06 bound every wait that a broken library could leave unsatisfied with the GPU
// clock (kTimeoutNs) and report a failure instead of hanging; destinations have PE-dependent
// guard bytes on both sides, checked after the case.
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

// ---- Shared by SIG-02 and SIG-04..06 ---------------------------------------------------------

// A 64-bit value derived from (source PE, destination PE, index, iteration, case tag).
__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ inline uint64_t hv(int src, int dst, uint64_t i, uint64_t iter, uint32_t tag) {
  uint64_t x = mix64((uint64_t(uint32_t(src)) << 32) ^ uint32_t(dst) ^ (uint64_t(tag) << 48));
  x = mix64(x ^ i);
  return mix64(x ^ (iter * 0x100000001B3ull));
}

using gt::arm;
using gt::Carver;
using gt::check_guards;
using gt::check_untouched;
using gt::Guarded;
using gt::guarded;
using gt::kTimeoutNs;
using gt::now_ns;
constexpr size_t kGuard = gt::kGuardBand;
// Polls a local word (signal_fetch: an atomic acquire load) until it equals / reaches `want`.
__device__ bool poll_eq(const uint64_t *w, uint64_t want) {
  const uint64_t t0 = now_ns();
  while (xshmem_signal_fetch(w) != want) {
    if (now_ns() - t0 > kTimeoutNs) return false;
    __nanosleep(100);
  }
  return true;
}
__device__ bool poll_ge(const uint64_t *w, uint64_t want) {
  const uint64_t t0 = now_ns();
  while (xshmem_signal_fetch(w) < want) {
    if (now_ns() - t0 > kTimeoutNs) return false;
    __nanosleep(100);
  }
  return true;
}

__device__ inline unsigned lin_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned block_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
// Block shapes: the block variants run on a 3D block (the warp split follows the linear index).
dim3 block_of(scope_t s) {
  return s == kBlock ? dim3(16, 4, 2) : dim3(64);
}
const char kScopeName[] = "TWB";

uint8_t *g_area = nullptr;
constexpr size_t kAreaBytes = size_t(1) << 20;
Carver carver() {
  return Carver{g_area, g_area + kAreaBytes};
}

// ---- SIG-02 ----------------------------------------------------------------------------------
// put_signal_nbi + quiet: every PE sends to every PE (itself included) with an nbi put_signal
// (thread, warp or block form), quiets, and at once overwrites its sources with the complement of
// the payload; each receiver waits (bounded) for every sender's signal and checks every payload
// byte (signal observed => data delivered; the later overwrite never arrives). SET and ADD
// alternate by iteration (the signal reaches it+1 either way). Bytes of the inbox outside the
// payloads and the guards are checked after all iterations.
// No deadlock: block 0 sends and never waits; block 1 waits (bounded) only for the senders of
// the same iteration's kernels; iterations are separated by gt::barrier() (two blocks: always
// co-resident).
constexpr size_t kS2Stride = 4224;  // inbox slot per source PE, a multiple of 16
constexpr int kS2Iters = 10;

struct S2 {
  uint8_t *inbox;  // symmetric: [source PE] slots of kS2Stride bytes
  uint64_t *sig;   // symmetric: [source PE]
  uint8_t *src;    // local: [destination PE] slots of kS2Stride bytes
};

__host__ __device__ inline size_t s2_bytes(scope_t s, int v) {
  if (s == kThread) {
    switch (v) {
      case 0:
        return 300 * 8;  // int64
      case 1:
        return 77 * 8;  // double
      case 2:
        return 1001 * 4;  // put32
      case 3:
        return 33 * 16;  // put128
      default:
        return 4097;  // putmem
    }
  }
  return v == 0 ? 300 * 8 : v == 1 ? 77 * 8 : 4097;
}
int s2_variants(scope_t s) {
  return s == kThread ? 5 : 3;
}
const char *s2_name(scope_t s, int v) {
  static const char *const thread_names[] = {"int64", "double", "put32", "put128", "putmem"};
  static const char *const group_names[] = {"int64", "double", "putmem"};
  return s == kThread ? thread_names[v] : group_names[v];
}
__host__ __device__ inline uint8_t s2_byte(int src, int dst, size_t j, int it, int v) {
  return gt::pat(src * 64 + dst, j, 1000 + it * 8 + v);
}

__device__ void s2_send(scope_t scope, int v, uint8_t *dst, const uint8_t *src, size_t n,
                        uint64_t *sig, uint64_t value, int op, int pe) {
  if (scope == kThread) {
    switch (v) {
      case 0:
        xshmem_int64_put_signal_nbi(reinterpret_cast<int64_t *>(dst),
                                    reinterpret_cast<const int64_t *>(src), n / 8, sig, value, op,
                                    pe);
        break;
      case 1:
        xshmem_double_put_signal_nbi(reinterpret_cast<double *>(dst),
                                     reinterpret_cast<const double *>(src), n / 8, sig, value, op,
                                     pe);
        break;
      case 2:
        xshmem_put32_signal_nbi(dst, src, n / 4, sig, value, op, pe);
        break;
      case 3:
        xshmem_put128_signal_nbi(dst, src, n / 16, sig, value, op, pe);
        break;
      default:
        xshmem_putmem_signal_nbi(dst, src, n, sig, value, op, pe);
        break;
    }
  } else if (scope == kWarp) {
    switch (v) {
      case 0:
        xshmemx_int64_put_signal_nbi_warp(reinterpret_cast<int64_t *>(dst),
                                          reinterpret_cast<const int64_t *>(src), n / 8, sig, value,
                                          op, pe);
        break;
      case 1:
        xshmemx_double_put_signal_nbi_warp(reinterpret_cast<double *>(dst),
                                           reinterpret_cast<const double *>(src), n / 8, sig, value,
                                           op, pe);
        break;
      default:
        xshmemx_putmem_signal_nbi_warp(dst, src, n, sig, value, op, pe);
        break;
    }
  } else {
    switch (v) {
      case 0:
        xshmemx_int64_put_signal_nbi_block(reinterpret_cast<int64_t *>(dst),
                                           reinterpret_cast<const int64_t *>(src), n / 8, sig,
                                           value, op, pe);
        break;
      case 1:
        xshmemx_double_put_signal_nbi_block(reinterpret_cast<double *>(dst),
                                            reinterpret_cast<const double *>(src), n / 8, sig,
                                            value, op, pe);
        break;
      default:
        xshmemx_putmem_signal_nbi_block(dst, src, n, sig, value, op, pe);
        break;
    }
  }
}

__global__ void s2_kernel(S2 a, scope_t scope, int v, int it, int me, int npes) {
  const unsigned tid = lin_tid(), nthreads = block_threads();
  const size_t n = s2_bytes(scope, v);
  const int op = it % 2 == 0 ? XSHMEM_SIGNAL_SET : XSHMEM_SIGNAL_ADD;
  const uint64_t value = op == XSHMEM_SIGNAL_SET ? uint64_t(it + 1) : 1;
  if (blockIdx.x == 0) {
    for (int d = 0; d < npes; ++d) {
      for (size_t j = tid; j < n; j += nthreads)
        a.src[d * kS2Stride + j] = s2_byte(me, d, j, it, v);
    }
    __syncthreads();
    const bool sender = scope == kThread ? tid == 0 : scope == kWarp ? tid < 32 : true;
    if (sender) {
      for (int k = 0; k < npes; ++k) {
        const int d = (me + k) % npes;
        s2_send(scope, v, a.inbox + size_t(me) * kS2Stride, a.src + size_t(d) * kS2Stride, n,
                a.sig + me, value, op, d);
      }
      xshmem_quiet();
    }
    __syncthreads();
    // The sources are reusable after quiet: overwrite them with bytes that must never arrive.
    for (int d = 0; d < npes; ++d) {
      for (size_t j = tid; j < n; j += nthreads) {
        a.src[d * kS2Stride + j] = static_cast<uint8_t>(~s2_byte(me, d, j, it, v));
      }
    }
  } else {
    __shared__ int ok;
    for (int s = 0; s < npes; ++s) {
      if (tid == 0) {
        ok = poll_eq(a.sig + s, uint64_t(it + 1));
        GT_CHECK(ok, -1 - s, it + 1, xshmem_signal_fetch(a.sig + s));
        if (ok) {
          const uint64_t got = xshmem_signal_wait_until(a.sig + s, XSHMEM_CMP_EQ, uint64_t(it + 1));
          GT_CHECK(got == uint64_t(it + 1), -100 - s, it + 1, got);
        }
      }
      __syncthreads();
      if (ok) {
        for (size_t j = tid; j < n; j += nthreads) {
          const uint8_t e = s2_byte(s, me, j, it, v), got = a.inbox[s * kS2Stride + j];
          GT_CHECK(got == e, s * 100000 + j, e, got);
        }
      }
      __syncthreads();
    }
  }
}

void sig02(scope_t scope, int v) {
  const size_t n = s2_bytes(scope, v);
  Carver c = carver();
  Guarded inbox = guarded(c, gt::npes * kS2Stride);
  Guarded sigs = guarded(c, gt::npes * sizeof(uint64_t));
  uint8_t *src = nullptr;
  GT_CUDA(cudaMalloc(&src, gt::npes * kS2Stride));
  arm(inbox, 11);
  arm(sigs, 12);
  GT_CUDA(cudaMemset(sigs.data(), 0, gt::npes * sizeof(uint64_t)));
  gt::barrier();
  S2 a{inbox.data(), sigs.as<uint64_t>(), src};
  for (int it = 0; it < kS2Iters; ++it) {
    s2_kernel<<<2, block_of(scope)>>>(a, scope, v, it, gt::me, gt::npes);
    gt::barrier();  // every receiver is done before the next iteration overwrites its inbox
  }
  check_guards(inbox, 11);
  for (int s = 0; s < gt::npes; ++s) {
    check_untouched(inbox.block, kGuard + s * kS2Stride + n, kGuard + (s + 1) * kS2Stride, 11);
  }
  check_guards(sigs, 12);
  GT_CUDA(cudaFree(src));
}

// ---- SIG-04 ----------------------------------------------------------------------------------
// Every group (thread, warp or block) of every PE ADDs into one signal on the root: put_signal
// ADD (blocking), put_signal_nbi ADD + quiet, and signal_add (by the group's first thread),
// rotating, with its own payload slot. The root sees the exact total (a waiter block polls for
// it, bounded, then calls signal_wait_until; the host checks it after the kernels) and every slot
// holds its group's last payload. Then signal_set: one thread of one PE, then one thread of every
// group of every PE at once (the result is exactly one of the values set). Every root in turn.
// No deadlock: the adders never wait; the root's waiter block (one extra block) polls with a
// time limit.
struct S4 {
  uint64_t *sig;    // symmetric: [0] accumulated signal, [1] signal_set target
  uint64_t *slots;  // symmetric: [PE][group] slots of slot_words
  uint64_t *src;    // local: [group] slots of slot_words
};
struct S4Shape {
  int blocks;
  dim3 block;
  int groups;
  size_t slot_words;
  int kops;
};
// kops: put_signals per group, each a blocking operation or nbi + quiet, so over a proxy transport
// where PEs share a GPU a round trip each (the root's waiter keeps its kernel running):
// gt::scaled(kops, 1) there, at least 4 (the forms rotate by 3), and the thread form's blocks
// are 16 threads wide instead of 128 (gt::proxy_narrowed: the root's waiter polls for the total
// for kTimeoutNs, and 256 groups of round trips through one proxy thread take longer).
S4Shape s4_shape(scope_t s) {
  const int tw = gt::proxy_narrowed(128, 8);
  S4Shape sh = s == kThread ? S4Shape{2, dim3(tw), 2 * tw, 8, 30}
               : s == kWarp ? S4Shape{2, dim3(128), 8, 64, 60}
                            : S4Shape{8, dim3(16, 4, 2), 8, 256, 60};
  sh.kops = gt::scaled(sh.kops, 1, 4);
  return sh;
}
__host__ __device__ inline uint64_t s4_addend(int pe, int g, int k, int root) {
  return (hv(pe, root, g, k, 0x5104) & 0xFFFFFu) + 1;
}
__host__ __device__ inline uint64_t s4_word(int pe, int g, size_t i, int k, int root) {
  return hv(pe, g, i, uint64_t(k) * 64 + root, 0x5204);
}
__host__ __device__ inline uint64_t s4_setval(int pe, int g, int root) {
  return hv(pe, g + 1, 7, root, 0x5304);
}

// The calling thread's group, and its rank and size in it.
struct GroupPos {
  int g;
  unsigned rank, size;
};
__device__ GroupPos group_pos(scope_t scope) {
  const unsigned tid = lin_tid(), nthreads = block_threads();
  if (scope == kThread) return GroupPos{int(blockIdx.x * nthreads + tid), 0, 1};
  if (scope == kWarp) return GroupPos{int(blockIdx.x * (nthreads / 32) + tid / 32), tid % 32, 32};
  return GroupPos{int(blockIdx.x), tid, nthreads};
}
__device__ void group_sync(scope_t scope) {
  if (scope == kWarp) {
    __syncwarp();
  } else if (scope == kBlock) {
    __syncthreads();
  }
}

__global__ void s4_kernel(S4 a, scope_t scope, int root, int kops, size_t slot_words, int groups,
                          uint64_t total, int me) {
  if (blockIdx.x == gridDim.x - 1) {  // the root's waiter
    if (me == root && lin_tid() == 0) {
      const bool ok = poll_eq(a.sig, total);
      GT_CHECK(ok, -1, total, xshmem_signal_fetch(a.sig));
      if (ok) {
        const uint64_t got = xshmem_signal_wait_until(a.sig, XSHMEM_CMP_GE, total);
        GT_CHECK(got == total, -2, total, got);
      }
    }
    return;
  }
  const GroupPos gp = group_pos(scope);
  uint64_t *slot = a.slots + (size_t(me) * groups + gp.g) * slot_words;
  uint64_t *src = a.src + size_t(gp.g) * slot_words;
  for (int k = 0; k < kops; ++k) {
    const uint64_t add = s4_addend(me, gp.g, k, root);
    if (k % 3 == 2) {
      if (gp.rank == 0) xshmem_signal_add(a.sig, add, root);
      continue;
    }
    for (size_t i = gp.rank; i < slot_words; i += gp.size) src[i] = s4_word(me, gp.g, i, k, root);
    group_sync(scope);
    if (k % 3 == 0) {
      if (scope == kThread) {
        xshmem_uint64_put_signal(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD, root);
      } else if (scope == kWarp) {
        xshmemx_uint64_put_signal_warp(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD, root);
      } else {
        xshmemx_uint64_put_signal_block(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD, root);
      }
    } else {
      if (scope == kThread) {
        xshmem_put64_signal_nbi(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD, root);
      } else if (scope == kWarp) {
        xshmemx_uint64_put_signal_nbi_warp(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD,
                                           root);
      } else {
        xshmemx_uint64_put_signal_nbi_block(slot, src, slot_words, a.sig, add, XSHMEM_SIGNAL_ADD,
                                            root);
      }
      xshmem_quiet();
    }
    group_sync(scope);  // every member is done with the source before it is rewritten
  }
  xshmem_quiet();
}

// mode 0: one thread of `setter` sets; mode 1: the first thread of every group of every PE.
__global__ void s4_set_kernel(uint64_t *sig2, scope_t scope, int root, int mode, int me,
                              int setter) {
  const GroupPos gp = group_pos(scope);
  if (mode == 0) {
    if (me == setter && gp.g == 0 && gp.rank == 0) {
      xshmem_signal_set(sig2, s4_setval(me, -1, root), root);
    }
  } else if (gp.rank == 0) {
    xshmem_signal_set(sig2, s4_setval(me, gp.g, root), root);
  }
}

void sig04(scope_t scope) {
  const S4Shape sh = s4_shape(scope);
  const int npes = gt::npes;
  Carver c = carver();
  Guarded sigs = guarded(c, 2 * sizeof(uint64_t));
  Guarded slots = guarded(c, size_t(npes) * sh.groups * sh.slot_words * sizeof(uint64_t));
  uint64_t *src = nullptr;
  GT_CUDA(cudaMalloc(&src, size_t(sh.groups) * sh.slot_words * sizeof(uint64_t)));
  S4 a{sigs.as<uint64_t>(), slots.as<uint64_t>(), src};
  for (int root = 0; root < npes; ++root) {
    uint64_t total = 0;
    for (int p = 0; p < npes; ++p) {
      for (int g = 0; g < sh.groups; ++g) {
        for (int k = 0; k < sh.kops; ++k) total += s4_addend(p, g, k, root);
      }
    }
    arm(sigs, 20 + root);
    arm(slots, 30 + root);
    GT_CUDA(cudaMemset(sigs.data(), 0, 2 * sizeof(uint64_t)));
    gt::barrier();
    s4_kernel<<<sh.blocks + 1, sh.block>>>(a, scope, root, sh.kops, sh.slot_words, sh.groups, total,
                                           gt::me);
    gt::barrier();
    if (gt::me == root) {
      uint64_t got[2];
      GT_CUDA(cudaMemcpy(got, sigs.data(), sizeof got, cudaMemcpyDeviceToHost));
      GT_CHECK(got[0] == total, root, total, got[0]);
      std::vector<uint64_t> sl(size_t(npes) * sh.groups * sh.slot_words);
      GT_CUDA(cudaMemcpy(sl.data(), slots.data(), sl.size() * sizeof(uint64_t),
                         cudaMemcpyDeviceToHost));
      int last = sh.kops - 1;
      while (last % 3 == 2) --last;
      for (int p = 0; p < npes; ++p) {
        for (int g = 0; g < sh.groups; ++g) {
          for (size_t i = 0; i < sh.slot_words; ++i) {
            const size_t at = (size_t(p) * sh.groups + g) * sh.slot_words + i;
            const uint64_t want = s4_word(p, g, i, last, root);
            GT_CHECK(sl[at] == want, at, want, sl[at]);
          }
        }
      }
    }
    // signal_set by one PE alone.
    const int setter = (root + 1) % npes;
    s4_set_kernel<<<sh.blocks, sh.block>>>(a.sig + 1, scope, root, 0, gt::me, setter);
    gt::barrier();
    if (gt::me == root) {
      uint64_t got = 0;
      GT_CUDA(cudaMemcpy(&got, a.sig + 1, sizeof got, cudaMemcpyDeviceToHost));
      const uint64_t want = s4_setval(setter, -1, root);
      GT_CHECK(got == want, 1000 + root, want, got);
    }
    gt::barrier();
    // signal_set by every group of every PE at once: one of the values set wins.
    s4_set_kernel<<<sh.blocks, sh.block>>>(a.sig + 1, scope, root, 1, gt::me, setter);
    gt::barrier();
    if (gt::me == root) {
      uint64_t got = 0;
      GT_CUDA(cudaMemcpy(&got, a.sig + 1, sizeof got, cudaMemcpyDeviceToHost));
      bool one_of = false;
      for (int p = 0; p < npes && !one_of; ++p) {
        for (int g = 0; g < sh.groups && !one_of; ++g) one_of = got == s4_setval(p, g, root);
      }
      GT_CHECK(one_of, 2000 + root, -1, got);
    }
    check_guards(sigs, 20 + root);
    check_guards(slots, 30 + root);
    gt::barrier();  // the root has read before the next root's arming
  }
  GT_CUDA(cudaFree(src));
}

// ---- SIG-05 ----------------------------------------------------------------------------------
// signal_fetch and signal_wait_until with the six comparisons (the CPU version's values: the
// start s0 and the intermediate mid fail the comparison against cv, s1 satisfies it; mid is a
// trap a signed or 32-bit comparison would accept). Every PE is the waiter of its own signal,
// which its left neighbour moves s0 -> mid -> s1 with signal_set, uint64_put_signal SET (thread,
// warp or block form, with a payload), signal_add, or putmem_signal_nbi ADD (+ quiet; thread,
// warp or block form, with a payload); at the same time it moves its right neighbour's signal.
// The waiter checks signal_fetch == s0 (set by the neighbour before the barrier), sees mid
// (bounded poll), checks that test() rejects it and the mid payload, releases the updater, and
// blocks in signal_wait_until (one thread, a warp or a block of waiters), which must return s1;
// then the s1 payload, and bytes around the payload untouched.
// No deadlock: block 0 (waiter) and block 1 (updater) of each PE are co-resident; the updater
// waits only for its right neighbour's waiter's "ready"/"go"/"done" words, each poll bounded; the
// waiter's blocking signal_wait_until is released by the updater's final update, and if it is not
// (a broken comparison), the updater, after 5 s without "done", records a failure and cycles the
// signal through values that release the usual wrong comparisons.
struct CmpCase {
  int cmp;
  uint64_t s0, mid, cv, s1;
};
constexpr uint64_t kTop = uint64_t{1} << 63;
constexpr CmpCase kCmpCases[] = {
    {XSHMEM_CMP_EQ, 5, 7, kTop | 7, kTop | 7}, {XSHMEM_CMP_NE, kTop | 9, kTop | 9, kTop | 9, 9},
    {XSHMEM_CMP_GT, 50, 100, 100, kTop | 1},   {XSHMEM_CMP_GE, 3, kTop - 1, kTop, kTop},
    {XSHMEM_CMP_LT, 200, kTop, 100, 7},        {XSHMEM_CMP_LE, 200, ~uint64_t{0}, 100, 100},
};

__host__ __device__ inline bool cmp_holds(int cmp, uint64_t a, uint64_t b) {
  switch (cmp) {
    case XSHMEM_CMP_EQ:
      return a == b;
    case XSHMEM_CMP_NE:
      return a != b;
    case XSHMEM_CMP_GT:
      return a > b;
    case XSHMEM_CMP_GE:
      return a >= b;
    case XSHMEM_CMP_LT:
      return a < b;
    case XSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}

struct S5 {
  uint64_t *sig;     // symmetric: the waited signal
  uint64_t *go;      // symmetric: ready/go/done from the right neighbour's waiter
  uint8_t *payload;  // symmetric: put_signal payload
  uint8_t *src;      // local
};
constexpr size_t kS5Max = 1024;
__host__ __device__ inline size_t s5_bytes(scope_t s, int how) {
  if (how % 2 == 0) return 0;
  return s == kThread ? 8 : how == 1 ? 512 : 1000;
}
__host__ __device__ inline uint8_t s5_byte(int src, size_t j, int round, int phase) {
  return gt::pat(src, j, 3000 + round * 2 + phase);
}

// The updater block moves the peer's signal from from_v to to_v with method `how`.
__device__ void s5_update(const S5 &a, scope_t scope, int how, uint64_t from_v, uint64_t to_v,
                          int round, int phase, int me, int peer) {
  const unsigned tid = lin_tid(), nthreads = block_threads();
  const size_t n = s5_bytes(scope, how);
  for (size_t j = tid; j < n; j += nthreads) a.src[j] = s5_byte(me, j, round, phase);
  __syncthreads();
  if (how == 0) {
    if (tid == 0) xshmem_signal_set(a.sig, to_v, peer);
  } else if (how == 2) {
    if (tid == 0) xshmem_signal_add(a.sig, to_v - from_v, peer);  // wraps modulo 2^64
  } else if (how == 1) {
    uint64_t *d = reinterpret_cast<uint64_t *>(a.payload);
    const uint64_t *s = reinterpret_cast<const uint64_t *>(a.src);
    if (scope == kThread) {
      if (tid == 0) xshmem_uint64_put_signal(d, s, n / 8, a.sig, to_v, XSHMEM_SIGNAL_SET, peer);
    } else if (scope == kWarp) {
      if (tid < 32)
        xshmemx_uint64_put_signal_warp(d, s, n / 8, a.sig, to_v, XSHMEM_SIGNAL_SET, peer);
    } else {
      xshmemx_uint64_put_signal_block(d, s, n / 8, a.sig, to_v, XSHMEM_SIGNAL_SET, peer);
    }
  } else {
    const uint64_t add = to_v - from_v;
    if (scope == kThread) {
      if (tid == 0)
        xshmem_putmem_signal_nbi(a.payload, a.src, n, a.sig, add, XSHMEM_SIGNAL_ADD, peer);
    } else if (scope == kWarp) {
      if (tid < 32)
        xshmemx_putmem_signal_nbi_warp(a.payload, a.src, n, a.sig, add, XSHMEM_SIGNAL_ADD, peer);
    } else {
      xshmemx_putmem_signal_nbi_block(a.payload, a.src, n, a.sig, add, XSHMEM_SIGNAL_ADD, peer);
    }
  }
  xshmem_quiet();
  __syncthreads();
}

// Last resort after a waiter did not return: values that satisfy the usual wrong comparisons.
__device__ void s5_rescue(const S5 &a, const CmpCase &c, int peer, uint64_t done) {
  const uint64_t vals[] = {c.cv,
                           c.cv + 1,
                           c.cv - 1,
                           0,
                           1,
                           ~uint64_t{0},
                           kTop,
                           kTop - 1,
                           kTop + 1,
                           c.cv ^ kTop,
                           c.cv & 0xFFFFFFFFull,
                           (c.cv & 0xFFFFFFFFull) + 1,
                           c.s1};
  for (int pass = 0; pass < 100; ++pass) {
    for (uint64_t v : vals) {
      xshmem_signal_set(a.sig, v, peer);
      const uint64_t t0 = now_ns();
      while (now_ns() - t0 < 20000) {
        if (xshmem_signal_fetch(a.go) >= done) return;
        __nanosleep(1000);
      }
    }
  }
}

__global__ void s5_init_kernel(uint64_t *sig, uint64_t s0, int peer) {
  xshmem_signal_set(sig, s0, peer);
}

__global__ void s5_kernel(S5 a, CmpCase c, int how, scope_t scope, int round, int me, int peer,
                          int from) {
  const unsigned tid = lin_tid(), nthreads = block_threads();
  const size_t n = s5_bytes(scope, how);
  const uint64_t ready = 3 * uint64_t(round) + 1, go = ready + 1, done = ready + 2;
  __shared__ int ok;
  if (blockIdx.x == 0) {
    // Waiter: `from` moves this PE's signal s0 -> mid -> s1.
    if (tid == 0) {
      const uint64_t v0 = xshmem_signal_fetch(a.sig);
      GT_CHECK(v0 == c.s0, 0, c.s0, v0);
      xshmem_uint64_atomic_set(a.go, ready, from);
      ok = poll_eq(a.sig, c.mid);
      GT_CHECK(ok, 1, c.mid, xshmem_signal_fetch(a.sig));
      if (ok) GT_CHECK(xshmem_uint64_test(a.sig, c.cmp, c.cv) == 0, 2, 0, 1);
    }
    __syncthreads();
    // The mid payload (when mid == s0 the update may not have landed yet: not checked).
    if (ok && c.mid != c.s0) {
      for (size_t j = tid; j < n; j += nthreads) {
        const uint8_t e = s5_byte(from, j, round, 0);
        GT_CHECK(a.payload[j] == e, 1000 + j, e, a.payload[j]);
      }
    }
    __syncthreads();
    if (tid == 0) xshmem_uint64_atomic_set(a.go, go, from);
    const bool waiter = scope == kThread ? tid == 0 : scope == kWarp ? tid < 32 : true;
    if (waiter) {
      const uint64_t got = xshmem_signal_wait_until(a.sig, c.cmp, c.cv);
      GT_CHECK(got == c.s1 && cmp_holds(c.cmp, got, c.cv), 3, c.s1, got);
    }
    __syncthreads();
    for (size_t j = tid; j < n; j += nthreads) {
      const uint8_t e = s5_byte(from, j, round, 1);
      GT_CHECK(a.payload[j] == e, 100000 + j, e, a.payload[j]);
    }
    __syncthreads();
    if (tid == 0) {
      const uint64_t v1 = xshmem_signal_fetch(a.sig);
      GT_CHECK(v1 == c.s1, 4, c.s1, v1);
      xshmem_uint64_atomic_set(a.go, done, from);
    }
  } else {
    // Updater of the right neighbour's signal, paced by that neighbour's waiter.
    if (tid == 0) {
      ok = poll_ge(a.go, ready);
      GT_CHECK(ok, 5, ready, xshmem_signal_fetch(a.go));
    }
    __syncthreads();
    s5_update(a, scope, how, c.s0, c.mid, round, 0, me, peer);
    if (tid == 0) {
      ok = poll_ge(a.go, go);
      GT_CHECK(ok, 6, go, xshmem_signal_fetch(a.go));
      const uint64_t t0 = now_ns();
      while (now_ns() - t0 < 20000) __nanosleep(1000);  // let the waiter block first
    }
    __syncthreads();
    s5_update(a, scope, how, c.mid, c.s1, round, 1, me, peer);
    if (tid == 0 && !poll_ge(a.go, done)) {
      GT_CHECK(false, 7, done, xshmem_signal_fetch(a.go));
      s5_rescue(a, c, peer, done);
    }
  }
}

void sig05(scope_t scope) {
  Carver c = carver();
  Guarded sig = guarded(c, sizeof(uint64_t));
  Guarded go = guarded(c, sizeof(uint64_t));
  Guarded payload = guarded(c, kS5Max);
  uint8_t *src = nullptr;
  GT_CUDA(cudaMalloc(&src, kS5Max));
  arm(sig, 51);
  arm(go, 52);
  GT_CUDA(cudaMemset(go.data(), 0, sizeof(uint64_t)));
  gt::barrier();  // armed everywhere before any neighbour writes
  S5 a{sig.as<uint64_t>(), go.as<uint64_t>(), payload.data(), src};
  int round = 0;
  for (const CmpCase &cc : kCmpCases) {
    for (int how = 0; how < 4; ++how, ++round) {
      const size_t n = s5_bytes(scope, how);
      arm(payload, 53);
      s5_init_kernel<<<1, 1>>>(a.sig, cc.s0, gt::peer);
      gt::barrier();
      s5_kernel<<<2, block_of(scope)>>>(a, cc, how, scope, round, gt::me, gt::peer, gt::from);
      gt::barrier();
      check_untouched(payload.block, 0, kGuard, 53);
      check_untouched(payload.block, kGuard + n, kS5Max + 2 * kGuard, 53);
    }
  }
  check_guards(sig, 51);
  check_guards(go, 52);
  GT_CUDA(cudaFree(src));
}

// ---- SIG-06 ----------------------------------------------------------------------------------
// Zero-length put_signal (NULL dest and source, and non-NULL ones that must stay untouched)
// still updates the signal, SET then ADD, in every available form of the scope. Each variant has
// its own signal word; the receiver block polls (bounded) for SET + ADD of its left neighbour,
// then signal_wait_until(EQ) must return it; the host checks the words, the guards, and that the
// non-NULL destination was not written.
// No deadlock: the sender never waits, the receiver's poll is bounded, two blocks.
constexpr int kS6MaxVars = 6;
int s6_vars(scope_t s) {
  return s == kThread ? 6 : 4;
}
__host__ __device__ inline uint64_t s6_set(int pe, int v) {
  return hv(pe, v, 0, 0, 0x5106) | 1;
}
__host__ __device__ inline uint64_t s6_add(int pe, int v) {
  return (hv(pe, v, 1, 0, 0x5106) & 0xFFFFFFFFull) + 1;
}
struct S6 {
  uint64_t *sig;       // symmetric: [variant]
  uint8_t *dest;       // symmetric, never written
  const uint8_t *src;  // local
};

__device__ void s6_send(const S6 &a, scope_t scope, int v, uint64_t value, int op, int pe) {
  const unsigned tid = lin_tid();
  uint64_t *sig = a.sig + v;
  if (scope == kThread) {
    if (tid != 0) return;
    switch (v) {
      case 0:
        xshmem_putmem_signal(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      case 1:
        xshmem_putmem_signal_nbi(nullptr, nullptr, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
      case 2:
        xshmem_int_put_signal(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      case 3:
        xshmem_put128_signal(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      case 4:
        xshmem_put64_signal_nbi(a.dest, a.src, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
      default:
        xshmem_double_put_signal(reinterpret_cast<double *>(a.dest),
                                 reinterpret_cast<const double *>(a.src), 0, sig, value, op, pe);
        break;
    }
  } else if (scope == kWarp) {
    if (tid >= 32) return;
    switch (v) {
      case 0:
        xshmemx_putmem_signal_warp(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      case 1:
        xshmemx_putmem_signal_nbi_warp(nullptr, nullptr, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
      case 2:
        xshmemx_int_put_signal_warp(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      default:
        xshmemx_uint8_put_signal_nbi_warp(a.dest, a.src, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
    }
  } else {
    switch (v) {
      case 0:
        xshmemx_putmem_signal_block(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      case 1:
        xshmemx_putmem_signal_nbi_block(nullptr, nullptr, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
      case 2:
        xshmemx_int_put_signal_block(nullptr, nullptr, 0, sig, value, op, pe);
        break;
      default:
        xshmemx_uint8_put_signal_nbi_block(a.dest, a.src, 0, sig, value, op, pe);
        xshmem_quiet();
        break;
    }
  }
}

__global__ void s6_kernel(S6 a, scope_t scope, int nvars, int me, int peer, int from) {
  if (blockIdx.x == 0) {
    for (int v = 0; v < nvars; ++v) {
      s6_send(a, scope, v, s6_set(me, v), XSHMEM_SIGNAL_SET, peer);
      s6_send(a, scope, v, s6_add(me, v), XSHMEM_SIGNAL_ADD, peer);
    }
  } else if (lin_tid() == 0) {
    for (int v = 0; v < nvars; ++v) {
      const uint64_t want = s6_set(from, v) + s6_add(from, v);
      const bool ok = poll_eq(a.sig + v, want);
      GT_CHECK(ok, v, want, xshmem_signal_fetch(a.sig + v));
      if (ok) {
        const uint64_t got = xshmem_signal_wait_until(a.sig + v, XSHMEM_CMP_EQ, want);
        GT_CHECK(got == want, 100 + v, want, got);
      }
    }
  }
}

void sig06(scope_t scope) {
  const int nvars = s6_vars(scope);
  Carver c = carver();
  Guarded sigs = guarded(c, kS6MaxVars * sizeof(uint64_t));
  Guarded dest = guarded(c, 64);
  uint8_t *src = nullptr;
  GT_CUDA(cudaMalloc(&src, 64));
  gt::fill(src, 64, gt::me, 63);
  arm(sigs, 61);
  arm(dest, 62);
  GT_CUDA(cudaMemset(sigs.data(), 0, kS6MaxVars * sizeof(uint64_t)));
  gt::barrier();
  S6 a{sigs.as<uint64_t>(), dest.data(), src};
  s6_kernel<<<2, block_of(scope)>>>(a, scope, nvars, gt::me, gt::peer, gt::from);
  gt::barrier();
  uint64_t got[kS6MaxVars];
  GT_CUDA(cudaMemcpy(got, sigs.data(), sizeof got, cudaMemcpyDeviceToHost));
  for (int v = 0; v < kS6MaxVars; ++v) {
    const uint64_t want = v < nvars ? s6_set(gt::from, v) + s6_add(gt::from, v) : 0;
    GT_CHECK(got[v] == want, v, want, got[v]);
  }
  check_guards(sigs, 61);
  check_untouched(dest.block, 0, dest.n + 2 * kGuard, 62);  // the data bytes too
  GT_CUDA(cudaFree(src));
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
    int iters = n <= 65537 ? gt::scaled(1000) : 20;  // a round trip each
    for (scope_t s : {kThread, kWarp, kBlock}) {
      if (s == kThread && n > 65537) continue;  // one thread copying MiBs per iteration: slow
      char name[96];
      snprintf(name, sizeof name, "SIG-03 ordering %zu B x %d %c", n, iters, scopes[s]);
      gt::run(name, [&] { ring(a, n, iters, XSHMEM_SIGNAL_SET, s, 0); });
    }
  }
  g_area = static_cast<uint8_t *>(xshmem_malloc(kAreaBytes));
  if (g_area == nullptr) return 1;
  for (scope_t s : {kThread, kWarp, kBlock}) {
    for (int v = 0; v < s2_variants(s); ++v) {
      char name[96];
      snprintf(name, sizeof name, "SIG-02 nbi + quiet %s %c", s2_name(s, v), kScopeName[s]);
      gt::run(name, [&] { sig02(s, v); });
    }
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    char name[96];
    snprintf(name, sizeof name, "SIG-04 accumulate all + signal_set %c", kScopeName[s]);
    gt::run(name, [&] { sig04(s); });
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    char name[96];
    snprintf(name, sizeof name, "SIG-05 fetch, wait_until 6 cmps x 4 updates %c", kScopeName[s]);
    gt::run(name, [&] { sig05(s); });
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    char name[96];
    snprintf(name, sizeof name, "SIG-06 zero-length put_signal %c", kScopeName[s]);
    gt::run(name, [&] { sig06(s); });
  }
  xshmem_free(g_area);
  GT_CUDA(cudaFree(a.src));
  xshmem_free(a.sig);
  xshmem_free(a.data);
  return gt::finish();
}
