// ORD rows of CONFORMANCE.md §4.8 (host API): ORD-01..05 and ORD-07.
//
// Payloads are bytes of xt::value<uint64_t>(src PE, dst PE, word, iteration) streams, so every
// byte depends on who sent it, to whom, where and when.
#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidMp = 0xD001;
constexpr uint32_t kTidPerDest = 0xD002;
constexpr uint32_t kTidWaw = 0xD003;
constexpr uint32_t kTidTrans = 0xD004;
constexpr uint32_t kTidOutst = 0xD005;
constexpr uint32_t kTidBarrier = 0xD007;

template <typename T>
T atomic_load(const T *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

// Fills `bytes` bytes at dst with the payload stream (src, dst_pe, iter, tid) starting at
// payload word 0 (scratch must hold (bytes+7)/8 words).
void payload(unsigned char *dst, size_t bytes, int src, int dst_pe, uint64_t iter, uint32_t tid,
             std::vector<uint64_t> &scratch) {
  const size_t words = (bytes + 7) / 8;
  if (scratch.size() < words) scratch.resize(words);
  xt::fill(scratch.data(), words, src, dst_pe, iter, tid);
  std::memcpy(dst, scratch.data(), bytes);
}

// Number of bytes in buf[0..bytes) that differ from the payload stream; reports the first.
size_t payload_mismatch(const unsigned char *buf, size_t bytes, int src, int dst_pe, uint64_t iter,
                        uint32_t tid, std::vector<uint64_t> &scratch, const char *what) {
  const size_t words = (bytes + 7) / 8;
  if (scratch.size() < words) scratch.resize(words);
  xt::fill(scratch.data(), words, src, dst_pe, iter, tid);
  if (std::memcmp(buf, scratch.data(), bytes) == 0) return 0;
  const unsigned char *w = reinterpret_cast<const unsigned char *>(scratch.data());
  size_t bad = 0, first = 0;
  for (size_t b = 0; b < bytes; ++b)
    if (buf[b] != w[b] && bad++ == 0) first = b;
  FAIL_CHECK("pe " << xt::me() << ": " << what << ": " << bad << " of " << bytes
                   << " bytes differ, first at " << first << " (0x" << std::hex << int{buf[first]}
                   << " instead of 0x" << int{w[first]} << std::dec << "), payload from pe " << src
                   << " iteration " << iter);
  return bad;
}

bool all_poison(const unsigned char *p, size_t n) {
  return std::count(p, p + n, xt::kPoison) == static_cast<std::ptrdiff_t>(n);
}

// A short random pause (a few hundred cycles up to a yield) to shake interleavings.
void jitter(uint64_t h) {
  switch (h & 15) {
    case 0:
      sched_yield();
      break;
    case 1:
    case 2:
      for (unsigned i = 0; i < (h >> 8) % 2000; ++i) asm volatile("" ::: "memory");
      break;
    default:
      break;
  }
}

}  // namespace

