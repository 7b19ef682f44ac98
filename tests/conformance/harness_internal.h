// Run control shared by harness.cc and main.cc only (not part of the tests' API).
#ifndef XSHMEM_TESTS_HARNESS_INTERNAL_H
#define XSHMEM_TESTS_HARNESS_INTERNAL_H

namespace xt {
// Caches my_pe/n_pes and starts the watchdog thread (after xshmem_init).
void harness_start();
// Stops the watchdog thread (before xshmem_finalize).
void harness_stop();
// Whether at least one test case ran and every one that ran was skipped.
bool harness_all_skipped();
// PE 0 prints the skipped test cases with their reasons.
void harness_print_skips();
}  // namespace xt

#endif  // XSHMEM_TESTS_HARNESS_INTERNAL_H
