/*
 * compat.c11.no_routine.*: a type-generic call with a type outside the specification's tables
 * must not compile (never a silent no-op). Compiled with -DCASE=1 (plain form) or 2 (context form);
 * the test expects the compiler to fail with the diagnostic named in tests/compat/CMakeLists.txt.
 */
#include <shmem.h>

#include <stdbool.h>

int main(void) {
  bool *dest = 0, source[2] = {false, true};
#if CASE == 1
  shmem_put(dest, source, 2, 0);
#else
  shmem_put(SHMEM_CTX_DEFAULT, dest, source, 2, 0);
#endif
  return 0;
}
