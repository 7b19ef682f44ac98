// xshmem core: checked-mode argument validation for the host API.
//
// Every public call validates its arguments when XSHMEM_CHECKS is on (default). A failure prints
// one line, "xshmem: <call>: <argument> <what is wrong> (pe <me>)", on stderr and in the log, and
// stops the job with exit status XSHMEM_EXIT_CHECK on every PE.
#ifndef XSHMEM_CORE_CHECKS_H
#define XSHMEM_CORE_CHECKS_H

#include <cstddef>

namespace xshmem::core {

bool checks_enabled();

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

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_CHECKS_H