// ORD-01: message passing. Each PE streams to its right neighbour: data put(s) (blocking, nbi, or
// both halves), fence, flag (p, atomic_set, or an 8-byte putmem) into one of K slots; the receiver
// waits for the flag and checks the data. Any mismatch is a forbidden outcome.
TEST_CASE("ORD-01 fence_message_passing", "[ORD-01]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kSlots = 8, kMax = 16384;
  const uint64_t iters = 10000;
  xt::SymBuf<unsigned char> data(kSlots * kMax);
  xt::SymBuf<uint64_t> flag(kSlots), ack(1);
  std::vector<unsigned char> src(kSlots * kMax);
  std::vector<uint64_t> scratch;
  for (size_t s = 0; s < kSlots; ++s) flag[s] = 0;
  ack[0] = 0;
  xshmem_barrier_all();
  auto size_of = [](int s, int d, uint64_t it) {
    const uint64_t h = xt::hash(static_cast<uint64_t>(s), static_cast<uint64_t>(d), it, kTidMp);
    return static_cast<size_t>((h >> 16) % 16 == 0 ? 1 + (h >> 24) % kMax : 1 + (h >> 24) % 512);
  };
  uint64_t forbidden = 0;
  char what[160];
  for (uint64_t it = 0; it < iters; ++it) {
    const size_t slot = it % kSlots;
    // Sender.
    {
      const uint64_t h = xt::hash(static_cast<uint64_t>(me), it, kTidMp, 1);
      const size_t bytes = size_of(me, right, it);
      std::snprintf(what, sizeof what, "ORD-01 send iteration %llu (%zu bytes) to pe %d",
                    static_cast<unsigned long long>(it), bytes, right);
      xt::note("%s", what);
      if (it >= kSlots) {
        char desc[200];
        std::snprintf(desc, sizeof desc, "%s: pe %d to release slot %zu", what, right, slot);
        xt::wait_for(desc, [&] { return atomic_load(ack.data()) + kSlots > it; });
      }
      unsigned char *s = src.data() + slot * kMax;
      unsigned char *d = data.data() + slot * kMax;
      payload(s, bytes, me, right, it, kTidMp, scratch);
      switch (h % 3) {
        case 0:
          xshmem_putmem(d, s, bytes, right);
          break;
        case 1:
          xshmem_putmem_nbi(d, s, bytes, right);
          break;
        default:
          xshmem_putmem(d, s, bytes / 2, right);
          xshmem_putmem_nbi(d + bytes / 2, s + bytes / 2, bytes - bytes / 2, right);
          break;
      }
      jitter(h >> 4);
      xshmem_fence();
      jitter(h >> 12);
      const uint64_t f = it + 1;
      switch ((h >> 2) % 3) {
        case 0:
          xshmem_uint64_p(flag.data() + slot, f, right);
          break;
        case 1:
          xshmem_uint64_atomic_set(flag.data() + slot, f, right);
          break;
        default:
          xshmem_putmem(flag.data() + slot, &f, sizeof f, right);
          break;
      }
    }
    // Receiver.
    {
      const size_t bytes = size_of(left, me, it);
      std::snprintf(what, sizeof what, "ORD-01 receive iteration %llu (%zu bytes) from pe %d",
                    static_cast<unsigned long long>(it), bytes, left);
      xt::note("%s", what);
      char desc[200];
      std::snprintf(desc, sizeof desc, "%s: flag of slot %zu == %llu", what, slot,
                    static_cast<unsigned long long>(it + 1));
      xt::wait_for(desc, [&] { return atomic_load(flag.data() + slot) == it + 1; });
      jitter(xt::hash(static_cast<uint64_t>(me), it, kTidMp, 2));
      unsigned char *d = data.data() + slot * kMax;
      if (forbidden < 4) {
        if (payload_mismatch(d, bytes, left, me, it, kTidMp, scratch, what) != 0) ++forbidden;
      } else {
        // Past four reports only count.
        scratch.resize((bytes + 7) / 8);
        xt::fill(scratch.data(), scratch.size(), left, me, it, kTidMp);
        if (std::memcmp(d, scratch.data(), bytes) != 0) ++forbidden;
      }
      if (!all_poison(d + bytes, kMax - bytes)) {
        ++forbidden;
        FAIL_CHECK(what << ": bytes past the payload were written");
      }
      std::memset(d, xt::kPoison, bytes);
      xshmem_uint64_atomic_set(ack.data(), it + 1, left);
    }
  }
  INFO("forbidden outcomes (flag seen, data not) in " << iters << " iterations");
  CHECK(forbidden == 0);
  CHECK(data.guards_ok());
  CHECK(flag.guards_ok());
  xshmem_barrier_all();
}

