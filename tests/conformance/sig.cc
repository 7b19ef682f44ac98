// SIG rows of CONFORMANCE.md §4.6 (host API): SIG-01..05.
//
// A receiver waits for a signal with xt::wait_for over xshmem_signal_fetch (bounded), then calls
// xshmem_signal_wait_until with the satisfied condition and checks its result; SIG-05 also calls
// signal_wait_until before the update arrives (bounded by the harness watchdog, see xt::note).
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidRing = 0xB001;
constexpr uint32_t kTidNbi = 0xB002;
constexpr uint32_t kTidSweep = 0xB003;
constexpr uint32_t kTidAccum = 0xB004;
constexpr uint32_t kTidCmp = 0xB005;

using xt::detail::same;
using xt::detail::show;

// 128-bit element of put128_signal.
struct U128 {
  uint64_t lo, hi;
};

template <typename T>
T val(int src, int dst, size_t i, uint64_t iter, uint32_t tid) {
  if constexpr (std::is_same_v<T, U128>) {
    return U128{xt::value<uint64_t>(src, dst, 2 * i, iter, tid),
                xt::value<uint64_t>(src, dst, 2 * i + 1, iter, tid)};
  } else {
    return xt::value<T>(src, dst, i, iter, tid);
  }
}

// Waits (bounded) until the local signal equals `want`, then checks that signal_wait_until with
// that condition returns it.
void await_signal(uint64_t *sig, uint64_t want, const char *what) {
  char desc[200];
  std::snprintf(desc, sizeof desc, "%s: signal == %llu (now %llu)", what,
                static_cast<unsigned long long>(want),
                static_cast<unsigned long long>(xshmem_signal_fetch(sig)));
  xt::wait_for(desc, [&] { return xshmem_signal_fetch(sig) == want; });
  const uint64_t got = xshmem_signal_wait_until(sig, XSHMEM_CMP_EQ, want);
  if (got != want)
    FAIL_CHECK("pe " << xt::me() << ": " << what << ": signal_wait_until(EQ " << want
                     << ") returned " << got);
}

// Counts elements of data[0..n) that differ from val(src, dst, i, iter, tid); reports a few.
template <typename T>
size_t check_payload(const T *data, size_t n, int src, int dst, uint64_t iter, uint32_t tid,
                     const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const T want = val<T>(src, dst, i, iter, tid);
    if (!same(data[i], want) && ++bad <= 3)
      FAIL_CHECK("pe " << xt::me() << ": " << what << ": element " << i << " of " << n << " is "
                       << show(data[i]) << ", expected " << show(want) << " (iteration " << iter
                       << ")");
  }
  if (bad > 3)
    FAIL_CHECK("pe " << xt::me() << ": " << what << ": " << bad << " of " << n << " differ");
  return bad;
}

