// xshmem host API: point-to-point synchronization (wait_until and test families), running the
// path code of <xshmem/device/p2p.h> on local symmetric words.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <xshmem/device/p2p.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "runtime.h"
#include "wait_deadline.h"

static_assert(XSHMEM_CMP_EQ == xshmem::dev::kCmpEq && XSHMEM_CMP_NE == xshmem::dev::kCmpNe &&
                  XSHMEM_CMP_GT == xshmem::dev::kCmpGt && XSHMEM_CMP_GE == xshmem::dev::kCmpGe &&
                  XSHMEM_CMP_LT == xshmem::dev::kCmpLt && XSHMEM_CMP_LE == xshmem::dev::kCmpLe,
              "device comparison codes differ from the public ones");

namespace xshmem::core {
namespace {

// Where the next _any scan starts, per thread: just after the index returned last, so repeated
// calls visit every satisfied index (fairness, OpenSHMEM 1.5 wait_until_any).
thread_local size_t t_any_cursor = 0;

// One waited-on word: symmetric, naturally aligned.
template <typename T>
void check_ivar(const char *call, const T *ivar, int cmp) {
  check_init(call);
  if (!checks_enabled()) return;
  check_symmetric(call, "ivar", ivar, sizeof(T));
  check_aligned(call, "ivar", ivar, sizeof(T));
  check_cmp(call, cmp);
}

// An array of them; `indices` (for _some) and `cmp_values` (for _vector) are local arrays of
// nelems entries, checked when given a name.
template <typename T>
void check_ivars(const char *call, const T *ivars, size_t nelems, int cmp,
                 const char *indices_arg = nullptr, const void *indices = nullptr,
                 const char *values_arg = nullptr, const void *values = nullptr) {
  check_init(call);
  if (!checks_enabled()) return;
  if (nelems > SIZE_MAX / sizeof(T)) {
    check_fail(call, "nelems %zu is too large for %zu-byte elements", nelems, sizeof(T));
  }
  check_symmetric(call, "ivars", ivars, nelems * sizeof(T));
  if (nelems != 0) check_aligned(call, "ivars", ivars, sizeof(T));
  if (indices_arg != nullptr) check_buffer(call, indices_arg, indices, nelems * sizeof(size_t));
  if (values_arg != nullptr) check_buffer(call, values_arg, values, nelems * sizeof(T));
  check_cmp(call, cmp);
}

namespace pd = dev::p2p_detail;

// Runs f on the words' current values: the words themselves on host heaps; on GPU heaps (which
// the host cannot load) a host copy, tested with the same code.
template <typename T, typename F>
auto on_words(const T *ivars, size_t n, F f) {
  return path::on_local_words(ivars, n, f);
}

template <typename T>
int test_one(const T *ivar, int cmp, T value) {
  return on_words(ivar, 1, [&](const T *w) { return dev::test(w, cmp, value); });
}
template <typename T, typename V>
int test_all(const T *ivars, size_t n, const int *status, int cmp, V values) {
  return on_words(ivars, n, [&](const T *w) { return pd::all(w, n, status, cmp, values) ? 1 : 0; });
}
template <typename T, typename V>
size_t test_any(const T *ivars, size_t n, const int *status, int cmp, V values) {
  return on_words(ivars, n,
                  [&](const T *w) { return pd::any(w, n, status, cmp, values, &t_any_cursor); });
}
template <typename T, typename V>
size_t test_some(const T *ivars, size_t n, size_t *indices, const int *status, int cmp, V values) {
  return on_words(ivars, n,
                  [&](const T *w) { return pd::some(w, n, indices, status, cmp, values); });
}

// A GPU-heap wait past the deadline: the word's value copied back, then the report.
template <typename T>
[[noreturn]] void gpu_wait_timed_out(const dev::wait_site &site, const dev::wait_clock &clock,
                                     const T *ivar, int cmp, T value, uint64_t index,
                                     uint64_t nelems) {
  T seen{};
  gpu::read_local(&seen, ivar, sizeof(T));
  dev::wait_timeout_t w = dev::wait_report(site, clock, ivar, cmp, value, seen);
  w.index = index;
  w.nelems = nelems;
  dev::wait_timed_out(state(), w);
}
template <typename T>
size_t first_active(size_t n, const int *status) {
  size_t i = 0;
  while (i < n && !pd::active(status, i)) ++i;
  return i;
}

// The waits: the path code on host heaps; on GPU heaps, the tests above polled with back-off.
// Each runs under the wait deadline (XSHMEM_WAIT_TIMEOUT), reported as the public call `call`.

// One word until it satisfies cmp against value, under the deadline reported as `site` (with
// the peer and round when the wait is for one, the index of the word in its set): the path
// code's wait on host heaps; on GPU heaps, copies of the word polled with back-off. Returns the
// value seen. The one word wait of the host API: wait_until and the active-set pSync waits.
template <typename T>
T wait_word(const dev::wait_site &site, const T *ivar, int cmp, T value, int pe = -1,
            int round = -1, uint64_t index = UINT64_MAX, uint64_t nelems = 0) {
  if (path::heap_host_accessible())
    return dev::wait_until(state(), site, ivar, cmp, value, pe, round, index, nelems);
  dev::atomic::backoff wait;
  dev::wait_clock clock(&state());
  for (;;) {
    T seen{};
    gpu::read_local(&seen, ivar, sizeof(T));
    if (dev::compare(cmp, seen, value)) return seen;
    if (clock.passed()) {
      dev::wait_timeout_t w = dev::wait_report(site, clock, ivar, cmp, value, seen);
      w.pe = pe;
      w.round = round;
      w.index = index;
      w.nelems = nelems;
      dev::wait_timed_out(state(), w);
    }
    wait();
  }
}
template <typename T>
void wait_one(const char *call, const T *ivar, int cmp, T value, uint64_t index = UINT64_MAX,
              uint64_t nelems = 0) {
  (void)wait_word(dev::wait_site{dev::kWaitUntil, call}, ivar, cmp, value, -1, -1, index, nelems);
}
template <typename T, typename V>
void wait_all(const char *call, const T *ivars, size_t n, const int *status, int cmp, V values) {
  if (!path::heap_host_accessible()) {
    for (size_t i = 0; i < n; ++i) {
      if (pd::active(status, i)) wait_one(call, ivars + i, cmp, values[i], i, n);
    }
    return;
  }
  dev::wait_until_all_g(ivars, n, status, cmp, values, &state(),
                        dev::wait_site{dev::kWaitUntilAll, call});
}
template <typename T, typename V>
size_t wait_any(const char *call, const T *ivars, size_t n, const int *status, int cmp, V values) {
  const dev::wait_site site{dev::kWaitUntilAny, call};
  if (!path::heap_host_accessible()) {
    if (!pd::any_active(n, status)) return SIZE_MAX;
    dev::atomic::backoff wait;
    dev::wait_clock clock(&state());
    for (;;) {
      size_t i = test_any(ivars, n, status, cmp, values);
      if (i != SIZE_MAX) return i;
      if (clock.passed()) {
        const size_t f = first_active<T>(n, status);
        gpu_wait_timed_out(site, clock, ivars + f, cmp, values[f], f, n);
      }
      wait();
    }
  }
  return dev::wait_until_any_g(ivars, n, status, cmp, values, &t_any_cursor, &state(), site);
}
template <typename T, typename V>
size_t wait_some(const char *call, const T *ivars, size_t n, size_t *indices, const int *status,
                 int cmp, V values) {
  const dev::wait_site site{dev::kWaitUntilSome, call};
  if (!path::heap_host_accessible()) {
    if (!pd::any_active(n, status)) return 0;
    dev::atomic::backoff wait;
    dev::wait_clock clock(&state());
    for (;;) {
      size_t found = test_some(ivars, n, indices, status, cmp, values);
      if (found != 0) return found;
      if (clock.passed()) {
        const size_t f = first_active<T>(n, status);
        gpu_wait_timed_out(site, clock, ivars + f, cmp, values[f], f, n);
      }
      wait();
    }
  }
  return dev::wait_until_some_g(ivars, n, indices, status, cmp, values, &state(), site);
}

template <typename T>
pd::same_value<T> one(T v) {
  return pd::same_value<T>{v};
}
template <typename T>
pd::per_element<T> each(const T *v) {
  return pd::per_element<T>{v};
}

const char *cmp_text(int cmp) {
  switch (cmp) {
    case dev::kCmpEq:
      return "==";
    case dev::kCmpNe:
      return "!=";
    case dev::kCmpGt:
      return ">";
    case dev::kCmpGe:
      return ">=";
    case dev::kCmpLt:
      return "<";
    case dev::kCmpLe:
      return "<=";
    default:
      return "?";
  }
}

// A waited word's value as its type prints it.
std::string value_text(const dev::wait_timeout_t &w, uint64_t v) {
  char buf[32];
  if (w.value_signed) {
    snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  } else {
    snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(v));
  }
  return buf;
}

// The public call of a report without a name (device waits): by its family and word type.
std::string call_name(const dev::wait_timeout_t &w) {
  if (w.name != nullptr) return w.name;
  const char *family = nullptr;
  switch (w.call) {
    case dev::kWaitUntil:
      family = "wait_until";
      break;
    case dev::kWaitUntilAll:
      family = "wait_until_all";
      break;
    case dev::kWaitUntilAny:
      family = "wait_until_any";
      break;
    case dev::kWaitUntilSome:
      family = "wait_until_some";
      break;
    case dev::kWaitUntilAllVector:
      family = "wait_until_all_vector";
      break;
    case dev::kWaitUntilAnyVector:
      family = "wait_until_any_vector";
      break;
    case dev::kWaitUntilSomeVector:
      family = "wait_until_some_vector";
      break;
    case dev::kWaitSignalWaitUntil:
      return "xshmem_signal_wait_until";
    case dev::kWaitBarrierAll:
      return "xshmem_barrier_all";
    case dev::kWaitSyncAll:
      return "xshmem_sync_all";
    case dev::kWaitTeamSync:
      return "xshmem_team_sync";
    case dev::kWaitCollective:
      return "a team collective";
    case dev::kWaitActiveSet:
      return "an active-set collective";
    default:
      return "a wait";
  }
  const char *type = "";
  switch (w.value_size) {
    case 2:
      type = w.value_signed ? "short" : "ushort";
      break;
    case 4:
      type = w.value_signed ? "int32" : "uint32";
      break;
    default:
      type = w.value_signed ? "int64" : "uint64";
  }
  return std::string("xshmem_") + type + "_" + family;
}

}  // namespace

