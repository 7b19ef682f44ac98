// INIT rows of CONFORMANCE.md §4.2 (host API).
#include <cstdlib>
#include <vector>

#include "harness.h"

namespace {
constexpr uint32_t kTid = 0x1001;
}

TEST_CASE("INIT-01 lifecycle_smoke", "[INIT-01]") {
  // PW = {1,2,3,4,5,7,8}; CTest also runs 1..8 only, but a hand run may use more.
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PW")) return;
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  xt::note("my_pe/n_pes");
  CHECK(xshmem_query_initialized() == 1);
  CHECK(me >= 0);
  CHECK(me < n);
  CHECK(n >= 1);
  if (const char *want = std::getenv("XT_EXPECT_NPES")) {
    INFO("XT_EXPECT_NPES=" << want);
    CHECK(n == std::atoi(want));
  } else {
    WARN("XT_EXPECT_NPES is unset: n_pes not compared with the launcher's size");
  }

  // Every PE reports the same n_pes and a distinct my_pe: the world is a permutation of 0..n-1.
  struct Id {
    int me, n;
  } mine{me, n};
  std::vector<Id> all(static_cast<size_t>(n));
  xt::allgather(&mine, all.data(), sizeof(Id));
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for (int pe = 0; pe < n; ++pe) {
    INFO("slot " << pe);
    CHECK(all[pe].n == n);
    CHECK(all[pe].me == pe);
    if (all[pe].me >= 0 && all[pe].me < n) ++seen[all[pe].me];
  }
  for (int pe = 0; pe < n; ++pe) CHECK(seen[pe] == 1);

  // Every peer is reachable, and a round of puts around the ring arrives (the runtime works end
  // to end; the RMA group tests it thoroughly).
  for (int pe = 0; pe < n; ++pe) {
    INFO("pe_accessible(" << pe << ")");
    CHECK(xshmem_pe_accessible(pe) == 1);
  }
  CHECK(xshmem_pe_accessible(-1) == 0);
  CHECK(xshmem_pe_accessible(n) == 0);

  xt::SymBuf<uint64_t> buf(16);
  xt::LocalBuf<uint64_t> src(16);
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  xt::fill(src.data(), 16, me, right, 0, kTid);
  xt::note("put ring");
  xshmem_barrier_all();  // every PE's buf is poisoned before anyone writes
  xshmem_uint64_put(buf.data(), src.data(), 16, right);
  xshmem_barrier_all();
  CHECK(xt::mismatches(buf.data(), 16, left, me, 0, kTid, "ring put") == 0);
  CHECK(buf.guards_ok());
  CHECK(src.guards_ok());
  xshmem_barrier_all();
}
