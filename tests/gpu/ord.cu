// GPU conformance, ORD rows. Every kernel that waits (on a flag, an ack or a device barrier) has
// at most two blocks, or one, so all its blocks are resident; each PE sends before it waits, so a
// slower or faster peer only delays the other.
//
// ORD-01 (fence message passing). The sender puts data (blocking or nbi, sizes varying with the
// iteration), fences, then raises a flag (p, atomic_set or a second put, rotating); the receiver
// waits for the flag, then checks every word of the data. 10^4 iterations (gt::scaled where PEs
// share a GPU); the receiver acks each one before the sender reuses its buffers. Delays vary with
// the iteration. The forbidden outcome (flag seen, data stale) must never occur.
// ORD-02 fence per destination (every PE, itself included), ORD-03 write-after-write to the same
// remote bytes, ORD-04 quiet transitive visibility (3+ PEs, else skipped), ORD-05 quiet completes
// thousands of outstanding nbi operations, ORD-07 device barrier/sync completes updates, ORD-08
// local stores then fence/quiet, ORD-10 host/device ordering domains (docs/semantics.md,
// "Ordering"): device fence/quiet, host quiet/barrier after the kernel, quiet/barrier on a stream.
//
// Columns: T = one thread issues (thread forms), W = warp 0 issues (warp forms), B = the whole
// block issues (block forms); in W and B one thread of the group fences, quiets or raises the
// flag after the group call has returned (the rule of docs/semantics.md).
#include <algorithm>
#include <vector>

#include "gpu_test.h"