std::string describe_wait_timeout(const dev::wait_timeout_t &w, int my_pe,
                                  const std::string &where) {
  char head[160];
  snprintf(head, sizeof(head), ": pe %d waited %.1f s", my_pe,
           static_cast<double>(w.waited_ns) / 1e9);
  std::string out = call_name(w) + where + head;
  char addr[48];
  snprintf(addr, sizeof(addr), "%p", w.addr);
  const std::string expected = value_text(w, w.expected), seen = value_text(w, w.seen);
  const bool sync = w.call == dev::kWaitBarrierAll || w.call == dev::kWaitSyncAll ||
                    w.call == dev::kWaitTeamSync ||
                    (w.call == dev::kWaitCollective && w.round >= 0);
  if (sync) {
    // A dissemination round: the flag the partner sets to the sync's epoch.
    char tail[160];
    snprintf(tail, sizeof(tail), " in round %d for pe %d (epoch %s, flag %s last seen %s)", w.round,
             w.pe, expected.c_str(), addr, seen.c_str());
    out += tail;
  } else if (w.call == dev::kWaitCollective) {
    char tail[200];
    snprintf(tail, sizeof(tail), " for pe %d (signal %s %s %s, last seen %s)", w.pe, addr,
             cmp_text(w.cmp), expected.c_str(), seen.c_str());
    out += tail;
  } else if (w.call == dev::kWaitActiveSet) {
    // A word of the caller's pSync: a sync round's arrival count, or collect's running offset.
    char round[32] = "";
    if (w.round >= 0) snprintf(round, sizeof(round), " in round %d", w.round);
    char tail[240];
    snprintf(tail, sizeof(tail), "%s for pe %d (pSync[%llu] at %s %s %s, last seen %s)", round,
             w.pe, static_cast<unsigned long long>(w.index), addr, cmp_text(w.cmp),
             expected.c_str(), seen.c_str());
    out += tail;
  } else if (w.call == dev::kWaitSignalWaitUntil) {
    out += " for *sig_addr (" + std::string(addr) + ") " + cmp_text(w.cmp) + " " + expected +
           " (last seen " + seen + ")";
  } else if (w.index == UINT64_MAX) {
    out += " for *ivar (" + std::string(addr) + ") " + cmp_text(w.cmp) + " " + expected +
           " (last seen " + seen + ")";
  } else {
    const bool all = w.call == dev::kWaitUntilAll || w.call == dev::kWaitUntilAllVector;
    const std::string idx = std::to_string(w.index), n = std::to_string(w.nelems);
    if (all) {
      out += " for ivars[" + idx + "] (" + addr + ") " + cmp_text(w.cmp) + " " + expected +
             " (last seen " + seen + "; " + n + " elements)";
    } else {
      out += " for any of " + n + " ivars (ivars[" + idx + "] at " + addr + " " + cmp_text(w.cmp) +
             " " + expected + ", last seen " + seen + ")";
    }
  }
  char stop[96];
  snprintf(stop, sizeof(stop), "; past XSHMEM_WAIT_TIMEOUT (%.1f s): stopping the job",
           static_cast<double>(state().wait_timeout_ns) / 1e9);
  out += stop;
  return out;
}

