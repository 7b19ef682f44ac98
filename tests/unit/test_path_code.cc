// Unit tests of the header-only path code (device/include/xshmem/device/path.h), compiled for the
// host: a fake job whose PEs' heaps are private arrays of this process, reached through the LSA
// path. Multi-PE world sync runs with one thread per fake PE.
#include <xshmem/device/path.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../catch_compat.h"
#include "test_pattern.h"

namespace xd = xshmem::dev;

namespace {

constexpr size_t kUserOffset = (sizeof(xshmem::dev::internal_region_t) + 4095) / 4096 * 4096;
constexpr size_t kHeapBytes = kUserOffset + 64 * 1024;  // the internal region, then user data
constexpr unsigned char kPoison = 0xA5;
constexpr size_t kGuard = 64;

using xt::mix;

struct alignas(4096) Heap {
  unsigned char bytes[kHeapBytes];
};

// n fake PEs, each with a heap; state(me) is PE me's view.
class FakeJob {
 public:
  explicit FakeJob(int n) : peers_(n) {
    for (int pe = 0; pe < n; ++pe) {
      heaps_.push_back(std::make_unique<Heap>());
      std::memset(heaps_.back()->bytes, 0, kHeapBytes);
      peers_[pe].path = XSHMEM_PATH_LSA;
      peers_[pe].base = reinterpret_cast<uintptr_t>(heaps_.back()->bytes);
    }
  }
  xd::state_t state(int me) {
    xd::state_t s;
    s.my_pe = me;
    s.n_pes = static_cast<int>(peers_.size());
    s.heap_base = reinterpret_cast<uintptr_t>(heaps_[me]->bytes);
    s.heap_size = kHeapBytes;
    s.peers = peers_.data();
    s.internal = reinterpret_cast<xd::internal_region_t *>(heaps_[me]->bytes);
    return s;
  }
  // PE pe's copy of the symmetric object at `offset`.
  unsigned char *at(int pe, size_t offset) { return heaps_[pe]->bytes + offset; }
  template <typename T>
  T *sym(int pe, size_t offset) {
    return reinterpret_cast<T *>(at(pe, offset));
  }
  std::vector<xd::peer_t> &peers() { return peers_; }

 private:
  std::vector<std::unique_ptr<Heap>> heaps_;
  std::vector<xd::peer_t> peers_;
};

template <typename T>
T bits_of(uint64_t h) {
  T v;
  std::memcpy(&v, &h, sizeof(T));
  return v;
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Counts bytes of [p, p+n) that are not kPoison.
size_t unpoisoned(const unsigned char *p, size_t n) {
  return xt::unpoisoned(p, n, kPoison);
}

}  // namespace

TEST_CASE("lsa putmem/getmem move exactly the bytes asked for", "[path][rma]") {
  FakeJob job(4);
  const int me = 1;
  xd::state_t s = job.state(me);
  for (int pe : {0, 1, 3}) {
    for (size_t n : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097}) {
      for (size_t off : {0, 1, 3, 8}) {
        size_t dst_off = kUserOffset + kGuard + off;
        std::vector<unsigned char> src(n);
        for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(mix(me, pe, n, i));
        std::memset(job.at(pe, kUserOffset), kPoison, n + off + 2 * kGuard);
        xd::putmem(s, job.at(me, dst_off), src.data(), n, pe);
        INFO("put to pe " << pe << " n " << n << " off " << off);
        CHECK(std::memcmp(job.at(pe, dst_off), src.data(), n) == 0);
        CHECK(unpoisoned(job.at(pe, kUserOffset), kGuard + off) == 0);
        CHECK(unpoisoned(job.at(pe, dst_off + n), kGuard) == 0);

        // Get it back into a guarded local buffer, through the nbi form.
        std::vector<unsigned char> back(n + 2 * kGuard, kPoison);
        xd::getmem_nbi(s, back.data() + kGuard, job.at(me, dst_off), n, pe);
        xd::quiet(s);
        CHECK(std::memcmp(back.data() + kGuard, src.data(), n) == 0);
        CHECK(unpoisoned(back.data(), kGuard) == 0);
        CHECK(unpoisoned(back.data() + kGuard + n, kGuard) == 0);
      }
    }
  }
}

