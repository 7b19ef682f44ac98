// The proxy tests' main: one Catch2 session, for Catch2 2.x and 3.x alike.
#define XSHMEM_CATCH_MAIN
#include "../catch_compat.h"

int main(int argc, char **argv) {
  return Catch::Session().run(argc, argv);
}