void stop_on_wait_timeout(const dev::wait_timeout_t &w, const std::string &where) {
  const std::string line = "xshmem: " + describe_wait_timeout(w, state().my_pe, where);
  fprintf(stderr, "%s\n", line.c_str());
  fflush(stderr);
  fatal_printed(1, "wait", line.c_str());  // the line above is the one diagnostic
}

void on_wait_timeout(const dev::wait_timeout_t *w) {
  stop_on_wait_timeout(*w, "");
}

long wait_psync(const char *call, const long *word, int cmp, long value, int pe, int round,
                int index) {
  return wait_word(dev::wait_site{dev::kWaitActiveSet, call}, word, cmp, value, pe, round,
                   static_cast<uint64_t>(index));
}

}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

#define XSHMEM_DEF_P2P(T, N)                                                                       \
  void xshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                    \
    xc::check_ivar<T>("xshmem_" #N "_wait_until", ivar, cmp);                                      \
    xc::wait_one("xshmem_" #N "_wait_until", ivar, cmp, cmp_value);                                \
  }                                                                                                \
  void xshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   T cmp_value) {                                                  \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all", ivars, nelems, cmp);                        \
    xc::wait_all("xshmem_" #N "_wait_until_all", ivars, nelems, status, cmp, xc::one(cmp_value));  \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     T cmp_value) {                                                \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any", ivars, nelems, cmp);                        \
    return xc::wait_any("xshmem_" #N "_wait_until_any", ivars, nelems, status, cmp,                \
                        xc::one(cmp_value));                                                       \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                      int cmp, T cmp_value) {                                      \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some", ivars, nelems, cmp, "indices", indices);   \
    return xc::wait_some("xshmem_" #N "_wait_until_some", ivars, nelems, indices, status, cmp,     \
                         xc::one(cmp_value));                                                      \
  }                                                                                                \
  void xshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          const T *cmp_values) {                                   \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_all_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    xc::wait_all("xshmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp,                \
                 xc::each(cmp_values));                                                            \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            const T *cmp_values) {                                 \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_any_vector", ivars, nelems, cmp, nullptr,         \
                       nullptr, "cmp_values", cmp_values);                                         \
    return xc::wait_any("xshmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp,         \
                        xc::each(cmp_values));                                                     \
  }                                                                                                \
  size_t xshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                             const int *status, int cmp, const T *cmp_values) {    \
    xc::check_ivars<T>("xshmem_" #N "_wait_until_some_vector", ivars, nelems, cmp, "indices",      \
                       indices, "cmp_values", cmp_values);                                         \
    return xc::wait_some("xshmem_" #N "_wait_until_some_vector", ivars, nelems, indices, status,   \
                         cmp, xc::each(cmp_values));                                               \
  }                                                                                                \
  int xshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                           \
    xc::check_ivar<T>("xshmem_" #N "_test", ivar, cmp);                                            \
    return xc::test_one(ivar, cmp, cmp_value);                                                     \
  }                                                                                                \
  int xshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {    \
    xc::check_ivars<T>("xshmem_" #N "_test_all", ivars, nelems, cmp);                              \
    return xc::test_all(ivars, nelems, status, cmp, xc::one(cmp_value));                           \
  }                                                                                                \
  size_t xshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
    xc::check_ivars<T>("xshmem_" #N "_test_any", ivars, nelems, cmp);                              \
    return xc::test_any(ivars, nelems, status, cmp, xc::one(cmp_value));                           \
  }                                                                                                \
  size_t xshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                                int cmp, T cmp_value) {                                            \
    xc::check_ivars<T>("xshmem_" #N "_test_some", ivars, nelems, cmp, "indices", indices);         \
    return xc::test_some(ivars, nelems, indices, status, cmp, xc::one(cmp_value));                 \
  }                                                                                                \
  int xshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,            \
                                   const T *cmp_values) {                                          \
    xc::check_ivars<T>("xshmem_" #N "_test_all_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_all(ivars, nelems, status, cmp, xc::each(cmp_values));                         \
  }                                                                                                \
  size_t xshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      const T *cmp_values) {                                       \
    xc::check_ivars<T>("xshmem_" #N "_test_any_vector", ivars, nelems, cmp, nullptr, nullptr,      \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_any(ivars, nelems, status, cmp, xc::each(cmp_values));                         \
  }                                                                                                \
  size_t xshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, const T *cmp_values) {          \
    xc::check_ivars<T>("xshmem_" #N "_test_some_vector", ivars, nelems, cmp, "indices", indices,   \
                       "cmp_values", cmp_values);                                                  \
    return xc::test_some(ivars, nelems, indices, status, cmp, xc::each(cmp_values));               \
  }