// ORD-02: every PE sends data + flag to every other PE, fenced once for all destinations or once
// per destination; each receiver validates only its own data, as soon as its flag arrives.
TEST_CASE("ORD-02 fence_per_destination", "[ORD-02]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  const int me = xt::me(), n = xt::npes();
  const size_t un = static_cast<size_t>(n);
  constexpr size_t kMax = 2048;              // bytes per (source) slot
  const uint64_t iters = n <= 4 ? 150 : 60;  // 8 PEs share 2 cores in CI
  xt::SymBuf<unsigned char> inbox(un * kMax);
  xt::SymBuf<uint64_t> flag(un);
  std::vector<unsigned char> src(un * kMax);
  std::vector<uint64_t> scratch;
  for (size_t s = 0; s < un; ++s) flag[s] = 0;
  xshmem_barrier_all();
  auto size_of = [](int s, int d, uint64_t it) {
    return static_cast<size_t>(
        1 + xt::hash(static_cast<uint64_t>(s), static_cast<uint64_t>(d), it, kTidPerDest) % kMax);
  };
  size_t bad = 0;
  char what[160];
  for (uint64_t it = 0; it < iters; ++it) {
    const bool fence_once = it % 2 == 0;
    const bool nbi = (it / 2) % 2 == 1;
    std::snprintf(what, sizeof what, "ORD-02 iteration %llu (%s, %s)",
                  static_cast<unsigned long long>(it), fence_once ? "one fence" : "fence per pe",
                  nbi ? "put_nbi" : "put");
    xt::note("%s", what);
    const uint64_t f = it + 1;
    for (int j = 1; j < n; ++j) {
      const int d = (me + j) % n;
      const size_t bytes = size_of(me, d, it);
      unsigned char *s = src.data() + static_cast<size_t>(d) * kMax;
      payload(s, bytes, me, d, it, kTidPerDest, scratch);
      unsigned char *dst = inbox.data() + static_cast<size_t>(me) * kMax;
      if (nbi) {
        xshmem_putmem_nbi(dst, s, bytes, d);
      } else {
        xshmem_putmem(dst, s, bytes, d);
      }
      if (!fence_once) {
        xshmem_fence();
        xshmem_uint64_atomic_set(flag.data() + me, f, d);
      }
    }
    if (fence_once) {
      xshmem_fence();
      for (int j = 1; j < n; ++j) xshmem_uint64_p(flag.data() + me, f, (me + j) % n);
    }
    for (int j = 1; j < n; ++j) {
      const int s = (me + n - j) % n;
      char desc[200];
      std::snprintf(desc, sizeof desc, "%s: flag from pe %d == %llu", what, s,
                    static_cast<unsigned long long>(f));
      xt::wait_for(desc, [&] { return atomic_load(flag.data() + s) == f; });
      const size_t bytes = size_of(s, me, it);
      unsigned char *slot = inbox.data() + static_cast<size_t>(s) * kMax;
      if (payload_mismatch(slot, bytes, s, me, it, kTidPerDest, scratch, what) != 0) ++bad;
      if (!all_poison(slot + bytes, kMax - bytes)) {
        ++bad;
        FAIL_CHECK(what << ": bytes past the payload from pe " << s << " were written");
      }
      std::memset(slot, xt::kPoison, bytes);
    }
    xshmem_barrier_all();  // every receiver is done before the next iteration's puts
  }
  CHECK(bad == 0);
  CHECK(inbox.guards_ok());
  CHECK(flag.guards_ok());
}

