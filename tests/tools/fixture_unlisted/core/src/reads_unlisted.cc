// Fixture for tools.info.vars_selftest: code that reads a variable no table lists. The check
// must fail on this tree and name XSHMEM_FIXTURE_NOT_IN_TABLE.
#include <cstdlib>

const char *fixture_read() {
  return getenv("XSHMEM_FIXTURE_NOT_IN_TABLE");
}
