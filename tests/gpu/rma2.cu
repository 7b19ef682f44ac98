// GPU conformance, RMA rows beyond the sweeps of rma.cu: RMA-04 (strided iput/iget), RMA-06 (nbi
// completion at quiet), RMA-07 (source reuse once a put returns), RMA-08 (self target and zero
// length), RMA-09 (memory kinds of the local buffer) and RMA-10 (disjoint byte-granular writers).
// Columns T, W, B (device threads, warps, blocks) and H (host API on GPU heaps, RMA-09).
//
// Every destination byte is checked: data bytes carry the writer's pattern (gt::pat of the
// writer PE and the byte's index in the source's layout), every other byte of a destination
// region its owner's guard pattern, written before the operation. No kernel here waits on
// another block or on the peer: phases are separated by gt::barrier() (device idle + world
// barrier), so a slow or fast peer cannot deadlock a case.
#include "gpu_test.h"

#include <algorithm>

namespace {

constexpr int kData = 1, kGuard = 2, kPoison = 3, kGet = 4;
constexpr size_t kLead = 64;  // guard bytes before (and at least after) each destination

enum scope_t { kThread, kWarp, kBlock };
const char *scope_name(scope_t s) {
  return s == kThread ? "T" : s == kWarp ? "W" : "B";
}

size_t round_up(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}

__host__ __device__ inline uint32_t mix(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t x = a * 0x9E3779B1u ^ b * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return x;
}

// ---- Groups: one thread (T), a warp (W) or a block (B) issues each operation ------------------

__device__ inline unsigned g_rank(scope_t s) {
  return s == kThread ? 0u
         : s == kWarp ? xshmem::dev::warp_group::rank()
                      : xshmem::dev::block_group::rank();
}
__device__ inline unsigned g_size(scope_t s) {
  return s == kThread ? 1u
         : s == kWarp ? xshmem::dev::warp_group::size()
                      : xshmem::dev::block_group::size();
}
// `s` is the same in every thread of a kernel, so the block barrier is never divergent.
__device__ inline void g_sync(scope_t s) {
  if (s == kWarp) xshmem::dev::warp_group::sync();
  if (s == kBlock) __syncthreads();
}
// Index of the calling thread's group in the grid, and the number of groups.
__device__ inline unsigned g_id(scope_t s) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned linear = xshmem::dev::warp_group::linear();
  if (s == kThread) return blockIdx.x * threads + linear;
  if (s == kWarp) return blockIdx.x * ((threads + 31) / 32) + linear / 32;
  return blockIdx.x;
}
__device__ inline unsigned g_count(scope_t s) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  if (s == kThread) return gridDim.x * threads;
  if (s == kWarp) return gridDim.x * ((threads + 31) / 32);
  return gridDim.x;
}

__device__ inline void g_putmem(scope_t s, void *d, const void *src, size_t n, int pe, bool nbi) {
  if (s == kThread) {
    if (nbi) {
      xshmem_putmem_nbi(d, src, n, pe);
    } else {
      xshmem_putmem(d, src, n, pe);
    }
  } else if (s == kWarp) {
    if (nbi) {
      xshmemx_putmem_nbi_warp(d, src, n, pe);
    } else {
      xshmemx_putmem_warp(d, src, n, pe);
    }
  } else {
    if (nbi) {
      xshmemx_putmem_nbi_block(d, src, n, pe);
    } else {
      xshmemx_putmem_block(d, src, n, pe);
    }
  }
}
__device__ inline void g_getmem(scope_t s, void *d, const void *src, size_t n, int pe, bool nbi) {
  if (s == kThread) {
    if (nbi) {
      xshmem_getmem_nbi(d, src, n, pe);
    } else {
      xshmem_getmem(d, src, n, pe);
    }
  } else if (s == kWarp) {
    if (nbi) {
      xshmemx_getmem_nbi_warp(d, src, n, pe);
    } else {
      xshmemx_getmem_warp(d, src, n, pe);
    }
  } else {
    if (nbi) {
      xshmemx_getmem_nbi_block(d, src, n, pe);
    } else {
      xshmemx_getmem_block(d, src, n, pe);
    }
  }
}
// Typed uint64 forms (n elements; addresses 8-byte aligned).
__device__ inline void g_put64(scope_t s, uint64_t *d, const uint64_t *src, size_t n, int pe,
                               bool nbi) {
  if (s == kThread) {
    if (nbi) {
      xshmem_uint64_put_nbi(d, src, n, pe);
    } else {
      xshmem_uint64_put(d, src, n, pe);
    }
  } else if (s == kWarp) {
    if (nbi) {
      xshmemx_uint64_put_nbi_warp(d, src, n, pe);
    } else {
      xshmemx_uint64_put_warp(d, src, n, pe);
    }
  } else {
    if (nbi) {
      xshmemx_uint64_put_nbi_block(d, src, n, pe);
    } else {
      xshmemx_uint64_put_block(d, src, n, pe);
    }
  }
}
__device__ inline void g_get64(scope_t s, uint64_t *d, const uint64_t *src, size_t n, int pe,
                               bool nbi) {
  if (s == kThread) {
    if (nbi) {
      xshmem_uint64_get_nbi(d, src, n, pe);
    } else {
      xshmem_uint64_get(d, src, n, pe);
    }
  } else if (s == kWarp) {
    if (nbi) {
      xshmemx_uint64_get_nbi_warp(d, src, n, pe);
    } else {
      xshmemx_uint64_get_warp(d, src, n, pe);
    }
  } else {
    if (nbi) {
      xshmemx_uint64_get_nbi_block(d, src, n, pe);
    } else {
      xshmemx_uint64_get_block(d, src, n, pe);
    }
  }
}

// Launch shape per scope where one block is one group (W: one warp; B: a 3D block of 96 threads,
// so its last warp is partial).
dim3 group_block(scope_t s) {
  return s == kThread ? dim3(1) : s == kWarp ? dim3(32) : dim3(8, 4, 3);
}