namespace {

constexpr int kIters = 10000;  // gt::scaled where PEs share a GPU
constexpr int kMaxWords = 1024;

__host__ __device__ inline uint32_t word(int pe, int it, int i) {
  return static_cast<uint32_t>(pe) * 0x01000193u ^ static_cast<uint32_t>(it) * 0x9E3779B1u ^
         static_cast<uint32_t>(i);
}

// Block 0 sends to peer, block 1 receives from `from`; `scope`: 0 thread, 1 warp, 2 block puts.
__global__ void mp_kernel(uint32_t *data, uint64_t *flags, uint32_t *src, int scope, int me,
                          int peer, int from, int iters) {
  const unsigned tid = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
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

void mp(uint32_t *data, uint64_t *flags, uint32_t *src, int scope, int iters) {
  GT_CUDA(cudaMemset(flags, 0, 2 * sizeof(uint64_t)));
  gt::barrier();
  mp_kernel<<<2, 128>>>(data, flags, src, scope, gt::me, gt::peer, gt::from, iters);
  gt::device_sync("mp kernel");
}

// ---- Shared helpers of ORD-02..10 -------------------------------------------------------------

enum scope_t { kThread, kWarp, kBlock };
const char *const kScopeName[] = {"T", "W", "B"};
// Threads per block of the one-group kernels: T and B use 128 (T: thread 0 issues), W one warp of
// four issues.
constexpr int kThreads = 128;

using gt::mix;

// Every thread of the block calls these with the same arguments. T: thread 0 alone makes the
// thread call; W: warp 0 makes the warp call; B: the block call. They end with __syncthreads.
__device__ void put_as(scope_t sc, bool nbi, void *dest, const void *src, size_t n, int pe) {
  const unsigned tid = threadIdx.x;
  if (sc == kThread) {
    if (tid == 0) {
      if (nbi) {
        xshmem_putmem_nbi(dest, src, n, pe);
      } else {
        xshmem_putmem(dest, src, n, pe);
      }
    }
  } else if (sc == kWarp) {
    if (tid < 32) {
      if (nbi) {
        xshmemx_putmem_nbi_warp(dest, src, n, pe);
      } else {
        xshmemx_putmem_warp(dest, src, n, pe);
      }
    }
  } else if (nbi) {
    xshmemx_putmem_nbi_block(dest, src, n, pe);
  } else {
    xshmemx_putmem_block(dest, src, n, pe);
  }
  __syncthreads();
}
__device__ void get_as(scope_t sc, void *dest, const void *src, size_t n, int pe) {
  const unsigned tid = threadIdx.x;
  if (sc == kThread) {
    if (tid == 0) xshmem_getmem(dest, src, n, pe);
  } else if (sc == kWarp) {
    if (tid < 32) xshmemx_getmem_warp(dest, src, n, pe);
  } else {
    xshmemx_getmem_block(dest, src, n, pe);
  }
  __syncthreads();
}
// Typed nbi forms (uint64) and put_signal_nbi, same convention.
__device__ void put64_nbi_as(scope_t sc, uint64_t *dest, const uint64_t *src, size_t n, int pe) {
  const unsigned tid = threadIdx.x;
  if (sc == kThread) {
    if (tid == 0) xshmem_uint64_put_nbi(dest, src, n, pe);
  } else if (sc == kWarp) {
    if (tid < 32) xshmemx_uint64_put_nbi_warp(dest, src, n, pe);
  } else {
    xshmemx_uint64_put_nbi_block(dest, src, n, pe);
  }
  __syncthreads();
}
__device__ void put_signal_nbi_as(scope_t sc, uint64_t *dest, const uint64_t *src, size_t n,
                                  uint64_t *sig, uint64_t value, int op, int pe) {
  const unsigned tid = threadIdx.x;
  if (sc == kThread) {
    if (tid == 0) xshmem_uint64_put_signal_nbi(dest, src, n, sig, value, op, pe);
  } else if (sc == kWarp) {
    if (tid < 32) xshmemx_uint64_put_signal_nbi_warp(dest, src, n, sig, value, op, pe);
  } else {
    xshmemx_uint64_put_signal_nbi_block(dest, src, n, sig, value, op, pe);
  }
  __syncthreads();
}

__device__ inline uint64_t vload(const uint64_t *p) {
  return *reinterpret_cast<const volatile uint64_t *>(p);
}
__device__ inline uint8_t vload8(const uint8_t *p) {
  return *reinterpret_cast<const volatile uint8_t *>(p);
}

// 64-bit words w of a guard area owned by `pe`.
__host__ __device__ inline uint64_t guard64(int pe, size_t w, int salt) {
  return mix(0xDEAD0000u + static_cast<uint64_t>(pe), w, static_cast<uint64_t>(salt), 77);
}
__global__ void fill64_kernel(uint64_t *p, size_t n, int pe, int salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = guard64(pe, i, salt);
}
void fill64(uint64_t *p, size_t n, int pe, int salt) {
  fill64_kernel<<<132, 256>>>(p, n, pe, salt);
  gt::device_sync("fill64");
}

// A case that needs more PEs than the job has: PE 0 prints why, and nothing runs.
bool need_pes(int want, const char *label) {
  if (gt::npes >= want) return true;
  if (gt::me == 0) {
    printf("SKIP %-44s needs %d PEs, the job has %d\n", label, want, gt::npes);
    fflush(stdout);
  }
  return false;
}

// ---- ORD-02 fence per destination ---------------------------------------------------------
// Per iteration, block 0 puts a payload to every PE (itself included) into inbox[me] there, then
// fences and raises flag[me] there: fence + flag after each destination (odd iterations) or one
// fence and then every flag (even). Block 1 waits for each source's flag, checks that source's
// slot (payload, then the receiver's own poison up to the slot's end), restores the poison and
// acks. The sender waits for every ack of the previous iteration before it writes again.

constexpr int kO2Iters = 200;    // gt::scaled where PEs share a GPU
constexpr size_t kO2Max = 2048;  // bytes per source slot

__host__ __device__ inline size_t o2_size(int s, int d, int it) {
  return 1 + mix(s, d, it, 2) % kO2Max;
}
__host__ __device__ inline uint8_t o2_byte(int s, int d, int it, size_t b) {
  return static_cast<uint8_t>(mix(s, d, it, 0x200000 + b) >> 17);
}

__global__ void o2_kernel(uint8_t *inbox, uint64_t *flags, uint64_t *acks, uint8_t *src, scope_t sc,
                          int me, int n, int iters) {
  const unsigned tid = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    const bool once = it % 2 == 0;
    const bool nbi = (it / 2) % 2 == 1;
    if (blockIdx.x == 0) {
      // Sources of the previous iteration's nbi puts may be rewritten after a quiet.
      xshmem_quiet();
      if (it > 0 && tid == 0) {
        for (int d = 0; d < n; ++d) xshmem_uint64_wait_until(acks + d, XSHMEM_CMP_GE, uint64_t(it));
      }
      __syncthreads();
      for (int j = 0; j < n; ++j) {
        const int d = (me + j) % n;
        const size_t bytes = o2_size(me, d, it);
        uint8_t *s = src + size_t(d) * kO2Max;
        for (size_t b = tid; b < bytes; b += blockDim.x) s[b] = o2_byte(me, d, it, b);
        __syncthreads();
        put_as(sc, nbi, inbox + size_t(me) * kO2Max, s, bytes, d);
        if (!once && tid == 0) {
          xshmem_fence();
          xshmem_uint64_atomic_set(flags + me, uint64_t(it + 1), d);
        }
      }
      if (once && tid == 0) {
        xshmem_fence();
        for (int j = 0; j < n; ++j) xshmem_uint64_p(flags + me, uint64_t(it + 1), (me + j) % n);
      }
      __syncthreads();
    } else {
      for (int j = 0; j < n; ++j) {
        const int s = (me + n - j) % n;
        if (tid == 0) xshmem_uint64_wait_until(flags + s, XSHMEM_CMP_GE, uint64_t(it + 1));
        __syncthreads();
        const size_t bytes = o2_size(s, me, it);
        uint8_t *slot = inbox + size_t(s) * kO2Max;
        for (size_t b = tid; b < kO2Max; b += blockDim.x) {
          const uint8_t e = b < bytes ? o2_byte(s, me, it, b) : gt::pat(me, s * kO2Max + b, 21);
          const uint8_t got = vload8(slot + b);
          GT_CHECK(got == e, it * 100000LL + s * 10000LL + b, e, got);
        }
        __syncthreads();
        for (size_t b = tid; b < bytes; b += blockDim.x) slot[b] = gt::pat(me, s * kO2Max + b, 21);
        xshmem_quiet();
        __syncthreads();
        if (tid == 0) {
          xshmem_quiet();
          xshmem_uint64_atomic_set(acks + me, uint64_t(it + 1), s);
        }
      }
    }
  }
}

void ord02(scope_t sc) {
  const int n = gt::npes;
  auto *inbox = static_cast<uint8_t *>(xshmem_malloc(size_t(n) * kO2Max));
  auto *flags = static_cast<uint64_t *>(xshmem_calloc(2 * size_t(n), sizeof(uint64_t)));
  uint8_t *src;
  GT_CUDA(cudaMalloc(&src, size_t(n) * kO2Max));
  gt::fill(inbox, size_t(n) * kO2Max, gt::me, 21);
  GT_CUDA(cudaMemset(flags, 0, 2 * size_t(n) * sizeof(uint64_t)));
  gt::barrier();
  // A round trip each; at least 4: the iterations alternate fence styles and nbi.
  o2_kernel<<<2, kThreads>>>(inbox, flags, flags + n, src, sc, gt::me, n,
                             gt::scaled(kO2Iters, 10, 4));
  gt::barrier();
  GT_CUDA(cudaFree(src));
  xshmem_free(flags);
  xshmem_free(inbox);
}

// ---- ORD-03 write-after-write to the same remote bytes --------------------------------------
// One block per size (1 B .. 1 MiB + 1) writes A over [0, size) of its slot at the right
// neighbour, fences, then B over the whole range or a sub-range; variants: A/B blocking or nbi,
// B full or partial. After a barrier the owner checks: B where B went, A elsewhere in the range,
// its own guard pattern around.

constexpr size_t kO3Lead = 64;
struct o3_layout_t {
  size_t off[64];
  size_t size[64];
  int count;
  size_t span;
};
o3_layout_t o3_layout() {
  o3_layout_t l{};
  std::vector<size_t> sizes = {1, 2, 3, 4, 7, 8, 9};
  for (unsigned k = 4; k <= 20; ++k) {
    const size_t p = size_t{1} << k;
    sizes.push_back(p - 1);
    sizes.push_back(p);
    sizes.push_back(p + 1);
  }
  size_t at = 0;
  for (size_t s : sizes) {
    l.off[l.count] = at;
    l.size[l.count] = s;
    ++l.count;
    at += (s + 2 * kO3Lead + 255) / 256 * 256;
  }
  l.span = at;
  return l;
}
__host__ __device__ inline void o3_ranges(size_t bytes, int variant, size_t *off, size_t *blen) {
  const bool partial = variant & 4;
  *off = partial ? bytes / 3 : 0;
  *blen = partial ? (bytes / 2 > 0 ? bytes / 2 : 1) : bytes;
}

__global__ void o3_kernel(uint8_t *dst, const uint8_t *srca, const uint8_t *srcb, o3_layout_t l,
                          int variant, scope_t sc, int pe) {
  const size_t base = l.off[blockIdx.x] + kO3Lead, bytes = l.size[blockIdx.x];
  size_t off, blen;
  o3_ranges(bytes, variant, &off, &blen);
  put_as(sc, variant & 1, dst + base, srca + base, bytes, pe);
  if (threadIdx.x == 0) xshmem_fence();
  __syncthreads();
  put_as(sc, variant & 2, dst + base + off, srcb + base + off, blen, pe);
}

__global__ void o3_verify(const uint8_t *dst, o3_layout_t l, int variant, int me, int from,
                          int salt_a, int salt_b, int salt_g) {
  const size_t start = l.off[blockIdx.x], bytes = l.size[blockIdx.x];
  const size_t end = blockIdx.x + 1 < unsigned(l.count) ? l.off[blockIdx.x + 1] : l.span;
  size_t off, blen;
  o3_ranges(bytes, variant, &off, &blen);
  for (size_t x = start + threadIdx.x; x < end; x += blockDim.x) {
    const size_t r = x - start;  // relative to the slot
    uint8_t e;
    if (r >= kO3Lead + off && r < kO3Lead + off + blen) {
      e = gt::pat(from, x, salt_b);
    } else if (r >= kO3Lead && r < kO3Lead + bytes) {
      e = gt::pat(from, x, salt_a);
    } else {
      e = gt::pat(me, x, salt_g);
    }
    GT_CHECK(dst[x] == e, blockIdx.x * 10000000LL + r, e, dst[x]);
  }
}

void ord03(scope_t sc) {
  const o3_layout_t l = o3_layout();
  auto *dst = static_cast<uint8_t *>(xshmem_malloc(l.span));
  uint8_t *srca, *srcb;
  GT_CUDA(cudaMalloc(&srca, l.span));
  GT_CUDA(cudaMalloc(&srcb, l.span));
  for (int variant = 0; variant < 8; ++variant) {
    const int salt_a = 30 + 3 * variant + 24 * sc, salt_b = salt_a + 1, salt_g = salt_a + 2;
    gt::fill(dst, l.span, gt::me, salt_g);
    gt::fill(srca, l.span, gt::me, salt_a);
    gt::fill(srcb, l.span, gt::me, salt_b);
    gt::barrier();
    o3_kernel<<<l.count, kThreads>>>(dst, srca, srcb, l, variant, sc, gt::peer);
    gt::barrier();
    o3_verify<<<l.count, 256>>>(dst, l, variant, gt::me, gt::from, salt_a, salt_b, salt_g);
    gt::device_sync("ORD-03 verify");
  }
  xshmem_barrier_all();
  GT_CUDA(cudaFree(srcb));
  GT_CUDA(cudaFree(srca));
  xshmem_free(dst);
}

// ---- ORD-04 quiet transitive visibility (3+ PEs) ---------------------------------------------
// Iteration it: A = it mod n puts to B = A+1 (putmem_nbi, uint64_put_nbi or
// uint64_put_signal_nbi by the scope), adds to B's counter, quiets (thread 0), then sets C's flag
// (C = A+2); C waits for the flag and gets B's data, counter and signal: all of A's updates. B
// poisons its data before each iteration; block barriers separate the iterations. One block per
// PE (the device barrier's rule).

constexpr int kO4Iters = 300;    // gt::scaled where PEs share a GPU
constexpr size_t kO4Max = 1024;  // words

__global__ void o4_kernel(uint64_t *data, uint64_t *counter, uint64_t *sig, uint64_t *flag,
                          uint64_t *src, uint64_t *got, scope_t sc, int me, int n, int iters) {
  const unsigned tid = threadIdx.x;
  uint64_t expect[64] = {};  // counter of each PE (n <= 64)
  for (int it = 0; it < iters; ++it) {
    const int a = it % n, b = (a + 1) % n, c = (a + 2) % n;
    const size_t words = 1 + mix(a, it, 4) % kO4Max;
    const uint64_t add = (mix(a, it, 5) & 0xFFFF) + 1;
    const int variant = it % 3;
    expect[b] += add;
    if (me == b) {
      for (size_t i = tid; i < kO4Max; i += blockDim.x) data[i] = guard64(me, i, it);
    }
    xshmemx_barrier_all_block();
    if (me == a) {
      for (size_t i = tid; i < words; i += blockDim.x) src[i] = mix(a, b, it, i);
      __syncthreads();
      if (variant == 0) {
        put_as(sc, true, data, src, words * 8, b);
      } else if (variant == 1) {
        put64_nbi_as(sc, data, src, words, b);
      } else {
        put_signal_nbi_as(sc, data, src, words, sig, uint64_t(it + 1), XSHMEM_SIGNAL_SET, b);
      }
      if (tid == 0) {
        xshmem_uint64_atomic_add(counter, add, b);
        xshmem_quiet();
        xshmem_uint64_atomic_set(flag, uint64_t(it + 1), c);
      }
    }
    if (me == c) {
      if (tid == 0) xshmem_uint64_wait_until(flag, XSHMEM_CMP_GE, uint64_t(it + 1));
      __syncthreads();
      for (size_t i = tid; i <= words && i < kO4Max; i += blockDim.x) got[i] = guard64(me, i, 99);
      __syncthreads();
      get_as(sc, got, data, words * 8, b);
      for (size_t i = tid; i < words; i += blockDim.x)
        GT_CHECK(got[i] == mix(a, b, it, i), it * 10000LL + i, mix(a, b, it, i), got[i]);
      if (tid == 0 && words < kO4Max)
        GT_CHECK(got[words] == guard64(me, words, 99), it * 10000LL + words, 0, got[words]);
      if (tid == 0) {
        const uint64_t cnt = xshmem_uint64_atomic_fetch(counter, b);
        GT_CHECK(cnt == expect[b], it * 10000LL + 9001, expect[b], cnt);
        if (variant == 2) {
          const uint64_t sv = xshmem_uint64_g(sig, b);
          GT_CHECK(sv == uint64_t(it + 1), it * 10000LL + 9002, it + 1, sv);
        }
      }
    }
    xshmemx_barrier_all_block();
  }
}

void ord04(scope_t sc) {
  if (gt::npes > 64) {
    GT_CHECK(false, gt::npes, 64, gt::npes);  // the kernel's model holds 64 counters
    return;
  }
  auto *data = static_cast<uint64_t *>(xshmem_malloc(kO4Max * 8));
  auto *words = static_cast<uint64_t *>(xshmem_calloc(3, sizeof(uint64_t)));  // counter sig flag
  uint64_t *src, *got;
  GT_CUDA(cudaMalloc(&src, kO4Max * 8));
  GT_CUDA(cudaMalloc(&got, kO4Max * 8));
  GT_CUDA(cudaMemset(words, 0, 3 * sizeof(uint64_t)));
  gt::barrier();
  // Two device barriers (round trips) each; at least 6: the variants rotate by 3.
  o4_kernel<<<1, kThreads>>>(data, words, words + 1, words + 2, src, got, sc, gt::me, gt::npes,
                             gt::scaled(kO4Iters, 10, 6));
  gt::barrier();
  GT_CUDA(cudaFree(got));
  GT_CUDA(cudaFree(src));
  xshmem_free(words);
  xshmem_free(data);
}

// ---- ORD-05 quiet completes all outstanding ---------------------------------------------------
// One block of 128 threads; issuers are its threads (T: 128 x 32 operations), its warps (W:
// 4 x 256 group operations) or the block (B: 1024). Each operation goes to a pseudo-random PE
// (itself included) and is one of: putmem_nbi into the issuer's slot there, getmem_nbi of the
// issuer's slot of that PE's outbox, fetch_add_nbi of this PE's counter there (the group's first
// thread), put_signal_nbi (ADD 1 to this PE's signal there). Then every thread quiets, checks its
// gets, and thread 0 notifies every PE. A second kernel waits for the n notifications and checks
// every slot (payload or untouched guard), counter and signal sent here; the host checks that
// the fetched values to each PE are 0..m-1.

constexpr size_t kO5Max = 64;  // bytes per slot
constexpr int kO5Ops = 4096;   // slots per source (issuers x operations)

__host__ __device__ inline int o5_issuers(scope_t sc) {
  return sc == kThread ? kThreads : sc == kWarp ? kThreads / 32 : 1;
}
__host__ __device__ inline int o5_ops(scope_t sc) {
  return (sc == kThread ? 4096 : sc == kWarp ? 1024 : 1024) / o5_issuers(sc);
}
struct o5_op_t {
  int d, kind;  // kind 0 put, 1 get, 2 fetch_add, 3 put_signal
  size_t bytes;
};
__host__ __device__ inline o5_op_t o5_op(int s, int u, int i, int n, int salt) {
  const uint64_t h = mix(s, u, i, 0x5000 + salt);
  o5_op_t op;
  op.d = static_cast<int>(h % uint64_t(n));
  op.kind = static_cast<int>((h >> 20) % 4);
  op.bytes = 1 + (h >> 32) % kO5Max;
  return op;
}

__global__ void o5_issue(uint8_t *inbox, const uint8_t *outbox, uint64_t *counter, uint64_t *sig,
                         uint64_t *done, const uint8_t *src, uint8_t *gets, uint64_t *fetched,
                         scope_t sc, int me, int n, int salt) {
  const unsigned tid = threadIdx.x;
  const int ops = o5_ops(sc);
  const int u = sc == kThread ? int(tid) : sc == kWarp ? int(tid / 32) : 0;
  const bool lead = sc == kThread || (sc == kWarp ? tid % 32 == 0 : tid == 0);
  for (int i = 0; i < ops; ++i) {
    const o5_op_t op = o5_op(me, u, i, n, salt);
    const size_t k = size_t(u) * ops + i;
    uint8_t *slot = inbox + (size_t(me) * kO5Ops + k) * kO5Max;
    const uint8_t *s = src + k * kO5Max;
    switch (op.kind) {
      case 0:
        if (sc == kThread) {
          xshmem_putmem_nbi(slot, s, op.bytes, op.d);
        } else if (sc == kWarp) {
          xshmemx_putmem_nbi_warp(slot, s, op.bytes, op.d);
        } else {
          xshmemx_putmem_nbi_block(slot, s, op.bytes, op.d);
        }
        break;
      case 1: {
        const uint8_t *from = outbox + (size_t(me) * kO5Ops + k) * kO5Max;
        if (sc == kThread) {
          xshmem_getmem_nbi(gets + k * kO5Max, from, op.bytes, op.d);
        } else if (sc == kWarp) {
          xshmemx_getmem_nbi_warp(gets + k * kO5Max, from, op.bytes, op.d);
        } else {
          xshmemx_getmem_nbi_block(gets + k * kO5Max, from, op.bytes, op.d);
        }
        break;
      }
      case 2:
        if (lead) xshmem_uint64_atomic_fetch_add_nbi(fetched + k, counter + me, 1, op.d);
        break;
      default:
        if (sc == kThread) {
          xshmem_putmem_signal_nbi(slot, s, op.bytes, sig + me, 1, XSHMEM_SIGNAL_ADD, op.d);
        } else if (sc == kWarp) {
          xshmemx_putmem_signal_nbi_warp(slot, s, op.bytes, sig + me, 1, XSHMEM_SIGNAL_ADD, op.d);
        } else {
          xshmemx_putmem_signal_nbi_block(slot, s, op.bytes, sig + me, 1, XSHMEM_SIGNAL_ADD, op.d);
        }
        break;
    }
  }
  xshmem_quiet();
  __syncthreads();
  // Gets: every slot of this PE's issuers, payload up to the length, poison after it.
  const int total = o5_issuers(sc) * ops;
  for (size_t x = tid; x < size_t(total) * kO5Max; x += blockDim.x) {
    const size_t k = x / kO5Max, b = x % kO5Max;
    const int uu = int(k / ops), ii = int(k % ops);
    const o5_op_t op = o5_op(me, uu, ii, n, salt);
    const uint8_t e = op.kind == 1 && b < op.bytes
                          ? gt::pat(op.d, (size_t(me) * kO5Ops + k) * kO5Max + b, 41 + salt)
                          : gt::pat(me, x, 42 + salt);
    GT_CHECK(gets[x] == e, x, e, gets[x]);
  }
  __syncthreads();
  if (tid == 0) {
    xshmem_quiet();
    for (int j = 0; j < n; ++j) xshmem_uint64_atomic_inc(done, (me + j) % n);
  }
}

__global__ void o5_check(const uint8_t *inbox, const uint64_t *counter, const uint64_t *sig,
                         uint64_t *done, scope_t sc, int me, int n, int salt) {
  const unsigned tid = threadIdx.x;
  if (tid == 0) xshmem_uint64_wait_until(done, XSHMEM_CMP_GE, uint64_t(n));
  __syncthreads();
  __shared__ unsigned long long amos, sigs;
  const int ops = o5_ops(sc), total = o5_issuers(sc) * ops;
  for (int s = 0; s < n; ++s) {
    if (tid == 0) amos = sigs = 0;
    __syncthreads();
    for (size_t x = tid; x < size_t(kO5Ops) * kO5Max; x += blockDim.x) {
      const size_t k = x / kO5Max, b = x % kO5Max;
      const size_t at = size_t(s) * kO5Ops * kO5Max + x;
      uint8_t e = gt::pat(me, at, 43 + salt);
      if (k < size_t(total)) {
        const o5_op_t op = o5_op(s, int(k / ops), int(k % ops), n, salt);
        if (op.d == me && (op.kind == 0 || op.kind == 3) && b < op.bytes)
          e = gt::pat(s, x, 44 + salt);
        if (b == 0 && op.d == me && op.kind == 2) atomicAdd(&amos, 1ull);
        if (b == 0 && op.d == me && op.kind == 3) atomicAdd(&sigs, 1ull);
      }
      const uint8_t got = vload8(inbox + at);
      GT_CHECK(got == e, at, e, got);
    }
    __syncthreads();
    if (tid == 0) {
      GT_CHECK(vload(counter + s) == amos, 1000000000LL + s, amos, vload(counter + s));
      GT_CHECK(vload(sig + s) == sigs, 2000000000LL + s, sigs, vload(sig + s));
    }
    __syncthreads();
  }
}

void ord05(scope_t sc) {
  const int n = gt::npes, salt = 3 * sc;
  const size_t box = size_t(n) * kO5Ops * kO5Max, local = size_t(kO5Ops) * kO5Max;
  auto *inbox = static_cast<uint8_t *>(xshmem_malloc(box));
  auto *outbox = static_cast<uint8_t *>(xshmem_malloc(box));
  auto *words = static_cast<uint64_t *>(xshmem_malloc((2 * size_t(n) + 1) * sizeof(uint64_t)));
  uint8_t *src, *gets;
  uint64_t *fetched;
  GT_CUDA(cudaMalloc(&src, local));
  GT_CUDA(cudaMalloc(&gets, local));
  GT_CUDA(cudaMalloc(&fetched, kO5Ops * sizeof(uint64_t)));
  gt::fill(inbox, box, gt::me, 43 + salt);
  gt::fill(outbox, box, gt::me, 41 + salt);
  gt::fill(src, local, gt::me, 44 + salt);
  gt::fill(gets, local, gt::me, 42 + salt);
  GT_CUDA(cudaMemset(fetched, 0xff, kO5Ops * sizeof(uint64_t)));
  GT_CUDA(cudaMemset(words, 0, (2 * size_t(n) + 1) * sizeof(uint64_t)));
  uint64_t *counter = words, *sig = words + n, *done = words + 2 * n;
  gt::barrier();
  o5_issue<<<1, kThreads>>>(inbox, outbox, counter, sig, done, src, gets, fetched, sc, gt::me, n,
                            salt);
  o5_check<<<1, 256>>>(inbox, counter, sig, done, sc, gt::me, n, salt);
  gt::device_sync("ORD-05 kernels");
  // Fetched values: for each destination, a permutation of 0..m-1 (only this PE adds to its
  // counter there).
  std::vector<uint64_t> f(kO5Ops);
  GT_CUDA(cudaMemcpy(f.data(), fetched, kO5Ops * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  const int ops = o5_ops(sc), total = o5_issuers(sc) * ops;
  std::vector<std::vector<uint64_t>> seen(n);
  for (int k = 0; k < total; ++k) {
    const o5_op_t op = o5_op(gt::me, k / ops, k % ops, n, salt);
    if (op.kind == 2) {
      seen[op.d].push_back(f[k]);
    } else {
      GT_CHECK(f[k] == ~uint64_t{0}, k, -1, f[k]);  // untouched
    }
  }
  for (int d = 0; d < n; ++d) {
    std::sort(seen[d].begin(), seen[d].end());
    for (size_t i = 0; i < seen[d].size(); ++i)
      GT_CHECK(seen[d][i] == i, d * 100000LL + i, i, seen[d][i]);
  }
  gt::barrier();
  GT_CUDA(cudaFree(fetched));
  GT_CUDA(cudaFree(gets));
  GT_CUDA(cudaFree(src));
  xshmem_free(words);
  xshmem_free(outbox);
  xshmem_free(inbox);
}

// ---- ORD-07 barrier completes updates ---------------------------------------------------------
// One group per PE (T: <<<1,1>>>, W: <<<1,32>>>, B: <<<1,128>>>). 20 rounds: to every PE, a
// blocking and an nbi uint64 put of 64 words (thread, warp or block form), an atomic_add and a
// fetch_add_nbi (the group's first thread); then the device barrier alone (even rounds) or quiet +
// the device sync (odd rounds); then every word from every PE, both counters and the fetched
// values are checked; a second barrier (sync) before the next round's writes.

constexpr int kO7Rounds = 20;
constexpr size_t kO7Words = 64;

__device__ void o7_sync(scope_t sc, bool with_sync) {
  if (with_sync) {
    xshmem_quiet();
    if (sc == kThread) {
      xshmem_sync_all();
    } else if (sc == kWarp) {
      xshmemx_sync_all_warp();
    } else {
      xshmemx_sync_all_block();
    }
  } else if (sc == kThread) {
    xshmem_barrier_all();
  } else if (sc == kWarp) {
    xshmemx_barrier_all_warp();
  } else {
    xshmemx_barrier_all_block();
  }
}

__global__ void o7_kernel(uint64_t *blk, uint64_t *nbi, uint64_t *ctr, uint64_t *src,
                          uint64_t *srcn, uint64_t *fetched, scope_t sc, int me, int n) {
  const unsigned tid = threadIdx.x;
  uint64_t sum_add = 0;
  for (int r = 0; r < kO7Rounds; ++r) {
    const bool with_sync = r % 2 == 1;
    for (int j = 0; j < n; ++j) {
      const int d = (me + j) % n;
      uint64_t *s = src + size_t(d) * kO7Words, *sn = srcn + size_t(d) * kO7Words;
      for (size_t w = tid; w < kO7Words; w += blockDim.x) {
        s[w] = mix(me, d, 2 * r, w);
        sn[w] = mix(me, d, 2 * r + 1, w);
      }
      __syncthreads();
      uint64_t *db = blk + size_t(me) * kO7Words, *dn = nbi + size_t(me) * kO7Words;
      if (sc == kThread) {
        xshmem_uint64_put(db, s, kO7Words, d);
        xshmem_uint64_put_nbi(dn, sn, kO7Words, d);
      } else if (sc == kWarp) {
        xshmemx_uint64_put_warp(db, s, kO7Words, d);
        xshmemx_uint64_put_nbi_warp(dn, sn, kO7Words, d);
      } else {
        xshmemx_uint64_put_block(db, s, kO7Words, d);
        xshmemx_uint64_put_nbi_block(dn, sn, kO7Words, d);
      }
      if (tid == 0) {
        xshmem_uint64_atomic_add(ctr, (mix(me, d, r, 7) & 0xFF) + 1, d);
        xshmem_uint64_atomic_fetch_add_nbi(fetched + d, ctr + 1, 1, d);
      }
    }
    for (int s = 0; s < n; ++s) sum_add += (mix(s, me, r, 7) & 0xFF) + 1;
    o7_sync(sc, with_sync);
    __syncthreads();
    for (int s = 0; s < n; ++s) {
      for (size_t w = tid; w < kO7Words; w += blockDim.x) {
        const uint64_t b = vload(blk + size_t(s) * kO7Words + w);
        const uint64_t v = vload(nbi + size_t(s) * kO7Words + w);
        GT_CHECK(b == mix(s, me, 2 * r, w), r * 100000LL + s * 1000 + w, mix(s, me, 2 * r, w), b);
        GT_CHECK(v == mix(s, me, 2 * r + 1, w), r * 100000LL + s * 1000 + 500 + w,
                 mix(s, me, 2 * r + 1, w), v);
      }
    }
    // Slot n of each buffer is nobody's: it keeps its guard words.
    for (size_t w = tid; w < kO7Words; w += blockDim.x) {
      const size_t at = size_t(n) * kO7Words + w;
      GT_CHECK(vload(blk + at) == guard64(me, at, 70), r * 100000LL + 95000 + w, 0,
               vload(blk + at));
      GT_CHECK(vload(nbi + at) == guard64(me, at, 71), r * 100000LL + 96000 + w, 0,
               vload(nbi + at));
    }
    if (tid == 0) {
      GT_CHECK(vload(ctr) == sum_add, r * 100000LL + 90001, sum_add, vload(ctr));
      const uint64_t want1 = uint64_t(n) * (r + 1);
      GT_CHECK(vload(ctr + 1) == want1, r * 100000LL + 90002, want1, vload(ctr + 1));
      for (int d = 0; d < n; ++d) {
        const uint64_t f = fetched[d];
        GT_CHECK(f >= uint64_t(n) * r && f < want1, r * 100000LL + 90100 + d, n * r, f);
      }
    }
    __syncthreads();
    o7_sync(sc, with_sync);  // every PE checked before the next round writes
  }
}

void ord07(scope_t sc) {
  const int n = gt::npes;
  auto *blk = static_cast<uint64_t *>(xshmem_malloc(size_t(n + 1) * kO7Words * 8));
  auto *nbi = static_cast<uint64_t *>(xshmem_malloc(size_t(n + 1) * kO7Words * 8));
  auto *ctr = static_cast<uint64_t *>(xshmem_calloc(2, sizeof(uint64_t)));
  uint64_t *src, *srcn, *fetched;
  GT_CUDA(cudaMalloc(&src, size_t(n) * kO7Words * 8));
  GT_CUDA(cudaMalloc(&srcn, size_t(n) * kO7Words * 8));
  GT_CUDA(cudaMalloc(&fetched, size_t(n) * 8));
  fill64(blk, size_t(n + 1) * kO7Words, gt::me, 70);
  fill64(nbi, size_t(n + 1) * kO7Words, gt::me, 71);
  GT_CUDA(cudaMemset(ctr, 0, 2 * sizeof(uint64_t)));
  gt::barrier();
  const unsigned threads = sc == kThread ? 1 : sc == kWarp ? 32 : kThreads;
  o7_kernel<<<1, threads>>>(blk, nbi, ctr, src, srcn, fetched, sc, gt::me, n);
  gt::barrier();
  GT_CUDA(cudaFree(fetched));
  GT_CUDA(cudaFree(srcn));
  GT_CUDA(cudaFree(src));
  xshmem_free(ctr);
  xshmem_free(nbi);
  xshmem_free(blk);
}

// ---- ORD-08 local stores, then fence/quiet, then a flag ---------------------------------------
// Block 0 stores fresh words into its own symmetric buffer (T: thread 0, W: warp 0, B: every
// thread), every storing thread fences (odd iterations) or quiets (even), then thread 0 does the
// same and raises the right neighbour's flag. Block 1 waits for the left neighbour's flag, gets
// its buffer (thread, warp or block get) and checks every word and the guard word after it, then
// acks. 1000 iterations (gt::scaled where PEs share a GPU), sizes varying.

constexpr int kO8Iters = 1000;
constexpr size_t kO8Max = 2048;  // words

__global__ void o8_kernel(uint64_t *buf, uint64_t *flags, uint64_t *got, scope_t sc, int me,
                          int peer, int from, int iters) {
  const unsigned tid = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    if (blockIdx.x == 0) {
      const size_t n = 1 + mix(me, it, 8) % kO8Max;
      if (it > 0 && tid == 0) xshmem_uint64_wait_until(flags + 1, XSHMEM_CMP_GE, uint64_t(it));
      __syncthreads();
      const unsigned storers = sc == kThread ? 1 : sc == kWarp ? 32 : blockDim.x;
      if (tid < storers) {
        for (size_t i = tid; i < n; i += storers) buf[i] = mix(me, it, i, 8);
        if (it % 2) {
          xshmem_fence();
        } else {
          xshmem_quiet();
        }
      }
      __syncthreads();
      if (tid == 0) {
        if (it % 2) {
          xshmem_fence();
          xshmem_uint64_p(flags, uint64_t(it + 1), peer);
        } else {
          xshmem_quiet();
          xshmem_uint64_atomic_set(flags, uint64_t(it + 1), peer);
        }
      }
    } else {
      const size_t n = 1 + mix(from, it, 8) % kO8Max;
      if (tid == 0) {
        xshmem_uint64_wait_until(flags, XSHMEM_CMP_GE, uint64_t(it + 1));
        got[n] = guard64(me, n, it);
      }
      __syncthreads();
      get_as(sc, got, buf, n * 8, from);
      for (size_t i = tid; i < n; i += blockDim.x)
        GT_CHECK(got[i] == mix(from, it, i, 8), it * 10000LL + i, mix(from, it, i, 8), got[i]);
      if (tid == 0) {
        GT_CHECK(got[n] == guard64(me, n, it), it * 10000LL + n, 0, got[n]);
        xshmem_uint64_atomic_set(flags + 1, uint64_t(it + 1), from);
      }
      __syncthreads();
    }
  }
}

void ord08(scope_t sc) {
  auto *buf = static_cast<uint64_t *>(xshmem_malloc(kO8Max * 8));
  auto *flags = static_cast<uint64_t *>(xshmem_calloc(2, sizeof(uint64_t)));
  uint64_t *got;
  GT_CUDA(cudaMalloc(&got, (kO8Max + 1) * 8));
  GT_CUDA(cudaMemset(flags, 0, 2 * sizeof(uint64_t)));
  gt::barrier();
  // A round trip each; at least 4 (fence and quiet alternate).
  o8_kernel<<<2, kThreads>>>(buf, flags, got, sc, gt::me, gt::peer, gt::from,
                             gt::scaled(kO8Iters, 10, 4));
  gt::barrier();
  GT_CUDA(cudaFree(got));
  xshmem_free(flags);
  xshmem_free(buf);
}

// ---- ORD-10 host/device ordering domains ------------------------------------------------------
// (1) device: block 0 puts nbi (scope) and adds to the right neighbour's counter, then thread 0
//     alone quiets (even iterations) or fences (odd) and raises the flag; block 1 waits for the
//     left neighbour's flag and checks data and counter, then acks. 1000 iterations (gt::scaled
//     where PEs share a GPU).
// (2) host: a kernel puts nbi, adds and put_signal_nbi's into this iteration's slot at the right
//     neighbour with no device fence or quiet; the host synchronises the stream (T, B) or the
//     device (W), then either calls xshmem_quiet() and sets the peer's flag of the iteration with
//     a host atomic (even iterations; the receiver's host waits for its flag), or calls
//     xshmem_barrier_all() (odd); then a kernel checks the slot that the left neighbour filled.
// (3) stream: the same kernel on a stream, then xshmemx_quiet_on_stream and a stream-ordered
//     flag (a one-thread kernel's atomic_set, or xshmemx_putmem_on_stream of the flag word); the
//     receiver's host waits for the flag and a check kernel follows on its stream (even
//     iterations); or xshmemx_barrier_all_on_stream and the check kernel right after it on the
//     stream (odd). Everything stays in stream order until the end.
// Each iteration of (2) and (3) has its own slot, counter, signal and flag: no reuse.

constexpr int kO10Iters = 1000;
constexpr size_t kO10Max = 1024;   // words (1)
constexpr int kO10Slots = 16;      // iterations of (2) and (3)
constexpr size_t kO10Words = 512;  // words per region of a slot: put_nbi, put_signal_nbi, guard
constexpr size_t kO10Slot = 2 * kO10Words + 8;

__global__ void o10_device(uint64_t *data, uint64_t *words, uint64_t *src, scope_t sc, int me,
                           int peer, int from, int iters) {
  // words: [0] flag, [1] ack, [2] counter
  const unsigned tid = threadIdx.x;
  uint64_t expect = 0;
  for (int it = 0; it < iters; ++it) {
    if (blockIdx.x == 0) {
      const size_t n = 1 + mix(me, it, 10) % kO10Max;
      if (tid == 0 && it > 0) xshmem_uint64_wait_until(words + 1, XSHMEM_CMP_GE, uint64_t(it));
      xshmem_quiet();  // the previous iteration's nbi sources may be rewritten
      __syncthreads();
      for (size_t i = tid; i < n; i += blockDim.x) src[i] = mix(me, it, i, 10);
      __syncthreads();
      put_as(sc, true, data, src, n * 8, peer);
      if (tid == 0) {
        xshmem_uint64_atomic_add(words + 2, (mix(me, it, 11) & 0xFFF) + 1, peer);
        if (it % 2) {
          xshmem_fence();
          xshmem_uint64_p(words, uint64_t(it + 1), peer);
        } else {
          xshmem_quiet();
          xshmem_uint64_atomic_set(words, uint64_t(it + 1), peer);
        }
      }
    } else {
      const size_t n = 1 + mix(from, it, 10) % kO10Max;
      expect += (mix(from, it, 11) & 0xFFF) + 1;
      if (tid == 0) xshmem_uint64_wait_until(words, XSHMEM_CMP_GE, uint64_t(it + 1));
      __syncthreads();
      for (size_t i = tid; i < n; i += blockDim.x) {
        const uint64_t got = vload(data + i);
        GT_CHECK(got == mix(from, it, i, 10), it * 10000LL + i, mix(from, it, i, 10), got);
      }
      if (tid == 0) {
        GT_CHECK(vload(words + 2) == expect, it * 10000LL + 9999, expect, vload(words + 2));
      }
      __syncthreads();
      if (tid == 0) xshmem_uint64_atomic_set(words + 1, uint64_t(it + 1), from);
    }
  }
}

void ord10_device(scope_t sc) {
  auto *data = static_cast<uint64_t *>(xshmem_malloc(kO10Max * 8));
  auto *words = static_cast<uint64_t *>(xshmem_calloc(3, sizeof(uint64_t)));
  uint64_t *src;
  GT_CUDA(cudaMalloc(&src, kO10Max * 8));
  GT_CUDA(cudaMemset(words, 0, 3 * sizeof(uint64_t)));
  gt::barrier();
  // A round trip each; at least 4 (quiet and fence alternate).
  o10_device<<<2, kThreads>>>(data, words, src, sc, gt::me, gt::peer, gt::from,
                              gt::scaled(kO10Iters, 10, 4));
  gt::barrier();
  GT_CUDA(cudaFree(src));
  xshmem_free(words);
  xshmem_free(data);
}

struct o10_area_t {
  uint64_t *slots;    // symmetric: kO10Slots x kO10Slot words
  uint64_t *counter;  // symmetric: kO10Slots
  uint64_t *sig;      // symmetric: kO10Slots
  uint64_t *flag;     // symmetric: kO10Slots
  uint64_t *src;      // private: 2 x kO10Words words per slot
};

__host__ __device__ inline uint64_t o10_add(int s, int it) {
  return (mix(s, it, 12) & 0xFFFF) + 1;
}

// Issues this PE's operations of iteration `it` to `peer`; no fence, no quiet.
__global__ void o10_issue(o10_area_t a, int it, scope_t sc, int me, int peer) {
  const unsigned tid = threadIdx.x;
  uint64_t *s = a.src + size_t(it) * 2 * kO10Words;
  for (size_t i = tid; i < 2 * kO10Words; i += blockDim.x) s[i] = mix(me, peer, it, i + 13);
  __syncthreads();
  uint64_t *slot = a.slots + size_t(it) * kO10Slot;
  put64_nbi_as(sc, slot, s, kO10Words, peer);
  if (tid == 0) xshmem_uint64_atomic_add(a.counter + it, o10_add(me, it), peer);
  put_signal_nbi_as(sc, slot + kO10Words, s + kO10Words, kO10Words, a.sig + it, uint64_t(it + 1),
                    XSHMEM_SIGNAL_ADD, peer);
}

// Checks what `from` sent in iteration `it`, and the slot's guard words.
__global__ void o10_check(o10_area_t a, int it, int me, int from) {
  const uint64_t *slot = a.slots + size_t(it) * kO10Slot;
  for (size_t i = threadIdx.x; i < kO10Slot; i += blockDim.x) {
    const uint64_t e =
        i < 2 * kO10Words ? mix(from, me, it, i + 13) : guard64(me, size_t(it) * kO10Slot + i, 100);
    const uint64_t got = vload(slot + i);
    GT_CHECK(got == e, it * 100000LL + i, e, got);
  }
  if (threadIdx.x == 0) {
    GT_CHECK(vload(a.counter + it) == o10_add(from, it), it * 100000LL + 90001, o10_add(from, it),
             vload(a.counter + it));
    GT_CHECK(vload(a.sig + it) == uint64_t(it + 1), it * 100000LL + 90002, it + 1,
             vload(a.sig + it));
  }
}

__global__ void o10_flag(uint64_t *flag, uint64_t value, int pe) {
  xshmem_uint64_atomic_set(flag, value, pe);
}

o10_area_t o10_alloc() {
  o10_area_t a{};
  a.slots = static_cast<uint64_t *>(xshmem_malloc(kO10Slots * kO10Slot * 8));
  a.counter = static_cast<uint64_t *>(xshmem_malloc(3 * kO10Slots * 8));
  a.sig = a.counter + kO10Slots;
  a.flag = a.sig + kO10Slots;
  GT_CUDA(cudaMalloc(&a.src, kO10Slots * 2 * kO10Words * 8));
  fill64(a.slots, kO10Slots * kO10Slot, gt::me, 100);
  GT_CUDA(cudaMemset(a.counter, 0, 3 * kO10Slots * 8));
  gt::barrier();
  return a;
}
void o10_free(o10_area_t &a) {
  gt::barrier();
  GT_CUDA(cudaFree(a.src));
  xshmem_free(a.counter);
  xshmem_free(a.slots);
}

void ord10_host(scope_t sc) {
  o10_area_t a = o10_alloc();
  const unsigned threads = sc == kThread ? 1 : sc == kWarp ? 32 : kThreads;
  cudaStream_t s;
  GT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int it = 0; it < kO10Slots; ++it) {
    o10_issue<<<1, threads, 0, s>>>(a, it, sc, gt::me, gt::peer);
    GT_CUDA(cudaGetLastError());
    if (sc == kWarp) {
      GT_CUDA(cudaDeviceSynchronize());
    } else {
      GT_CUDA(cudaStreamSynchronize(s));
    }
    if (it % 2 == 0) {
      xshmem_quiet();
      xshmem_uint64_atomic_set(a.flag + it, uint64_t(it + 1), gt::peer);
      xshmem_uint64_wait_until(a.flag + it, XSHMEM_CMP_GE, uint64_t(it + 1));
    } else {
      xshmem_barrier_all();
    }
    o10_check<<<1, 256>>>(a, it, gt::me, gt::from);
    gt::device_sync("ORD-10 check");
  }
  GT_CUDA(cudaStreamDestroy(s));
  o10_free(a);
}

void ord10_stream(scope_t sc) {
  o10_area_t a = o10_alloc();
  const unsigned threads = sc == kThread ? 1 : sc == kWarp ? 32 : kThreads;
  uint64_t *flagsrc;
  GT_CUDA(cudaMalloc(&flagsrc, kO10Slots * 8));
  std::vector<uint64_t> fv(kO10Slots);
  for (int it = 0; it < kO10Slots; ++it) fv[it] = uint64_t(it + 1);
  GT_CUDA(cudaMemcpy(flagsrc, fv.data(), kO10Slots * 8, cudaMemcpyHostToDevice));
  cudaStream_t s;
  GT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int it = 0; it < kO10Slots; ++it) {
    o10_issue<<<1, threads, 0, s>>>(a, it, sc, gt::me, gt::peer);
    GT_CUDA(cudaGetLastError());
    if (it % 2 == 0) {
      xshmemx_quiet_on_stream(s);
      if (it % 4 == 0) {
        o10_flag<<<1, 1, 0, s>>>(a.flag + it, uint64_t(it + 1), gt::peer);
        GT_CUDA(cudaGetLastError());
      } else {
        xshmemx_putmem_on_stream(a.flag + it, flagsrc + it, 8, gt::peer, s);
      }
      xshmem_uint64_wait_until(a.flag + it, XSHMEM_CMP_GE, uint64_t(it + 1));
    } else {
      xshmemx_barrier_all_on_stream(s);
    }
    o10_check<<<1, 256, 0, s>>>(a, it, gt::me, gt::from);
    GT_CUDA(cudaGetLastError());
  }
  GT_CUDA(cudaStreamSynchronize(s));
  GT_CUDA(cudaStreamDestroy(s));
  GT_CUDA(cudaFree(flagsrc));
  o10_free(a);
}

