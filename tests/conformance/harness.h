// xshmem conformance harness (CONFORMANCE.md §4.1).
//
// Every PE runs the same Catch2 session (--order decl, same filters), so all PEs enter the same
// TEST_CASE/SECTION sequence and collectives match. Inside communication phases use CHECK (never
// REQUIRE); at the end of each test case a listener agrees out of band (over the bootstrap, not
// the data path under test) on whether any PE failed, so every PE reports the same result. A
// REQUIRE failure or an exception on one PE aborts the whole job instead of leaving peers
// blocked. A watchdog thread stops the job if a test case runs past XT_TEST_TIMEOUT seconds
// (default 60), printing the test, the PE and the last operation noted with xt::note.
#ifndef XSHMEM_TESTS_HARNESS_H
#define XSHMEM_TESTS_HARNESS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
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
constexpr size_t kSymGuard = 64;     // guard bytes around symmetric destinations
constexpr size_t kLocalGuard = 4096; // guard bytes around private host buffers

// A symmetric array of n elements with guard bands, allocated collectively (all PEs must create
// and destroy SymBufs in the same order with the same n).
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
  void poison();                // data and guards := kPoison (local)
  bool guards_ok() const;       // guard bytes still kPoison (local)

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
  wait_for_impl(what, [](void *c) { return (*static_cast<F *>(c))(); }, &cond);
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

}  // namespace xt

#endif  // XSHMEM_TESTS_HARNESS_H
