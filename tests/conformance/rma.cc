// RMA rows of CONFORMANCE.md §4.4 (host API).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "harness.h"

namespace {

int right_of(int pe) {
  return (pe + 1) % xt::npes();
}
int left_of(int pe) {
  return (pe + xt::npes() - 1) % xt::npes();
}

// Element blobs of any size (1..16 bytes) with PE-dependent bits, for the byte-exact rows.
void gen(void *out, size_t es, int src, int dst, size_t idx, uint64_t iter, uint32_t tid) {
  unsigned char b[16];
  uint64_t h0 = xt::hash(src, dst, idx, iter, tid), h1 = xt::hash(h0, es);
  std::memcpy(b, &h0, 8);
  std::memcpy(b + 8, &h1, 8);
  std::memcpy(out, b, es);
}
bool is_gen(const void *at, size_t es, int src, int dst, size_t idx, uint64_t iter, uint32_t tid) {
  unsigned char b[16];
  gen(b, es, src, dst, idx, iter, tid);
  return std::memcmp(at, b, es) == 0;
}
// Bytes of [p, p+n) that are not poison.
size_t unpoisoned(const void *p, size_t n) {
  const auto *b = static_cast<const unsigned char *>(p);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += b[i] != xt::kPoison;
  return bad;
}

// ---- RMA-01 -------------------------------------------------------------------------------------

template <typename T>
struct Typed {
  const char *name;
  void (*put)(T *, const T *, size_t, int);
  void (*get)(T *, const T *, size_t, int);
  void (*p)(T *, T, int);
  T (*g)(const T *, int);
};
#define XT_TYPED(T, N)                                                     \
  Typed<T> {                                                               \
#N, xshmem_##N##_put, xshmem_##N##_get, xshmem_##N##_p, xshmem_##N##_g \
  }

template <typename T>
void typed_matrix(const Typed<T> &ops, uint32_t tid) {
  constexpr size_t n = 37;
  const int me = xt::me(), right = right_of(me), left = left_of(me);
  xt::SymBuf<T> to_right(n), to_left(n), p_right(n), p_left(n), gsrc(n);
  xt::LocalBuf<T> src(n), got(n);
  xt::fill(gsrc.data(), n, me, me, 0, tid);
  xshmem_barrier_all();  // all destinations poisoned, all get sources filled

  xt::note("%s put/p", ops.name);
  xt::fill(src.data(), n, me, right, 1, tid);
  ops.put(to_right.data(), src.data(), n, right);
  xt::fill(src.data(), n, me, left, 2, tid);
  ops.put(to_left.data(), src.data(), n, left);
  for (size_t i = 0; i < n; ++i) {
    ops.p(&p_right[i], xt::value<T>(me, right, i, 3, tid), right);
    ops.p(&p_left[i], xt::value<T>(me, left, i, 4, tid), left);
  }
  CHECK(src.guards_ok());
  xshmem_barrier_all();
  INFO("type " << ops.name);
  CHECK(xt::mismatches(to_right.data(), n, left, me, 1, tid, "put from the left") == 0);
  CHECK(xt::mismatches(to_left.data(), n, right, me, 2, tid, "put from the right") == 0);
  CHECK(xt::mismatches(p_right.data(), n, left, me, 3, tid, "p from the left") == 0);
  CHECK(xt::mismatches(p_left.data(), n, right, me, 4, tid, "p from the right") == 0);
  CHECK(to_right.guards_ok());
  CHECK(to_left.guards_ok());
  CHECK(p_right.guards_ok());
  CHECK(p_left.guards_ok());

  xt::note("%s get/g", ops.name);
  for (int peer : {right, left}) {
    got.poison();
    ops.get(got.data(), gsrc.data(), n, peer);
    CHECK(xt::mismatches(got.data(), n, peer, peer, 0, tid, "get") == 0);
    CHECK(got.guards_ok());
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      T v = ops.g(&gsrc[i], peer);
      bad += !xt::detail::same(v, xt::value<T>(peer, peer, i, 0, tid));
    }
    INFO("g from pe " << peer);
    CHECK(bad == 0);
  }
  CHECK(gsrc.guards_ok());
  xshmem_barrier_all();
}

struct Sized {
  const char *name;
  size_t es;
  void (*put)(void *, const void *, size_t, int);
  void (*get)(void *, const void *, size_t, int);
};

