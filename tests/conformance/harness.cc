// xshmem conformance harness: agreement listener, watchdog, waits, buffers (see harness.h).
// Catch2 2.x declares the reporter/listener types only on request.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include "harness.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness_internal.h"

namespace xt {
namespace {

using Clock = std::chrono::steady_clock;

double env_seconds(const char *name, double fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v) return fallback;
  char *end = nullptr;
  double d = std::strtod(v, &end);
  if (end == v || d <= 0) {
    std::fprintf(stderr, "xt: ignoring %s=%s (expected a positive number of seconds)\n", name, v);
    return fallback;
  }
  return d;
}

// State shared by the listener, the watchdog thread and the waits.
struct State {
  std::mutex mu;
  std::condition_variable cv;
  std::string test;     // current test case ("" between test cases)
  std::string section;  // innermost section
  char note[256] = "none";
  Clock::time_point deadline = Clock::time_point::max();
  double budget_s = 120;
  bool stop = false;

  // Per test case (listener thread only).
  bool fatal = false;   // REQUIRE/FAIL/exception on this PE
  bool failed = false;  // any failed assertion on this PE in the current pass
  bool skipped = false;
  std::string skip_reason;
  int depth = 0;

  // Per run.
  int cases_run = 0, cases_skipped = 0;
  std::vector<std::string> skip_lines;
};

// Never destroyed: exit() (from a test, a library, or main's return after a failure) runs the
// static destructors while the watchdog thread may still wait on `cv`, and glibc's
// pthread_cond_destroy waits for the waiters to leave, which a waiting watchdog never does.
State &st() {
  static State &s = *new State;
  return s;
}

// Never destroyed either (a joinable std::thread's destructor calls std::terminate): started by
// harness_start, joined by harness_stop; on any other way out the process ends with it waiting.
std::thread *g_watchdog = nullptr;
int g_me = -1, g_npes = -1;

void watchdog_main() {
  State &s = st();
  std::unique_lock<std::mutex> lk(s.mu);
  while (!s.stop) {
    if (s.deadline == Clock::time_point::max()) {
      s.cv.wait(lk);
      continue;
    }
    if (s.cv.wait_until(lk, s.deadline) == std::cv_status::timeout && !s.stop &&
        Clock::now() >= s.deadline) {
      char why[768];
      std::snprintf(why, sizeof why, "test '%s'%s%s timed out after %.0f s; last op: %s",
                    s.test.c_str(), s.section.empty() ? "" : " section '",
                    s.section.empty() ? "" : (s.section + "'").c_str(), s.budget_s, s.note);
      lk.unlock();
      abort_job(why);
    }
  }
}

void set_deadline(double seconds) {
  State &s = st();
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.budget_s = seconds;
    s.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(seconds));
  }
  s.cv.notify_all();
}

void clear_deadline() {
  State &s = st();
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.deadline = Clock::time_point::max();
  }
  s.cv.notify_all();
}

void record_skip(const char *reason) {
  State &s = st();
  if (!s.skipped) {
    s.skipped = true;
    s.skip_reason = reason ? reason : "";
  }
}

// Exchanged at the end of every pass over a test case.
struct Verdict {
  uint8_t failed, skipped;
};

// Catch2 listener: fatal-failure abort, end-of-pass agreement, skip accounting, watchdog arming.
#if defined(XSHMEM_CATCH3)
using ListenerBase = Catch::EventListenerBase;
#define XT_ASSERTION_ENDED_RET void
#define XT_ASSERTION_ENDED_RETURN return
#else
using ListenerBase = Catch::TestEventListenerBase;
#define XT_ASSERTION_ENDED_RET bool
#define XT_ASSERTION_ENDED_RETURN return true
#endif

