// GPU conformance: RMA-01 (typed/sized/mem matrix), RMA-02 (size sweep with guard bands) and
// RMA-03 (offset sweep, unaligned) for device threads, warps and blocks (columns T, W, B), the
// host API on GPU heaps (H) and the on-stream variants (S).
//
// Sweeps: every PE writes into its right neighbour (put) or reads from it (get). A buffer holds
// slots, one per (source offset, destination offset) pair, each with 32 guard bytes before and
// after; source bytes carry the sender's pattern, everything else its owner's guard pattern, and
// the owner checks every byte of every slot afterwards.
#include "gpu_test.h"

namespace {

constexpr int kData = 1, kGuard = 2;
constexpr size_t kLead = 32;  // guard bytes before each slot's data

// Sizes of RMA-02: around powers of two and the 16-byte vector boundaries, up to 4 MiB + 1.
const size_t kSizes[] = {0,    1,    2,    3,    7,    8,     9,     15,    16,      17,
                         31,   32,   33,   63,   64,   65,    255,   256,   257,     1023,
                         1024, 1025, 4095, 4096, 4097, 65535, 65536, 65537, 1048579, 4194305};

struct offsets_t {
  int v[16];
  int n;
};
// All 16 x 16 offset pairs for small sizes, fewer for large ones (the heads and tails are what
// differ between offsets; the bulk is the same copy).
// Where PEs share a GPU over a proxy transport every slot is a proxy round trip that waits for
// time slices (~5 ms): 4 x 4 pairs up to 65537 bytes and 2 x 2 above (gt::proxy_shared).
offsets_t offsets_for(size_t n) {
  offsets_t o{};
  if (gt::proxy_shared()) {
    const int v[] = {0, 1, 8, 15};
    o.n = n <= 65537 ? 4 : 2;
    for (int i = 0; i < o.n; ++i) o.v[i] = v[i * (4 / o.n)];
    return o;
  }
  if (n <= 4097) {
    for (int i = 0; i < 16; ++i) o.v[i] = i;
    o.n = 16;
  } else if (n <= 65537) {
    const int v[] = {0, 1, 3, 4, 7, 8, 12, 15};
    for (int i = 0; i < 8; ++i) o.v[i] = v[i];
    o.n = 8;
  } else {
    const int v[] = {0, 1, 8, 15};
    for (int i = 0; i < 4; ++i) o.v[i] = v[i];
    o.n = 4;
  }
  return o;
}
size_t slot_stride(size_t n) {
  return (n + 2 * kLead + 255) / 256 * 256;
}

enum scope_t { kThread, kWarp, kBlock };
const char *scope_name(scope_t s) {
  return s == kThread ? "T" : s == kWarp ? "W" : "B";
}
dim3 block_shape(scope_t s) {
  // Blocks are 3D and not a multiple of 32 threads, so the last warp is partial.
  return s == kThread ? dim3(1) : s == kWarp ? dim3(32) : dim3(8, 4, 3);
}

__global__ void put_kernel(scope_t scope, uint8_t *sym, const uint8_t *src, size_t n, size_t stride,
                           offsets_t o, int pe) {
  size_t slot = blockIdx.x;
  size_t base = slot * stride + kLead;
  uint8_t *d = sym + base + o.v[slot % o.n];
  const uint8_t *s = src + base + o.v[slot / o.n];
  if (scope == kThread) {
    xshmem_putmem(d, s, n, pe);
  } else if (scope == kWarp) {
    xshmemx_putmem_warp(d, s, n, pe);
  } else {
    xshmemx_putmem_block(d, s, n, pe);
  }
}

__global__ void get_kernel(scope_t scope, uint8_t *loc, const uint8_t *sym, size_t n, size_t stride,
                           offsets_t o, int pe) {
  size_t slot = blockIdx.x;
  size_t base = slot * stride + kLead;
  uint8_t *d = loc + base + o.v[slot % o.n];
  const uint8_t *s = sym + base + o.v[slot / o.n];
  if (scope == kThread) {
    xshmem_getmem(d, s, n, pe);
  } else if (scope == kWarp) {
    xshmemx_getmem_warp(d, s, n, pe);
  } else {
    xshmemx_getmem_block(d, s, n, pe);
  }
}

// Checks every byte of `slots` slots of `buf` (owned by `owner`): data from `writer`'s pattern
// in each slot's destination range, the owner's guard pattern elsewhere.
__global__ void verify_kernel(const uint8_t *buf, size_t slots, size_t n, size_t stride,
                              offsets_t o, int owner, int writer) {
  size_t total = slots * stride;
  for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < total;
       b += size_t(gridDim.x) * blockDim.x) {
    size_t slot = b / stride, r = b % stride;
    size_t dst_off = kLead + o.v[slot % o.n], src_off = kLead + o.v[slot / o.n];
    uint8_t expected = r >= dst_off && r < dst_off + n
                           ? gt::pat(writer, slot * stride + src_off + (r - dst_off), kData)
                           : gt::pat(owner, b, kGuard);
    GT_CHECK(buf[b] == expected, b, expected, buf[b]);
  }
}