TEST_CASE("lsa typed put/get/p/g translate symmetric addresses per pe", "[path][rma]") {
  FakeJob job(3);
  xd::state_t s = job.state(2);
  // Different PEs hold different values at the same offset: g must read the target's copy.
  for (int pe = 0; pe < 3; ++pe) {
    *job.sym<int64_t>(pe, kUserOffset) = static_cast<int64_t>(mix(pe, 7));
    *job.sym<double>(pe, kUserOffset + 8) = 0.5 * pe - 3;
    *job.sym<long double>(pe, kUserOffset + 16) = 0.25L * pe + 1;
  }
  for (int pe = 0; pe < 3; ++pe) {
    CHECK(xd::g(s, job.sym<int64_t>(2, kUserOffset), pe) == static_cast<int64_t>(mix(pe, 7)));
    CHECK(xd::g(s, job.sym<double>(2, kUserOffset + 8), pe) == 0.5 * pe - 3);
    CHECK(xd::g(s, job.sym<long double>(2, kUserOffset + 16), pe) == 0.25L * pe + 1);
  }
  // p of 1/2/4/8/16-byte elements, aligned and (for the copy fallback) misaligned.
  auto *c = job.sym<int16_t>(2, kUserOffset + 64);
  xd::p(s, c, static_cast<int16_t>(-12345), 0);
  CHECK(*job.sym<int16_t>(0, kUserOffset + 64) == -12345);
  CHECK(*job.sym<int16_t>(1, kUserOffset + 64) == 0);
  unsigned char *mis = job.at(2, kUserOffset + 129);  // odd address: not one atomic access
  uint32_t v32 = static_cast<uint32_t>(mix(9));
  xd::p(s, reinterpret_cast<uint32_t *>(mis), v32, 1);
  uint32_t got32;
  std::memcpy(&got32, job.at(1, kUserOffset + 129), 4);
  CHECK(got32 == v32);
  CHECK(xd::g(s, reinterpret_cast<const uint32_t *>(mis), 1) == v32);
  xd::p(s, job.sym<long double>(2, kUserOffset + 256), -7.5L, 1);
  CHECK(*job.sym<long double>(1, kUserOffset + 256) == -7.5L);

  std::array<uint32_t, 37> src{};
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(mix(2, 0, i));
  xd::put(s, job.sym<uint32_t>(2, kUserOffset + 512), src.data(), src.size(), 0);
  std::array<uint32_t, 37> back{};
  xd::get(s, back.data(), job.sym<uint32_t>(2, kUserOffset + 512), back.size(), 0);
  CHECK(back == src);
  CHECK(std::memcmp(job.at(0, kUserOffset + 512), src.data(), sizeof(src)) == 0);
}

TEST_CASE("lsa iput/iget honour both strides and leave gaps alone", "[path][rma]") {
  FakeJob job(2);
  xd::state_t s = job.state(0);
  const size_t n = 11;
  for (ptrdiff_t dst : {1, 2, 3, 7}) {
    for (ptrdiff_t sst : {1, 2, 5}) {
      std::vector<uint64_t> src(n * sst);
      for (size_t i = 0; i < src.size(); ++i) src[i] = mix(dst, sst, i);
      uint64_t *rdest = job.sym<uint64_t>(1, kUserOffset);
      std::memset(rdest, kPoison, (n * dst + 8) * sizeof(uint64_t));
      xd::iput(s, job.sym<uint64_t>(0, kUserOffset), src.data(), dst, sst, n, 1);
      uint64_t poison;
      std::memset(&poison, kPoison, sizeof(poison));
      for (size_t k = 0; k < n * dst + 8; ++k) {
        INFO("iput dst " << dst << " sst " << sst << " slot " << k);
        if (k % dst == 0 && k / dst < n) {
          CHECK(rdest[k] == src[(k / dst) * sst]);
        } else {
          CHECK(rdest[k] == poison);
        }
      }
      // iget: the remote array is read with stride dst, written locally with stride sst.
      std::vector<uint64_t> back(n * sst + 4, poison);
      xd::iget(s, back.data(), job.sym<uint64_t>(0, kUserOffset), sst, dst, n, 1);
      for (size_t k = 0; k < back.size(); ++k) {
        INFO("iget dst " << dst << " sst " << sst << " slot " << k);
        if (k % sst == 0 && k / sst < n) {
          CHECK(back[k] == src[k]);
        } else {
          CHECK(back[k] == poison);
        }
      }
    }
  }
  // nelems 0 touches nothing, even with NULL buffers.
  xd::iput<uint64_t>(s, nullptr, nullptr, 1, 1, 0, 1);
  xd::iget<uint64_t>(s, nullptr, nullptr, 1, 1, 0, 1);
  xd::putmem(s, nullptr, nullptr, 0, 1);
}

