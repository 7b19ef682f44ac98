// TEAM rows of CONFORMANCE.md §4.10 (host API): split_strided valid (TEAM-01) and invalid
// (TEAM-02) triplets, split_2d (TEAM-03), translation and queries on invalid handles (TEAM-04),
// a bank of teams used with team-relative numbering (TEAM-05, without contexts), exhaustion and
// reuse (TEAM-06), config (TEAM-07, without contexts), the shared and node teams (TEAM-08), and
// team_sync (COLL-02's team form).
#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidBank = 0x7E05;

// The parent-relative members of triplet (start, stride, size).
std::vector<int> members(int start, int stride, int size) {
  std::vector<int> m;
  for (int i = 0; i < size; ++i) m.push_back(start + i * stride);
  return m;
}

// Checks a team created from WORLD with `expect` world members (in team order) on this PE.
void check_team(xshmem_team_t t, const std::vector<int> &expect, const std::string &what) {
  const int me = xt::me();
  const auto it = std::find(expect.begin(), expect.end(), me);
  if (it == expect.end()) {
    CHECK(t == XSHMEM_TEAM_INVALID);
    CHECK(xshmem_team_my_pe(t) == -1);
    return;
  }
  INFO(what);
  REQUIRE(t != XSHMEM_TEAM_INVALID);
  CHECK(xshmem_team_my_pe(t) == static_cast<int>(it - expect.begin()));
  CHECK(xshmem_team_n_pes(t) == static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); ++i) {
    CHECK(xshmem_team_translate_pe(t, static_cast<int>(i), XSHMEM_TEAM_WORLD) == expect[i]);
    CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, expect[i], t) == static_cast<int>(i));
  }
}

// Every member puts a value into its right neighbour (team numbering) and checks what its left
// neighbour sent: the team is usable at once, and team-relative numbering reaches the right PE.
void exercise(xshmem_team_t t, uint64_t *box, uint64_t iter) {
  if (t == XSHMEM_TEAM_INVALID) return;
  const int tme = xshmem_team_my_pe(t), tn = xshmem_team_n_pes(t);
  const int right = (tme + 1) % tn, left = (tme + tn - 1) % tn;
  const int wright = xshmem_team_translate_pe(t, right, XSHMEM_TEAM_WORLD);
  const int wleft = xshmem_team_translate_pe(t, left, XSHMEM_TEAM_WORLD);
  xshmem_uint64_p(box, xt::value<uint64_t>(xt::me(), wright, 0, iter, kTidBank), wright);
  xshmem_quiet();
  xshmem_team_sync(t);
  CHECK(*box == xt::value<uint64_t>(wleft, xt::me(), 0, iter, kTidBank));
  xshmem_team_sync(t);  // nobody overwrites box before its owner read it
}

}  // namespace

TEST_CASE("TEAM-01 split_strided_valid", "[TEAM-01]") {
  const int n = xt::npes(), me = xt::me();
  struct Trip {
    int start, stride, size;
  };
  std::vector<Trip> trips = {{0, 1, n},
                             {0, 2, (n + 1) / 2},
                             {n - 1, -1, n},
                             {n - 1, -2, (n + 1) / 2},
                             {0, 3, (n + 2) / 3}};
  if (n / 2 >= 1) trips.push_back({1, 2, n / 2});
  for (int k = 0; k < n; ++k) trips.push_back({k, 0, 1});  // size 1 at each PE
  xt::SymBuf<uint64_t> box(1);
  xshmem_barrier_all();
  uint64_t iter = 0;
  for (const Trip &tr : trips) {
    xt::note("TEAM-01 split (%d, %d, %d)", tr.start, tr.stride, tr.size);
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    const int rc =
        xshmem_team_split_strided(XSHMEM_TEAM_WORLD, tr.start, tr.stride, tr.size, nullptr, 0, &t);
    CHECK(rc == 0);
    const std::string what = "triplet (" + std::to_string(tr.start) + ", " +
                             std::to_string(tr.stride) + ", " + std::to_string(tr.size) + ")";
    check_team(t, members(tr.start, tr.stride, tr.size), what);
    exercise(t, box.data(), ++iter);
    xshmem_team_destroy(t);
    (void)me;
  }
  // Nested: a split of a split translates through both.
  xshmem_team_t even = XSHMEM_TEAM_INVALID, sub = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) == 0);
  if (even != XSHMEM_TEAM_INVALID) {
    const int en = xshmem_team_n_pes(even);
    CHECK(xshmem_team_split_strided(even, en - 1, -1, en, nullptr, 0, &sub) == 0);
    std::vector<int> expect;
    for (int i = en - 1; i >= 0; --i) expect.push_back(2 * i);
    check_team(sub, expect, "reverse of the even team");
    exercise(sub, box.data(), ++iter);
    xshmem_team_destroy(sub);
    xshmem_team_destroy(even);
  }
  xshmem_barrier_all();
  CHECK(box.guards_ok());
}