void sized_matrix(const Sized &ops, uint32_t tid) {
  constexpr size_t n = 29;
  const size_t bytes = n * ops.es;
  const int me = xt::me(), right = right_of(me), left = left_of(me);
  xt::SymBuf<unsigned char> to_right(bytes), to_left(bytes), gsrc(bytes);
  xt::LocalBuf<unsigned char> src(bytes), got(bytes);
  for (size_t i = 0; i < n; ++i) gen(&gsrc[i * ops.es], ops.es, me, me, i, 0, tid);
  xshmem_barrier_all();
  xt::note("%s put", ops.name);
  for (size_t i = 0; i < n; ++i) gen(&src[i * ops.es], ops.es, me, right, i, 1, tid);
  ops.put(to_right.data(), src.data(), n, right);
  for (size_t i = 0; i < n; ++i) gen(&src[i * ops.es], ops.es, me, left, i, 2, tid);
  ops.put(to_left.data(), src.data(), n, left);
  xshmem_barrier_all();
  INFO(ops.name);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += !is_gen(&to_right[i * ops.es], ops.es, left, me, i, 1, tid);
    bad += !is_gen(&to_left[i * ops.es], ops.es, right, me, i, 2, tid);
  }
  CHECK(bad == 0);
  CHECK(to_right.guards_ok());
  CHECK(to_left.guards_ok());
  xt::note("%s get", ops.name);
  for (int peer : {right, left}) {
    got.poison();
    ops.get(got.data(), gsrc.data(), n, peer);
    bad = 0;
    for (size_t i = 0; i < n; ++i) bad += !is_gen(&got[i * ops.es], ops.es, peer, peer, i, 0, tid);
    INFO("get from pe " << peer);
    CHECK(bad == 0);
    CHECK(got.guards_ok());
  }
  xshmem_barrier_all();
}

void putmem_fn(void *d, const void *s, size_t n, int pe) {
  xshmem_putmem(d, s, n, pe);
}
void getmem_fn(void *d, const void *s, size_t n, int pe) {
  xshmem_getmem(d, s, n, pe);
}

}  // namespace

TEST_CASE("RMA-01 typed_sized_matrix", "[RMA-01]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  uint32_t tid = 0x3100;
#define XT_RUN_TYPED(T, N) typed_matrix(XT_TYPED(T, N), ++tid);
  XSHMEM_RMA_TYPES(XT_RUN_TYPED)
#undef XT_RUN_TYPED
  const Sized sized[] = {
      {"put8/get8", 1, xshmem_put8, xshmem_get8},
      {"put16/get16", 2, xshmem_put16, xshmem_get16},
      {"put32/get32", 4, xshmem_put32, xshmem_get32},
      {"put64/get64", 8, xshmem_put64, xshmem_get64},
      {"put128/get128", 16, xshmem_put128, xshmem_get128},
      {"putmem/getmem", 1, putmem_fn, getmem_fn},
  };
  for (const auto &s : sized) sized_matrix(s, ++tid);
}

// ---- RMA-02 -------------------------------------------------------------------------------------

namespace {

std::vector<size_t> sweep_sizes(unsigned kmin, unsigned kmax, bool small) {
  std::vector<size_t> sizes;
  if (small) sizes = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17};
  for (unsigned k = kmin; k <= kmax; ++k) {
    size_t p = size_t{1} << k;
    sizes.insert(sizes.end(), {p - 1, p, p + 1});
  }
  return sizes;
}