// ORD-03: write-after-write to the same remote bytes: pattern A, fence, pattern B (full overlap
// or a sub-range); after completion the target holds B where B was written and A elsewhere.
// (CONFORMANCE names zeros as the first write; a value-derived pattern A also catches a lost or
// reordered second write, and additionally a lost first one where B does not cover it.)
TEST_CASE("ORD-03 waw_same_address", "[ORD-03]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  const int me = xt::me(), peer = 1 - me;
  std::vector<size_t> sizes = {1, 2, 3, 4, 7, 8, 9};
  for (unsigned k = 4; k <= 20; ++k) {
    const size_t p = size_t{1} << k;
    sizes.push_back(p - 1);
    sizes.push_back(p);
    sizes.push_back(p + 1);
  }
  const size_t cap = (size_t{1} << 20) + 1;
  xt::SymBuf<unsigned char> dst(cap);
  // SymBuf poisons the local copy after the allocation's barrier: without this one, the peer's
  // first writes could land before that poison and be overwritten by it (the 1-byte case then
  // read 0xA5: "1 bytes differ, first at 0").
  xshmem_barrier_all();
  std::vector<unsigned char> a(cap), b(cap), want(cap);
  std::vector<uint64_t> scratch;
  uint64_t g = 0;
  size_t bad = 0;
  char what[160];
  for (size_t bytes : sizes) {
    for (int variant = 0; variant < 8; ++variant, ++g) {
      const bool a_nbi = variant & 1, b_nbi = variant & 2, partial = variant & 4;
      // B covers [off, off+blen) of A's [0, bytes).
      const size_t off = partial ? bytes / 3 : 0;
      const size_t blen = partial ? std::max<size_t>(1, bytes / 2) : bytes;
      std::snprintf(what, sizeof what, "ORD-03 %zu bytes, first %s, second %s%s", bytes,
                    a_nbi ? "put_nbi" : "put", b_nbi ? "put_nbi" : "put",
                    partial ? " (sub-range)" : "");
      xt::note("%s", what);
      payload(a.data(), bytes, me, peer, 2 * g, kTidWaw, scratch);
      payload(b.data(), blen, me, peer, 2 * g + 1, kTidWaw, scratch);
      (a_nbi ? xshmem_putmem_nbi : xshmem_putmem)(dst.data(), a.data(), bytes, peer);
      xshmem_fence();
      (b_nbi ? xshmem_putmem_nbi : xshmem_putmem)(dst.data() + off, b.data(), blen, peer);
      xshmem_barrier_all();  // quiet + sync: both writes complete
      payload(want.data(), bytes, peer, me, 2 * g, kTidWaw, scratch);
      payload(want.data() + off, blen, peer, me, 2 * g + 1, kTidWaw, scratch);
      if (std::memcmp(dst.data(), want.data(), bytes) != 0) {
        size_t first = 0, nbad = 0;
        for (size_t i = 0; i < bytes; ++i)
          if (dst[i] != want[i] && nbad++ == 0) first = i;
        if (++bad <= 4)
          FAIL_CHECK(
              "pe " << me << ": " << what << ": " << nbad << " bytes differ, first at " << first
                    << (first >= off && first < off + blen ? " (second write)" : " (first write)"));
      }
      if (!all_poison(dst.data() + bytes, std::min<size_t>(64, cap - bytes))) {
        ++bad;
        FAIL_CHECK(what << ": bytes past the first write were written");
      }
      CHECK(dst.guards_ok());
      std::memset(dst.data(), xt::kPoison, bytes);
      xshmem_barrier_all();
    }
  }
  CHECK(bad == 0);
}

// ORD-04: transitive visibility. Per iteration A = it mod n puts to B = it+1 (putmem_nbi,
// uint64_put_nbi or uint64_put_signal_nbi) and adds to a counter on B, quiets, then flags C =
// it+2; C waits for the flag and reads B's data, counter (and signal): all of A's updates.
TEST_CASE("ORD-04 quiet_transitive_visibility", "[ORD-04]") {
  if (!xt::require_npes_in({3, 4}, "3,4")) return;
  const int me = xt::me(), n = xt::npes();
  constexpr size_t kMaxWords = 1024;
  const uint64_t iters = 300;
  xt::SymBuf<uint64_t> data(kMaxWords), counter(1), sig(1), flag(1);
  std::vector<uint64_t> src(kMaxWords), got(kMaxWords);
  counter[0] = 0;
  sig[0] = 0;
  flag[0] = 0;
  std::vector<uint64_t> expect_counter(static_cast<size_t>(n), 0);
  size_t bad = 0;
  char what[160];
  for (uint64_t it = 0; it < iters; ++it) {
    const int a = static_cast<int>(it % static_cast<uint64_t>(n));
    const int b = (a + 1) % n, c = (a + 2) % n;
    const size_t words = 1 + xt::hash(static_cast<uint64_t>(a), it, kTidTrans) % kMaxWords;
    const uint64_t add = (xt::hash(static_cast<uint64_t>(a), it, kTidTrans, 1) & 0xFFFF) + 1;
    const int variant = static_cast<int>(it % 3);
    expect_counter[static_cast<size_t>(b)] += add;
    std::snprintf(what, sizeof what, "ORD-04 iteration %llu: pe %d -> pe %d, flag to pe %d (%s)",
                  static_cast<unsigned long long>(it), a, b, c,
                  variant == 0   ? "putmem_nbi"
                  : variant == 1 ? "uint64_put_nbi"
                                 : "uint64_put_signal_nbi");
    xt::note("%s", what);
    if (me == b) data.poison();
    xshmem_barrier_all();
    if (me == a) {
      xt::fill(src.data(), words, a, b, it, kTidTrans);
      switch (variant) {
        case 0:
          xshmem_putmem_nbi(data.data(), src.data(), words * 8, b);
          break;
        case 1:
          xshmem_uint64_put_nbi(data.data(), src.data(), words, b);
          break;
        default:
          xshmem_uint64_put_signal_nbi(data.data(), src.data(), words, sig.data(), it + 1,
                                       XSHMEM_SIGNAL_SET, b);
          break;
      }
      xshmem_uint64_atomic_add(counter.data(), add, b);
      xshmem_quiet();
      xshmem_uint64_atomic_set(flag.data(), it + 1, c);
    }
    if (me == c) {
      char desc[200];
      std::snprintf(desc, sizeof desc, "%s: flag from pe %d", what, a);
      xt::wait_for(desc, [&] { return atomic_load(flag.data()) == it + 1; });
      std::fill(got.begin(), got.end(), 0);
      xshmem_uint64_get(got.data(), data.data(), words, b);
      bad += xt::mismatches(got.data(), words, a, b, it, kTidTrans, what);
      const uint64_t cnt = xshmem_uint64_atomic_fetch(counter.data(), b);
      if (cnt != expect_counter[static_cast<size_t>(b)]) {
        ++bad;
        FAIL_CHECK(what << ": counter on pe " << b << " reads " << cnt << ", expected "
                        << expect_counter[static_cast<size_t>(b)]);
      }
      if (variant == 2) {
        const uint64_t s = xshmem_uint64_g(sig.data(), b);
        if (s != it + 1) {
          ++bad;
          FAIL_CHECK(what << ": signal on pe " << b << " reads " << s << ", expected " << it + 1);
        }
      }
    }
    xshmem_barrier_all();
  }
  CHECK(bad == 0);
  CHECK(data.guards_ok());
}