// CUDA loads kernels lazily, and a first launch may wait for running kernels: load every kernel
// of this program before any case runs (cuda_api.h, "Rules for kernels").
void load_kernels() {
  const void *k[] = {
      reinterpret_cast<const void *>(&mp_kernel),  reinterpret_cast<const void *>(&fill64_kernel),
      reinterpret_cast<const void *>(&o2_kernel),  reinterpret_cast<const void *>(&o3_kernel),
      reinterpret_cast<const void *>(&o3_verify),  reinterpret_cast<const void *>(&o4_kernel),
      reinterpret_cast<const void *>(&o5_issue),   reinterpret_cast<const void *>(&o5_check),
      reinterpret_cast<const void *>(&o7_kernel),  reinterpret_cast<const void *>(&o8_kernel),
      reinterpret_cast<const void *>(&o10_device), reinterpret_cast<const void *>(&o10_issue),
      reinterpret_cast<const void *>(&o10_check),  reinterpret_cast<const void *>(&o10_flag),
  };
  for (const void *f : k) {
    cudaFuncAttributes attr{};
    GT_CUDA(cudaFuncGetAttributes(&attr, f));
  }
}

}  // namespace

int main() {
  gt::start("gpu_ord");
  load_kernels();
  auto *data = static_cast<uint32_t *>(xshmem_malloc(kMaxWords * sizeof(uint32_t)));
  auto *flags = static_cast<uint64_t *>(xshmem_malloc(2 * sizeof(uint64_t)));
  if (data == nullptr || flags == nullptr) return 1;
  uint32_t *src;
  GT_CUDA(cudaMalloc(&src, kMaxWords * sizeof(uint32_t)));
  char label[96];
  const int mp_iters = gt::scaled(kIters);  // a round trip each
  char mp_count[16];
  if (mp_iters == kIters) {
    snprintf(mp_count, sizeof mp_count, "10^4");
  } else {
    snprintf(mp_count, sizeof mp_count, "x%d", mp_iters);
  }
  for (int scope = 0; scope < 3; ++scope) {
    snprintf(label, sizeof label, "ORD-01 fence message passing %s %s", mp_count,
             kScopeName[scope]);
    gt::run(label, [&] { mp(data, flags, src, scope, mp_iters); });
  }
  GT_CUDA(cudaFree(src));
  xshmem_free(flags);
  xshmem_free(data);
  for (scope_t sc : {kThread, kWarp, kBlock}) {
    const char *c = kScopeName[sc];
    snprintf(label, sizeof label, "ORD-02 fence per destination (all PEs) %s", c);
    gt::run(label, [&] { ord02(sc); });
    snprintf(label, sizeof label, "ORD-03 WAW same address 1B..1MiB+1 %s", c);
    gt::run(label, [&] { ord03(sc); });
    snprintf(label, sizeof label, "ORD-04 quiet transitive visibility %s", c);
    if (need_pes(3, label)) gt::run(label, [&] { ord04(sc); });
    snprintf(label, sizeof label, "ORD-05 quiet completes outstanding nbi %s", c);
    gt::run(label, [&] { ord05(sc); });
    snprintf(label, sizeof label, "ORD-07 device barrier/sync completes %s", c);
    gt::run(label, [&] { ord07(sc); });
    snprintf(label, sizeof label, "ORD-08 local stores + fence/quiet %s", c);
    gt::run(label, [&] { ord08(sc); });
    snprintf(label, sizeof label, "ORD-10 device fence/quiet %s", c);
    gt::run(label, [&] { ord10_device(sc); });
    snprintf(label, sizeof label, "ORD-10 kernel, sync, host quiet/barrier %s", c);
    gt::run(label, [&] { ord10_host(sc); });
    snprintf(label, sizeof label, "ORD-10 quiet/barrier_all_on_stream %s", c);
    gt::run(label, [&] { ord10_stream(sc); });
  }
  return gt::finish();
}
