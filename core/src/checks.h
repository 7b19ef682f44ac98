// xshmem core: checked-mode argument validation for the host API.
//
// Every public call validates its arguments when XSHMEM_CHECKS is on (default). A failure prints
// one line, "xshmem: <call>: <argument> <what is wrong> (pe <me>)", on stderr and in the log, and
// stops the job with exit status XSHMEM_EXIT_CHECK on every PE.
#ifndef XSHMEM_CORE_CHECKS_H
#define XSHMEM_CORE_CHECKS_H

#include <cstddef>
#include <cstdint>

namespace xshmem::core {

// XSHMEM_CHECKS, read once (checks_enabled_config); inline below, from g_check_view once
// initialized.
bool checks_enabled_config();
inline bool checks_enabled();

// What the hot-path checks read, in one cache line: written at init (after the state is built)
// and at the last finalize, read without locks by every checked call. mode: 0 not initialized,
// 1 initialized with checks off, 2 initialized with checks on.
struct alignas(64) check_view_t {
  int mode;
  int n_pes;  // 0 while not initialized
  uintptr_t heap_base;
  size_t heap_size;  // the heap proper (symmetric globals are checked out of line)
};
extern check_view_t g_check_view;

inline bool checks_enabled() {
  const int mode = g_check_view.mode;
  return mode != 0 ? mode == 2 : checks_enabled_config();
}

// Fills g_check_view from the path state (initialized) or clears it (finalized).
void publish_check_view(bool initialized);

// The common case of a contiguous access in a few instructions, no calls: initialized with checks
// off, or with checks on: pe in range, [sym, sym + bytes) inside the heap, sym aligned to `align`
// (a power of two), and `local` non-NULL where local_needed. False sends the caller to the full
// checks, which accept what this does not know (symmetric globals, bytes == 0) or fail with the
// one-line diagnostic.
inline bool fast_access_ok(const void *sym, size_t bytes, size_t align, int pe, bool local_needed,
                           const void *local) {
  const check_view_t &v = g_check_view;
  if (v.mode == 1) return true;
  const uintptr_t a = reinterpret_cast<uintptr_t>(sym);
  const uintptr_t off = a - v.heap_base;
  // Combined with & rather than &&: one branch for the caller instead of one per condition.
  // Not initialized (mode 0), n_pes is 0, so the pe test fails there: no test of mode 2.
  // bytes - 1 < heap_size - off is 0 < bytes <= heap_size - off (off < heap_size holds there).
  return (static_cast<unsigned>(pe) < static_cast<unsigned>(v.n_pes)) & (off < v.heap_size) &
         (bytes - 1 < v.heap_size - off) & ((a & (align - 1)) == 0) &
         (!local_needed | (local != nullptr));
}

// Prints the diagnostic and stops the job. `fmt` describes the argument and the problem.
[[noreturn]] void check_fail(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Prints "xshmem: <call>: <what> (pe <pe>)" once on stderr (pe < 0: "pe -"), logs it and stops
// every PE with exit_code: check_fail's line, also for failures that are not argument checks.
[[noreturn]] void fail_line(int exit_code, const char *subsys, const char *call, const char *what,
                            int pe);

// Each returns normally when the argument is fine (or checks are off).
void check_init(const char *call);  // before init / after finalize (always checked)
void check_pe(const char *call, int pe);
// [addr, addr+bytes) inside the symmetric heap; bytes == 0 accepts any addr (NULL included).
void check_symmetric(const char *call, const char *arg, const void *addr, size_t bytes);
// Non-NULL when bytes > 0 (local buffers).
void check_buffer(const char *call, const char *arg, const void *addr, size_t bytes);
// addr is a multiple of align.
void check_aligned(const char *call, const char *arg, const void *addr, size_t align);
void check_cmp(const char *call, int cmp);
void check_sig_op(const char *call, int sig_op);

// A symmetric argument of `bytes` bytes aligned for elements of `align` bytes (a collective's
// dest or source): fast_access_ok first, the full checks and their diagnostic when it says no.
inline void check_sym_arg(const char *call, const char *arg, const void *p, size_t bytes,
                          size_t align) {
  if (fast_access_ok(p, bytes, align, 0, false, nullptr)) [[likely]]
    return;
  check_symmetric(call, arg, p, bytes);
  if (bytes != 0) check_aligned(call, arg, p, align);
}

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_CHECKS_H