class AgreementListener : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;

  void testCaseStarting(Catch::TestCaseInfo const &info) override {
    State &s = st();
    {
      std::lock_guard<std::mutex> lk(s.mu);
      s.test = info.name;
      s.section.clear();
      std::snprintf(s.note, sizeof s.note, "test start");
    }
    s.fatal = s.failed = s.skipped = false;
    s.skip_reason.clear();
    s.depth = 0;
    set_deadline(env_seconds("XT_TEST_TIMEOUT", 120));
  }

  void sectionStarting(Catch::SectionInfo const &info) override {
    State &s = st();
    if (s.depth++ > 0) {
      std::lock_guard<std::mutex> lk(s.mu);
      s.section = info.name;
    }
  }

  XT_ASSERTION_ENDED_RET assertionEnded(Catch::AssertionStats const &stats) override {
    const Catch::AssertionResult &r = stats.assertionResult;
    if (!r.isOk()) {
      State &s = st();
      s.failed = true;
      if (!Catch::shouldContinueOnFailure(r.m_info.resultDisposition /* REQUIRE, FAIL, throw */))
        s.fatal = true;
    }
    XT_ASSERTION_ENDED_RETURN;
  }

  void sectionEnded(Catch::SectionStats const &) override {
    State &s = st();
    if (s.fatal) stop_after_fatal();
    if (--s.depth > 0) return;
    agree();
  }

  void testCaseEnded(Catch::TestCaseStats const &) override {
    State &s = st();
    if (s.fatal) stop_after_fatal();
    ++s.cases_run;
    if (s.skipped) {
      ++s.cases_skipped;
      std::string line = "skipped '" + s.test + "': " + s.skip_reason;
      s.skip_lines.push_back(line);
      if (g_me == 0) {
        std::printf("pe 0: %s\n", line.c_str());
        std::fflush(stdout);
      }
    }
    clear_deadline();
    std::lock_guard<std::mutex> lk(s.mu);
    s.test.clear();
    s.section.clear();
  }

 private:
  [[noreturn]] void stop_after_fatal() {
    State &s = st();
    std::fflush(stdout);
    char why[512];
    std::snprintf(why, sizeof why,
                  "test '%s' failed fatally (REQUIRE/FAIL or exception, see above); stopping the "
                  "job so that no PE is left waiting",
                  s.test.c_str());
    abort_job(why);
  }

  // Runs at the end of every pass over the test case, on every PE in the same order.
  void agree() {
    State &s = st();
    note("end-of-test agreement");
    Verdict mine{static_cast<uint8_t>(s.failed), static_cast<uint8_t>(s.skipped)};
    std::vector<Verdict> all(static_cast<size_t>(npes()));
    allgather(&mine, all.data(), sizeof(Verdict));
    std::string failing;
    bool skip_mismatch = false;
    for (int pe = 0; pe < npes(); ++pe) {
      if (all[pe].failed) failing += (failing.empty() ? "" : ",") + std::to_string(pe);
      if (all[pe].skipped != all[0].skipped) skip_mismatch = true;
    }
    s.failed = false;  // the next pass starts clean
    if (!failing.empty() && !mine.failed) {
      FAIL_CHECK("pe " << me() << ": peer pe(s) " << failing << " failed in test '" << s.test
                       << "'");
      s.failed = false;
    }
    if (skip_mismatch) {
      FAIL_CHECK("skip decisions differ between PEs in test '" << s.test
                                                               << "' (a skip must be agreed)");
      s.failed = false;
    }
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(AgreementListener)

// ---- Run control (main.cc) ----------------------------------------------------------------------

void harness_start() {
  g_me = xshmem_my_pe();
  g_npes = xshmem_n_pes();
  if (!g_watchdog) g_watchdog = new std::thread(watchdog_main);
}

void harness_stop() {
  State &s = st();
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.stop = true;
  }
  s.cv.notify_all();
  if (!g_watchdog) return;
  if (g_watchdog->joinable()) g_watchdog->join();
  delete g_watchdog;
  g_watchdog = nullptr;
}

bool harness_all_skipped() {
  State &s = st();
  return s.cases_run > 0 && s.cases_run == s.cases_skipped;
}

void harness_print_skips() {
  State &s = st();
  if (g_me != 0 || s.skip_lines.empty()) return;
  std::printf("pe 0: %d of %d test case(s) skipped:\n", s.cases_skipped, s.cases_run);
  for (const auto &l : s.skip_lines) std::printf("  %s\n", l.c_str());
  std::fflush(stdout);
}

// ---- harness.h ----------------------------------------------------------------------------------

int me() {
  return g_me >= 0 ? g_me : xshmem_my_pe();
}
int npes() {
  return g_npes >= 0 ? g_npes : xshmem_n_pes();
}

uint64_t hash(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e) {
  auto mix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(a);
  h = mix(h ^ b);
  h = mix(h ^ c);
  h = mix(h ^ d);
  return mix(h ^ e);
}

void note(const char *fmt, ...) {
  State &s = st();
  std::lock_guard<std::mutex> lk(s.mu);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(s.note, sizeof s.note, fmt, ap);
  va_end(ap);
}

double wait_timeout_s() {
  return env_seconds("XT_WAIT_TIMEOUT", 30);
}

void abort_job(const char *why) {
  std::fflush(stdout);
  std::fprintf(stderr, "pe %d: %s\n", me(), why);
  std::fflush(stderr);
  xshmem_global_exit(1);
}