// ---- Slot layout shared by RMA-07 and RMA-09 ---------------------------------------------------
//
// A buffer of slots, `stride` bytes each. Slot s moves size(s) bytes from byte src(s) of the
// source buffer to byte dst(s) of the destination buffer (the same layout on both sides; with
// `unaligned` the two offsets differ by slot, so source and destination are misaligned to each
// other). Source byte i holds pat(writer, i, salt); a destination byte is pat(writer, the
// matching source index, salt) inside the slot's range, pat(owner, its index, kGuard) elsewhere.
struct layout_t {
  size_t n[4];
  int nsizes;
  int unaligned;
  size_t stride;
  __host__ __device__ size_t size(size_t s) const { return n[s % nsizes]; }
  __host__ __device__ size_t doff(size_t s) const { return kLead + (unaligned ? (s * 5) % 16 : 0); }
  __host__ __device__ size_t soff(size_t s) const {
    return kLead + (unaligned ? (s * 3 + 7) % 16 : 0);
  }
  __host__ __device__ size_t dst(size_t s) const { return s * stride + doff(s); }
  __host__ __device__ size_t src(size_t s) const { return s * stride + soff(s); }
  __host__ __device__ uint8_t expected(size_t b, int owner, int writer, int salt) const {
    size_t s = b / stride, r = b % stride, d0 = doff(s);
    if (r >= d0 && r < d0 + size(s)) return gt::pat(writer, src(s) + (r - d0), salt);
    return gt::pat(owner, b, kGuard);
  }
};

layout_t make_layout(std::initializer_list<size_t> sizes, bool unaligned) {
  layout_t l{};
  size_t m = 0;
  for (size_t n : sizes) {
    l.n[l.nsizes++] = n;
    if (n > m) m = n;
  }
  l.unaligned = unaligned ? 1 : 0;
  l.stride = round_up(m + 15 + 2 * kLead, 256);
  return l;
}

__global__ void verify_layout_kernel(const uint8_t *buf, size_t slots, layout_t l, int owner,
                                     int writer, int salt) {
  size_t total = slots * l.stride;
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < total;
       b += size_t(gridDim.x) * blockDim.x) {
    uint8_t e = l.expected(b, owner, writer, salt);
    GT_CHECK(buf[b] == e, b, e, buf[b]);
  }
}
// `buf` is device memory (any PE's mapping of it is not needed: the owner checks its own).
void verify_layout(const uint8_t *buf, size_t slots, const layout_t &l, int owner, int writer,
                   int salt) {
  verify_layout_kernel<<<264, 256>>>(buf, slots, l, owner, writer, salt);
  gt::device_sync("verify layout");
}
// `buf` is host memory.
void verify_layout_host(const uint8_t *buf, size_t slots, const layout_t &l, int owner, int writer,
                        int salt) {
  size_t total = slots * l.stride;
  for (size_t b = 0; b < total; ++b) {
    uint8_t e = l.expected(b, owner, writer, salt);
    GT_CHECK(buf[b] == e, b, e, buf[b]);
  }
}

// Shared-memory staging area of the kernels with a __shared__ source or destination: one slot.
constexpr size_t kShBytes = 12544;

struct Buffers {
  uint8_t *symA = nullptr, *symB = nullptr, *symC = nullptr;  // symmetric
  uint8_t *src = nullptr, *loc = nullptr, *out = nullptr;     // private, device (cudaMalloc)
};
constexpr size_t kSymBytes = 64u << 20, kSymCBytes = 16u << 20;
constexpr size_t kLocalBytes = 64u << 20, kOutBytes = 16u << 20;

// ---- RMA-04: strided iput/iget -----------------------------------------------------------------
//
// One launch per (variant, nelems): block c (25 of them, one thread each) runs one iput (iget)
// with dst stride st[c / 5] and src stride st[c % 5] on its own slot. Element k goes from source
// element k * sst to destination element k * dst; every other element of the slot window, and
// the slot's lead/tail, keeps its guard.

constexpr int kNStrides = 5;
struct strides_t {
  long v[kNStrides];
};
strides_t strides_for(size_t n) {
  return strides_t{{1, 2, 3, 7, n <= 100 ? long(n) + 1 : 33}};
}
size_t extent(size_t n, long stride) {
  return n == 0 ? 1 : size_t(stride) * (n - 1) + 1;
}

// Variants: sized 8/16/32/64/128 and typed short/int/long.
constexpr int kNStridedVariants = 8;
const char *const kStridedName[kNStridedVariants] = {
    "iput8/iget8",     "iput16/iget16",         "iput32/iget32",     "iput64/iget64",
    "iput128/iget128", "short_iput/short_iget", "int_iput/int_iget", "long_iput/long_iget"};
const size_t kStridedEs[kNStridedVariants] = {1, 2, 4, 8, 16, 2, 4, 8};