TEMPLATE_TEST_CASE("lsa integer atomics return old values and store new ones", "[path][amo]",
                   int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, long,
                   unsigned long long) {
  using T = TestType;
  FakeJob job(3);
  xd::state_t s = job.state(0);
  T *sym = job.sym<T>(0, kUserOffset + 64);
  // Neighbours on both sides must not change (adjacent-word independence).
  T *before = job.sym<T>(2, kUserOffset + 64 - sizeof(T));
  T *after = job.sym<T>(2, kUserOffset + 64 + sizeof(T));
  T nb = bits_of<T>(mix(1)), na = bits_of<T>(mix(2));
  *before = nb;
  *after = na;
  T *r = job.sym<T>(2, kUserOffset + 64);
  for (uint64_t it = 0; it < 50; ++it) {
    T a = bits_of<T>(mix(it, 1)), b = bits_of<T>(mix(it, 2));
    *r = a;
    CHECK(xd::atomic_fetch(s, sym, 2) == a);
    CHECK(xd::atomic_fetch_add(s, sym, b, 2) == a);
    T sum = static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                           static_cast<std::make_unsigned_t<T>>(b));
    CHECK(*r == sum);
    CHECK(xd::atomic_fetch_inc(s, sym, 2) == sum);
    T inc = static_cast<T>(static_cast<std::make_unsigned_t<T>>(sum) + 1u);
    CHECK(*r == inc);
    xd::atomic_add(s, sym, b, 2);
    xd::atomic_inc(s, sym, 2);
    T v = static_cast<T>(static_cast<std::make_unsigned_t<T>>(inc) +
                         static_cast<std::make_unsigned_t<T>>(b) + 1u);
    CHECK(*r == v);
    CHECK(xd::atomic_fetch_and(s, sym, b, 2) == v);
    CHECK(*r == static_cast<T>(v & b));
    *r = a;
    CHECK(xd::atomic_fetch_or(s, sym, b, 2) == a);
    CHECK(*r == static_cast<T>(a | b));
    *r = a;
    CHECK(xd::atomic_fetch_xor(s, sym, b, 2) == a);
    CHECK(*r == static_cast<T>(a ^ b));
    *r = a;
    xd::atomic_and(s, sym, b, 2);
    CHECK(*r == static_cast<T>(a & b));
    xd::atomic_or(s, sym, a, 2);
    CHECK(*r == static_cast<T>((a & b) | a));
    xd::atomic_xor(s, sym, b, 2);
    CHECK(*r == static_cast<T>(((a & b) | a) ^ b));
    *r = a;
    CHECK(xd::atomic_swap(s, sym, b, 2) == a);
    CHECK(*r == b);
    // compare_swap: unequal leaves the value, equal replaces it.
    T other = static_cast<T>(b ^ T{1});
    CHECK(xd::atomic_compare_swap(s, sym, other, a, 2) == b);
    CHECK(*r == b);
    CHECK(xd::atomic_compare_swap(s, sym, b, a, 2) == b);
    CHECK(*r == a);
    xd::atomic_set(s, sym, b, 2);
    CHECK(*r == b);
  }
  CHECK(*before == nb);
  CHECK(*after == na);
  // The same offset at the other PEs was never touched.
  CHECK(*job.sym<T>(0, kUserOffset + 64) == T{});
  CHECK(*job.sym<T>(1, kUserOffset + 64) == T{});
}

