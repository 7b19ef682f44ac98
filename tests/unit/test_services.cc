// The services table the core hands to plugins: the fields of each minor version are there, and
// heap_amo (1.3) and heap_apply (1.4) refuse what they cannot do with one line per atomic naming
// the PE it came from.
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

TEST_CASE("heap_apply (1.4) refuses every entry of a host heap, each with its own line and status",
          "[services]") {
  const xshmem_core_services_v1_t *svc = core::services();
  REQUIRE(XSHMEM_SERVICES_HAS(svc, heap_apply));
  ut::LogCapture cap("error");
  uint64_t words[3] = {41, 42, 43};
  uint64_t from = 99;
  xshmem_heap_op_v1_t ops[3] = {};
  for (int i = 0; i < 3; ++i) {
    ops[i].kind = i == 2 ? XSHMEM_HEAP_OP_COPY : XSHMEM_HEAP_OP_AMO;
    ops[i].width = 8;
    ops[i].op = XSHMEM_AMO_FETCH_ADD;
    ops[i].src_pe = 10 + i;
    ops[i].addr = &words[i];
    ops[i].src = &from;
    ops[i].operand = i == 2 ? 8 : 1;
    ops[i].old = 7;
  }
  CHECK(svc->heap_apply(ops, 3) == XSHMEM_ERR_INVALID);
  for (int i = 0; i < 3; ++i) {
    CHECK(ops[i].status == XSHMEM_ERR_INVALID);
    CHECK(ops[i].old == 7);      // untouched
    CHECK(words[i] == 41u + i);  // not applied
  }
  const std::string log = cap.text();
  CHECK(ut::count(log, "heap_amo: an atomic from pe 10 on pe") == 1);
  CHECK(ut::count(log, "heap_amo: an atomic from pe 11 on pe") == 1);
  CHECK(ut::count(log, "heap_apply: a copy from pe 12 on pe") == 1);
  CHECK(svc->heap_apply(ops, 0) == XSHMEM_SUCCESS);  // nothing to do
}
