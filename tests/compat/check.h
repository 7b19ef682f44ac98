/*
 * The compat tests' checks (C and C++): count a failed expectation, print the first ones with the
 * PE and the line. Values are printed as double (every type the tests move converts to it).
 */
#ifndef XSHMEM_TESTS_COMPAT_CHECK_H
#define XSHMEM_TESTS_COMPAT_CHECK_H

#include <stdio.h>

static int compat_failures;
static int compat_me = -1;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      if (compat_failures++ < 20) {                                                                \
        fprintf(stderr, "%s:%d: pe %d: check failed: %s: ", __FILE__, __LINE__, compat_me, #cond); \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
      }                                                                                            \
    }                                                                                              \
  } while (0)
/* Equality of two values of one arithmetic type, both printed on failure. */
#define CHECK_EQ(got, want, what) \
  CHECK((got) == (want), "%s: got %.17g, expected %.17g", (what), (double)(got), (double)(want))

#endif /* XSHMEM_TESTS_COMPAT_CHECK_H */
