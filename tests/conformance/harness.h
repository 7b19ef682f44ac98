// xshmem conformance harness (CONFORMANCE.md §4.1).
//
// Every PE runs the same Catch2 session (--order decl, same filters), so all PEs enter the same
// TEST_CASE/SECTION sequence and collectives match. Inside communication phases use CHECK (never
// REQUIRE); at the end of each test case a listener agrees out of band (over the bootstrap, not
// the data path under test) on whether any PE failed, so every PE reports the same result. A
// REQUIRE failure or an exception on one PE aborts the whole job instead of leaving peers
// blocked. A watchdog thread stops the job if a test case runs past XT_TEST_TIMEOUT seconds
// (default 120), printing the test, the PE and the last operation noted with xt::note.
//
// How the listener (harness.cc) keeps PEs together:
// - A failed assertion that is not CHECK-like (REQUIRE, FAIL, an unexpected exception) marks this
//   PE's test case as fatally failed. Right after Catch2 has printed it (at the next sectionEnded,
//   i.e. before the next section or test case can start), the PE prints
//   "pe N: test '<name>' failed fatally; stopping the job" and calls xt::abort_job, which ends
//   every PE through xshmem_global_exit(1). Peers blocked in a collective of that test case are
//   therefore never left waiting; the job's status is nonzero.
// - Otherwise, when the test case's root section ends (once per Catch2 pass over the test case,
//   so after every leaf section), every PE allgathers {failed, skipped} out of band. A PE whose
//   own assertions passed but whose peers failed records a failure ("peer pe(s) 1,3 failed"), so
//   the test case fails on every PE and the process exit codes agree. Different skip decisions
//   on different PEs are a failure too.
// - Environment: XT_TEST_TIMEOUT (seconds per test case, default 120), XT_WAIT_TIMEOUT (seconds per
//   xt::wait_for, default 30), XT_EXPECT_NPES (launcher size, set by CTest; checked by INIT-01).
// - main.cc forces `--order decl`, adds `--rng-seed` (XT_RNG_SEED, default 1) when not given,
//   calls xshmem_init before and xshmem_finalize after the session, and exits 77 when every test
//   case that ran was skipped (CTest SKIP_RETURN_CODE).
#ifndef XSHMEM_TESTS_HARNESS_H
#define XSHMEM_TESTS_HARNESS_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "../catch_compat.h"

namespace xt {

int me();
int npes();

// ---- Data: never a constant fill --------------------------------------------------------------

// A 64-bit mix of its arguments (splitmix64 chain).
uint64_t hash(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0, uint64_t e = 0);

// The value element `idx` of a transfer from `src` to `dst` in iteration `iter` of test `tid`
// should hold. Integers: hash bits. Floating point: exactly representable values (small integers
// and halves) so comparisons are exact and never NaN.
template <typename T>
T value(int src, int dst, size_t idx, uint64_t iter, uint32_t tid) {
  uint64_t h = hash(static_cast<uint64_t>(src), static_cast<uint64_t>(dst), idx, iter, tid);
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<int64_t>(h % 2000001) - 1000000) / static_cast<T>(2);
  } else if constexpr (std::is_same_v<T, bool>) {
    return (h & 1) != 0;
  } else {
    T v;
    std::memcpy(&v, &h, sizeof(T) < sizeof(h) ? sizeof(T) : sizeof(h));
    return v;
  }
}

// Fills dst[0..n) with value<T>(src, dst_pe, i, iter, tid).
template <typename T>
void fill(T *buf, size_t n, int src, int dst, uint64_t iter, uint32_t tid) {
  for (size_t i = 0; i < n; ++i) buf[i] = value<T>(src, dst, i, iter, tid);
}

// Counts elements of buf[0..n) that differ (bitwise) from the expected values; reports the first
// few through Catch2 INFO/FAIL_CHECK with `what`.
template <typename T>
size_t mismatches(const T *buf, size_t n, int src, int dst, uint64_t iter, uint32_t tid,
                  const char *what);