void verify(const uint8_t *buf, size_t slots, size_t n, size_t stride, const offsets_t &o,
            int owner, int writer) {
  verify_kernel<<<264, 256>>>(buf, slots, n, stride, o, owner, writer);
  gt::device_sync("verify");
}

struct Buffers {
  uint8_t *sym = nullptr;  // symmetric
  uint8_t *src = nullptr;  // private, device
  uint8_t *loc = nullptr;  // private, device
  size_t bytes = 0;
};

size_t max_span() {
  size_t m = 0;
  for (size_t n : kSizes) {
    offsets_t o = offsets_for(n);
    size_t span = size_t(o.n) * o.n * slot_stride(n);
    if (span > m) m = span;
  }
  return m;
}

enum way_t { kDevice, kHost, kStream };

// One put sweep over every size (and its offset pairs), by `scope` threads or the host API.
void put_sweep(Buffers &b, way_t way, scope_t scope) {
  cudaStream_t stream = nullptr;
  if (way == kStream) GT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (size_t n : kSizes) {
    offsets_t o = offsets_for(n);
    if (way != kDevice && n > 65537) o.n = 2;  // host calls: one copy per slot, keep it short
    size_t slots = size_t(o.n) * o.n, stride = slot_stride(n), span = slots * stride;
    gt::fill(b.sym, span, gt::me, kGuard);
    gt::fill(b.src, span, gt::me, kData);
    gt::barrier();
    if (way == kDevice) {
      put_kernel<<<unsigned(slots), block_shape(scope)>>>(scope, b.sym, b.src, n, stride, o,
                                                          gt::peer);
    } else {
      for (size_t slot = 0; slot < slots; ++slot) {
        size_t base = slot * stride + kLead;
        uint8_t *d = b.sym + base + o.v[slot % o.n];
        const uint8_t *s = b.src + base + o.v[slot / o.n];
        if (way == kHost) {
          if (slot % 2 == 0) {
            xshmem_putmem(d, s, n, gt::peer);
          } else {
            xshmem_putmem_nbi(d, s, n, gt::peer);
          }
        } else {
          xshmemx_putmem_on_stream(d, s, n, gt::peer, stream);
        }
      }
      if (way == kHost) xshmem_quiet();
      if (way == kStream) GT_CUDA(cudaStreamSynchronize(stream));
    }
    gt::barrier();
    verify(b.sym, slots, n, stride, o, gt::me, gt::from);
  }
  if (stream != nullptr) GT_CUDA(cudaStreamDestroy(stream));
}

void get_sweep(Buffers &b, way_t way, scope_t scope) {
  cudaStream_t stream = nullptr;
  if (way == kStream) GT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (size_t n : kSizes) {
    offsets_t o = offsets_for(n);
    if (way != kDevice && n > 65537) o.n = 2;
    size_t slots = size_t(o.n) * o.n, stride = slot_stride(n), span = slots * stride;
    gt::fill(b.sym, span, gt::me, kData);
    gt::fill(b.loc, span, gt::me, kGuard);
    gt::barrier();
    if (way == kDevice) {
      get_kernel<<<unsigned(slots), block_shape(scope)>>>(scope, b.loc, b.sym, n, stride, o,
                                                          gt::peer);
      gt::device_sync("get kernel");
    } else {
      for (size_t slot = 0; slot < slots; ++slot) {
        size_t base = slot * stride + kLead;
        uint8_t *d = b.loc + base + o.v[slot % o.n];
        const uint8_t *s = b.sym + base + o.v[slot / o.n];
        if (way == kHost) {
          if (slot % 2 == 0) {
            xshmem_getmem(d, s, n, gt::peer);
          } else {
            xshmem_getmem_nbi(d, s, n, gt::peer);
          }
        } else {
          xshmemx_getmem_on_stream(d, s, n, gt::peer, stream);
        }
      }
      if (way == kHost) xshmem_quiet();
      if (way == kStream) GT_CUDA(cudaStreamSynchronize(stream));
    }
    verify(b.loc, slots, n, stride, o, gt::me, gt::peer);
    gt::barrier();  // the peer's buffer is refilled next round
  }
  if (stream != nullptr) GT_CUDA(cudaStreamDestroy(stream));
}