// scope: 0 one thread per block (T), 1 a warp of 32 calls the _warp form (W), 2 a block of 96
// calls the _block form (B).
#define GT_STRIDED(OP, v, scope, d, s, ds, ss, n, pe)                                              \
  switch (v) {                                                                                     \
    case 0:                                                                                        \
      GT_SCOPED(OP##8, scope, d, s, ds, ss, n, pe);                                                \
      break;                                                                                       \
    case 1:                                                                                        \
      GT_SCOPED(OP##16, scope, d, s, ds, ss, n, pe);                                               \
      break;                                                                                       \
    case 2:                                                                                        \
      GT_SCOPED(OP##32, scope, d, s, ds, ss, n, pe);                                               \
      break;                                                                                       \
    case 3:                                                                                        \
      GT_SCOPED(OP##64, scope, d, s, ds, ss, n, pe);                                               \
      break;                                                                                       \
    case 4:                                                                                        \
      GT_SCOPED(OP##128, scope, d, s, ds, ss, n, pe);                                              \
      break;                                                                                       \
    case 5:                                                                                        \
      GT_SCOPED(short_##OP, scope, reinterpret_cast<short *>(d),                                   \
                reinterpret_cast<const short *>(s), ds, ss, n, pe);                                \
      break;                                                                                       \
    case 6:                                                                                        \
      GT_SCOPED(int_##OP, scope, reinterpret_cast<int *>(d), reinterpret_cast<const int *>(s), ds, \
                ss, n, pe);                                                                        \
      break;                                                                                       \
    default:                                                                                       \
      GT_SCOPED(long_##OP, scope, reinterpret_cast<long *>(d), reinterpret_cast<const long *>(s),  \
                ds, ss, n, pe);                                                                    \
      break;                                                                                       \
  }
#define GT_SCOPED(F, scope, ...)        \
  do {                                  \
    if ((scope) == 0)                   \
      xshmem_##F(__VA_ARGS__);          \
    else if ((scope) == 1)              \
      xshmemx_##F##_warp(__VA_ARGS__);  \
    else                                \
      xshmemx_##F##_block(__VA_ARGS__); \
  } while (0)

__global__ void iput_kernel(int v, int scope, uint8_t *sym, const uint8_t *src, size_t n,
                            strides_t st, size_t stride, int pe) {
  const int c = blockIdx.x;
  const ptrdiff_t ds = st.v[c / kNStrides], ss = st.v[c % kNStrides];
  uint8_t *d = sym + c * stride + kLead;
  const uint8_t *s = src + c * stride + kLead;
  GT_STRIDED(iput, v, scope, d, s, ds, ss, n, pe)
}
__global__ void iget_kernel(int v, int scope, uint8_t *loc, const uint8_t *sym, size_t n,
                            strides_t st, size_t stride, int pe) {
  const int c = blockIdx.x;
  const ptrdiff_t ds = st.v[c / kNStrides], ss = st.v[c % kNStrides];
  uint8_t *d = loc + c * stride + kLead;
  const uint8_t *s = sym + c * stride + kLead;
  GT_STRIDED(iget, v, scope, d, s, ds, ss, n, pe)
}
#undef GT_STRIDED
#undef GT_SCOPED

__global__ void verify_strided_kernel(const uint8_t *buf, size_t n, size_t es, strides_t st,
                                      size_t stride, int owner, int writer) {
  size_t total = size_t(kNStrides) * kNStrides * stride;
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < total;
       b += size_t(gridDim.x) * blockDim.x) {
    size_t c = b / stride, r = b % stride;
    size_t ds = size_t(st.v[c / kNStrides]), ss = size_t(st.v[c % kNStrides]);
    uint8_t e = gt::pat(owner, b, kGuard);
    if (r >= kLead) {
      size_t j = (r - kLead) / es, q = (r - kLead) % es;
      if (j % ds == 0 && j / ds < n) {
        e = gt::pat(writer, c * stride + kLead + (j / ds) * ss * es + q, kData);
      }
    }
    GT_CHECK(buf[b] == e, b, e, buf[b]);
  }
}

void rma04(Buffers &b, int v, int scope) {
  const int threads = scope == 0 ? 1 : (scope == 1 ? 32 : 96);
  // Every element is a proxy request, a round trip of time slices where PEs share a GPU over a
  // proxy transport (~100 ms): the largest count there is 5 (gt::proxy_shared; 100 elements x 25
  // slots took 24 s per case).
  const size_t nelems[] = {0, 1, 5, 100, 4099};
  const size_t es = kStridedEs[v];
  for (size_t n : nelems) {
    if (n > 5 && gt::proxy_shared()) continue;
    strides_t st = strides_for(n);
    size_t max_ext = 0;
    for (long s : st.v) max_ext = std::max(max_ext, extent(n, s));
    const size_t stride = round_up(2 * kLead + max_ext * es, 256);
    const size_t span = size_t(kNStrides) * kNStrides * stride;
    if (span > kSymBytes) {
      GT_CHECK(false, span, kSymBytes, span);
      return;
    }
    // iput: private source -> the peer's symmetric slots.
    gt::fill(b.symA, span, gt::me, kGuard);
    gt::fill(b.src, span, gt::me, kData);
    gt::barrier();
    iput_kernel<<<kNStrides * kNStrides, threads>>>(v, scope, b.symA, b.src, n, st, stride,
                                                    gt::peer);
    gt::barrier();
    verify_strided_kernel<<<264, 256>>>(b.symA, n, es, st, stride, gt::me, gt::from);
    gt::device_sync("verify iput");
    // iget: the peer's symmetric slots -> private slots.
    gt::fill(b.symB, span, gt::me, kData);
    gt::fill(b.loc, span, gt::me, kGuard);
    gt::barrier();
    iget_kernel<<<kNStrides * kNStrides, threads>>>(v, scope, b.loc, b.symB, n, st, stride,
                                                    gt::peer);
    gt::device_sync("iget kernel");
    verify_strided_kernel<<<264, 256>>>(b.loc, n, es, st, stride, gt::me, gt::peer);
    gt::device_sync("verify iget");
    gt::barrier();  // the peer's gets of symB are done before symB is refilled
  }
}

// ---- RMA-06: many put_nbi/get_nbi to every PE, one quiet ---------------------------------------
//
// Group g issues kper operations to every PE t (itself included): op k = g * kper + kk puts
// size6(me, t, k) bytes into slot (me, k) of t's dst and gets size6(t, me, k + K) bytes of slot k
// of t's gsrc into its own got slot (t, k). Odd k use the typed uint64 interface. After one
// quiet per thread the group checks its got data, then overwrites its put sources; after the
// kernel and a barrier every PE checks every slot of dst (data from each sender, guards) and got.

constexpr size_t kSlot6 = 4096;
__host__ __device__ inline size_t size6(int src, int dst, size_t k) {
  size_t s = 1 + mix(uint32_t(src), uint32_t(dst), uint32_t(k)) % (kSlot6 - 2 * kLead - 8);
  return k % 2 ? (s + 7) / 8 * 8 : s;
}

__global__ void rma06_kernel(scope_t scope, uint8_t *dst, uint8_t *src, uint8_t *got,
                             const uint8_t *gsrc, unsigned kper, int me, int npes) {
  const unsigned g = g_id(scope), rank = g_rank(scope), size = g_size(scope);
  const size_t K = size_t(g_count(scope)) * kper;
  for (int i = 0; i < npes; ++i) {
    const int t = (me + 1 + i) % npes;
    for (unsigned kk = 0; kk < kper; ++kk) {
      const size_t k = size_t(g) * kper + kk;
      const size_t sz = size6(me, t, k), gsz = size6(t, me, k + K);
      uint8_t *d = dst + (size_t(me) * K + k) * kSlot6 + kLead;
      const uint8_t *s = src + (size_t(t) * K + k) * kSlot6 + kLead;
      uint8_t *gd = got + (size_t(t) * K + k) * kSlot6 + kLead;
      const uint8_t *gs = gsrc + k * kSlot6 + kLead;
      if (k % 2) {
        g_put64(scope, reinterpret_cast<uint64_t *>(d), reinterpret_cast<const uint64_t *>(s),
                sz / 8, t, true);
        g_get64(scope, reinterpret_cast<uint64_t *>(gd), reinterpret_cast<const uint64_t *>(gs),
                gsz / 8, t, true);
      } else {
        g_putmem(scope, d, s, sz, t, true);
        g_getmem(scope, gd, gs, gsz, t, true);
      }
    }
  }
  xshmem_quiet();
  g_sync(scope);
  // After quiet: the gets' data is here ...
  for (int t = 0; t < npes; ++t) {
    for (unsigned kk = 0; kk < kper; ++kk) {
      const size_t k = size_t(g) * kper + kk, gsz = size6(t, me, k + K);
      const size_t at = (size_t(t) * K + k) * kSlot6 + kLead;
      for (size_t j = rank; j < gsz; j += size) {
        uint8_t e = gt::pat(t, k * kSlot6 + kLead + j, kGet);
        GT_CHECK(got[at + j] == e, at + j, e, got[at + j]);
      }
    }
  }
  // ... and the put sources may be reused: overwriting them must not change any target.
  for (int t = 0; t < npes; ++t) {
    for (unsigned kk = 0; kk < kper; ++kk) {
      const size_t k = size_t(g) * kper + kk, sz = size6(me, t, k);
      const size_t at = (size_t(t) * K + k) * kSlot6 + kLead;
      for (size_t j = rank; j < sz; j += size) src[at + j] = gt::pat(me, at + j, kPoison);
    }
  }
}

// dst on PE me: slot (s, k) holds size6(s, me, k) bytes from s's source slot (me, k).
__global__ void verify06_dst_kernel(const uint8_t *dst, size_t K, int me, int npes) {
  size_t total = size_t(npes) * K * kSlot6;
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < total;
       b += size_t(gridDim.x) * blockDim.x) {
    size_t slot = b / kSlot6, r = b % kSlot6;
    int s = int(slot / K);
    size_t k = slot % K;
    uint8_t e = gt::pat(me, b, kGuard);
    if (r >= kLead && r < kLead + size6(s, me, k)) {
      e = gt::pat(s, (size_t(me) * K + k) * kSlot6 + r, kData);
    }
    GT_CHECK(dst[b] == e, b, e, dst[b]);
  }
}
// got on PE me: slot (t, k) holds size6(t, me, k + K) bytes of t's gsrc slot k.
__global__ void verify06_got_kernel(const uint8_t *got, size_t K, int me, int npes) {
  size_t total = size_t(npes) * K * kSlot6;
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < total;
       b += size_t(gridDim.x) * blockDim.x) {
    size_t slot = b / kSlot6, r = b % kSlot6;
    int t = int(slot / K);
    size_t k = slot % K;
    uint8_t e = gt::pat(me, b, kGuard);
    if (r >= kLead && r < kLead + size6(t, me, k + K)) e = gt::pat(t, k * kSlot6 + r, kGet);
    GT_CHECK(got[b] == e, b, e, got[b]);
  }
}

void rma06(Buffers &b, scope_t scope) {
  // T: 512 threads, 2 ops each per PE; W: 32 warps, 8 each; B: 16 blocks of 96 threads, 16 each.
  unsigned blocks = scope == kBlock ? 16 : 8, kper = scope == kThread ? 2 : scope == kWarp ? 8 : 16;
  dim3 shape = scope == kThread ? dim3(64) : scope == kWarp ? dim3(128) : dim3(8, 4, 3);
  size_t groups = scope == kThread ? blocks * 64 : scope == kWarp ? blocks * 4 : blocks;
  const size_t K = groups * kper, span = size_t(gt::npes) * K * kSlot6;
  if (span > kSymBytes || span > kLocalBytes) {
    GT_CHECK(false, span, kSymBytes, span);
    return;
  }
  gt::fill(b.symA, span, gt::me, kGuard);      // dst
  gt::fill(b.symB, K * kSlot6, gt::me, kGet);  // gsrc
  gt::fill(b.src, span, gt::me, kData);
  gt::fill(b.loc, span, gt::me, kGuard);  // got
  gt::barrier();
  rma06_kernel<<<blocks, shape>>>(scope, b.symA, b.src, b.loc, b.symB, kper, gt::me, gt::npes);
  gt::barrier();
  verify06_dst_kernel<<<264, 256>>>(b.symA, K, gt::me, gt::npes);
  verify06_got_kernel<<<264, 256>>>(b.loc, K, gt::me, gt::npes);
  gt::device_sync("verify RMA-06");
}

// ---- RMA-07: the source may be reused as soon as a put returns ---------------------------------
//
// Each block is one group with one source area (global memory, or __shared__) that it reuses
// for every put: fill it with the slot's data, put (blocking putmem, blocking uint64_put, or
// putmem_nbi + quiet), then overwrite it at once with poison, and go on with the next slot. The
// peer must hold the data of every slot, never poison.

constexpr int kIters7 = 4, kModes7 = 3;

__global__ void rma07_kernel(scope_t scope, int shared_src, uint8_t *dst, uint8_t *gsrc, layout_t l,
                             int me, int peer) {
  __shared__ __align__(16) uint8_t sh[kShBytes];
  const unsigned g = blockIdx.x, rank = g_rank(scope), size = g_size(scope);
  uint8_t *area = shared_src ? sh : gsrc + size_t(g) * l.stride;
  for (int it = 0; it < kIters7; ++it) {
    for (int mode = 0; mode < kModes7; ++mode) {
      for (int si = 0; si < l.nsizes; ++si) {
        const size_t s = ((size_t(g) * kIters7 + it) * kModes7 + mode) * l.nsizes + si;
        const size_t n = l.size(s);
        uint8_t *p = area + l.soff(s);
        for (size_t j = rank; j < n; j += size) p[j] = gt::pat(me, l.src(s) + j, kData);
        g_sync(scope);
        if (mode == 0) {
          g_putmem(scope, dst + l.dst(s), p, n, peer, false);
        } else if (mode == 1) {
          g_put64(scope, reinterpret_cast<uint64_t *>(dst + l.dst(s)),
                  reinterpret_cast<const uint64_t *>(p), n / 8, peer, false);
        } else {
          g_putmem(scope, dst + l.dst(s), p, n, peer, true);
          xshmem_quiet();
        }
        // Returned (nbi: quiet returned): the source may be reused at once.
        for (size_t j = rank; j < n; j += size) p[j] = gt::pat(me, l.src(s) + j, kPoison);
        g_sync(scope);  // every poison store is done before the next slot's fill
      }
    }
  }
}

void rma07(Buffers &b, scope_t scope, bool shared_src) {
  // Where PEs share a GPU over a proxy transport, a __shared__ source travels in 32-byte request
  // pieces, each waiting for the GPU's time slices: one block and 4104 bytes at most there.
  const bool narrow = shared_src && gt::proxy_shared();
  const unsigned blocks = narrow ? 1 : 4;
  layout_t l = shared_src ? make_layout({8, 1000, narrow ? size_t(4104) : size_t(12296)}, false)
                          : make_layout({8, 1000, 65544}, false);
  const size_t slots = size_t(blocks) * kIters7 * kModes7 * l.nsizes;
  if ((shared_src && l.stride > kShBytes) || slots * l.stride > kSymBytes) {
    GT_CHECK(false, l.stride, kShBytes, slots * l.stride);
    return;
  }
  gt::fill(b.symA, slots * l.stride, gt::me, kGuard);
  GT_CUDA(cudaMemset(b.src, 0, blocks * l.stride));
  gt::barrier();
  rma07_kernel<<<blocks, group_block(scope)>>>(scope, shared_src ? 1 : 0, b.symA, b.src, l, gt::me,
                                               gt::peer);
  gt::barrier();
  verify_layout(b.symA, slots, l, gt::me, gt::from, kData);
}

// ---- RMA-08: self target and zero length -------------------------------------------------------
//
// int64 slots of 64 elements, data at elements [8, 27). T: slot 0 int64_put, 1 int64_put_nbi,
// 2 putmem, 3 put64, 4 int64_p per element, 5 int64_iput (dst 1, src 2, 9 elements), 6 put64_nbi,
// 7 iput64 (dst 2, src 1, 9 elements), all to this PE itself; the same slots of `loc` get from
// this PE's gsrc with the matching get forms. W/B: slots 0-3 with int64_put(_nbi)_warp/_block and
// putmem(_nbi)_warp/_block (and the get forms). Then zero-length operations of every kind, with
// NULL and with valid pointers (slot 8), to this PE and to the peer: nothing may change anywhere.

constexpr int kSlots8 = 10, kElems8 = 64, kHead8 = 8, kN8 = 19;

// The source element (relative to the slot's data start) that element i of slot s receives, or
// -1 (guard).
__host__ __device__ inline int src_elem8(scope_t scope, int s, int i) {
  if (i < 0) return -1;
  if (scope != kThread && s >= 4) return -1;
  if (s >= 8) return -1;
  if (s == 5) return i < 9 ? 2 * i : -1;
  if (s == 7) return i < 17 && i % 2 == 0 ? i / 2 : -1;
  return i < kN8 ? i : -1;
}

__global__ void rma08_kernel(scope_t scope, int64_t *dst, const int64_t *src, int64_t *loc,
                             const int64_t *gsrc, int me, int peer) {
  auto D = [&](int s) { return dst + s * kElems8 + kHead8; };
  auto S = [&](int s) { return src + s * kElems8 + kHead8; };
  auto L = [&](int s) { return loc + s * kElems8 + kHead8; };
  auto G = [&](int s) { return gsrc + s * kElems8 + kHead8; };
  if (scope == kThread) {
    xshmem_int64_put(D(0), S(0), kN8, me);
    xshmem_int64_put_nbi(D(1), S(1), kN8, me);
    xshmem_putmem(D(2), S(2), kN8 * 8, me);
    xshmem_put64(D(3), S(3), kN8, me);
    for (int i = 0; i < kN8; ++i) xshmem_int64_p(D(4) + i, S(4)[i], me);
    xshmem_int64_iput(D(5), S(5), 1, 2, 9, me);
    xshmem_put64_nbi(D(6), S(6), kN8, me);
    xshmem_iput64(D(7), S(7), 2, 1, 9, me);
    xshmem_int64_get(L(0), G(0), kN8, me);
    xshmem_int64_get_nbi(L(1), G(1), kN8, me);
    xshmem_getmem(L(2), G(2), kN8 * 8, me);
    xshmem_get64(L(3), G(3), kN8, me);
    for (int i = 0; i < kN8; ++i) L(4)[i] = xshmem_int64_g(G(4) + i, me);
    xshmem_int64_iget(L(5), G(5), 1, 2, 9, me);
    xshmem_getmem_nbi(L(6), G(6), kN8 * 8, me);
    xshmem_iget64(L(7), G(7), 2, 1, 9, me);
    xshmem_quiet();
    const int pes[2] = {me, peer};
    for (int pe : pes) {
      xshmem_putmem(nullptr, nullptr, 0, pe);
      xshmem_putmem(D(8), S(8), 0, pe);
      xshmem_getmem(nullptr, nullptr, 0, pe);
      xshmem_getmem(L(8), G(8), 0, pe);
      xshmem_putmem_nbi(nullptr, nullptr, 0, pe);
      xshmem_putmem_nbi(D(8), S(8), 0, pe);
      xshmem_getmem_nbi(nullptr, nullptr, 0, pe);
      xshmem_getmem_nbi(L(8), G(8), 0, pe);
      xshmem_int64_put(nullptr, nullptr, 0, pe);
      xshmem_int64_put(D(8), S(8), 0, pe);
      xshmem_int64_get(nullptr, nullptr, 0, pe);
      xshmem_int64_get(L(8), G(8), 0, pe);
      xshmem_int64_put_nbi(nullptr, nullptr, 0, pe);
      xshmem_int64_get_nbi(L(8), G(8), 0, pe);
      xshmem_put32(nullptr, nullptr, 0, pe);
      xshmem_get128(nullptr, nullptr, 0, pe);
      xshmem_put16_nbi(D(8), S(8), 0, pe);
      xshmem_get8_nbi(nullptr, nullptr, 0, pe);
      xshmem_int64_iput(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_int64_iput(D(8), S(8), 2, 3, 0, pe);
      xshmem_int64_iget(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_int64_iget(L(8), G(8), 3, 2, 0, pe);
      xshmem_iput64(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_iget32(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_iput128(D(8), S(8), 1, 1, 0, pe);
      xshmem_iget16(L(8), G(8), 1, 1, 0, pe);
    }
    xshmem_quiet();
    return;
  }
  const bool warp = scope == kWarp;
  if (warp) {
    xshmemx_int64_put_warp(D(0), S(0), kN8, me);
    xshmemx_int64_put_nbi_warp(D(1), S(1), kN8, me);
    xshmemx_putmem_warp(D(2), S(2), kN8 * 8, me);
    xshmemx_putmem_nbi_warp(D(3), S(3), kN8 * 8, me);
    xshmemx_int64_get_warp(L(0), G(0), kN8, me);
    xshmemx_int64_get_nbi_warp(L(1), G(1), kN8, me);
    xshmemx_getmem_warp(L(2), G(2), kN8 * 8, me);
    xshmemx_getmem_nbi_warp(L(3), G(3), kN8 * 8, me);
  } else {
    xshmemx_int64_put_block(D(0), S(0), kN8, me);
    xshmemx_int64_put_nbi_block(D(1), S(1), kN8, me);
    xshmemx_putmem_block(D(2), S(2), kN8 * 8, me);
    xshmemx_putmem_nbi_block(D(3), S(3), kN8 * 8, me);
    xshmemx_int64_get_block(L(0), G(0), kN8, me);
    xshmemx_int64_get_nbi_block(L(1), G(1), kN8, me);
    xshmemx_getmem_block(L(2), G(2), kN8 * 8, me);
    xshmemx_getmem_nbi_block(L(3), G(3), kN8 * 8, me);
  }
  xshmem_quiet();
  const int pes[2] = {me, peer};
  for (int pe : pes) {
    if (warp) {
      xshmemx_putmem_warp(nullptr, nullptr, 0, pe);
      xshmemx_putmem_warp(D(8), S(8), 0, pe);
      xshmemx_getmem_warp(nullptr, nullptr, 0, pe);
      xshmemx_getmem_warp(L(8), G(8), 0, pe);
      xshmemx_putmem_nbi_warp(nullptr, nullptr, 0, pe);
      xshmemx_getmem_nbi_warp(L(8), G(8), 0, pe);
      xshmemx_int64_put_warp(nullptr, nullptr, 0, pe);
      xshmemx_int64_get_nbi_warp(L(8), G(8), 0, pe);
    } else {
      xshmemx_putmem_block(nullptr, nullptr, 0, pe);
      xshmemx_putmem_block(D(8), S(8), 0, pe);
      xshmemx_getmem_block(nullptr, nullptr, 0, pe);
      xshmemx_getmem_block(L(8), G(8), 0, pe);
      xshmemx_putmem_nbi_block(nullptr, nullptr, 0, pe);
      xshmemx_getmem_nbi_block(L(8), G(8), 0, pe);
      xshmemx_int64_put_block(nullptr, nullptr, 0, pe);
      xshmemx_int64_get_nbi_block(L(8), G(8), 0, pe);
    }
  }
  xshmem_quiet();
}

// Checks `got` (a host copy of kSlots8 slots): element data from `pe`'s `salt` pattern where
// src_elem8 says so, `owner`'s guard elsewhere (byte-wise).
void check08(const std::vector<uint8_t> &got, scope_t scope, int owner, int pe, int salt) {
  for (size_t b = 0; b < got.size(); ++b) {
    int s = int(b / (kElems8 * 8));
    int e = int(b / 8 % kElems8);
    int m = src_elem8(scope, s, e - kHead8);
    uint8_t x = m < 0 ? gt::pat(owner, b, kGuard)
                      : gt::pat(pe, (size_t(s) * kElems8 + kHead8 + m) * 8 + b % 8, salt);
    GT_CHECK(got[b] == x, b, x, got[b]);
  }
}

void rma08(Buffers &b, scope_t scope) {
  const size_t bytes = size_t(kSlots8) * kElems8 * 8;
  gt::fill(b.symA, bytes, gt::me, kGuard);  // dst
  gt::fill(b.symB, bytes, gt::me, kGet);    // gsrc
  gt::fill(b.src, bytes, gt::me, kData);
  gt::fill(b.loc, bytes, gt::me, kGuard);
  gt::barrier();
  rma08_kernel<<<1, group_block(scope)>>>(
      scope, reinterpret_cast<int64_t *>(b.symA), reinterpret_cast<const int64_t *>(b.src),
      reinterpret_cast<int64_t *>(b.loc), reinterpret_cast<const int64_t *>(b.symB), gt::me,
      gt::peer);
  gt::barrier();  // the peer's zero-length operations to this PE are done too
  std::vector<uint8_t> got(bytes);
  GT_CUDA(cudaMemcpy(got.data(), b.symA, bytes, cudaMemcpyDeviceToHost));
  check08(got, scope, gt::me, gt::me, kData);
  GT_CUDA(cudaMemcpy(got.data(), b.loc, bytes, cudaMemcpyDeviceToHost));
  check08(got, scope, gt::me, gt::me, kGet);
  // The get sources are unchanged.
  GT_CUDA(cudaMemcpy(got.data(), b.symB, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t x = gt::pat(gt::me, i, kGet);
    GT_CHECK(got[i] == x, i, x, got[i]);
  }
}

// ---- RMA-09: memory kinds of the local buffer --------------------------------------------------
//
// Device: slot s (one block each) puts size(s) bytes from a source in global memory (cudaMalloc,
// not symmetric), in __shared__ memory, or in this PE's symmetric heap, to the peer's symmetric
// heap (blocking for the first half of the slots, nbi + quiet for the second); gets go the other
// way, into a destination of the same kinds (shared: staged in __shared__ with its guard, then
// copied out for checking). Host: the same with pageable (malloc), pinned (cudaMallocHost) and
// device (cudaMalloc) memory; blocking puts' sources are overwritten as soon as the call
// returns, nbi ones after quiet.

enum kind_t { kGlobal, kShared, kSymmetric };
const char *kind_name(kind_t k) {
  return k == kGlobal ? "global" : k == kShared ? "shared" : "symmetric";
}

__global__ void rma09_put_kernel(scope_t scope, kind_t kind, uint8_t *dst, const uint8_t *src,
                                 layout_t l, int me, int peer) {
  __shared__ __align__(16) uint8_t sh[kShBytes];
  const size_t s = blockIdx.x, n = l.size(s);
  const bool nbi = (s / l.nsizes) % 2 == 1;
  const unsigned rank = g_rank(scope), size = g_size(scope);
  const uint8_t *p = src + l.src(s);
  if (kind == kShared) {
    for (size_t j = rank; j < n; j += size) sh[l.soff(s) + j] = gt::pat(me, l.src(s) + j, kData);
    g_sync(scope);
    p = sh + l.soff(s);
  }
  g_putmem(scope, dst + l.dst(s), p, n, peer, nbi);
  if (nbi) xshmem_quiet();
}

__global__ void rma09_get_kernel(scope_t scope, kind_t kind, uint8_t *loc, uint8_t *out,
                                 const uint8_t *gsrc, layout_t l, int me, int peer) {
  __shared__ __align__(16) uint8_t sh[kShBytes];
  const size_t s = blockIdx.x, n = l.size(s);
  const bool nbi = (s / l.nsizes) % 2 == 1;
  const unsigned rank = g_rank(scope), size = g_size(scope);
  if (kind != kShared) {
    g_getmem(scope, loc + l.dst(s), gsrc + l.src(s), n, peer, nbi);
    if (nbi) xshmem_quiet();
    return;
  }
  for (size_t r = rank; r < l.stride; r += size) sh[r] = gt::pat(me, s * l.stride + r, kGuard);
  g_sync(scope);
  g_getmem(scope, sh + l.doff(s), gsrc + l.src(s), n, peer, nbi);
  if (nbi) xshmem_quiet();
  g_sync(scope);
  for (size_t r = rank; r < l.stride; r += size) out[s * l.stride + r] = sh[r];
}

void rma09_device(Buffers &b, scope_t scope, kind_t kind) {
  // A __shared__ buffer travels in 32-byte request pieces over a proxy transport: where PEs share
  // a GPU there (each piece waits for time slices), the sizes stop at 4101 bytes.
  layout_t l = kind != kShared      ? make_layout({1, 13, 4101, 1048579}, true)
               : gt::proxy_shared() ? make_layout({1, 13, 4101}, true)
                                    : make_layout({1, 13, 4101, 12289}, true);
  const size_t slots = 2 * size_t(l.nsizes), span = slots * l.stride;
  if ((kind == kShared && l.stride > kShBytes) || span > kSymCBytes) {
    GT_CHECK(false, l.stride, kShBytes, span);
    return;
  }
  // Put: source of the kind -> the peer's symA.
  uint8_t *src = kind == kSymmetric ? b.symB : b.src;
  gt::fill(b.symA, span, gt::me, kGuard);
  if (kind != kShared) gt::fill(src, span, gt::me, kData);
  gt::barrier();
  rma09_put_kernel<<<unsigned(slots), group_block(scope)>>>(scope, kind, b.symA, src, l, gt::me,
                                                            gt::peer);
  gt::barrier();
  verify_layout(b.symA, slots, l, gt::me, gt::from, kData);
  gt::barrier();  // symB may be this PE's put source above and the peer's get source below
  // Get: the peer's symB -> destination of the kind.
  uint8_t *loc = kind == kSymmetric ? b.symC : kind == kShared ? b.out : b.loc;
  gt::fill(b.symB, span, gt::me, kGet);
  if (kind != kShared) gt::fill(loc, span, gt::me, kGuard);
  GT_CUDA(cudaMemset(b.out, 0, span));
  gt::barrier();
  rma09_get_kernel<<<unsigned(slots), group_block(scope)>>>(scope, kind, loc, b.out, b.symB, l,
                                                            gt::me, gt::peer);
  gt::device_sync("RMA-09 get kernel");
  verify_layout(kind == kShared ? b.out : loc, slots, l, gt::me, gt::peer, kGet);
  gt::barrier();  // the peer's gets of symB are done before symB is refilled
}

enum host_kind_t { kPageable, kPinned, kDeviceMem };
const char *host_kind_name(host_kind_t k) {
  return k == kPageable ? "pageable" : k == kPinned ? "pinned" : "cudaMalloc";
}

void rma09_host(Buffers &b, host_kind_t kind) {
  layout_t l = make_layout({1, 13, 4101, 262147}, true);
  const size_t slots = 2 * size_t(l.nsizes), span = slots * l.stride;
  uint8_t *buf = nullptr;
  if (kind == kPageable) {
    buf = static_cast<uint8_t *>(malloc(span));
    if (buf == nullptr) {
      GT_CHECK(false, span, 1, 0);
      return;
    }
  } else if (kind == kPinned) {
    GT_CUDA(cudaMallocHost(&buf, span));
  } else {
    buf = b.src;
  }
  const bool host_mem = kind != kDeviceMem;
  auto poison = [&](size_t s) {
    if (host_mem) {
      for (size_t j = 0; j < l.size(s); ++j) buf[l.src(s) + j] = gt::pat(gt::me, j, kPoison);
    } else {
      GT_CUDA(cudaMemset(buf + l.src(s), 0xA5, l.size(s)));
    }
  };
  // Put: buf -> the peer's symA.
  gt::fill(b.symA, span, gt::me, kGuard);
  if (host_mem) {
    for (size_t i = 0; i < span; ++i) buf[i] = gt::pat(gt::me, i, kData);
  } else {
    gt::fill(buf, span, gt::me, kData);
  }
  gt::barrier();
  for (size_t s = 0; s < slots; ++s) {
    if ((s / l.nsizes) % 2 == 0) {
      xshmem_putmem(b.symA + l.dst(s), buf + l.src(s), l.size(s), gt::peer);
      poison(s);  // blocking put returned: the source is reusable
    } else {
      xshmem_putmem_nbi(b.symA + l.dst(s), buf + l.src(s), l.size(s), gt::peer);
    }
  }
  xshmem_quiet();
  for (size_t s = 0; s < slots; ++s) {
    if ((s / l.nsizes) % 2 == 1) poison(s);
  }
  gt::barrier();
  verify_layout(b.symA, slots, l, gt::me, gt::from, kData);
  gt::barrier();
  // Get: the peer's symB -> buf (blocking for the first half, nbi + quiet for the second).
  gt::fill(b.symB, span, gt::me, kGet);
  if (host_mem) {
    for (size_t i = 0; i < span; ++i) buf[i] = gt::pat(gt::me, i, kGuard);
  } else {
    gt::fill(buf, span, gt::me, kGuard);
  }
  gt::barrier();
  for (size_t s = 0; s < slots; ++s) {
    if ((s / l.nsizes) % 2 == 0) {
      xshmem_getmem(buf + l.dst(s), b.symB + l.src(s), l.size(s), gt::peer);
    } else {
      xshmem_getmem_nbi(buf + l.dst(s), b.symB + l.src(s), l.size(s), gt::peer);
    }
  }
  xshmem_quiet();
  if (host_mem) {
    verify_layout_host(buf, slots, l, gt::me, gt::peer, kGet);
  } else {
    verify_layout(buf, slots, l, gt::me, gt::peer, kGet);
  }
  gt::barrier();
  if (kind == kPageable) free(buf);
  if (kind == kPinned) GT_CUDA(cudaFreeHost(buf));
}

// ---- RMA-10: disjoint writers, byte granular ---------------------------------------------------
//
// Every group of every PE writes w-byte slices into every PE's buffer (itself included): slice
// r * NW + g * npes + me, so neighbouring slices always belong to different PEs and all PEs
// write the same buffer at once. A PE writes target t's slices from its own source region t, so
// the data depends on writer and target. Afterwards every byte of the buffer is its writer's and
// the lead/tail guards are intact.

struct rma10_t {
  size_t w, rows, nw, len;  // slice width, rows, writers per row, bytes per target region
};

__global__ void rma10_kernel(scope_t scope, uint8_t *dst, const uint8_t *src, rma10_t a, int me,
                             int npes) {
  const unsigned g = g_id(scope);
  for (size_t r = 0; r < a.rows; ++r) {
    const size_t off = kLead + (r * a.nw + size_t(g) * npes + me) * a.w;
    for (int i = 0; i < npes; ++i) {
      const int t = (me + 1 + i) % npes;
      const uint8_t *s = src + size_t(t) * a.len + off;
      if (scope == kThread && r % 2 == 1) {
        if (a.w == 1) {
          xshmem_uint8_p(dst + off, *s, t);
        } else {
          xshmem_put8(dst + off, s, a.w, t);
        }
      } else {
        g_putmem(scope, dst + off, s, a.w, t, false);
      }
    }
  }
}

__global__ void verify10_kernel(const uint8_t *dst, rma10_t a, int me, int npes, int salt) {
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < a.len;
       b += size_t(gridDim.x) * blockDim.x) {
    uint8_t e = gt::pat(me, b, kGuard);
    if (b >= kLead && b < kLead + a.rows * a.nw * a.w) {
      int writer = int(((b - kLead) / a.w % a.nw) % size_t(npes));
      e = gt::pat(writer, size_t(me) * a.len + b, salt);
    }
    GT_CHECK(dst[b] == e, b, e, dst[b]);
  }
}

void rma10(Buffers &b, scope_t scope) {
  const unsigned blocks = scope == kBlock ? 16 : 8;
  const dim3 shape = scope == kBlock ? dim3(8, 4, 3) : dim3(128);
  const size_t groups = scope == kThread ? blocks * 128 : scope == kWarp ? blocks * 4 : blocks;
  for (size_t w : {size_t{1}, size_t{3}, size_t{8}, size_t{37}}) {
    rma10_t a{};
    a.w = w;
    a.rows = scope == kThread ? 8 : 64;
    a.nw = groups * size_t(gt::npes);
    a.len = round_up(2 * kLead + a.rows * a.nw * w, 256);
    const int salt = kData + 16 * int(w);
    if (a.len > kSymBytes || a.len * gt::npes > kLocalBytes) {
      GT_CHECK(false, a.len, kSymBytes, a.len);
      return;
    }
    gt::fill(b.symA, a.len, gt::me, kGuard);
    gt::fill(b.src, a.len * gt::npes, gt::me, salt);
    gt::barrier();
    rma10_kernel<<<blocks, shape>>>(scope, b.symA, b.src, a, gt::me, gt::npes);
    gt::barrier();
    verify10_kernel<<<264, 256>>>(b.symA, a, gt::me, gt::npes, salt);
    gt::device_sync("verify RMA-10");
  }
}

}  // namespace

int main() {
  gt::start("gpu_rma2");
  Buffers b;
  b.symA = static_cast<uint8_t *>(xshmem_malloc(kSymBytes));
  b.symB = static_cast<uint8_t *>(xshmem_malloc(kSymBytes));
  b.symC = static_cast<uint8_t *>(xshmem_malloc(kSymCBytes));
  if (b.symA == nullptr || b.symB == nullptr || b.symC == nullptr) {
    fprintf(stderr, "pe %d: xshmem_malloc failed\n", gt::me);
    return 1;
  }
  GT_CUDA(cudaMalloc(&b.src, kLocalBytes));
  GT_CUDA(cudaMalloc(&b.loc, kLocalBytes));
  GT_CUDA(cudaMalloc(&b.out, kOutBytes));

  char name[96];
  for (int scope = 0; scope < 3; ++scope) {
    for (int v = 0; v < kNStridedVariants; ++v) {
      snprintf(name, sizeof name, "RMA-04 %s strides x nelems %c", kStridedName[v], "TWB"[scope]);
      gt::run(name, [&] { rma04(b, v, scope); });
    }
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    snprintf(name, sizeof name, "RMA-06 put_nbi/get_nbi all PEs, one quiet %s", scope_name(s));
    gt::run(name, [&] { rma06(b, s); });
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    for (bool shared : {false, true}) {
      snprintf(name, sizeof name, "RMA-07 source reuse after put, %s src %s",
               shared ? "shared" : "global", scope_name(s));
      gt::run(name, [&] { rma07(b, s, shared); });
    }
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    snprintf(name, sizeof name, "RMA-08 self target, zero length %s", scope_name(s));
    gt::run(name, [&] { rma08(b, s); });
  }
  for (host_kind_t k : {kPageable, kPinned, kDeviceMem}) {
    snprintf(name, sizeof name, "RMA-09 put/get %s local buffer H", host_kind_name(k));
    gt::run(name, [&] { rma09_host(b, k); });
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    for (kind_t k : {kGlobal, kShared, kSymmetric}) {
      snprintf(name, sizeof name, "RMA-09 put/get %s local buffer %s", kind_name(k), scope_name(s));
      gt::run(name, [&] { rma09_device(b, s, k); });
    }
  }
  for (scope_t s : {kThread, kWarp, kBlock}) {
    snprintf(name, sizeof name, "RMA-10 disjoint 1/3/8/37-byte writers %s", scope_name(s));
    gt::run(name, [&] { rma10(b, s); });
  }

  GT_CUDA(cudaFree(b.src));
  GT_CUDA(cudaFree(b.loc));
  GT_CUDA(cudaFree(b.out));
  xshmem_free(b.symC);
  xshmem_free(b.symB);
  xshmem_free(b.symA);
  return gt::finish();
}