// Poison byte for destinations and guards.
constexpr unsigned char kPoison = 0xA5;
constexpr size_t kSymGuard = 64;      // guard bytes around symmetric destinations
constexpr size_t kLocalGuard = 4096;  // guard bytes around private host buffers

// A symmetric array of n elements with guard bands, allocated collectively (all PEs must create
// and destroy SymBufs in the same order with the same n).
// The constructor poisons the local copy after the
// allocation's exit barrier: synchronise (barrier) before peers write into it.
template <typename T>
class SymBuf {
 public:
  explicit SymBuf(size_t n, size_t guard = kSymGuard);
  ~SymBuf();  // collective free
  SymBuf(const SymBuf &) = delete;
  SymBuf &operator=(const SymBuf &) = delete;
  T *data() const { return data_; }
  T &operator[](size_t i) const { return data_[i]; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  void poison();           // data and guards := kPoison (local)
  bool guards_ok() const;  // guard bytes still kPoison (local)

 private:
  unsigned char *raw_ = nullptr;
  T *data_ = nullptr;
  size_t n_, guard_;
};

// A private (non-symmetric) host buffer with 4 KiB guard bands.
template <typename T>
class LocalBuf {
 public:
  explicit LocalBuf(size_t n, size_t guard = kLocalGuard);
  ~LocalBuf();
  LocalBuf(const LocalBuf &) = delete;
  LocalBuf &operator=(const LocalBuf &) = delete;
  T *data() const { return data_; }
  T &operator[](size_t i) const { return data_[i]; }
  size_t size() const { return n_; }
  void poison();
  bool guards_ok() const;