// ---- RMA-01: typed, sized and mem variants ----------------------------------------------------

// Value i of a typed buffer written by `pe`: exact in every type (small integers; floats with a
// fraction).
template <typename T>
__host__ __device__ T tval(int pe, int i) {
  double v = (pe * 16 + i + 1) % 100;
  if (static_cast<T>(0.5) != static_cast<T>(0)) v += 0.5;
  return static_cast<T>(v);
}

// Guard value of element i on `pe`: 100..127, so never a tval (0..99.5) of any PE, and exact in
// every type (signed char included).
template <typename T>
__host__ __device__ T gval(int pe, int i) {
  return static_cast<T>(100 + (pe * 7 + i) % 28);
}

// Layout of the typed region (elements): [0, 7) put, 8 p, [10, 18) iput (stride 2), guard
// elsewhere; in `loc`: [0, 7) get, 8 g, [20, 24) iget.
constexpr int kTypedElems = 32;

#define GT_TYPED_KERNEL(T, N)                                                         \
  __global__ void typed_put_##N(T *sym, const T *src, int pe, int use_host_written) { \
    (void)use_host_written;                                                           \
    xshmem_##N##_put(sym, src, 7, pe);                                                \
    xshmem_##N##_p(sym + 8, tval<T>(gt_me_d, 100), pe);                               \
    xshmem_##N##_iput(sym + 10, src, 2, 1, 4, pe);                                    \
    xshmem_##N##_put_nbi(sym + 24, src, 3, pe);                                       \
    xshmem_quiet();                                                                   \
  }                                                                                   \
  __global__ void typed_get_##N(T *loc, const T *sym, int pe) {                       \
    xshmem_##N##_get(loc, sym, 7, pe);                                                \
    loc[8] = xshmem_##N##_g(sym + 8, pe);                                             \
    xshmem_##N##_iget(loc + 20, sym + 10, 1, 2, 4, pe);                               \
    xshmem_##N##_get_nbi(loc + 24, sym + 24, 3, pe);                                  \
    xshmem_quiet();                                                                   \
  }                                                                                   \
  __global__ void typed_block_##N(T *sym, const T *src, T *loc, int pe, int phase) {  \
    if (phase == 0) {                                                                 \
      xshmemx_##N##_put_block(sym, src, 7, pe);                                       \
    } else {                                                                          \
      xshmemx_##N##_get_warp(loc, sym, 7, pe);                                        \
    }                                                                                 \
  }
__device__ int gt_me_d;
XSHMEM_RMA_TYPES_NO_LD(GT_TYPED_KERNEL)
#undef GT_TYPED_KERNEL

template <typename T>
bool same(T a, T b) {
  return memcmp(&a, &b, sizeof(T)) == 0;
}