TEMPLATE_TEST_CASE("lsa float atomics are bit exact", "[path][amo]", float, double) {
  using T = TestType;
  using U = xd::atomic::repr_t<T>;
  FakeJob job(2);
  xd::state_t s = job.state(1);
  T *sym = job.sym<T>(1, kUserOffset);
  T *r = job.sym<T>(0, kUserOffset);
  // Quiet NaN with payload, signalling NaN, -0.0, smallest denormal, -inf, and a hashed value.
  std::vector<U> patterns;
  if constexpr (sizeof(T) == 4) {
    patterns = {0x7fc12345u, 0x7f800001u, 0x80000000u,
                0x00000001u, 0xff800000u, static_cast<U>(mix(4))};
  } else {
    patterns = {0x7ff8000000abcdefull, 0x7ff0000000000001ull,
                0x8000000000000000ull, 1ull,
                0xfff0000000000000ull, mix(8)};
  }
  for (size_t i = 0; i < patterns.size(); ++i) {
    T v = xd::atomic::bits<T>(patterns[i]);
    T w = xd::atomic::bits<T>(patterns[(i + 1) % patterns.size()]);
    xd::atomic_set(s, sym, v, 0);
    U stored;
    std::memcpy(&stored, r, sizeof(U));
    CHECK(stored == patterns[i]);
    CHECK(same_bits(xd::atomic_fetch(s, sym, 0), v));
    CHECK(same_bits(xd::atomic_swap(s, sym, w, 0), v));
    CHECK(same_bits(xd::atomic_fetch(s, sym, 0), w));
    // compare_swap compares bits: a NaN matches itself, and -0.0 does not match +0.0.
    CHECK(same_bits(xd::atomic_compare_swap(s, sym, w, v, 0), w));
    CHECK(same_bits(xd::atomic_fetch(s, sym, 0), v));
  }
  xd::atomic_set(s, sym, static_cast<T>(-0.0), 0);
  CHECK(same_bits(xd::atomic_compare_swap(s, sym, static_cast<T>(0.0), static_cast<T>(1.0), 0),
                  static_cast<T>(-0.0)));
  CHECK(same_bits(xd::atomic_fetch(s, sym, 0), static_cast<T>(-0.0)));
}

TEST_CASE("lsa signals: SET and ADD, data before signal, zero-length signals", "[path][signal]") {
  FakeJob job(2);
  xd::state_t s = job.state(0);
  uint64_t *sig = job.sym<uint64_t>(0, kUserOffset);
  unsigned char *dest = job.at(0, kUserOffset + 64);
  std::vector<unsigned char> src(300);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(mix(3, i));
  xd::putmem_signal(s, dest, src.data(), src.size(), sig, 41, xd::kSignalSet, 1);
  CHECK(*job.sym<uint64_t>(1, kUserOffset) == 41);
  CHECK(std::memcmp(job.at(1, kUserOffset + 64), src.data(), src.size()) == 0);
  xd::put_signal(s, reinterpret_cast<uint32_t *>(dest), reinterpret_cast<uint32_t *>(src.data()), 5,
                 sig, 1000, xd::kSignalAdd, 1);
  CHECK(*job.sym<uint64_t>(1, kUserOffset) == 1041);
  xd::putmem_signal_nbi(s, nullptr, nullptr, 0, sig, 7, xd::kSignalAdd, 1);  // zero length
  CHECK(*job.sym<uint64_t>(1, kUserOffset) == 1048);
  xd::signal_op(s, sig, mix(5), xd::kSignalSet, 1);
  CHECK(*job.sym<uint64_t>(1, kUserOffset) == mix(5));
  xd::signal_op(s, sig, ~uint64_t{0}, xd::kSignalAdd, 1);  // wraps: adds -1
  CHECK(*job.sym<uint64_t>(1, kUserOffset) == mix(5) - 1);
  CHECK(*job.sym<uint64_t>(0, kUserOffset) == 0);

  // A reader thread that waits for the signal sees every byte of the data.
  for (uint64_t it = 1; it <= 200; ++it) {
    size_t n = 1 + mix(it) % 2000;
    std::vector<unsigned char> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<unsigned char>(mix(it, i));
    size_t bad = 0;
    std::thread reader([&] {
      uint64_t seen = xd::signal_wait_until(job.sym<uint64_t>(1, kUserOffset + 8), xd::kCmpGe, it);
      CHECK(seen == it);
      bad = std::memcmp(job.at(1, kUserOffset + 4096), data.data(), n) != 0;
    });
    xd::putmem_signal(s, job.at(0, kUserOffset + 4096), data.data(), n,
                      job.sym<uint64_t>(0, kUserOffset + 8), 1, xd::kSignalAdd, 1);
    reader.join();
    CHECK(bad == 0);
    CHECK(xd::signal_fetch(job.sym<uint64_t>(1, kUserOffset + 8)) == it);
  }
}

