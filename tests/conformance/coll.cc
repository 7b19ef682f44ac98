// COLL rows of CONFORMANCE.md §4.9 (host API): COLL-01 and COLL-02 on the world team. (No team
// API exists yet, so the team bank of TEAM-05 and team_sync are not covered here.)
//
// Counter trick: iteration it updates counter it % 2 on PE 0; that counter is next updated at
// it + 2, which no PE can reach before every PE has passed the synchronisation of it + 1 (and so
// has read the counter of it). The value read right after the synchronisation is therefore exact.
#include <string>

#include "harness.h"

namespace {

constexpr uint32_t kTidSync = 0xE002;

}  // namespace

TEST_CASE("COLL-01 barrier_no_early_exit", "[COLL-01]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PW")) return;
  const int me = xt::me(), n = xt::npes();
  const uint64_t un = static_cast<uint64_t>(n);
  // 1000 iterations as specified up to 4 PEs; above that the PEs oversubscribe the 2 CI cores and
  // each barrier costs scheduler round trips, so 300 iterations keep the case within its budget.
  const uint64_t iters = n <= 4 ? 1000 : 300;
  xt::SymBuf<uint64_t> ctr(2);
  if (me == 0) ctr[0] = ctr[1] = 0;
  xshmem_barrier_all();
  size_t early = 0, bad_fetch = 0;
  for (uint64_t it = 0; it < iters; ++it) {
    uint64_t *c = ctr.data() + it % 2;
    const uint64_t round = it / 2;
    xt::note("COLL-01 iteration %llu", static_cast<unsigned long long>(it));
    if (it % 4 < 2) {
      const uint64_t f = xshmem_uint64_atomic_fetch_inc(c, 0);
      if ((f < un * round || f >= un * (round + 1)) && ++bad_fetch <= 4)
        FAIL_CHECK("pe " << me << ": COLL-01 iteration " << it << ": fetch_inc fetched " << f
                         << ", expected a value in [" << un * round << ", " << un * (round + 1)
                         << ")");
    } else {
      xshmem_uint64_atomic_inc(c, 0);  // non-fetching: barrier_all completes it
    }
    xshmem_barrier_all();
    const uint64_t v = xshmem_uint64_atomic_fetch(c, 0);
    if (v != un * (round + 1) && ++early <= 4)
      FAIL_CHECK("pe " << me << ": COLL-01 iteration " << it << ": counter reads " << v
                       << " after barrier_all, expected " << un * (round + 1)
                       << " (a PE left the barrier early or an increment was incomplete)");
  }
  CHECK(early == 0);
  CHECK(bad_fetch == 0);
  xshmem_barrier_all();
  if (me == 0) {
    CHECK(ctr[0] == un * ((iters + 1) / 2));
    CHECK(ctr[1] == un * (iters / 2));
    CHECK(ctr.guards_ok());
  }
  xshmem_barrier_all();
}

TEST_CASE("COLL-02 sync_variants", "[COLL-02]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n;
  // Fewer iterations above 4 PEs (2 oversubscribed CI cores), as in COLL-01.
  const uint64_t iters = n <= 4 ? 500 : 150;
  auto addend = [](int pe, uint64_t it) { return (xt::hash(pe, it, kTidSync) & 0xFFFF) + 1; };
  auto mark_value = [](int pe, uint64_t it) {
    return xt::value<uint64_t>(pe, pe, 0, it, kTidSync);
  };
  xt::SymBuf<uint64_t> ctr(2), mark(2);
  if (me == 0) ctr[0] = ctr[1] = 0;
  xshmem_barrier_all();
  uint64_t sums[2] = {0, 0};
  size_t bad_ctr = 0, bad_mark = 0;
  for (uint64_t it = 0; it < iters; ++it) {
    xt::note("COLL-02 iteration %llu", static_cast<unsigned long long>(it));
    // Remote update completed by quiet, then sync_all: arrival makes it visible.
    xshmem_uint64_atomic_add(ctr.data() + it % 2, addend(me, it), 0);
    for (int p = 0; p < n; ++p) sums[it % 2] += addend(p, it);
    // Local store to the own symmetric word: sync_all completes local stores.
    mark[it % 2] = mark_value(me, it);
    xshmem_quiet();
    xshmem_sync_all();
    const uint64_t v = xshmem_uint64_atomic_fetch(ctr.data() + it % 2, 0);
    if (v != sums[it % 2] && ++bad_ctr <= 4)
      FAIL_CHECK("pe " << me << ": COLL-02 iteration " << it << ": counter reads " << v
                       << " after quiet + sync_all, expected " << sums[it % 2]);
    const uint64_t m = xshmem_uint64_g(mark.data() + it % 2, right);
    if (m != mark_value(right, it) && ++bad_mark <= 4)
      FAIL_CHECK("pe " << me << ": COLL-02 iteration " << it << ": pe " << right
                       << "'s local store before sync_all reads " << m << ", expected "
                       << mark_value(right, it));
  }
  CHECK(bad_ctr == 0);
  CHECK(bad_mark == 0);
  xshmem_sync_all();
  if (me == 0) {
    CHECK(ctr[0] == sums[0]);
    CHECK(ctr[1] == sums[1]);
  }
  CHECK(ctr.guards_ok());
  CHECK(mark.guards_ok());
  xshmem_barrier_all();
}