XSHMEM_P2P_TYPES(XSHMEM_DEF_P2P)
#undef XSHMEM_DEF_P2P

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_P2P(T, N)                                                                 \
  XSHMEMI_ALIAS(void, N##_wait_until, (T *, int, T))                                           \
  XSHMEMI_ALIAS(void, N##_wait_until_all, (T *, size_t, const int *, int, T))                  \
  XSHMEMI_ALIAS(size_t, N##_wait_until_any, (T *, size_t, const int *, int, T))                \
  XSHMEMI_ALIAS(size_t, N##_wait_until_some, (T *, size_t, size_t *, const int *, int, T))     \
  XSHMEMI_ALIAS(void, N##_wait_until_all_vector, (T *, size_t, const int *, int, const T *))   \
  XSHMEMI_ALIAS(size_t, N##_wait_until_any_vector, (T *, size_t, const int *, int, const T *)) \
  XSHMEMI_ALIAS(size_t, N##_wait_until_some_vector,                                            \
                (T *, size_t, size_t *, const int *, int, const T *))                          \
  XSHMEMI_ALIAS(int, N##_test, (T *, int, T))                                                  \
  XSHMEMI_ALIAS(int, N##_test_all, (T *, size_t, const int *, int, T))                         \
  XSHMEMI_ALIAS(size_t, N##_test_any, (T *, size_t, const int *, int, T))                      \
  XSHMEMI_ALIAS(size_t, N##_test_some, (T *, size_t, size_t *, const int *, int, T))           \
  XSHMEMI_ALIAS(int, N##_test_all_vector, (T *, size_t, const int *, int, const T *))          \
  XSHMEMI_ALIAS(size_t, N##_test_any_vector, (T *, size_t, const int *, int, const T *))       \
  XSHMEMI_ALIAS(size_t, N##_test_some_vector, (T *, size_t, size_t *, const int *, int, const T *))
XSHMEM_P2P_TYPES(XSHMEM_ALIAS_P2P)
#undef XSHMEM_ALIAS_P2P
#undef XSHMEMI_ALIAS

}  // extern "C"