TEST_CASE("TEAM-02 split_strided_invalid", "[TEAM-02]") {
  const int n = xt::npes();
  struct Trip {
    int start, stride, size;
  };
  const Trip bad[] = {{n, 1, 1},  {0, 1, n + 1}, {0, 1, 0}, {0, 1, -1},
                      {-1, 1, 1}, {n - 1, 1, 2}, {0, -1, 2}};
  for (const Trip &tr : bad) {
    if (tr.start == n - 1 && tr.stride == 1 && tr.size == 2 && n == 0) continue;
    xshmem_team_t t = 12345;
    const int rc =
        xshmem_team_split_strided(XSHMEM_TEAM_WORLD, tr.start, tr.stride, tr.size, nullptr, 0, &t);
    INFO("triplet (" << tr.start << ", " << tr.stride << ", " << tr.size << ")");
    CHECK(rc != 0);
    CHECK(t == XSHMEM_TEAM_INVALID);
  }
  // An INVALID parent: nonzero, INVALID, no communication.
  xshmem_team_t t = 12345;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  // The library is still usable: a valid split right after.
  xshmem_team_t ok = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &ok) == 0);
  CHECK(xshmem_team_n_pes(ok) == n);
  xshmem_team_destroy(ok);
}

TEST_CASE("TEAM-03 split_2d", "[TEAM-03]") {
  const int n = xt::npes(), me = xt::me();
  std::vector<int> ranges = {1, 2, 3, std::max(1, n / 2), n, n + 1};
  // One box per axis: a PE still checking its x-team's box must not see a y-team put.
  xt::SymBuf<uint64_t> box(2);
  xshmem_barrier_all();
  uint64_t iter = 100;
  for (int xr : ranges) {
    xt::note("TEAM-03 xrange %d", xr);
    xshmem_team_t xteam = XSHMEM_TEAM_INVALID, yteam = XSHMEM_TEAM_INVALID;
    const int rc =
        xshmem_team_split_2d(XSHMEM_TEAM_WORLD, xr, nullptr, 0, &xteam, nullptr, 0, &yteam);
    INFO("xrange " << xr);
    CHECK(rc == 0);
    const int x = xr > n ? n : xr;
    const int row = me / x, col = me % x;
    CHECK(xshmem_team_my_pe(xteam) == col);
    CHECK(xshmem_team_my_pe(yteam) == row);
    CHECK(xshmem_team_n_pes(xteam) == std::min(x, n - row * x));
    CHECK(xshmem_team_n_pes(yteam) == (n - col + x - 1) / x);
    // Coordinates translate back to the world.
    CHECK(xshmem_team_translate_pe(xteam, col, XSHMEM_TEAM_WORLD) == me);
    CHECK(xshmem_team_translate_pe(yteam, row, XSHMEM_TEAM_WORLD) == me);
    if (xshmem_team_n_pes(xteam) > 1)
      CHECK(xshmem_team_translate_pe(xteam, 0, XSHMEM_TEAM_WORLD) == row * x);
    exercise(xteam, box.data(), ++iter);
    exercise(yteam, box.data() + 1, ++iter);
    // 3D by a nested split of the y-team (the spec's example): z-teams of 2.
    xshmem_team_t zx = XSHMEM_TEAM_INVALID, zy = XSHMEM_TEAM_INVALID;
    CHECK(xshmem_team_split_2d(yteam, 2, nullptr, 0, &zx, nullptr, 0, &zy) == 0);
    CHECK(xshmem_team_translate_pe(zx, xshmem_team_my_pe(zx), XSHMEM_TEAM_WORLD) == me);
    CHECK(xshmem_team_translate_pe(zy, xshmem_team_my_pe(zy), XSHMEM_TEAM_WORLD) == me);
    xshmem_team_destroy(zy);
    xshmem_team_destroy(zx);
    xshmem_team_destroy(yteam);
    xshmem_team_destroy(xteam);
  }
  xshmem_team_t a = 7, b = 7;
  CHECK(xshmem_team_split_2d(XSHMEM_TEAM_WORLD, 0, nullptr, 0, &a, nullptr, 0, &b) != 0);
  CHECK(a == XSHMEM_TEAM_INVALID);
  CHECK(b == XSHMEM_TEAM_INVALID);
  xshmem_barrier_all();
}