// Runs the typed checks for T: device thread (way kDevice), warp/block (kStream reused as
// "group"), or the host API (kHost).
template <typename T, typename Put, typename Get, typename Group>
void typed_case(Buffers &b, way_t way, Put put, Get get, Group group) {
  T *sym = reinterpret_cast<T *>(b.sym);
  T *loc = reinterpret_cast<T *>(b.loc);
  T src[kTypedElems], guard[kTypedElems];
  for (int i = 0; i < kTypedElems; ++i) {
    src[i] = tval<T>(gt::me, i);
    // Not tval(me + 50, i): that equals tval(me, i), so a get that moved nothing passed.
    guard[i] = gval<T>(gt::me, i);
  }
  GT_CUDA(cudaMemcpy(sym, guard, sizeof guard, cudaMemcpyHostToDevice));
  GT_CUDA(cudaMemcpy(loc, guard, sizeof guard, cudaMemcpyHostToDevice));
  T *dsrc = reinterpret_cast<T *>(b.src);
  GT_CUDA(cudaMemcpy(dsrc, src, sizeof src, cudaMemcpyHostToDevice));
  gt::barrier();
  bool group_case = way == kStream;
  if (way == kHost) {
    put(sym, src);  // host source: pageable memory
  } else if (group_case) {
    group(sym, dsrc, loc, 0);
  } else {
    put(sym, dsrc);
  }
  gt::barrier();
  T got[kTypedElems];
  GT_CUDA(cudaMemcpy(got, sym, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kTypedElems; ++i) {
    T expected = guard[i];
    if (i < 7) expected = tval<T>(gt::from, i);
    if (!group_case) {
      if (i == 8) expected = tval<T>(gt::from, 100);
      if (i >= 10 && i < 18 && (i - 10) % 2 == 0) expected = tval<T>(gt::from, (i - 10) / 2);
      if (i >= 24 && i < 27) expected = tval<T>(gt::from, i - 24);
    }
    GT_CHECK(same(got[i], expected), i, (long long)expected, (long long)got[i]);
  }
  gt::barrier();
  // Gets read what the peer received: the values this PE put there.
  if (way == kHost) {
    T hl[kTypedElems];
    memcpy(hl, guard, sizeof hl);
    get(hl, sym);
    GT_CUDA(cudaMemcpy(loc, hl, sizeof hl, cudaMemcpyHostToDevice));
  } else if (group_case) {
    group(sym, dsrc, loc, 1);
  } else {
    get(loc, sym);
  }
  gt::device_sync("typed get");
  GT_CUDA(cudaMemcpy(got, loc, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kTypedElems; ++i) {
    T expected = guard[i];
    if (i < 7) expected = tval<T>(gt::me, i);
    if (!group_case) {
      if (i == 8) expected = tval<T>(gt::me, 100);
      if (i >= 20 && i < 24) expected = tval<T>(gt::me, i - 20);
      if (i >= 24 && i < 27) expected = tval<T>(gt::me, i - 24);
    }
    GT_CHECK(same(got[i], expected), i, (long long)expected, (long long)got[i]);
  }
  // Every PE's gets have read the peer's sym before the next type's case overwrites it (the
  // first cudaMemcpy above): without this a PE that finished early clobbered the buffer its
  // neighbour was still reading (RMA-01 T failed on pe 1 with another type's bytes).
  gt::barrier();
}

void typed_all(Buffers &b, way_t way) {
#define GT_TYPED_RUN(T, N)                                                     \
  typed_case<T>(                                                               \
      b, way,                                                                  \
      [&](T *sym, const T *src) {                                              \
        if (way == kHost) {                                                    \
          xshmem_##N##_put(sym, src, 7, gt::peer);                             \
          xshmem_##N##_p(sym + 8, tval<T>(gt::me, 100), gt::peer);             \
          xshmem_##N##_iput(sym + 10, src, 2, 1, 4, gt::peer);                 \
          xshmem_##N##_put_nbi(sym + 24, src, 3, gt::peer);                    \
          xshmem_quiet();                                                      \
        } else {                                                               \
          typed_put_##N<<<1, 1>>>(sym, src, gt::peer, 0);                      \
        }                                                                      \
      },                                                                       \
      [&](T *loc, const T *sym) {                                              \
        if (way == kHost) {                                                    \
          xshmem_##N##_get(loc, sym, 7, gt::peer);                             \
          loc[8] = xshmem_##N##_g(sym + 8, gt::peer);                          \
          xshmem_##N##_iget(loc + 20, sym + 10, 1, 2, 4, gt::peer);            \
          xshmem_##N##_get_nbi(loc + 24, sym + 24, 3, gt::peer);               \
          xshmem_quiet();                                                      \
        } else {                                                               \
          typed_get_##N<<<1, 1>>>(loc, sym, gt::peer);                         \
        }                                                                      \
      },                                                                       \
      [&](T *sym, const T *src, T *loc, int phase) {                           \
        typed_block_##N<<<1, dim3(8, 4, 3)>>>(sym, src, loc, gt::peer, phase); \
      });
  XSHMEM_RMA_TYPES_NO_LD(GT_TYPED_RUN)
#undef GT_TYPED_RUN
}

// Sized variants from the device: put8..put128 and iput/iget32 on byte patterns.
__global__ void sized_kernel(uint8_t *sym, const uint8_t *src, int pe) {
  xshmem_put8(sym + 0, src + 0, 5, pe);
  xshmem_put16(sym + 16, src + 16, 5, pe);
  xshmem_put32(sym + 32, src + 32, 5, pe);
  xshmem_put64(sym + 64, src + 64, 5, pe);
  xshmem_put128(sym + 128, src + 128, 5, pe);
  xshmem_put64_nbi(sym + 256, src + 256, 2, pe);
  xshmem_iput32(sym + 512, src + 512, 2, 3, 4, pe);  // dst elements 0,2,4,6 <- src 0,3,6,9
  xshmem_quiet();
}

void sized_case(Buffers &b) {
  gt::fill(b.sym, 1024, gt::me, kGuard);
  gt::fill(b.src, 1024, gt::me, kData);
  gt::barrier();
  sized_kernel<<<1, 1>>>(b.sym, b.src, gt::peer);
  gt::barrier();
  std::vector<uint8_t> got(1024);
  GT_CUDA(cudaMemcpy(got.data(), b.sym, 1024, cudaMemcpyDeviceToHost));
  auto in = [](size_t i, size_t lo, size_t n) { return i >= lo && i < lo + n; };
  for (size_t i = 0; i < 1024; ++i) {
    uint8_t expected = gt::pat(gt::me, i, kGuard);
    if (in(i, 0, 5) || in(i, 16, 10) || in(i, 32, 20) || in(i, 64, 40) || in(i, 128, 80) ||
        in(i, 256, 16)) {
      expected = gt::pat(gt::from, i, kData);
    }
    if (in(i, 512, 28) && ((i - 512) / 4) % 2 == 0) {
      size_t e = (i - 512) / 4 / 2;  // element index
      expected = gt::pat(gt::from, 512 + e * 12 + (i - 512) % 4, kData);
    }
    GT_CHECK(got[i] == expected, i, expected, got[i]);
  }
}

}  // namespace

int main() {
  gt::start("gpu_rma");
  Buffers b;
  b.bytes = max_span();
  b.sym = static_cast<uint8_t *>(xshmem_malloc(b.bytes));
  if (b.sym == nullptr) {
    fprintf(stderr, "pe %d: xshmem_malloc(%zu) failed\n", gt::me, b.bytes);
    return 1;
  }
  GT_CUDA(cudaMalloc(&b.src, b.bytes));
  GT_CUDA(cudaMalloc(&b.loc, b.bytes));
  GT_CUDA(cudaMemcpyToSymbol(gt_me_d, &gt::me, sizeof(int)));

  gt::run("RMA-01 typed put/p/iput/get/g/iget T", [&] { typed_all(b, kDevice); });
  gt::run("RMA-01 typed put_block/get_warp B/W", [&] { typed_all(b, kStream); });
  gt::run("RMA-01 typed host API on GPU heap H", [&] { typed_all(b, kHost); });
  gt::run("RMA-01 sized put8..128, iput32 T", [&] { sized_case(b); });
  for (scope_t s : {kThread, kWarp, kBlock}) {
    char name[96];
    snprintf(name, sizeof name, "RMA-02/03 putmem sizes x offsets %s", scope_name(s));
    gt::run(name, [&] { put_sweep(b, kDevice, s); });
    snprintf(name, sizeof name, "RMA-02/03 getmem sizes x offsets %s", scope_name(s));
    gt::run(name, [&] { get_sweep(b, kDevice, s); });
  }
  gt::run("RMA-02/03 putmem(+nbi) sizes x offsets H", [&] { put_sweep(b, kHost, kThread); });
  gt::run("RMA-02/03 getmem(+nbi) sizes x offsets H", [&] { get_sweep(b, kHost, kThread); });
  gt::run("RMA-02/03 putmem_on_stream S", [&] { put_sweep(b, kStream, kThread); });
  gt::run("RMA-02/03 getmem_on_stream S", [&] { get_sweep(b, kStream, kThread); });

  GT_CUDA(cudaFree(b.src));
  GT_CUDA(cudaFree(b.loc));
  xshmem_free(b.sym);
  return gt::finish();
}