void wait_for_impl(const char *what, bool (*cond)(void *), void *ctx) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(wait_timeout_s()));
  // Spin briefly, then yield: 8 PEs share 2 cores in CI, and a spinning PE starves its peer.
  for (unsigned spins = 0;; ++spins) {
    if (cond(ctx)) return;
    if (spins < 64) continue;
    if (spins < 4096) {
      sched_yield();
    } else {
      usleep(50);
    }
    if ((spins & 63) == 0 && Clock::now() > deadline) {
      State &s = st();
      char why[768];
      {
        std::lock_guard<std::mutex> lk(s.mu);
        std::snprintf(why, sizeof why, "timed out waiting for %s (test '%s', last op %s)", what,
                      s.test.c_str(), s.note);
      }
      abort_job(why);
    }
  }
}

void allgather(const void *in, void *out, size_t len_per_pe) {
  int rc = xshmemx_oob_allgather(in, out, len_per_pe);
  if (rc != 0) {
    char why[128];
    std::snprintf(why, sizeof why, "xshmemx_oob_allgather(%zu bytes) returned %d", len_per_pe, rc);
    abort_job(why);
  }
}

bool all_agree(bool ok) {
  uint8_t mine = ok ? 1 : 0;
  std::vector<uint8_t> all(static_cast<size_t>(npes()));
  allgather(&mine, all.data(), 1);
  return std::all_of(all.begin(), all.end(), [](uint8_t v) { return v != 0; });
}

void oob_barrier() {
  int rc = xshmemx_oob_barrier();
  if (rc != 0) {
    char why[96];
    std::snprintf(why, sizeof why, "xshmemx_oob_barrier returned %d", rc);
    abort_job(why);
  }
}

bool require_npes(int min, const char *reason) {
  if (npes() >= min) return true;
  char r[256];
  std::snprintf(r, sizeof r, "needs at least %d PEs, running %d: %s", min, npes(), reason);
  record_skip(r);
  return false;
}

bool require_npes_in(std::initializer_list<int> set, const char *set_name) {
  if (std::find(set.begin(), set.end(), npes()) != set.end()) return true;
  char r[256];
  std::snprintf(r, sizeof r, "PE-count set %s excludes %d PEs", set_name, npes());
  record_skip(r);
  return false;
}

void skip(const char *reason) {
  record_skip(reason);
}

void test_budget(double seconds) {
  set_deadline(seconds);
}

size_t env_size(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v) return 0;
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || errno) return 0;
  unsigned shift = 0;
  switch (*end) {
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    case 't':
    case 'T':
      shift = 40;
      break;
    case '\0':
      break;
    default:
      return 0;
  }
  return static_cast<size_t>(n << shift);
}

const char *current_test() {
  return st().test.c_str();
}

namespace detail {

std::string describe_value(const void *p, size_t size, bool is_float, bool is_signed) {
  char buf[96];
  if (is_float) {
    long double v = size == sizeof(float)    ? *static_cast<const float *>(p)
                    : size == sizeof(double) ? *static_cast<const double *>(p)
                                             : *static_cast<const long double *>(p);
    std::snprintf(buf, sizeof buf, "%Lg", v);
    return buf;
  }
  uint64_t u = 0;
  std::memcpy(&u, p, std::min(size, sizeof u));
  if (size < 8 && is_signed && (u >> (size * 8 - 1)) & 1) u |= ~0ull << (size * 8);
  if (size > 8) {
    // 128-bit and larger records: show the bytes.
    std::string s = "0x";
    const unsigned char *b = static_cast<const unsigned char *>(p);
    for (size_t i = size; i-- > 0;) {
      std::snprintf(buf, sizeof buf, "%02x", b[i]);
      s += buf;
    }
    return s;
  }
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(size * 2),
                static_cast<unsigned long long>(size < 8 ? u & ((1ull << (size * 8)) - 1) : u));
  return buf;
}

unsigned char *alloc_sym(size_t bytes) {
  auto *p = static_cast<unsigned char *>(xshmem_align(64, bytes));
  if (!p) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "xshmem_align(64, %zu) for a test buffer returned NULL; raise "
                  "XSHMEM_SYMMETRIC_SIZE",
                  bytes);
    abort_job(why);
  }
  return p;
}

void free_sym(unsigned char *p) {
  xshmem_free(p);
}

unsigned char *alloc_local(size_t bytes) {
  void *p = nullptr;
  if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) abort_job("posix_memalign failed");
  return static_cast<unsigned char *>(p);
}

void free_local(unsigned char *p) {
  std::free(p);
}

bool bytes_are(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != v) return false;
  return true;
}

}  // namespace detail
}  // namespace xt
