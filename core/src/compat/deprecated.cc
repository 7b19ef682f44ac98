// The deprecated OpenSHMEM routines that are not plain aliases (<xshmem/compat_deprecated.h>,
// XSHMEMI_DEP_R entries) other than the active-set collectives (active_set.cc): start_pes, the
// typed shmem_wait forms, the cache routines. Each is defined as p<name>; <name> is its alias.
#include <cstdlib>

#include <pshmem.h>
#include <shmem.h>
#include <xshmem/xshmem.h>

// Definitions of deprecated declarations: not uses.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

void finalize_at_exit() {
  if (xshmem_query_initialized()) xshmem_finalize();
}

}  // namespace

// OpenSHMEM 1.2: initialises the library (npes is ignored, as the specification allows); a program
// that started with start_pes need not finalize, so the library finalizes at exit if it is still
// initialised then. A call after shmem_init (or a second start_pes) does nothing.
extern "C" void pstart_pes(int npes) {
  static_cast<void>(npes);
  if (xshmem_query_initialized()) return;
  xshmem_init();
  std::atexit(finalize_at_exit);
}

// Wait while *ivar == cmp_value: wait_until with SHMEM_CMP_NE.
extern "C" void pshmem_wait(long *ivar, long cmp_value) {
  xshmem_long_wait_until(ivar, XSHMEM_CMP_NE, cmp_value);
}
extern "C" void pshmem_short_wait(short *ivar, short cmp_value) {
  xshmem_short_wait_until(ivar, XSHMEM_CMP_NE, cmp_value);
}
extern "C" void pshmem_int_wait(int *ivar, int cmp_value) {
  xshmem_int_wait_until(ivar, XSHMEM_CMP_NE, cmp_value);
}
extern "C" void pshmem_long_wait(long *ivar, long cmp_value) {
  xshmem_long_wait_until(ivar, XSHMEM_CMP_NE, cmp_value);
}
extern "C" void pshmem_longlong_wait(long long *ivar, long long cmp_value) {
  xshmem_longlong_wait_until(ivar, XSHMEM_CMP_NE, cmp_value);
}

// Cache management: xshmem keeps no cache of remote data, so there is nothing to invalidate or
// flush (the specification lets these be no-ops).
extern "C" void pshmem_set_cache_inv(void) {}
extern "C" void pshmem_set_cache_line_inv(void *) {}
extern "C" void pshmem_clear_cache_inv(void) {}
extern "C" void pshmem_clear_cache_line_inv(void *) {}
extern "C" void pshmem_udcflush(void) {}
extern "C" void pshmem_udcflush_line(void *) {}