TEMPLATE_TEST_CASE("compare and test with all six operators", "[path][p2p]", int, unsigned int,
                   long, unsigned long, short, unsigned short, int64_t, uint64_t) {
  using T = TestType;
  FakeJob job(1);
  T *ivar = job.sym<T>(0, kUserOffset);
  // All-ones is -1 for signed and the maximum for unsigned: the comparisons must disagree.
  const T ones = static_cast<T>(~T{0});
  const T vals[] = {T{0}, T{1}, ones, static_cast<T>(mix(6))};
  for (T v : vals) {
    *ivar = v;
    for (T w : vals) {
      CHECK(xd::test(ivar, xd::kCmpEq, w) == (v == w));
      CHECK(xd::test(ivar, xd::kCmpNe, w) == (v != w));
      CHECK(xd::test(ivar, xd::kCmpGt, w) == (v > w));
      CHECK(xd::test(ivar, xd::kCmpGe, w) == (v >= w));
      CHECK(xd::test(ivar, xd::kCmpLt, w) == (v < w));
      CHECK(xd::test(ivar, xd::kCmpLe, w) == (v <= w));
    }
  }
  *ivar = ones;
  CHECK(xd::test(ivar, xd::kCmpGt, T{0}) == (std::is_signed_v<T> ? 0 : 1));
  CHECK(xd::test(ivar, 17, T{0}) == 0);  // unknown operator never holds
  CHECK(xd::wait_until(ivar, xd::kCmpEq, ones) == ones);
}

TEST_CASE("wait/test set forms: status masks, empty sets, vectors", "[path][p2p]") {
  FakeJob job(1);
  int64_t *iv = job.sym<int64_t>(0, kUserOffset);
  const size_t n = 6;
  for (size_t i = 0; i < n; ++i) iv[i] = static_cast<int64_t>(i) * 10;  // 0 10 20 30 40 50
  int none[n] = {1, 1, 1, 1, 1, 1};
  int mask[n] = {1, 0, 1, 0, 1, 0};  // only 1, 3, 5 take part
  size_t idx[n];
  size_t cursor = 0;

  // Empty sets: nelems 0, or every element excluded.
  CHECK(xd::test_all(iv, 0, nullptr, xd::kCmpEq, int64_t{-1}) == 1);
  CHECK(xd::test_all(iv, n, none, xd::kCmpEq, int64_t{-1}) == 1);
  xd::wait_until_all(iv, n, none, xd::kCmpEq, int64_t{-1});  // returns at once
  CHECK(xd::wait_until_any(iv, 0, nullptr, xd::kCmpEq, int64_t{-1}, &cursor) == SIZE_MAX);
  CHECK(xd::wait_until_any(iv, n, none, xd::kCmpEq, int64_t{-1}, &cursor) == SIZE_MAX);
  CHECK(xd::wait_until_some(iv, 0, idx, nullptr, xd::kCmpEq, int64_t{-1}) == 0);
  CHECK(xd::wait_until_some(iv, n, idx, none, xd::kCmpEq, int64_t{-1}) == 0);
  CHECK(xd::test_any(iv, 0, nullptr, xd::kCmpEq, int64_t{0}, &cursor) == SIZE_MAX);
  CHECK(xd::test_any(iv, n, none, xd::kCmpEq, int64_t{0}, &cursor) == SIZE_MAX);
  CHECK(xd::test_some(iv, n, idx, none, xd::kCmpEq, int64_t{0}) == 0);

  // Masks.
  CHECK(xd::test_all(iv, n, nullptr, xd::kCmpGe, int64_t{10}) == 0);  // iv[0] = 0
  CHECK(xd::test_all(iv, n, mask, xd::kCmpGe, int64_t{10}) == 1);
  xd::wait_until_all(iv, n, mask, xd::kCmpGe, int64_t{10});
  CHECK(xd::test_some(iv, n, idx, mask, xd::kCmpGt, int64_t{20}) == 2);
  CHECK(idx[0] == 3);
  CHECK(idx[1] == 5);
  CHECK(xd::test_some(iv, n, idx, nullptr, xd::kCmpLt, int64_t{25}) == 3);
  CHECK((idx[0] == 0 && idx[1] == 1 && idx[2] == 2));
  CHECK(xd::test_any(iv, n, mask, xd::kCmpLt, int64_t{0}, &cursor) == SIZE_MAX);
  CHECK(xd::wait_until_some(iv, n, idx, mask, xd::kCmpEq, int64_t{30}) == 1);
  CHECK(idx[0] == 3);

  // Vectors: element i compared with its own value.
  int64_t cmpv[n];
  for (size_t i = 0; i < n; ++i) cmpv[i] = static_cast<int64_t>(i) * 10 + (i % 2 ? 0 : 1);
  CHECK(xd::test_all_vector(iv, n, nullptr, xd::kCmpEq, cmpv) == 0);
  CHECK(xd::test_all_vector(iv, n, mask, xd::kCmpEq, cmpv) == 1);
  CHECK(xd::test_some_vector(iv, n, idx, nullptr, xd::kCmpLt, cmpv) == 3);
  CHECK((idx[0] == 0 && idx[1] == 2 && idx[2] == 4));
  CHECK(xd::wait_until_some_vector(iv, n, idx, nullptr, xd::kCmpEq, cmpv) == 3);
  CHECK((idx[0] == 1 && idx[1] == 3 && idx[2] == 5));
  cursor = 0;
  CHECK(xd::test_any_vector(iv, n, nullptr, xd::kCmpLt, cmpv, &cursor) == 0);
  CHECK(xd::wait_until_any_vector(iv, n, nullptr, xd::kCmpLt, cmpv, &cursor) == 2);
  xd::wait_until_all_vector(iv, n, mask, xd::kCmpLe, cmpv);
  CHECK(xd::wait_until_any_vector(iv, n, none, xd::kCmpLt, cmpv, &cursor) == SIZE_MAX);
}