void size_sweep(const std::vector<size_t> &sizes, uint32_t tid) {
  const int me = xt::me(), right = right_of(me), left = left_of(me);
  const size_t max = *std::max_element(sizes.begin(), sizes.end());
  xt::SymBuf<uint8_t> dst(max), gsrc(max);
  xt::LocalBuf<uint8_t> src(max), got(max);
  for (size_t size : sizes) {
    const uint64_t iter = size;
    INFO("size " << size);
    const size_t tail = std::min(max - size, size_t{65536});  // overrun check window
    dst.poison();
    gsrc.poison();
    xt::fill(gsrc.data(), size, me, me, iter, tid);
    xt::fill(src.data(), size, me, right, iter, tid);
    xshmem_barrier_all();
    xt::note("putmem %zu bytes", size);
    xshmem_putmem(dst.data(), src.data(), size, right);
    xshmem_barrier_all();
    CHECK(xt::mismatches(dst.data(), size, left, me, iter, tid, "putmem") == 0);
    CHECK(unpoisoned(dst.data() + size, tail) == 0);
    CHECK(dst.guards_ok());
    CHECK(src.guards_ok());
    xt::note("getmem %zu bytes", size);
    got.poison();
    xshmem_getmem(got.data(), gsrc.data(), size, right);
    CHECK(xt::mismatches(got.data(), size, right, right, iter, tid, "getmem") == 0);
    CHECK(unpoisoned(got.data() + size, tail) == 0);
    CHECK(got.guards_ok());
    xshmem_barrier_all();  // the peer finished reading gsrc before it is refilled
  }
}

}  // namespace

TEST_CASE("RMA-02 size_sweep_guard_bands", "[RMA-02]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
  size_sweep(sweep_sizes(5, 22, true), 0x3200);  // up to 4 MiB + 1
}

TEST_CASE("RMA-02 size_sweep_lengthy", "[RMA-02][.lengthy]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
  const size_t need = 2 * ((size_t{128} << 20) + 1) + (size_t{4} << 20);
  const size_t heap = xt::env_size("XSHMEM_SYMMETRIC_SIZE");
  if (heap && heap < need) {
    xt::skip("needs XSHMEM_SYMMETRIC_SIZE >= 264M for 128 MiB + 1 transfers");
    return;
  }
  size_sweep(sweep_sizes(23, 27, false), 0x3201);
}

// ---- RMA-03 -------------------------------------------------------------------------------------

namespace {

// nelems 1..15 x source offset 0..15 x destination offset 0..15, in element units of E (mem:
// bytes, so addresses are unaligned). Each combination has its own slot, so one barrier checks
// them all.
template <typename E>
void offset_sweep(const char *name, void (*put)(E *, const E *, size_t, int),
                  void (*get)(E *, const E *, size_t, int), uint32_t tid) {
  constexpr size_t kSlot = 48, kCombos = 15 * 16 * 16;
  const int me = xt::me(), peer = right_of(me);
  xt::SymBuf<E> dst(kCombos * kSlot), gsrc(32);
  xt::LocalBuf<E> src(32), got(kSlot);
  for (size_t j = 0; j < 32; ++j) gen(&gsrc[j], sizeof(E), me, me, j, 0, tid);
  xshmem_barrier_all();
  xt::note("%s offset sweep: puts", name);
  size_t combo = 0;
  for (size_t n = 1; n <= 15; ++n)
    for (size_t so = 0; so < 16; ++so)
      for (size_t d = 0; d < 16; ++d, ++combo) {
        src.poison();
        for (size_t k = 0; k < n; ++k) gen(&src[so + k], sizeof(E), me, peer, k, combo, tid);
        put(&dst[combo * kSlot + d], &src[so], n, peer);
      }
  xshmem_barrier_all();
  xt::note("%s offset sweep: check", name);
  combo = 0;
  size_t bad_data = 0, bad_gap = 0;
  for (size_t n = 1; n <= 15; ++n)
    for (size_t so = 0; so < 16; ++so)
      for (size_t d = 0; d < 16; ++d, ++combo) {
        const E *slot = &dst[combo * kSlot];
        for (size_t k = 0; k < n; ++k)
          bad_data += !is_gen(&slot[d + k], sizeof(E), peer, me, k, combo, tid);
        bad_gap +=
            unpoisoned(slot, d * sizeof(E)) + unpoisoned(slot + d + n, (kSlot - d - n) * sizeof(E));
        if (bad_data + bad_gap > 0 && bad_data + bad_gap < 4)
          FAIL_CHECK(name << ": first bad put at nelems " << n << " src offset " << so
                          << " dst offset " << d);
      }
  INFO(name << " puts");
  CHECK(bad_data == 0);
  CHECK(bad_gap == 0);
  CHECK(dst.guards_ok());

  xt::note("%s offset sweep: gets", name);
  size_t bad_get = 0;
  for (size_t n = 1; n <= 15; ++n)
    for (size_t so = 0; so < 16; ++so)
      for (size_t d = 0; d < 16; ++d) {
        got.poison();
        get(&got[d], &gsrc[so], n, peer);
        size_t bad = unpoisoned(&got[0], d * sizeof(E)) +
                     unpoisoned(&got[d + n], (kSlot - d - n) * sizeof(E));
        for (size_t k = 0; k < n; ++k)
          bad += !is_gen(&got[d + k], sizeof(E), peer, peer, so + k, 0, tid);
        if (bad && bad_get < 3)
          FAIL_CHECK(name << ": bad get at nelems " << n << " src offset " << so << " dst offset "
                          << d);
        bad_get += bad;
      }
  INFO(name << " gets");
  CHECK(bad_get == 0);
  CHECK(got.guards_ok());
  xshmem_barrier_all();
}

void putmem_u8(uint8_t *d, const uint8_t *s, size_t n, int pe) {
  xshmem_putmem(d, s, n, pe);
}
void getmem_u8(uint8_t *d, const uint8_t *s, size_t n, int pe) {
  xshmem_getmem(d, s, n, pe);
}

}  // namespace

