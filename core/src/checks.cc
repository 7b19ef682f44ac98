// xshmem core: checked-mode argument validation (checks.h).
//
// The checks sit on every host API call, so they stay cheap: a cached flag, compares against the
// path state, no locks and no system calls until something is wrong.
#include "checks.h"

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include <xshmem/bindings.h>
#include <xshmem/types.h>

#include "config.h"
#include "log.h"
#include "runtime.h"
#include "runtime_internal.h"

namespace xshmem::core {

namespace {

// -1: XSHMEM_CHECKS not read yet; then 0 or 1. Read on first use (after init has configured the
// table), once: flipping the variable later has no effect on a running job.
std::atomic<int> g_checks{-1};

// Set while a checks_throw (bindings.h) is alive on this thread.
thread_local bool t_checks_throw = false;

// The one-line diagnostic: "xshmem: <call>: <what> (pe N)" ("pe -" before init).
void format_line(char *line, size_t size, const char *call, const char *what, int pe) {
  char pe_s[16] = "-";
  if (pe >= 0) snprintf(pe_s, sizeof(pe_s), "%d", pe);
  snprintf(line, size, "xshmem: %s: %s (pe %s)", call, what, pe_s);
}

}  // namespace

check_view_t g_check_view{};

void publish_check_view(bool initialized) {
  check_view_t v{};
  if (initialized) {
    const dev::state_t &s = state();
    v.mode = checks_enabled_config() ? 2 : 1;
    v.n_pes = s.n_pes;
    v.heap_base = s.heap_base;
    v.heap_size = s.heap_size;
  }
  g_check_view = v;
}

bool checks_enabled_config() {
  int v = g_checks.load(std::memory_order_relaxed);
  if (v < 0) {
    v = config::get_bool("XSHMEM_CHECKS") ? 1 : 0;
    g_checks.store(v, std::memory_order_relaxed);
  }
  return v != 0;
}

void check_fail(const char *call, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  const int pe = initialized() ? state().my_pe : -1;
  if (t_checks_throw) {
    char line[768];
    format_line(line, sizeof(line), call, what, pe);
    XLOG_INFO("checks", "%s (thrown to the caller)", line);
    throw check_error(line);
  }
  fail_line(XSHMEM_EXIT_CHECK, "checks", call, what, pe);
}

void fail_line(int exit_code, const char *subsys, const char *call, const char *what, int pe) {
  char line[768];
  format_line(line, sizeof(line), call, what, pe);
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
  // Logs the line to XSHMEM_LOG_FILE if set (on stderr it is printed once, above) and stops
  // every PE.
  fatal_printed(exit_code, subsys, line);
}

void check_init(const char *call) {
  if (!initialized()) [[unlikely]] {
    check_fail(call,
               "called before xshmem_init (or after the last xshmem_finalize); call "
               "xshmem_init first");
  }
}

void check_pe(const char *call, int pe) {
  if (!checks_enabled()) return;
  int n = state().n_pes;
  if (pe < 0 || pe >= n) [[unlikely]] {
    check_fail(call, "pe %d out of range [0, %d)", pe, n);
  }
}

void check_symmetric(const char *call, const char *arg, const void *addr, size_t bytes) {
  if (bytes == 0 || !checks_enabled()) return;
  const dev::state_t &s = state();
  if (!dev::in_heap(s, addr, bytes)) [[unlikely]] {
    if (dev::in_globals(s, addr, 1)) {
      check_fail(call,
                 "%s %p + %zu bytes runs past the end of the executable's global data (%p, %zu "
                 "bytes)",
                 arg, addr, bytes, reinterpret_cast<const void *>(s.globals_base), s.globals_size);
    }
    if (dev::in_heap(s, addr, 1)) {
      check_fail(call,
                 "%s %p + %zu bytes runs past the end of the symmetric heap (heap %p, %zu bytes)",
                 arg, addr, bytes, reinterpret_cast<const void *>(s.heap_base), s.heap_size);
    }
    const globals::Segment &exe = g_rt.exe_data;
    if (exe.contains(addr)) {
      check_fail(call,
                 "%s %p is a global or static variable, which is not symmetric here: %s; pass "
                 "memory from xshmem_malloc",
                 arg, addr, g_rt.globals_why.c_str());
    }
    check_fail(call,
               "%s %p is not a symmetric address (not in the symmetric heap nor the "
               "executable's global data); pass memory from xshmem_malloc",
               arg, addr);
  }
}

void check_buffer(const char *call, const char *arg, const void *addr, size_t bytes) {
  if (bytes == 0 || addr != nullptr || !checks_enabled()) return;
  check_fail(call, "%s is NULL with nbytes %zu", arg, bytes);
}

void check_aligned(const char *call, const char *arg, const void *addr, size_t align) {
  if (!checks_enabled()) return;
  if (reinterpret_cast<uintptr_t>(addr) % align != 0) [[unlikely]] {
    check_fail(call, "%s %p is misaligned for a %zu-byte element", arg, addr, align);
  }
}

void check_cmp(const char *call, int cmp) {
  if (!checks_enabled()) return;
  if (cmp < XSHMEM_CMP_EQ || cmp > XSHMEM_CMP_LE) [[unlikely]] {
    check_fail(call, "cmp %d is not a comparison operator (XSHMEM_CMP_EQ .. XSHMEM_CMP_LE)", cmp);
  }
}

void check_sig_op(const char *call, int sig_op) {
  if (!checks_enabled()) return;
  if (sig_op != XSHMEM_SIGNAL_SET && sig_op != XSHMEM_SIGNAL_ADD) [[unlikely]] {
    check_fail(call, "sig_op %d is not XSHMEM_SIGNAL_SET or XSHMEM_SIGNAL_ADD", sig_op);
  }
}

}  // namespace xshmem::core

namespace xshmem {

check_error::check_error(const std::string &line) : std::runtime_error(line) {}
check_error::~check_error() = default;

checks_throw::checks_throw() : prev_(core::t_checks_throw) {
  core::t_checks_throw = true;
}
checks_throw::~checks_throw() {
  core::t_checks_throw = prev_;
}

}  // namespace xshmem