// ORD-05: thousands of outstanding nbi operations to all PEs (puts, gets, fetching AMOs,
// put_signal_nbi), one quiet, then a notification: every target and local buffer is correct.
TEST_CASE("ORD-05 quiet_completes_all_outstanding", "[ORD-05]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PW")) return;
  const int me = xt::me(), n = xt::npes();
  const size_t un = static_cast<size_t>(n);
  constexpr size_t kOps = 4000;                  // per PE, spread over all PEs (itself included)
  constexpr size_t kMax = 64;                    // bytes per put/get
  const size_t per_dest = (kOps + un - 1) / un;  // operations from one PE to one PE
  // inbox/outbox: [src][j] slots of kMax bytes; counters and signals: one per source PE.
  xt::SymBuf<unsigned char> inbox(un * per_dest * kMax), outbox(un * per_dest * kMax);
  xt::SymBuf<uint64_t> counter(un), sig(un), done(1);
  std::vector<unsigned char> src(kOps * kMax);
  xt::LocalBuf<unsigned char> gets(kOps * kMax);
  xt::LocalBuf<uint64_t> fetched(kOps);
  std::vector<uint64_t> scratch;
  for (size_t s = 0; s < un; ++s) {
    counter[s] = 0;
    sig[s] = 0;
    for (size_t j = 0; j < per_dest; ++j)
      payload(outbox.data() + (s * per_dest + j) * kMax, kMax, me, static_cast<int>(s), j,
              kTidOutst + 1, scratch);
  }
  done[0] = 0;
  xshmem_barrier_all();

  auto bytes_of = [](int s, int d, size_t j) {
    return static_cast<size_t>(
        1 + xt::hash(static_cast<uint64_t>(s), static_cast<uint64_t>(d), j, kTidOutst) % kMax);
  };
  xt::note("ORD-05: %zu nbi operations to all pes", kOps);
  std::vector<size_t> count(un, 0);  // ops of each kind per destination
  std::vector<size_t> puts(un, 0), amos(un, 0), sigs(un, 0);
  for (size_t k = 0; k < kOps; ++k) {
    const int d = static_cast<int>((static_cast<size_t>(me) + k) % un);
    const size_t j = k / un;  // slot of this op in [me][.] at d
    const size_t bytes = bytes_of(me, d, j);
    unsigned char *slot = inbox.data() + (static_cast<size_t>(me) * per_dest + j) * kMax;
    switch (k / un % 4) {
      case 0:
        payload(src.data() + k * kMax, bytes, me, d, j, kTidOutst, scratch);
        xshmem_putmem_nbi(slot, src.data() + k * kMax, bytes, d);
        break;
      case 1:
        xshmem_getmem_nbi(gets.data() + k * kMax,
                          outbox.data() + (static_cast<size_t>(me) * per_dest + j) * kMax, bytes,
                          d);
        break;
      case 2:
        xshmem_uint64_atomic_fetch_add_nbi(fetched.data() + k, counter.data() + me, 1, d);
        break;
      default:
        payload(src.data() + k * kMax, bytes, me, d, j, kTidOutst, scratch);
        xshmem_putmem_signal_nbi(slot, src.data() + k * kMax, bytes, sig.data() + me, 1,
                                 XSHMEM_SIGNAL_ADD, d);
        break;
    }
  }
  xshmem_quiet();
  size_t bad = 0;
  // Local results: gets and fetched values (a permutation of 0..amos-1 per destination).
  std::vector<std::vector<uint64_t>> seen(un);
  for (size_t k = 0; k < kOps; ++k) {
    const int d = static_cast<int>((static_cast<size_t>(me) + k) % un);
    const size_t j = k / un;
    if (k / un % 4 == 1) {
      const size_t bytes = bytes_of(me, d, j);
      std::vector<uint64_t> w((kMax + 7) / 8);
      xt::fill(w.data(), w.size(), d, me, j, kTidOutst + 1);
      if (std::memcmp(gets.data() + k * kMax, w.data(), bytes) != 0 && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": ORD-05 get_nbi " << k << " from pe " << d
                         << " incomplete or wrong after quiet");
      if (!all_poison(gets.data() + k * kMax + bytes, kMax - bytes) && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": ORD-05 get_nbi " << k << " wrote past its length");
    } else if (k / un % 4 == 2) {
      seen[static_cast<size_t>(d)].push_back(fetched[k]);
    }
  }
  for (size_t d = 0; d < un; ++d) {
    std::sort(seen[d].begin(), seen[d].end());
    for (size_t i = 0; i < seen[d].size(); ++i)
      if (seen[d][i] != i && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": ORD-05 fetch_add_nbi values from pe " << d
                         << " are not a permutation of 0.." << seen[d].size() - 1);
  }
  CHECK(gets.guards_ok());
  CHECK(fetched.guards_ok());
  // Notify every PE, then check what every PE sent here.
  for (int j = 0; j < n; ++j) xshmem_uint64_atomic_inc(done.data(), (me + j) % n);
  xshmem_quiet();
  xt::wait_for("ORD-05: completion notices from every pe",
               [&] { return atomic_load(done.data()) == static_cast<uint64_t>(n); });
  for (int s = 0; s < n; ++s) {
    size_t n_amo = 0, n_sig = 0;
    for (size_t k = 0; k < kOps; ++k) {
      if ((static_cast<size_t>(s) + k) % un != static_cast<size_t>(me)) continue;
      const size_t j = k / un;
      const int kind = static_cast<int>(j % 4);
      if (kind == 2) ++n_amo;
      if (kind == 3) ++n_sig;
      if (kind != 0 && kind != 3) continue;
      const size_t bytes = bytes_of(s, me, j);
      const unsigned char *slot = inbox.data() + (static_cast<size_t>(s) * per_dest + j) * kMax;
      char what[120];
      std::snprintf(what, sizeof what, "ORD-05 slot %zu from pe %d", j, s);
      if (bad < 4) {
        bad += payload_mismatch(slot, bytes, s, me, j, kTidOutst, scratch, what) != 0;
      }
      if (!all_poison(slot + bytes, kMax - bytes) && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": " << what << ": bytes past the payload were written");
    }
    if (counter[static_cast<size_t>(s)] != n_amo && ++bad <= 4)
      FAIL_CHECK("pe " << me << ": ORD-05 counter of pe " << s << " is "
                       << counter[static_cast<size_t>(s)] << ", expected " << n_amo);
    if (xshmem_signal_fetch(sig.data() + s) != n_sig && ++bad <= 4)
      FAIL_CHECK("pe " << me << ": ORD-05 signal of pe " << s << " is "
                       << xshmem_signal_fetch(sig.data() + s) << ", expected " << n_sig);
  }
  CHECK(bad == 0);
  CHECK(inbox.guards_ok());
  CHECK(counter.guards_ok());
  xshmem_barrier_all();
}