// SIG-01 for one put_signal variant: PE 0 sends a value-derived payload around the ring; each PE
// waits for its signal, checks every element (and that nothing past the payload was written),
// and forwards the payload with the same put_signal to its right neighbour, closing at PE 0.
// Phase 0 updates signals with SET (a fresh value per iteration), phase 1 with ADD.
template <typename T, typename F>
void ring(const char *variant, F put_signal, size_t max_elems) {
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  xt::SymBuf<T> data(max_elems);
  xt::SymBuf<uint64_t> sig(1);
  xt::LocalBuf<T> src(max_elems);
  sig[0] = 0;
  xshmem_barrier_all();
  const size_t sizes[] = {1, 3, max_elems};
  constexpr uint64_t kIters = 3;
  uint64_t expect = 0;
  char what[160];
  for (int phase = 0; phase < 2; ++phase) {
    const int op = phase == 0 ? XSHMEM_SIGNAL_SET : XSHMEM_SIGNAL_ADD;
    for (uint64_t it = 0; it < kIters; ++it) {
      const uint64_t g = static_cast<uint64_t>(phase) * kIters + it;
      const size_t nel = sizes[it % 3];
      // The signal value of the hop src -> dst in iteration g: SET values are unique per g.
      auto sv = [&](int s, int d) {
        const uint64_t h = xt::value<uint64_t>(s, d, 0, g, kTidRing);
        return op == XSHMEM_SIGNAL_SET ? ((g + 1) << 40) | (h & 0xFFFFFFFFFFull)
                                       : (h & 0xFFFFu) + 1;
      };
      std::snprintf(what, sizeof what, "SIG-01 %s %s ring iteration %llu (%zu elements)", variant,
                    op == XSHMEM_SIGNAL_SET ? "SET" : "ADD", static_cast<unsigned long long>(it),
                    nel);
      xt::note("%s", what);
      if (me == 0) {
        for (size_t i = 0; i < nel; ++i) src[i] = val<T>(0, 0, i, g, kTidRing);
        put_signal(data.data(), src.data(), nel, sig.data(), sv(me, right), op, right);
      }
      expect = op == XSHMEM_SIGNAL_SET ? sv(left, me) : expect + sv(left, me);
      await_signal(sig.data(), expect, what);
      CHECK(check_payload(data.data(), nel, 0, 0, g, kTidRing, what) == 0);
      const unsigned char *tail = reinterpret_cast<const unsigned char *>(data.data() + nel);
      const size_t tail_bytes = (max_elems - nel) * sizeof(T);
      if (std::count(tail, tail + tail_bytes, xt::kPoison) != static_cast<long>(tail_bytes))
        FAIL_CHECK("pe " << me << ": " << what << ": bytes past the payload were written");
      CHECK(data.guards_ok());
      // Copy out, poison the destination, then forward: the next payload can only arrive after
      // this PE's forward went around the ring.
      if (me != 0) std::copy(data.data(), data.data() + nel, src.data());
      data.poison();
      if (me != 0) put_signal(data.data(), src.data(), nel, sig.data(), sv(me, right), op, right);
    }
  }
  CHECK(src.guards_ok());
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("SIG-01 put_signal_ring", "[SIG-01]") {
  if (!xt::require_npes_in({2, 3, 4, 5, 7, 8}, "PS,PO")) return;
#define XT_RING(T, N) ring<T>("xshmem_" #N "_put_signal", &xshmem_##N##_put_signal, 257);
  XSHMEM_RMA_TYPES(XT_RING)
#undef XT_RING
  ring<uint8_t>("xshmem_put8_signal", &xshmem_put8_signal, 1025);
  ring<uint16_t>("xshmem_put16_signal", &xshmem_put16_signal, 513);
  ring<uint32_t>("xshmem_put32_signal", &xshmem_put32_signal, 257);
  ring<uint64_t>("xshmem_put64_signal", &xshmem_put64_signal, 129);
  ring<U128>("xshmem_put128_signal", &xshmem_put128_signal, 65);
  ring<unsigned char>("xshmem_putmem_signal", &xshmem_putmem_signal, 4099);
}

namespace {

// SIG-02 for one nbi variant: every PE sends to every PE (itself included) with put_signal_nbi,
// quiets, and overwrites its sources at once; each receiver checks the payload as soon as it sees
// the signal (signal observed => data delivered) and that the later overwrite did not reach it.
template <typename T, typename F>
void nbi_all(const char *variant, F put_signal_nbi, size_t nel) {
  const int me = xt::me(), n = xt::npes();
  const size_t un = static_cast<size_t>(n);
  xt::SymBuf<T> inbox(un * nel);
  xt::SymBuf<uint64_t> sig(un);
  xt::LocalBuf<T> src(un * nel);
  for (size_t s = 0; s < un; ++s) sig[s] = 0;
  xshmem_barrier_all();
  char what[160];
  for (uint64_t it = 0; it < 6; ++it) {
    const int op = (it % 2 == 0) ? XSHMEM_SIGNAL_SET : XSHMEM_SIGNAL_ADD;
    std::snprintf(what, sizeof what, "SIG-02 %s iteration %llu", variant,
                  static_cast<unsigned long long>(it));
    xt::note("%s", what);
    for (int j = 0; j < n; ++j) {
      const int d = (me + j) % n;
      T *s = src.data() + static_cast<size_t>(d) * nel;
      for (size_t i = 0; i < nel; ++i) s[i] = val<T>(me, d, i, it, kTidNbi);
      // The signal reaches it+1 either way: SET it+1, or ADD 1 to it.
      put_signal_nbi(inbox.data() + static_cast<size_t>(me) * nel, s, nel, sig.data() + me,
                     op == XSHMEM_SIGNAL_SET ? it + 1 : 1, op, d);
    }
    xshmem_quiet();
    // Sources are reusable after quiet: overwrite them with a pattern that must never arrive.
    for (size_t i = 0; i < un * nel; ++i) src[i] = val<T>(me, me, i, it + 1000, kTidNbi);
    for (int src_pe = 0; src_pe < n; ++src_pe) {
      await_signal(sig.data() + src_pe, it + 1, what);
      CHECK(check_payload(inbox.data() + static_cast<size_t>(src_pe) * nel, nel, src_pe, me, it,
                          kTidNbi, what) == 0);
    }
    CHECK(inbox.guards_ok());
    CHECK(sig.guards_ok());
    CHECK(src.guards_ok());
    xshmem_barrier_all();  // receivers are done before the next iteration overwrites
  }
}

}  // namespace

TEST_CASE("SIG-02 put_signal_nbi_quiet", "[SIG-02]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  nbi_all<int64_t>("xshmem_int64_put_signal_nbi", &xshmem_int64_put_signal_nbi, 300);
  nbi_all<double>("xshmem_double_put_signal_nbi", &xshmem_double_put_signal_nbi, 77);
  nbi_all<uint32_t>("xshmem_put32_signal_nbi", &xshmem_put32_signal_nbi, 1001);
  nbi_all<U128>("xshmem_put128_signal_nbi", &xshmem_put128_signal_nbi, 33);
  nbi_all<unsigned char>("xshmem_putmem_signal_nbi", &xshmem_putmem_signal_nbi, 4097);
}

namespace {

// SIG-03: payload sizes in bytes: 0..17, then 2^k-1, 2^k, 2^k+1 up to `max_log2`.
std::vector<size_t> sweep_sizes(unsigned max_log2) {
  std::vector<size_t> v = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17};
  for (unsigned k = 5; k <= max_log2; ++k) {
    const size_t p = size_t{1} << k;
    v.push_back(p - 1);
    v.push_back(p);
    v.push_back(p + 1);
  }
  return v;
}

// SIG-03: each PE streams put_signal payloads to its right neighbour (blocking and nbi, SET and
// ADD); the receiver waits for the signal, then checks every payload byte and that the bytes
// after it were not written, re-poisons, and acknowledges (a signal_add on the sender).
void sweep(const std::vector<size_t> &sizes, uint64_t iters) {
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kTail = 64;  // bytes after the payload that must stay poisoned
  const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  const size_t cap = max_bytes + kTail;
  const size_t words = (cap + 7) / 8;
  xt::SymBuf<unsigned char> data(cap);
  xt::SymBuf<uint64_t> sig(1), ack(1);
  xt::LocalBuf<uint64_t> src(words), want(words);
  sig[0] = 0;
  ack[0] = 0;
  xshmem_barrier_all();
  uint64_t failures = 0;
  char what[160];
  for (uint64_t it = 0; it < iters; ++it) {
    const size_t bytes = sizes[it % sizes.size()];
    const size_t nwords = (bytes + 7) / 8;
    const int variant = static_cast<int>(it % 4);
    std::snprintf(what, sizeof what, "SIG-03 iteration %llu, %zu bytes, %s %s",
                  static_cast<unsigned long long>(it), bytes, variant < 2 ? "blocking" : "nbi",
                  variant % 2 == 0 ? "SET" : "ADD");
    xt::note("%s", what);
    // Sender: wait until the receiver has released the previous payload.
    char desc[200];
    std::snprintf(desc, sizeof desc, "%s: acknowledgement %llu from pe %d", what,
                  static_cast<unsigned long long>(it), right);
    xt::wait_for(desc, [&] { return xshmem_signal_fetch(ack.data()) >= it; });
    xt::fill(src.data(), nwords, me, right, it, kTidSweep);
    const int op = variant % 2 == 0 ? XSHMEM_SIGNAL_SET : XSHMEM_SIGNAL_ADD;
    const uint64_t signal = op == XSHMEM_SIGNAL_SET ? it + 1 : 1;  // the signal becomes it+1
    if (variant < 2) {
      xshmem_putmem_signal(data.data(), src.data(), bytes, sig.data(), signal, op, right);
    } else {
      xshmem_putmem_signal_nbi(data.data(), src.data(), bytes, sig.data(), signal, op, right);
      xshmem_quiet();
    }
    // Receiver.
    await_signal(sig.data(), it + 1, what);
    xt::fill(want.data(), nwords, left, me, it, kTidSweep);
    if (std::memcmp(data.data(), want.data(), bytes) != 0) {
      size_t first = 0, bad = 0;
      const unsigned char *w = reinterpret_cast<const unsigned char *>(want.data());
      for (size_t b = 0; b < bytes; ++b) {
        if (data[b] != w[b] && bad++ == 0) first = b;
      }
      if (++failures <= 4)
        FAIL_CHECK("pe " << me << ": " << what << ": " << bad << " payload bytes differ after "
                         << "the signal was seen, first at byte " << first << " (0x" << std::hex
                         << int{data[first]} << " instead of 0x" << int{w[first]} << std::dec
                         << ")");
    }
    const size_t tail = std::min(kTail, cap - bytes);
    if (std::count(data.data() + bytes, data.data() + bytes + tail, xt::kPoison) !=
        static_cast<long>(tail)) {
      if (++failures <= 4)
        FAIL_CHECK("pe " << me << ": " << what << ": bytes after the payload were written");
    }
    std::memset(data.data(), xt::kPoison, bytes + tail);
    xshmem_signal_add(ack.data(), 1, left);
  }
  CHECK(failures == 0);
  CHECK(data.guards_ok());
  CHECK(src.guards_ok());
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("SIG-03 signal_data_ordering_sweep", "[SIG-03]") {
  if (!xt::require_npes_in({2, 4}, "P2,4")) return;
  // Sizes to 4 MiB + 1; sizes >= 64 MiB run in the hidden "[.lengthy]" case below. The iteration
  // count keeps the default run well under 30 s with 4 PEs on 2 cores.
  const auto sizes = sweep_sizes(22);
  sweep(sizes, xt::npes() == 2 ? 2000 : 1000);
}

TEST_CASE("SIG-03 signal_data_ordering_sweep (>= 64 MiB)", "[SIG-03][.lengthy]") {
  if (!xt::require_npes_in({2, 4}, "P2,4")) return;
  const size_t m = size_t{64} << 20;
  sweep({m - 1, m, m + 1, m + m / 2, 1, 0}, 12);
}

namespace {

// SIG-04, for one root: every PE adds into one signal on the root with put_signal ADD (blocking
// and nbi, payload into its own slot) and signal_add; the root sees the exact total and every
// slot holds its sender's last payload. Then signal_set: one PE alone, then all PEs at once (the
// result is exactly one of the values set).
void accumulate(int root, uint64_t round) {
  const int me = xt::me(), n = xt::npes();
  constexpr size_t kSlot = 8;
  const uint64_t k_ops = n <= 4 ? 200 : 100;
  xt::SymBuf<uint64_t> slots(static_cast<size_t>(n) * kSlot);
  xt::SymBuf<uint64_t> sig(1), sig2(1);
  xt::LocalBuf<uint64_t> src(kSlot);
  sig[0] = 0;
  sig2[0] = 0;
  xshmem_barrier_all();
  auto addend = [&](int p, uint64_t k) {
    return (xt::value<uint64_t>(p, root, k, round, kTidAccum) & 0xFFFFFu) + 1;
  };
  uint64_t total = 0;
  for (int p = 0; p < n; ++p)
    for (uint64_t k = 0; k < k_ops; ++k) total += addend(p, k);
  xt::note("SIG-04 root %d: %llu signal additions per pe", root,
           static_cast<unsigned long long>(k_ops));
  for (uint64_t k = 0; k < k_ops; ++k) {
    uint64_t *slot = slots.data() + static_cast<size_t>(me) * kSlot;
    switch (k % 3) {
      case 0:
        xt::fill(src.data(), kSlot, me, root, round * k_ops + k, kTidAccum);
        xshmem_uint64_put_signal(slot, src.data(), kSlot, sig.data(), addend(me, k),
                                 XSHMEM_SIGNAL_ADD, root);
        break;
      case 1:
        xt::fill(src.data(), kSlot, me, root, round * k_ops + k, kTidAccum);
        xshmem_put64_signal_nbi(slot, src.data(), kSlot, sig.data(), addend(me, k),
                                XSHMEM_SIGNAL_ADD, root);
        xshmem_quiet();  // the source is rewritten next time
        break;
      default:
        xshmem_signal_add(sig.data(), addend(me, k), root);
        break;
    }
  }
  xshmem_quiet();
  if (me == root) {
    await_signal(sig.data(), total, "SIG-04 accumulated signal on the root");
    // Every PE's last put_signal carried its last payload (k_ops-1 or the one before it).
    for (int p = 0; p < n; ++p) {
      uint64_t last = k_ops - 1;
      while (last % 3 == 2) --last;
      char what[80];
      std::snprintf(what, sizeof what, "SIG-04 slot of pe %d on root %d", p, root);
      CHECK(xt::mismatches(slots.data() + static_cast<size_t>(p) * kSlot, kSlot, p, root,
                           round * k_ops + last, kTidAccum, what) == 0);
    }
    CHECK(slots.guards_ok());
    CHECK(sig.guards_ok());
  }
  xshmem_barrier_all();

  // signal_set by one PE, then by all at once.
  const int setter = (root + 1) % n;
  const uint64_t one = xt::value<uint64_t>(setter, root, 1, round, kTidAccum);
  if (me == setter) xshmem_signal_set(sig2.data(), one, root);
  if (me == root) {
    await_signal(sig2.data(), one, "SIG-04 signal_set by one pe");
    CHECK(xshmem_signal_fetch(sig2.data()) == one);
  }
  xshmem_barrier_all();
  xshmem_signal_set(sig2.data(), xt::value<uint64_t>(me, root, 2, round, kTidAccum), root);
  xshmem_barrier_all();
  if (me == root) {
    const uint64_t got = xshmem_signal_fetch(sig2.data());
    bool one_of = false;
    for (int p = 0; p < n; ++p)
      one_of = one_of || got == xt::value<uint64_t>(p, root, 2, round, kTidAccum);
    if (!one_of)
      FAIL_CHECK("SIG-04: after concurrent signal_set the signal on root " << root << " is " << got
                                                                           << ", which no PE set");
    CHECK(sig2.guards_ok());
  }
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("SIG-04 signal_accumulate_all", "[SIG-04]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PW")) return;
  for (int root = 0; root < xt::npes(); ++root) accumulate(root, static_cast<uint64_t>(root));
}

namespace {

bool cmp_holds(int cmp, uint64_t a, uint64_t b) {
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
const char *cmp_name(int cmp) {
  static const char *const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

// SIG-05 values per comparison: start s0 and intermediate mid do not satisfy the condition
// against cv, s1 does. mid is a trap: a signed (or low-32-bit) comparison would accept it.
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

// Moves the signal at `pe` from `from` to `to` with update method `how`.
void update_signal(uint64_t *sig, uint64_t *payload_dst, const uint64_t *payload, uint64_t from,
                   uint64_t to, int how, int pe) {
  switch (how) {
    case 0:
      xshmem_signal_set(sig, to, pe);
      break;
    case 1:
      xshmem_uint64_put_signal(payload_dst, payload, 1, sig, to, XSHMEM_SIGNAL_SET, pe);
      break;
    case 2:
      xshmem_signal_add(sig, to - from, pe);
      break;  // wraps modulo 2^64
    default:
      xshmem_putmem_signal_nbi(payload_dst, payload, 8, sig, to - from, XSHMEM_SIGNAL_ADD, pe);
      break;
  }
  xshmem_quiet();
}
const char *method_name(int how) {
  static const char *const names[] = {"signal_set", "uint64_put_signal SET", "signal_add",
                                      "putmem_signal_nbi ADD"};
  return names[how];
}

}  // namespace

TEST_CASE("SIG-05 signal_fetch_wait_cmp", "[SIG-05]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  const int me = xt::me(), peer = 1 - me;
  xt::SymBuf<uint64_t> sig(1), go(1), payload(1);
  xt::LocalBuf<uint64_t> src(1);
  go[0] = 0;
  xshmem_barrier_all();
  uint64_t round = 0;
  for (const CmpCase &c : kCmpCases) {
    for (int how = 0; how < 4; ++how) {
      for (int waiter = 0; waiter < 2; ++waiter, ++round) {
        char what[160];
        std::snprintf(what, sizeof what, "SIG-05 %s via %s, waiter pe %d", cmp_name(c.cmp),
                      method_name(how), waiter);
        xt::note("%s", what);
        src[0] = xt::value<uint64_t>(me, peer, 0, round, kTidCmp);
        if (me != waiter) xshmem_signal_set(sig.data(), c.s0, waiter);
        xshmem_barrier_all();
        if (me == waiter) CHECK(xshmem_signal_fetch(sig.data()) == c.s0);
        xshmem_barrier_all();  // the start value is checked before the updater moves on
        if (me == waiter) {
          // The updater moves the signal to the trap value first.
          char desc[200];
          std::snprintf(desc, sizeof desc, "%s: signal == intermediate %llu", what,
                        static_cast<unsigned long long>(c.mid));
          xt::wait_for(desc, [&] { return xshmem_signal_fetch(sig.data()) == c.mid; });
          if (xshmem_uint64_test(sig.data(), c.cmp, c.cv) != 0)
            FAIL_CHECK(what << ": uint64_test(" << cmp_name(c.cmp) << " " << c.cv
                            << ") is true for signal " << c.mid);
          xshmem_uint64_atomic_set(go.data(), round + 1, peer);
          // Blocks until the updater's final value arrives (bounded by the test watchdog).
          xt::note("%s: blocked in signal_wait_until(%s, %llu)", what, cmp_name(c.cmp),
                   static_cast<unsigned long long>(c.cv));
          const uint64_t got = xshmem_signal_wait_until(sig.data(), c.cmp, c.cv);
          if (got != c.s1 || !cmp_holds(c.cmp, got, c.cv))
            FAIL_CHECK(what << ": signal_wait_until(" << cmp_name(c.cmp) << " " << c.cv
                            << ") returned " << got << ", expected " << c.s1);
          CHECK(xshmem_signal_fetch(sig.data()) == c.s1);
          if (how % 2 == 1)
            CHECK(xt::mismatches(payload.data(), 1, peer, me, round, kTidCmp, what) == 0);
        } else {
          update_signal(sig.data(), payload.data(), src.data(), c.s0, c.mid, how, waiter);
          char desc[200];
          std::snprintf(desc, sizeof desc, "%s: go from the waiter", what);
          xt::wait_for(desc,
                       [&] { return __atomic_load_n(go.data(), __ATOMIC_ACQUIRE) == round + 1; });
          usleep(1000);  // let the waiter block
          update_signal(sig.data(), payload.data(), src.data(), c.mid, c.s1, how, waiter);
        }
        CHECK(sig.guards_ok());
        xshmem_barrier_all();
      }
    }
  }
}
