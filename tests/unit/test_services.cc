// The services table the core hands to plugins: the fields of each minor version are there, and
// heap_amo (1.3) refuses what it cannot do with one line naming the PE the atomic came from.
#include <cstdint>
#include <string>

#include "../catch_compat.h"
#include "runtime.h"
#include "util.h"

using namespace xshmem;

TEST_CASE("the services table has every field of 1.3, and heap_amo refuses a host heap",
          "[services]") {
  const xshmem_core_services_v1_t *svc = core::services();
  REQUIRE(svc->abi_version == XSHMEM_SERVICES_ABI_VERSION);
  CHECK(svc->struct_size == sizeof(xshmem_core_services_v1_t));
  CHECK(XSHMEM_SERVICES_HAS(svc, cuda_driver_proc));
  REQUIRE(XSHMEM_SERVICES_HAS(svc, heap_amo));
  // No job here: no heap in GPU memory, so every call is refused, old value untouched.
  ut::LogCapture cap("error");
  uint64_t word = 41, old = 7;
  CHECK(svc->heap_amo(&word, 8, XSHMEM_AMO_FETCH_ADD, 1, 0, &old, 3) == XSHMEM_ERR_INVALID);
  CHECK(word == 41);
  CHECK(old == 7);
  const std::string log = cap.text();
  CHECK(ut::count(log, "heap_amo: an atomic from pe 3 on pe") == 1);
  CHECK(ut::count(log, "this PE's heap is not GPU memory") == 1);
}