// ORD-07: puts and AMOs (blocking and nbi) to every PE followed by barrier_all alone are visible
// everywhere; likewise quiet + sync_all. (No team API exists yet, so the team-barrier form is
// not tested; sync alone gets no negative assertion.)
TEST_CASE("ORD-07 barrier_completes_updates", "[ORD-07]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  const int me = xt::me(), n = xt::npes();
  const size_t un = static_cast<size_t>(n);
  constexpr size_t kWords = 64;
  // blk/nbi: [src] slots of kWords; ctr: one non-fetching and one nbi-fetching counter.
  xt::SymBuf<uint64_t> blk(un * kWords), nbi(un * kWords), ctr(2);
  std::vector<uint64_t> src(un * kWords), src_nbi(un * kWords);
  xt::LocalBuf<uint64_t> fetched(un);
  ctr[0] = 0;
  ctr[1] = 0;
  xshmem_barrier_all();
  uint64_t sum_add = 0;  // what every PE's ctr[0] accumulates
  const int rounds = 20;
  for (int r = 0; r < rounds; ++r) {
    const bool with_sync = r % 2 == 1;
    const uint64_t it = static_cast<uint64_t>(r);
    xt::note("ORD-07 round %d (%s)", r, with_sync ? "quiet + sync_all" : "barrier_all");
    for (int j = 0; j < n; ++j) {
      const int d = (me + j) % n;
      const size_t ud = static_cast<size_t>(d);
      xt::fill(src.data() + ud * kWords, kWords, me, d, 2 * it, kTidBarrier);
      xt::fill(src_nbi.data() + ud * kWords, kWords, me, d, 2 * it + 1, kTidBarrier);
      xshmem_uint64_put(blk.data() + static_cast<size_t>(me) * kWords, src.data() + ud * kWords,
                        kWords, d);
      xshmem_uint64_put_nbi(nbi.data() + static_cast<size_t>(me) * kWords,
                            src_nbi.data() + ud * kWords, kWords, d);
      xshmem_uint64_atomic_add(ctr.data(), (xt::hash(me, d, it, kTidBarrier) & 0xFF) + 1, d);
      xshmem_uint64_atomic_fetch_add_nbi(fetched.data() + ud, ctr.data() + 1, 1, d);
    }
    for (int s = 0; s < n; ++s) sum_add += (xt::hash(s, me, it, kTidBarrier) & 0xFF) + 1;
    if (with_sync) {
      xshmem_quiet();
      xshmem_sync_all();
    } else {
      xshmem_barrier_all();
    }
    char what[120];
    std::snprintf(what, sizeof what, "ORD-07 round %d after %s", r,
                  with_sync ? "quiet + sync_all" : "barrier_all");
    for (int s = 0; s < n; ++s) {
      const size_t us = static_cast<size_t>(s);
      CHECK(xt::mismatches(blk.data() + us * kWords, kWords, s, me, 2 * it, kTidBarrier, what) ==
            0);
      CHECK(xt::mismatches(nbi.data() + us * kWords, kWords, s, me, 2 * it + 1, kTidBarrier,
                           what) == 0);
    }
    if (ctr[0] != sum_add)
      FAIL_CHECK(what << ": atomic_add counter is " << ctr[0] << ", expected " << sum_add);
    const uint64_t want1 = static_cast<uint64_t>(n) * (it + 1);
    if (ctr[1] != want1)
      FAIL_CHECK(what << ": fetch_add_nbi counter is " << ctr[1] << ", expected " << want1);
    // The fetched values of this round lie in [n*it, n*(it+1)).
    for (int d = 0; d < n; ++d) {
      const uint64_t f = fetched[static_cast<size_t>(d)];
      if (f < static_cast<uint64_t>(n) * it || f >= want1)
        FAIL_CHECK(what << ": fetch_add_nbi to pe " << d << " fetched " << f);
    }
    CHECK(blk.guards_ok());
    CHECK(nbi.guards_ok());
    CHECK(ctr.guards_ok());
    // Nobody writes the next round before everyone checked this one.
    if (with_sync) {
      xshmem_sync_all();
    } else {
      xshmem_barrier_all();
    }
  }
}