 private:
  unsigned char *raw_ = nullptr;
  T *data_ = nullptr;
  size_t n_, guard_;
};

// ---- Liveness -----------------------------------------------------------------------------------

// Records what this PE is doing now (printed by the watchdog and by wait_for on timeout).
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Seconds a single wait may take before the job is stopped (XT_WAIT_TIMEOUT, default 30).
double wait_timeout_s();
// Stops the whole job (every PE exits nonzero) after printing "pe N: <why>".
[[noreturn]] void abort_job(const char *why);

// Polls cond() until it returns true. Past wait_timeout_s(), prints
// "pe N: timed out waiting for <what> (test <name>, last op <note>)" and stops the job.
template <typename F>
void wait_for(const char *what, F &&cond) {
  if (cond()) return;
  wait_for_impl(
      what, [](void *c) { return (*static_cast<F *>(c))(); }, &cond);
}
void wait_for_impl(const char *what, bool (*cond)(void *), void *ctx);

// ---- Agreement and skips ------------------------------------------------------------------------

// true iff `ok` is true on every PE (out of band).
bool all_agree(bool ok);
// Out-of-band barrier (not the runtime's barrier under test).
void oob_barrier();

// Skips the current test case (on every PE; the condition must be the same everywhere) when
// fewer than `min` PEs run it: returns false and records the skip with the reason. Usage:
//   if (!xt::require_npes(2, "needs a peer")) return;
bool require_npes(int min, const char *reason);
// Records a skip of the current test case with a reason (the condition must be the same on
// every PE). A binary whose test cases all skipped exits with 77 (CTest SKIP_RETURN_CODE).
void skip(const char *reason);

// ---- Additions (extend only by adding)
// -----------------------------------------------------------

// Skips the current test case unless npes() is in `set` (a PE-count set of CONFORMANCE.md §4.1,
// named by `set_name`, e.g. "P2,3"): returns false and records the skip with the reason.
bool require_npes_in(std::initializer_list<int> set, const char *set_name);
// Replaces the watchdog budget of the current test case (seconds from now), for cases whose
// failure mode is a hang (e.g. a call that must not synchronise).
void test_budget(double seconds);
// Death cases at 2 PEs (death_check.sh asserts the line and the exit): PE 0 runs `bad`, which must
// stop the job; PE 1 waits in a barrier that PE 0 never reaches. Either returning is a failure.
template <typename F>
void pe0_does(const char *what, F &&bad) {
  if (!require_npes_in({2}, "P2")) return;
  test_budget(30);
  if (me() == 0) {
    note("%s", what);
    bad();
    FAIL("the runtime returned from " << what << " instead of stopping the job");
  } else {
    note("waiting in barrier_all while pe 0 runs %s", what);
    xshmem_barrier_all();
    FAIL("barrier_all returned although pe 0 never entered it");
  }
}
// Out-of-band allgather: out receives len_per_pe bytes from every PE, in PE order.
void allgather(const void *in, void *out, size_t len_per_pe);
// A size from the environment ("512M", "1G", "4096"; K/M/G/T are powers of 1024); 0 if unset or
// not a size.
size_t env_size(const char *name);
// The name of the current test case ("" outside one).
const char *current_test();

// ---- Template implementations
// --------------------------------------------------------------------

namespace detail {
std::string describe_value(const void *p, size_t size, bool is_float, bool is_signed);
template <typename T>
std::string show(const T &v) {
  return describe_value(&v, sizeof(T), std::is_floating_point_v<T>, std::is_signed_v<T>);
}
template <typename T>
bool same(const T &a, const T &b) {
  // long double has padding bytes that are never written: compare values (never NaN here).
  if constexpr (std::is_same_v<T, long double>) return a == b;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
unsigned char *alloc_sym(size_t bytes);
void free_sym(unsigned char *p);
unsigned char *alloc_local(size_t bytes);
void free_local(unsigned char *p);
bool bytes_are(const unsigned char *p, size_t n, unsigned char v);
}  // namespace detail

template <typename T>
size_t mismatches(const T *buf, size_t n, int src, int dst, uint64_t iter, uint32_t tid,
                  const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    T want = value<T>(src, dst, i, iter, tid);
    if (detail::same(buf[i], want)) continue;
    if (++bad <= 4) {
      FAIL_CHECK("pe " << me() << ": " << what << ": element " << i << " of " << n << " is "
                       << detail::show(buf[i]) << ", expected " << detail::show(want) << " (src "
                       << src << ", dst " << dst << ", iter " << iter << ", tid " << tid << ")");
    }
  }
  if (bad > 4) FAIL_CHECK("pe " << me() << ": " << what << ": " << bad << " of " << n << " differ");
  return bad;
}

template <typename T>
SymBuf<T>::SymBuf(size_t n, size_t guard) : n_(n), guard_(guard) {
  raw_ = detail::alloc_sym(n * sizeof(T) + 2 * guard);
  data_ = raw_ ? reinterpret_cast<T *>(raw_ + guard) : nullptr;
  if (raw_) poison();
}
template <typename T>
SymBuf<T>::~SymBuf() {
  detail::free_sym(raw_);
}
template <typename T>
void SymBuf<T>::poison() {
  std::memset(raw_, kPoison, n_ * sizeof(T) + 2 * guard_);
}
template <typename T>
bool SymBuf<T>::guards_ok() const {
  return detail::bytes_are(raw_, guard_, kPoison) &&
         detail::bytes_are(raw_ + guard_ + n_ * sizeof(T), guard_, kPoison);
}

template <typename T>
LocalBuf<T>::LocalBuf(size_t n, size_t guard) : n_(n), guard_(guard) {
  raw_ = detail::alloc_local(n * sizeof(T) + 2 * guard);
  data_ = reinterpret_cast<T *>(raw_ + guard);
  poison();
}
template <typename T>
LocalBuf<T>::~LocalBuf() {
  detail::free_local(raw_);
}
template <typename T>
void LocalBuf<T>::poison() {
  std::memset(raw_, kPoison, n_ * sizeof(T) + 2 * guard_);
}
template <typename T>
bool LocalBuf<T>::guards_ok() const {
  return detail::bytes_are(raw_, guard_, kPoison) &&
         detail::bytes_are(raw_ + guard_ + n_ * sizeof(T), guard_, kPoison);
}

}  // namespace xt

#endif  // XSHMEM_TESTS_HARNESS_H
