// The proxy tests' main: one Catch2 session, for Catch2 2.x and 3.x alike.
// gcc 12 with -fsanitize=address -O2 warns (maybe-uninitialized) inside the std::regex code that
// Catch2 2.x's implementation instantiates here; not ours, and it stops -Werror sanitizer builds.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define XSHMEM_CATCH_MAIN
#include "../catch_compat.h"

int main(int argc, char **argv) {
  return Catch::Session().run(argc, argv);
}