TEST_CASE("RMA-03 offset_sweep_unaligned", "[RMA-03]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  offset_sweep<uint8_t>("putmem/getmem", putmem_u8, getmem_u8, 0x3301);
  offset_sweep<uint32_t>("uint32_put/get", xshmem_uint32_put, xshmem_uint32_get, 0x3302);
  offset_sweep<uint64_t>("uint64_put/get", xshmem_uint64_put, xshmem_uint64_get, 0x3303);
  offset_sweep<uint16_t>("uint16_put/get", xshmem_uint16_put, xshmem_uint16_get, 0x3304);
}

// ---- RMA-04 -------------------------------------------------------------------------------------

namespace {

struct Strided {
  const char *name;
  size_t es;
  void (*iput)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
};

#define XT_STRIDED_TYPED(T, N)                                                              \
  Strided {                                                                                 \
    "xshmem_" #N "_iput/iget", sizeof(T),                                                   \
        [](void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {          \
          xshmem_##N##_iput(static_cast<T *>(d), static_cast<const T *>(s), ds, ss, n, pe); \
        },                                                                                  \
        [](void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {          \
          xshmem_##N##_iget(static_cast<T *>(d), static_cast<const T *>(s), ds, ss, n, pe); \
        }                                                                                   \
  }

size_t extent(size_t n, size_t stride) {
  return n == 0 ? 1 : stride * (n - 1) + 1;
}

}  // namespace

TEST_CASE("RMA-04 strided_iput_iget", "[RMA-04]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
  constexpr uint32_t kTid = 0x3400;
  const int me = xt::me(), right = right_of(me), left = left_of(me);
  const Strided variants[] = {
      {"iput32/iget32", 4, xshmem_iput32, xshmem_iget32},
      {"iput64/iget64", 8, xshmem_iput64, xshmem_iget64},
      {"iput128/iget128", 16, xshmem_iput128, xshmem_iget128},
      {"iput8/iget8", 1, xshmem_iput8, xshmem_iget8},
      XT_STRIDED_TYPED(short, short),
      XT_STRIDED_TYPED(int, int),
      XT_STRIDED_TYPED(long, long),
  };
  constexpr size_t kV = sizeof(variants) / sizeof(variants[0]);
  // The largest count is 4099 elements. XT_RMA04_LARGE lowers it (to no less than 101, so that it
  // keeps stride 33) where an iput to a strided destination, one transport write per element, is
  // slow: libfabric's sockets provider spends ~130 us on each. The strides, variants and checks
  // stay; the spans across pieces and chunks are covered by the rows that keep 4099.
  size_t large = 4099;
  if (const char *e = std::getenv("XT_RMA04_LARGE"); e && *e)
    large = std::max<size_t>(101, std::strtoull(e, nullptr, 0));
  if (large != 4099 && me == 0)
    std::printf("pe 0: RMA-04 runs up to %zu elements (XT_RMA04_LARGE), not 4099\n", large);
  const size_t nelems[] = {0, 1, 5, 100, large};
  auto strides_for = [](size_t n) {
    return std::vector<size_t>{1, 2, 3, 7, n <= 100 ? n + 1 : 33};
  };
  size_t max_ext = 0;
  for (size_t n : nelems)
    for (size_t s : strides_for(n)) max_ext = std::max(max_ext, extent(n, s));
  const size_t window = max_ext + 64;  // elements checked for stray writes
  std::vector<std::unique_ptr<xt::SymBuf<unsigned char>>> dst, gsrc;
  std::vector<std::unique_ptr<xt::LocalBuf<unsigned char>>> src, got;
  for (const auto &v : variants) {
    dst.emplace_back(new xt::SymBuf<unsigned char>(window * v.es));
    gsrc.emplace_back(new xt::SymBuf<unsigned char>(max_ext * v.es));
    src.emplace_back(new xt::LocalBuf<unsigned char>(max_ext * v.es));
    got.emplace_back(new xt::LocalBuf<unsigned char>(window * v.es));
    for (size_t j = 0; j < max_ext; ++j)
      gen(&(*gsrc.back())[j * v.es], v.es, me, me, j, 0, kTid + dst.size());
  }
  uint64_t combo = 0;
  for (size_t n : nelems)
    for (size_t ds : strides_for(n))
      for (size_t ss : strides_for(n)) {
        ++combo;
        INFO("nelems " << n << " dst stride " << ds << " src stride " << ss);
        for (size_t v = 0; v < kV; ++v) dst[v]->poison();
        xshmem_barrier_all();
        xt::note("iput nelems %zu dst %zu sst %zu", n, ds, ss);
        for (size_t v = 0; v < kV; ++v) {
          const size_t es = variants[v].es;
          src[v]->poison();
          for (size_t k = 0; k < n; ++k)
            gen(&(*src[v])[k * ss * es], es, me, right, k, combo, kTid + v);
          variants[v].iput(dst[v]->data(), src[v]->data(), static_cast<ptrdiff_t>(ds),
                           static_cast<ptrdiff_t>(ss), n, right);
        }
        xshmem_barrier_all();
        for (size_t v = 0; v < kV; ++v) {
          const size_t es = variants[v].es;
          const unsigned char *d = dst[v]->data();
          size_t bad = 0, gaps = 0;
          for (size_t k = 0; k < n; ++k)
            bad += !is_gen(d + k * ds * es, es, left, me, k, combo, kTid + v);
          for (size_t j = 0; j < window; ++j)
            if (j % ds != 0 || j / ds >= n) gaps += unpoisoned(d + j * es, es);
          INFO(variants[v].name << " iput");
          CHECK(bad == 0);
          CHECK(gaps == 0);
          CHECK(dst[v]->guards_ok());

          xt::note("%s iget nelems %zu", variants[v].name, n);
          got[v]->poison();
          variants[v].iget(got[v]->data(), gsrc[v]->data(), static_cast<ptrdiff_t>(ds),
                           static_cast<ptrdiff_t>(ss), n, right);
          const unsigned char *g = got[v]->data();
          bad = gaps = 0;
          for (size_t k = 0; k < n; ++k)
            bad += !is_gen(g + k * ds * es, es, right, right, k * ss, 0, kTid + v + 1);
          for (size_t j = 0; j < window; ++j)
            if (j % ds != 0 || j / ds >= n) gaps += unpoisoned(g + j * es, es);
          INFO(variants[v].name << " iget");
          CHECK(bad == 0);
          CHECK(gaps == 0);
          CHECK(got[v]->guards_ok());
        }
      }
  xshmem_barrier_all();
}

// ---- RMA-06 -------------------------------------------------------------------------------------

TEST_CASE("RMA-06 nbi_completion", "[RMA-06]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  constexpr uint32_t kTid = 0x3600;
  constexpr size_t K = 12, kSlot = 6144;
  const int me = xt::me(), n = xt::npes();
  // Size of operation k from `src` to `dst` (same formula on both sides); odd k use the typed
  // uint64 interface, so their sizes are multiples of 8.
  auto op_size = [](int src, int dst, size_t k) {
    size_t s = 1 + xt::hash(src, dst, k, 0, 0x3601) % (kSlot - 8);
    return k % 2 ? (s + 7) / 8 * 8 : s;
  };
  xt::SymBuf<uint8_t> dst(static_cast<size_t>(n) * K * kSlot), gsrc(K * kSlot);
  xt::LocalBuf<uint8_t> src(static_cast<size_t>(n) * K * kSlot),
      got(static_cast<size_t>(n) * K * kSlot);
  xt::fill(gsrc.data(), K * kSlot, me, me, 0, kTid);
  xshmem_barrier_all();

  xt::note("issuing %zu put_nbi + %zu get_nbi per PE", K * n, K * n);
  for (int i = 0; i < n; ++i) {
    const int t = (me + 1 + i) % n;  // every PE, starting with the right neighbour
    for (size_t k = 0; k < K; ++k) {
      const size_t sz = op_size(me, t, k), at = (static_cast<size_t>(t) * K + k) * kSlot;
      const size_t slot = (static_cast<size_t>(me) * K + k) * kSlot;
      xt::fill(&src[at], sz, me, t, k, kTid);
      const size_t gsz = op_size(t, me, k + K);
      if (k % 2) {
        xshmem_uint64_put_nbi(reinterpret_cast<uint64_t *>(&dst[slot]),
                              reinterpret_cast<const uint64_t *>(&src[at]), sz / 8, t);
        xshmem_uint64_get_nbi(reinterpret_cast<uint64_t *>(&got[at]),
                              reinterpret_cast<const uint64_t *>(&gsrc[k * kSlot]), gsz / 8, t);
      } else {
        xshmem_putmem_nbi(&dst[slot], &src[at], sz, t);
        xshmem_getmem_nbi(&got[at], &gsrc[k * kSlot], gsz, t);
      }
    }
  }
  xshmem_quiet();
  // After quiet the sources may be reused: overwriting them must not change any target.
  std::memset(src.data(), 0x5A, src.size());
  xt::note("checking gets after quiet");
  size_t bad = 0;
  for (int t = 0; t < n; ++t)
    for (size_t k = 0; k < K; ++k) {
      const size_t gsz = op_size(t, me, k + K), at = (static_cast<size_t>(t) * K + k) * kSlot;
      for (size_t j = 0; j < gsz; ++j)
        bad += got[at + j] != xt::value<uint8_t>(t, t, k * kSlot + j, 0, kTid);
      bad += unpoisoned(&got[at + gsz], kSlot - gsz);
    }
  INFO("bytes of get_nbi results wrong after quiet");
  CHECK(bad == 0);
  CHECK(got.guards_ok());
  xshmem_barrier_all();
  xt::note("checking put targets");
  bad = 0;
  for (int s = 0; s < n; ++s)
    for (size_t k = 0; k < K; ++k) {
      const size_t sz = op_size(s, me, k), slot = (static_cast<size_t>(s) * K + k) * kSlot;
      for (size_t j = 0; j < sz; ++j) bad += dst[slot + j] != xt::value<uint8_t>(s, me, j, k, kTid);
      bad += unpoisoned(&dst[slot + sz], kSlot - sz);
    }
  INFO("bytes of put_nbi targets wrong after quiet + barrier");
  CHECK(bad == 0);
  CHECK(dst.guards_ok());
  CHECK(src.guards_ok());
  xshmem_barrier_all();
}

// ---- RMA-07 -------------------------------------------------------------------------------------

TEST_CASE("RMA-07 local_completion_source_reuse", "[RMA-07]") {
  if (!xt::require_npes_in({2, 4}, "P2,4")) return;
  constexpr uint32_t kTid = 0x3700;
  const int me = xt::me(), right = right_of(me), left = left_of(me);
  const size_t sizes[] = {8, 1000, 65536 + 8, 1u << 20};
  xt::SymBuf<uint8_t> dst(1u << 20), dst64(1u << 20);
  xt::LocalBuf<uint8_t> src(1u << 20);
  for (size_t size : sizes)
    for (uint64_t iter = 0; iter < 8; ++iter) {
      INFO("size " << size << " iteration " << iter);
      dst.poison();
      dst64.poison();
      xshmem_barrier_all();
      xt::note("put %zu bytes then overwrite the source", size);
      xt::fill(src.data(), size, me, right, iter, kTid);
      xshmem_putmem(dst.data(), src.data(), size, right);
      std::memset(src.data(), 0x3C, size);  // blocking put returned: the source is reusable
      xt::fill(src.data(), size, me, right, iter + 100, kTid);
      xshmem_int64_put(reinterpret_cast<int64_t *>(dst64.data()),
                       reinterpret_cast<const int64_t *>(src.data()), size / 8, right);
      std::memset(src.data(), 0xC3, size);
      xshmem_barrier_all();
      CHECK(xt::mismatches(dst.data(), size, left, me, iter, kTid, "putmem") == 0);
      CHECK(xt::mismatches(dst64.data(), size / 8 * 8, left, me, iter + 100, kTid, "int64_put") ==
            0);
      CHECK(dst.guards_ok());
      CHECK(dst64.guards_ok());
      CHECK(src.guards_ok());
    }
  xshmem_barrier_all();
}

// ---- RMA-08 -------------------------------------------------------------------------------------

TEST_CASE("RMA-08 self_target_and_zero_length", "[RMA-08]") {
  if (!xt::require_npes_in({1, 2}, "P1,2")) return;
  constexpr uint32_t kTid = 0x3800;
  constexpr size_t n = 19;
  const int me = xt::me();
  xt::SymBuf<int64_t> dst(n), gsrc(n);
  xt::LocalBuf<int64_t> src(n), got(n);
  xt::fill(gsrc.data(), n, me, me, 0, kTid);
  xshmem_barrier_all();

  SECTION("self target") {
    auto check_dst = [&](uint64_t iter, const char *what) {
      CHECK(xt::mismatches(dst.data(), n, me, me, iter, kTid, what) == 0);
      CHECK(dst.guards_ok());
      dst.poison();
    };
    auto check_got = [&](const char *what) {
      CHECK(xt::mismatches(got.data(), n, me, me, 0, kTid, what) == 0);
      CHECK(got.guards_ok());
      got.poison();
    };
    xt::note("self put/get kinds");
    xt::fill(src.data(), n, me, me, 1, kTid);
    xshmem_int64_put(dst.data(), src.data(), n, me);
    xshmem_quiet();
    check_dst(1, "int64_put to self");
    xt::fill(src.data(), n, me, me, 2, kTid);
    xshmem_int64_put_nbi(dst.data(), src.data(), n, me);
    xshmem_quiet();
    check_dst(2, "int64_put_nbi to self");
    xt::fill(src.data(), n, me, me, 3, kTid);
    xshmem_putmem(dst.data(), src.data(), n * 8, me);
    xshmem_quiet();
    check_dst(3, "putmem to self");
    xt::fill(src.data(), n, me, me, 4, kTid);
    xshmem_put64(dst.data(), src.data(), n, me);
    xshmem_quiet();
    check_dst(4, "put64 to self");
    for (size_t i = 0; i < n; ++i)
      xshmem_int64_p(&dst[i], xt::value<int64_t>(me, me, i, 5, kTid), me);
    xshmem_quiet();
    check_dst(5, "int64_p to self");
    xt::LocalBuf<int64_t> strided(2 * n);
    for (size_t i = 0; i < n; ++i) strided[2 * i] = xt::value<int64_t>(me, me, i, 6, kTid);
    xshmem_int64_iput(dst.data(), strided.data(), 1, 2, n, me);
    xshmem_quiet();
    check_dst(6, "int64_iput to self");

    xshmem_int64_get(got.data(), gsrc.data(), n, me);
    check_got("int64_get from self");
    xshmem_int64_get_nbi(got.data(), gsrc.data(), n, me);
    xshmem_quiet();
    check_got("int64_get_nbi from self");
    xshmem_getmem(got.data(), gsrc.data(), n * 8, me);
    check_got("getmem from self");
    xshmem_get64(got.data(), gsrc.data(), n, me);
    check_got("get64 from self");
    xshmem_getmem_nbi(got.data(), gsrc.data(), n * 8, me);
    xshmem_quiet();
    check_got("getmem_nbi from self");
    xshmem_int64_iget(got.data(), gsrc.data(), 1, 1, n, me);
    check_got("int64_iget from self");
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
      bad += xshmem_int64_g(&gsrc[i], me) != xt::value<int64_t>(me, me, i, 0, kTid);
    CHECK(bad == 0);
  }

  SECTION("zero length") {
    // NULL + 0 is supported (spec: tests-sos zero_comm); so is a valid pointer + 0.
    xt::fill(src.data(), n, me, me, 7, kTid);
    for (int pe : {me, (me + 1) % xt::npes()}) {
      xt::note("zero-length operations to pe %d", pe);
      xshmem_putmem(nullptr, nullptr, 0, pe);
      xshmem_putmem(dst.data(), src.data(), 0, pe);
      xshmem_getmem(nullptr, nullptr, 0, pe);
      xshmem_getmem(got.data(), gsrc.data(), 0, pe);
      xshmem_putmem_nbi(nullptr, nullptr, 0, pe);
      xshmem_putmem_nbi(dst.data(), src.data(), 0, pe);
      xshmem_getmem_nbi(nullptr, nullptr, 0, pe);
      xshmem_getmem_nbi(got.data(), gsrc.data(), 0, pe);
      xshmem_int64_put(nullptr, nullptr, 0, pe);
      xshmem_int64_put(dst.data(), src.data(), 0, pe);
      xshmem_int64_get(nullptr, nullptr, 0, pe);
      xshmem_int64_get(got.data(), gsrc.data(), 0, pe);
      xshmem_int64_put_nbi(nullptr, nullptr, 0, pe);
      xshmem_int64_get_nbi(got.data(), gsrc.data(), 0, pe);
      xshmem_put32(nullptr, nullptr, 0, pe);
      xshmem_get128(nullptr, nullptr, 0, pe);
      xshmem_int64_iput(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_int64_iput(dst.data(), src.data(), 2, 3, 0, pe);
      xshmem_int64_iget(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_int64_iget(got.data(), gsrc.data(), 3, 2, 0, pe);
      xshmem_iput64(nullptr, nullptr, 1, 1, 0, pe);
      xshmem_iget32(nullptr, nullptr, 1, 1, 0, pe);
    }
    xshmem_quiet();
    xshmem_barrier_all();
    CHECK(unpoisoned(dst.data(), n * 8) == 0);
    CHECK(unpoisoned(got.data(), n * 8) == 0);
    CHECK(dst.guards_ok());
    CHECK(got.guards_ok());
    CHECK(xt::mismatches(gsrc.data(), n, me, me, 0, kTid, "get source after zero-length ops") == 0);
    WARN("RMA-08: ibput/ibget zero-length not run: the API has no ibput/ibget (OpenSHMEM 1.6)");
  }
  xshmem_barrier_all();
}

// ---- RMA-10 -------------------------------------------------------------------------------------

TEST_CASE("RMA-10 disjoint_writers_byte_granular", "[RMA-10]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS, PW")) return;
  constexpr uint32_t kTid = 0x3A00;
  constexpr size_t R = 64;
  const int me = xt::me(), n = xt::npes();
  for (size_t w : {size_t{1}, size_t{3}, size_t{8}}) {
    INFO("slice width " << w);
    const size_t bytes = R * static_cast<size_t>(n) * w;
    xt::SymBuf<uint8_t> dst(bytes);
    std::vector<uint8_t> src(bytes);
    xshmem_barrier_all();
    xt::note("disjoint %zu-byte slices to every PE", w);
    for (int i = 0; i < n; ++i) {
      const int t = (me + 1 + i) % n;
      for (size_t r = 0; r < R; ++r) {
        const size_t at = (r * static_cast<size_t>(n) + static_cast<size_t>(me)) * w;
        for (size_t k = 0; k < w; ++k) src[at + k] = xt::value<uint8_t>(me, t, at + k, w, kTid);
        if (w == 1 && r % 2)
          xshmem_uint8_p(&dst[at], src[at], t);
        else
          xshmem_putmem(&dst[at], &src[at], w, t);
      }
    }
    xshmem_barrier_all();
    size_t bad = 0;
    for (size_t r = 0; r < R; ++r)
      for (int s = 0; s < n; ++s) {
        const size_t at = (r * static_cast<size_t>(n) + static_cast<size_t>(s)) * w;
        for (size_t k = 0; k < w; ++k) {
          if (dst[at + k] == xt::value<uint8_t>(s, me, at + k, w, kTid)) continue;
          if (++bad <= 3)
            FAIL_CHECK("byte " << at + k << " (writer pe " << s << ", slice " << r << ") is "
                               << int{dst[at + k]} << ", expected "
                               << int{xt::value<uint8_t>(s, me, at + k, w, kTid)});
        }
      }
    CHECK(bad == 0);
    CHECK(dst.guards_ok());
    xshmem_barrier_all();
  }
}