TEST_CASE("TEAM-04 translate_and_invalid_queries", "[TEAM-04]") {
  const int n = xt::npes(), me = xt::me();
  CHECK(xshmem_team_my_pe(XSHMEM_TEAM_INVALID) == -1);
  CHECK(xshmem_team_n_pes(XSHMEM_TEAM_INVALID) == -1);
  CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_INVALID, 0, XSHMEM_TEAM_WORLD) == -1);
  CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, 0, XSHMEM_TEAM_INVALID) == -1);
  CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, n, XSHMEM_TEAM_WORLD) == -1);
  CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, -1, XSHMEM_TEAM_WORLD) == -1);
  CHECK(xshmem_team_my_pe(XSHMEM_TEAM_WORLD) == me);
  CHECK(xshmem_team_n_pes(XSHMEM_TEAM_WORLD) == n);
  // Siblings: evens and odds; an even PE is not in the odd team.
  xshmem_team_t even = XSHMEM_TEAM_INVALID, odd = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) == 0);
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n > 1 ? 1 : 0, n > 1 ? 2 : 1,
                                  n > 1 ? n / 2 : 1, nullptr, 0, &odd) == 0);
  if (me % 2 == 0) {
    // With one PE the "odd" team is (0, 1, 1) and holds it; otherwise it is invalid here.
    if (n > 1) CHECK(xshmem_team_translate_pe(even, xshmem_team_my_pe(even), odd) == -1);
    for (int i = 0; i < xshmem_team_n_pes(even); ++i)
      CHECK(xshmem_team_translate_pe(even, i, XSHMEM_TEAM_WORLD) == 2 * i);
  } else {
    for (int i = 0; i < xshmem_team_n_pes(odd); ++i)
      CHECK(xshmem_team_translate_pe(odd, i, XSHMEM_TEAM_WORLD) == 2 * i + 1);
  }
  xshmem_team_destroy(odd);
  xshmem_team_destroy(even);
  // A destroyed team is no team.
  CHECK(xshmem_team_n_pes(even) == -1);
  xshmem_barrier_all();
}