TEST_CASE("wait_until_any and test_any are fair", "[path][p2p]") {
  FakeJob job(1);
  uint32_t *iv = job.sym<uint32_t>(0, kUserOffset);
  const size_t n = 7;
  for (size_t i = 0; i < n; ++i) iv[i] = (i % 3 == 0) ? 1u : 0u;  // 0, 3, 6 satisfy != 0
  size_t cursor = 0;
  std::vector<size_t> got;
  for (int k = 0; k < 6; ++k)
    got.push_back(xd::wait_until_any(iv, n, nullptr, xd::kCmpNe, 0u, &cursor));
  CHECK(got == std::vector<size_t>{0, 3, 6, 0, 3, 6});
  got.clear();
  for (int k = 0; k < 4; ++k) got.push_back(xd::test_any(iv, n, nullptr, xd::kCmpNe, 0u, &cursor));
  CHECK(got == std::vector<size_t>{0, 3, 6, 0});
  // A cursor beyond a shorter array wraps instead of skipping everything.
  cursor = 100;
  size_t i = xd::test_any(iv, 4, nullptr, xd::kCmpNe, 0u, &cursor);
  CHECK((i == 0 || i == 3));
  // Without a cursor the scan starts at 0.
  CHECK(xd::test_any(iv, n, nullptr, xd::kCmpNe, 0u, nullptr) == 0);
}

TEST_CASE("waits return once another thread updates the word", "[path][p2p]") {
  FakeJob job(2);
  xd::state_t s = job.state(0);
  int32_t *iv = job.sym<int32_t>(0, kUserOffset);
  int32_t *mine = job.sym<int32_t>(1, kUserOffset);  // PE 1's copy
  for (int it = 0; it < 20; ++it) {
    std::atomic<bool> returned{false};
    int32_t target = static_cast<int32_t>(mix(it) % 1000) + 1;
    std::thread waiter([&] {
      xd::wait_until(mine, xd::kCmpEq, target);
      returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(!returned.load());
    if (it % 2) {
      xd::atomic_set(s, iv, target, 1);
    } else {
      xd::p(s, iv, target, 1);
    }
    // A wait that misses the update would hang the test: after a deadline, fail and release it.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!returned.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    CHECK(returned.load());
    if (!returned.load()) xd::atomic::store(mine, target);
    waiter.join();
  }
  // wait_until_some picks up several words set by another thread.
  uint64_t *words = job.sym<uint64_t>(1, kUserOffset + 64);
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    xd::atomic_set(s, job.sym<uint64_t>(0, kUserOffset + 64 + 16), mix(1) | 1, 1);
  });
  size_t idx[4];
  size_t got = xd::wait_until_some(words, 4, idx, nullptr, xd::kCmpNe, uint64_t{0});
  setter.join();
  CHECK(got == 1);
  CHECK(idx[0] == 2);
}