TEST_CASE("TEAM-06 exhaustion_and_reuse", "[TEAM-06]") {
  const int n = xt::npes();
  std::vector<xshmem_team_t> teams;
  for (;;) {
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    const int rc = xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t);
    if (rc != 0) {
      CHECK(t == XSHMEM_TEAM_INVALID);
      break;
    }
    REQUIRE(t != XSHMEM_TEAM_INVALID);
    teams.push_back(t);
    REQUIRE(teams.size() <= XSHMEM_MAX_TEAMS);
  }
  // The failure came at the same count on every PE: 64 slots, 3 predefined.
  CHECK(teams.size() == XSHMEM_MAX_TEAMS - 3);
  // Destroy one: a creation succeeds again and the new team works.
  xshmem_team_destroy(teams[5]);
  xshmem_team_t again = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &again) == 0);
  CHECK(xshmem_team_n_pes(again) == n);
  CHECK(xshmem_team_sync(again) == 0);
  teams[5] = again;
  for (xshmem_team_t t : teams) xshmem_team_destroy(t);
  // A shrinking reuse chain: each team splits its predecessor, then the chain is destroyed.
  std::vector<xshmem_team_t> chain;
  xshmem_team_t parent = XSHMEM_TEAM_WORLD;
  for (int size = n; size >= 1; --size) {
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    CHECK(xshmem_team_split_strided(parent, 0, 1, size, nullptr, 0, &t) == 0);
    if (t == XSHMEM_TEAM_INVALID) break;  // this PE left the chain
    CHECK(xshmem_team_n_pes(t) == size);
    chain.push_back(t);
    parent = t;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) xshmem_team_destroy(*it);
  xshmem_team_destroy(XSHMEM_TEAM_INVALID);  // no-op
  xshmem_barrier_all();
}

TEST_CASE("TEAM-07 config (without contexts)", "[TEAM-07]") {
  const int n = xt::npes();
  xshmem_team_config_t cfg{};
  CHECK(xshmem_team_get_config(XSHMEM_TEAM_WORLD, XSHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0);
  CHECK(cfg.num_contexts == 0);
  CHECK(xshmem_team_get_config(XSHMEM_TEAM_WORLD, 0, nullptr) == 0);
  CHECK(xshmem_team_get_config(XSHMEM_TEAM_INVALID, 0, &cfg) != 0);
  xshmem_team_config_t want{};
  want.num_contexts = 3 + xt::me() % 2;  // a per-PE hint is allowed
  xshmem_team_t t = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, n, &want, XSHMEM_TEAM_NUM_CONTEXTS,
                                  &t) == 0);
  xshmem_team_config_t got{};
  CHECK(xshmem_team_get_config(t, XSHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
  CHECK(got.num_contexts == want.num_contexts);
  xshmem_team_destroy(t);
}

TEST_CASE("TEAM-08 shared_team", "[TEAM-08]") {
  const int n = xt::npes(), me = xt::me();
  const int sn = xshmem_team_n_pes(XSHMEM_TEAM_SHARED);
  xt::SymBuf<uint64_t> box(1);
  xshmem_barrier_all();
  // SHARED holds exactly the PEs this one reaches by load/store (xshmem_ptr non-NULL), itself
  // included, in world order: over hostshm on one node that is every PE; over a NIC transport
  // only this PE.
  std::vector<int> lsa;
  for (int pe = 0; pe < n; ++pe)
    if (xshmem_ptr(box.data(), pe) != nullptr) lsa.push_back(pe);
  REQUIRE(sn == static_cast<int>(lsa.size()));
  CHECK(xshmem_ptr(box.data(), me) == box.data());
  for (int i = 0; i < sn; ++i)
    CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_SHARED, i, XSHMEM_TEAM_WORLD) == lsa[i]);
  CHECK(xshmem_team_my_pe(XSHMEM_TEAM_SHARED) ==
        xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, me, XSHMEM_TEAM_SHARED));
  // NODE holds every PE of this host: all of SHARED (and, on one node, every PE: the two-node
  // harness checks its real subsets in tests/twonode).
  const int nn = xshmem_team_n_pes(XSHMEMX_TEAM_NODE);
  CHECK(nn >= sn);
  CHECK(nn <= n);
  for (int i = 0; i < sn; ++i)
    CHECK(xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, lsa[i], XSHMEMX_TEAM_NODE) >= 0);
  for (int i = 0; i < sn; ++i) {
    CHECK(xshmem_team_ptr(XSHMEM_TEAM_SHARED, box.data(), i) != nullptr);
    CHECK(
        xshmem_team_ptr(XSHMEM_TEAM_SHARED, box.data(), i) ==
        xshmem_ptr(box.data(), xshmem_team_translate_pe(XSHMEM_TEAM_SHARED, i, XSHMEM_TEAM_WORLD)));
  }
  CHECK(xshmem_team_ptr(XSHMEM_TEAM_SHARED, box.data(), sn) == nullptr);
  CHECK(xshmem_team_ptr(XSHMEM_TEAM_INVALID, box.data(), 0) == nullptr);
  // Stores through team_ptr land at the member: each PE writes into its right neighbour in SHARED.
  const int mine = xshmem_team_my_pe(XSHMEM_TEAM_SHARED);
  const int right = (mine + 1) % sn;
  const int right_world = xshmem_team_translate_pe(XSHMEM_TEAM_SHARED, right, XSHMEM_TEAM_WORLD);
  auto *p = static_cast<uint64_t *>(xshmem_team_ptr(XSHMEM_TEAM_SHARED, box.data(), right));
  REQUIRE(p != nullptr);
  *p = xt::value<uint64_t>(me, right_world, 0, 8, kTidBank);
  xshmem_barrier_all();
  const int left_world =
      xshmem_team_translate_pe(XSHMEM_TEAM_SHARED, (mine + sn - 1) % sn, XSHMEM_TEAM_WORLD);
  CHECK(*box.data() == xt::value<uint64_t>(left_world, me, 0, 8, kTidBank));
  // A split of SHARED works.
  xshmem_team_t half = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_SHARED, 0, 1, (sn + 1) / 2, nullptr, 0, &half) == 0);
  if (me < (sn + 1) / 2) CHECK(xshmem_team_n_pes(half) == (sn + 1) / 2);
  xshmem_team_destroy(half);
  xshmem_barrier_all();
  CHECK(box.guards_ok());
}

TEST_CASE("COLL-02 team_sync arrival", "[COLL-02]") {
  const int n = xt::npes();
  // Counter trick on each of the even/odd teams: every member increments the team's counter on
  // its member 0, quiets, syncs; after the sync the counter holds size x round.
  xshmem_team_t t = XSHMEM_TEAM_INVALID;
  const int parity = xt::me() % 2;
  xshmem_team_t even = XSHMEM_TEAM_INVALID, odd = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) == 0);
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n > 1 ? 1 : 0, n > 1 ? 2 : 1,
                                  n > 1 ? n / 2 : 1, nullptr, 0, &odd) == 0);
  t = parity ? odd : even;
  xt::SymBuf<uint64_t> ctr(2);
  ctr[0] = ctr[1] = 0;
  xshmem_barrier_all();
  if (t != XSHMEM_TEAM_INVALID) {
    const uint64_t tn = static_cast<uint64_t>(xshmem_team_n_pes(t));
    const int root = xshmem_team_translate_pe(t, 0, XSHMEM_TEAM_WORLD);
    size_t bad = 0;
    for (uint64_t it = 0; it < 200; ++it) {
      uint64_t *c = ctr.data() + it % 2;
      xshmem_uint64_atomic_inc(c, root);
      xshmem_quiet();
      xshmem_team_sync(t);
      const uint64_t v = xshmem_uint64_atomic_fetch(c, root);
      if (v != tn * (it / 2 + 1) && ++bad <= 4)
        FAIL_CHECK("pe " << xt::me() << ": iteration " << it << ": counter " << v << ", expected "
                         << tn * (it / 2 + 1));
      xshmem_team_sync(t);
    }
    CHECK(bad == 0);
  }
  xshmem_barrier_all();
  xshmem_team_destroy(odd);
  xshmem_team_destroy(even);
}