TEST_CASE("sync_all with one pe returns at once and touches nothing", "[path][sync]") {
  FakeJob job(1);
  xd::state_t s = job.state(0);
  for (int i = 0; i < 3; ++i) xd::sync_all(s);
  for (int k = 0; k < xd::internal_region_t::kMaxRounds; ++k)
    CHECK(s.internal->team[0].flags[k] == 0);
  CHECK(s.internal->team[0].epoch == 3);
}

TEST_CASE("sync_all: no fake pe leaves before all arrived, for any pe count", "[path][sync]") {
  for (int n : {2, 3, 5, 7, 8}) {
    FakeJob job(n);
    const uint64_t epochs = 30;
    std::atomic<uint64_t> arrived{0};
    std::atomic<int> early{0};
    std::vector<std::thread> pes;
    for (int me = 0; me < n; ++me) {
      pes.emplace_back([&, me] {
        xd::state_t s = job.state(me);
        for (uint64_t e = 1; e <= epochs; ++e) {
          arrived.fetch_add(1);
          xd::sync_all(s);
          if (arrived.load() < e * static_cast<uint64_t>(n)) early.fetch_add(1);
        }
      });
    }
    for (auto &t : pes) t.join();
    INFO("n " << n);
    CHECK(early.load() == 0);
    CHECK(arrived.load() == epochs * static_cast<uint64_t>(n));
    // Each round's flag at each PE holds the last sync's epoch.
    int rounds = 0;
    while ((1 << rounds) < n) ++rounds;
    for (int pe = 0; pe < n; ++pe) {
      auto *in = reinterpret_cast<xd::internal_region_t *>(job.at(pe, 0));
      for (int k = 0; k < xd::internal_region_t::kMaxRounds; ++k) {
        CHECK(in->team[0].flags[k] == (k < rounds ? epochs : 0));
      }
    }
  }
}

TEST_CASE("peers without a built path reach the unreachable_path hook", "[path][dispatch]") {
  // Pe 2 holds a path code no build serves (a newer plugin's, say; GDA is served on the host
  // since the ibgda transport, and its peers carry a handle this fake job does not build).
  FakeJob job(3);
  job.peers()[2].path = 0x3f;
  job.peers()[1].path = XSHMEM_PATH_NONE;
  xd::state_t s = job.state(0);
  static int hook_pe;
  hook_pe = -1;
  s.on_bad_path = [](int pe) {
    hook_pe = pe;
    throw std::runtime_error("bad path");
  };
  uint64_t *sym = job.sym<uint64_t>(0, kUserOffset);
  uint64_t v = 1;
  CHECK_THROWS(xd::putmem(s, sym, &v, 8, 2));
  CHECK(hook_pe == 2);
  hook_pe = -1;
  CHECK_THROWS(xd::g(s, sym, 1));
  CHECK(hook_pe == 1);
  hook_pe = -1;
  CHECK_THROWS(xd::atomic_fetch_add(s, sym, uint64_t{1}, 2));
  CHECK(hook_pe == 2);
  hook_pe = -1;
  CHECK_THROWS(xd::putmem_signal(s, sym, &v, 8, sym + 1, 1, xd::kSignalSet, 2));
  CHECK(hook_pe == 2);
  CHECK(xd::ptr(s, sym, 2) == nullptr);
  CHECK(xd::ptr(s, sym, 1) == nullptr);
  CHECK(xd::ptr(s, sym, 0) == reinterpret_cast<void *>(job.at(0, kUserOffset)));
  // Nothing reached pe 2's memory.
  CHECK(*job.sym<uint64_t>(2, kUserOffset) == 0);
}
