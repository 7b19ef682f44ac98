// ERR rows of CONFORMANCE.md §4.13 on CPU PEs.
//
// The checked-mode scenarios (tier C) are hidden test cases ("[.death]"): CTest runs each one alone
// through death_check.sh (filter "*death:<scenario>"), which expects the job to stop on every PE
// with the one-line diagnostic "xshmem: <call>: <argument ...> (pe N)" and status 86. In most
// scenarios PE 0 makes the bad call while its peer waits in a barrier, so the abort must reach a
// blocked PE. Should the runtime let a bad call return, the scenario fails fatally (exit 1, no
// diagnostic), which death_check.sh reports.
// The spec-defined parts (tier D) are ordinary test cases.
#include <climits>
#include <cstdlib>
#include <vector>

#include "harness.h"

namespace {

int peer() {
  return (xt::me() + 1) % xt::npes();
}

// Every PE runs `bad` (collective calls such as free).
template <typename F>
void all_do(const char *what, F &&bad) {
  if (!xt::require_npes_in({2}, "P2")) return;
  xt::test_budget(30);
  xt::note("%s", what);
  bad();
  FAIL("the runtime returned from " << what << " instead of stopping the job");
}

// Every PE runs `bad`, a collective whose arguments differ between PEs (ERR-06), at 2 or 3 PEs.
template <typename F>
void all_collective(const char *what, F &&bad) {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
  xt::test_budget(30);
  xt::note("%s", what);
  bad();
  FAIL("the runtime returned from " << what << " instead of stopping the job");
}

}  // namespace

// ---- Tier D (spec-defined)
// ------------------------------------------------------------------------

TEST_CASE("ERR-02 addr_accessible_tier_d", "[ERR-02]") {
  const size_t heap = xt::env_size("XSHMEM_SYMMETRIC_SIZE");
  int on_stack = 0;
  std::vector<char> priv(64);
  auto *sym = static_cast<char *>(xshmem_malloc(64));
  REQUIRE(sym != nullptr);
  for (int pe = 0; pe < xt::npes(); ++pe) {
    INFO("pe " << pe);
    CHECK(xshmem_addr_accessible(sym, pe) == 1);
    CHECK(xshmem_addr_accessible(sym + 63, pe) == 1);
    CHECK(xshmem_addr_accessible(&on_stack, pe) == 0);
    CHECK(xshmem_addr_accessible(priv.data(), pe) == 0);
    CHECK(xshmem_addr_accessible(nullptr, pe) == 0);
    if (heap) CHECK(xshmem_addr_accessible(sym + heap + 4096, pe) == 0);  // past the heap end
  }
  xshmem_free(sym);
}

TEST_CASE("ERR-09 null_zero_length_tier_d", "[ERR-09]") {
  xt::SymBuf<long> dst(8);
  xshmem_barrier_all();
  for (int pe = 0; pe < xt::npes(); ++pe) {
    xt::note("NULL + 0 operations to pe %d", pe);
    xshmem_putmem(nullptr, nullptr, 0, pe);
    xshmem_getmem(nullptr, nullptr, 0, pe);
    xshmem_putmem_nbi(nullptr, nullptr, 0, pe);
    xshmem_getmem_nbi(nullptr, nullptr, 0, pe);
    xshmem_long_put(nullptr, nullptr, 0, pe);
    xshmem_long_get(nullptr, nullptr, 0, pe);
    xshmem_long_iput(nullptr, nullptr, 1, 1, 0, pe);
    xshmem_long_iget(nullptr, nullptr, 1, 1, 0, pe);
    xshmem_put64(nullptr, nullptr, 0, pe);
  }
  xshmem_quiet();
  xshmem_barrier_all();
  const auto *b = reinterpret_cast<const unsigned char *>(dst.data());
  size_t changed = 0;
  for (size_t i = 0; i < dst.bytes(); ++i) changed += b[i] != xt::kPoison;
  CHECK(changed == 0);
  CHECK(dst.guards_ok());
}

// ERR-06, the passing side: identical arguments pass the checked-mode agreement, and a zero
// length agrees whatever the pointers (NULL on odd PEs, a heap block on even ones).
TEST_CASE("ERR-06 agreeing_collectives_pass", "[ERR-06]") {
  const int n = xt::npes(), me = xt::me();
  xt::SymBuf<long> d(8 * static_cast<size_t>(n)), s(8 * static_cast<size_t>(n));
  for (size_t i = 0; i < 8 * static_cast<size_t>(n); ++i) s[i] = xt::value<long>(me, -1, i, 6, 0x6);
  xshmem_barrier_all();
  long *zd = me % 2 ? nullptr : d.data();
  const long *zs = me % 2 ? nullptr : s.data();
  CHECK(xshmem_long_broadcast(XSHMEM_TEAM_WORLD, zd, zs, 0, 0) == 0);
  CHECK(xshmem_long_sum_reduce(XSHMEM_TEAM_WORLD, zd, zs, 0) == 0);
  CHECK(xshmem_long_fcollect(XSHMEM_TEAM_WORLD, zd, zs, 0) == 0);
  CHECK(xshmem_long_alltoall(XSHMEM_TEAM_WORLD, zd, zs, 0) == 0);
  const int root = n - 1;
  CHECK(xshmem_long_broadcast(XSHMEM_TEAM_WORLD, d.data(), s.data(), 8, root) == 0);
  CHECK(xt::mismatches(d.data(), 8, root, -1, 6, 0x6, "broadcast after the agreement") == 0);
  CHECK(d.guards_ok());
  xshmem_barrier_all();
}

// ---- Tier C: ERR-01 invalid PE
// ---------------------------------------------------------------------

TEST_CASE("ERR-01 death:invalid_pe_put_minus1", "[ERR-01][.death]") {
  xt::SymBuf<int> d(4);
  int src[4] = {1, 2, 3, 4};
  xt::pe0_does("xshmem_int_put to pe -1", [&] { xshmem_int_put(d.data(), src, 4, -1); });
}

TEST_CASE("ERR-01 death:invalid_pe_get_npes", "[ERR-01][.death]") {
  xt::SymBuf<char> s(8);
  char dst[8];
  xt::pe0_does("xshmem_getmem from pe n_pes", [&] { xshmem_getmem(dst, s.data(), 8, xt::npes()); });
}

TEST_CASE("ERR-01 death:invalid_pe_amo_intmax", "[ERR-01][.death]") {
  xt::SymBuf<int64_t> d(1);
  xt::pe0_does("xshmem_int64_atomic_add to pe INT_MAX",
               [&] { xshmem_int64_atomic_add(d.data(), 1, INT_MAX); });
}

TEST_CASE("ERR-01 death:invalid_pe_signal", "[ERR-01][.death]") {
  xt::SymBuf<uint64_t> sig(1);
  xt::pe0_does("xshmem_signal_add to pe -7", [&] { xshmem_signal_add(sig.data(), 1, -7); });
}

TEST_CASE("ERR-01 death:invalid_pe_put_signal", "[ERR-01][.death]") {
  xt::SymBuf<char> d(8);
  xt::SymBuf<uint64_t> sig(1);
  char src[8] = {};
  xt::pe0_does("xshmem_putmem_signal to pe n_pes", [&] {
    xshmem_putmem_signal(d.data(), src, 8, sig.data(), 1, XSHMEM_SIGNAL_SET, xt::npes());
  });
}

// ---- Tier C: ERR-02 non-symmetric or out-of-heap addresses
// ---------------------------------------

TEST_CASE("ERR-02 death:nonsym_put_stack", "[ERR-02][.death]") {
  char on_stack[64], src[8] = {1};
  xt::pe0_does("xshmem_putmem to a stack address",
               [&] { xshmem_putmem(on_stack, src, 8, peer()); });
}

TEST_CASE("ERR-02 death:nonsym_put_private", "[ERR-02][.death]") {
  std::vector<char> priv(64);
  char src[8] = {1};
  xt::pe0_does("xshmem_putmem to a private heap address",
               [&] { xshmem_putmem(priv.data(), src, 8, peer()); });
}

TEST_CASE("ERR-02 death:nonsym_get_private_source", "[ERR-02][.death]") {
  std::vector<char> priv(64);
  char dst[8];
  xt::pe0_does("xshmem_getmem from a private heap address",
               [&] { xshmem_getmem(dst, priv.data(), 8, peer()); });
}

TEST_CASE("ERR-02 death:nonsym_past_heap_end", "[ERR-02][.death]") {
  const size_t heap = xt::env_size("XSHMEM_SYMMETRIC_SIZE");
  REQUIRE(heap > 0);  // CTest sets it; the address below must lie past the heap's end
  xt::SymBuf<char> d(64);
  char src[8] = {1};
  xt::pe0_does("xshmem_putmem past the heap end",
               [&] { xshmem_putmem(d.data() + heap + 4096, src, 8, peer()); });
}

TEST_CASE("ERR-02 death:nonsym_amo_stack", "[ERR-02][.death]") {
  int64_t on_stack = 0;
  xt::pe0_does("xshmem_int64_atomic_fetch_add on a stack address",
               [&] { (void)xshmem_int64_atomic_fetch_add(&on_stack, 1, peer()); });
}

// ---- Tier C: ERR-03 misaligned typed/atomic addresses
// --------------------------------------------

TEST_CASE("ERR-03 death:misaligned_amo64_1", "[ERR-03][.death]") {
  xt::SymBuf<int64_t> d(4);
  auto *at = reinterpret_cast<int64_t *>(reinterpret_cast<char *>(d.data()) + 1);
  xt::pe0_does("xshmem_int64_atomic_add at 1 mod 8",
               [&] { xshmem_int64_atomic_add(at, 1, peer()); });
}

TEST_CASE("ERR-03 death:misaligned_amo64_4", "[ERR-03][.death]") {
  xt::SymBuf<uint64_t> d(4);
  auto *at = reinterpret_cast<uint64_t *>(reinterpret_cast<char *>(d.data()) + 4);
  xt::pe0_does("xshmem_uint64_atomic_fetch_add at 4 mod 8",
               [&] { (void)xshmem_uint64_atomic_fetch_add(at, 1, peer()); });
}

TEST_CASE("ERR-03 death:misaligned_amo32_2", "[ERR-03][.death]") {
  xt::SymBuf<int> d(4);
  auto *at = reinterpret_cast<int *>(reinterpret_cast<char *>(d.data()) + 2);
  xt::pe0_does("xshmem_int_atomic_compare_swap at 2 mod 4",
               [&] { (void)xshmem_int_atomic_compare_swap(at, 0, 1, peer()); });
}

TEST_CASE("ERR-03 death:misaligned_typed_put", "[ERR-03][.death]") {
  xt::SymBuf<int> d(8);
  int src[2] = {1, 2};
  auto *at = reinterpret_cast<int *>(reinterpret_cast<char *>(d.data()) + 2);
  xt::pe0_does("xshmem_int_put at 2 mod 4", [&] { xshmem_int_put(at, src, 2, peer()); });
}

// ---- Tier C: ERR-04 / ERR-05 frees
// ---------------------------------------------------------------

TEST_CASE("ERR-04 death:double_free", "[ERR-04][.death]") {
  void *p = xshmem_malloc(64);
  REQUIRE(p != nullptr);
  xshmem_free(p);
  all_do("the second xshmem_free of a block", [&] { xshmem_free(p); });
}

TEST_CASE("ERR-05 death:free_private", "[ERR-05][.death]") {
  void *priv = std::malloc(64);
  all_do("xshmem_free of a private heap pointer", [&] { xshmem_free(priv); });
  std::free(priv);
}

TEST_CASE("ERR-05 death:free_stack", "[ERR-05][.death]") {
  long on_stack[4];
  all_do("xshmem_free of a stack pointer", [&] { xshmem_free(on_stack); });
}

TEST_CASE("ERR-05 death:free_interior", "[ERR-05][.death]") {
  auto *p = static_cast<char *>(xshmem_malloc(256));
  REQUIRE(p != nullptr);
  all_do("xshmem_free of an interior pointer", [&] { xshmem_free(p + 64); });
}

// ---- Tier C: ERR-09 NULL with a nonzero length
// ---------------------------------------------------

TEST_CASE("ERR-09 death:null_put_dest", "[ERR-09][.death]") {
  char src[8] = {1};
  xt::pe0_does("xshmem_putmem to NULL, 8 bytes", [&] { xshmem_putmem(nullptr, src, 8, peer()); });
}

TEST_CASE("ERR-09 death:null_put_source", "[ERR-09][.death]") {
  xt::SymBuf<char> d(8);
  xt::pe0_does("xshmem_putmem from NULL, 8 bytes",
               [&] { xshmem_putmem(d.data(), nullptr, 8, peer()); });
}

TEST_CASE("ERR-09 death:null_get_dest", "[ERR-09][.death]") {
  xt::SymBuf<long> s(4);
  xt::pe0_does("xshmem_long_get into NULL, 4 elements",
               [&] { xshmem_long_get(nullptr, s.data(), 4, peer()); });
}

// ---- Tier C: ERR-06 mismatched collective arguments, ERR-07 team misuse
// --------------------------

TEST_CASE("ERR-06 death:malloc_different_sizes", "[ERR-06][.death]") {
  all_do("xshmem_malloc with a size that differs per PE",
         [&] { (void)xshmem_malloc(64 + 64 * static_cast<size_t>(xt::me())); });
}

// Collectives: the members of WORLD disagree on one argument; every PE stops in the
// argument agreement (checked mode), none is left waiting in the collective. Buffers are large
// enough for every variant, so only the agreement can stop the job.
TEST_CASE("ERR-06 death:bcast_different_roots", "[ERR-06][.death]") {
  xt::SymBuf<int> d(16), s(16);
  xshmem_barrier_all();
  all_collective("xshmem_int_broadcast with PE_root = pe % 2", [&] {
    (void)xshmem_int_broadcast(XSHMEM_TEAM_WORLD, d.data(), s.data(), 16, xt::me() % 2);
  });
}

TEST_CASE("ERR-06 death:bcast_different_dest", "[ERR-06][.death]") {
  xt::SymBuf<long> d(32), s(16);
  xshmem_barrier_all();
  all_collective("xshmem_long_broadcast into dest + 16 * (pe % 2)", [&] {
    (void)xshmem_long_broadcast(XSHMEM_TEAM_WORLD, d.data() + 16 * (xt::me() % 2), s.data(), 16, 0);
  });
}

TEST_CASE("ERR-06 death:reduce_different_nreduce", "[ERR-06][.death]") {
  xt::SymBuf<long> d(16), s(16);
  xshmem_barrier_all();
  all_collective("xshmem_long_sum_reduce with nreduce = 4 + pe", [&] {
    (void)xshmem_long_sum_reduce(XSHMEM_TEAM_WORLD, d.data(), s.data(),
                                 4 + static_cast<size_t>(xt::me()));
  });
}

TEST_CASE("ERR-06 death:reduce_different_source", "[ERR-06][.death]") {
  xt::SymBuf<int> d(16), s(32);
  xshmem_barrier_all();
  all_collective("xshmem_int_max_reduce from source + 16 * (pe % 2)", [&] {
    (void)xshmem_int_max_reduce(XSHMEM_TEAM_WORLD, d.data(), s.data() + 16 * (xt::me() % 2), 16);
  });
}

TEST_CASE("ERR-06 death:scan_different_nreduce", "[ERR-06][.death]") {
  xt::SymBuf<int> d(16), s(16);
  xshmem_barrier_all();
  // PE 0 passes 0 elements: an empty scan must agree too.
  all_collective("xshmem_int_sum_inscan with nreduce = 8 * pe", [&] {
    (void)xshmem_int_sum_inscan(XSHMEM_TEAM_WORLD, d.data(), s.data(),
                                8 * static_cast<size_t>(xt::me()));
  });
}

TEST_CASE("ERR-06 death:fcollect_different_nelems", "[ERR-06][.death]") {
  xt::SymBuf<int> d(64), s(16);
  xshmem_barrier_all();
  all_collective("xshmem_int_fcollect with nelems = 8 + pe % 2", [&] {
    (void)xshmem_int_fcollect(XSHMEM_TEAM_WORLD, d.data(), s.data(),
                              8 + static_cast<size_t>(xt::me() % 2));
  });
}

TEST_CASE("ERR-06 death:alltoall_different_nelems", "[ERR-06][.death]") {
  xt::SymBuf<unsigned char> d(256), s(256);
  xshmem_barrier_all();
  all_collective("xshmem_alltoallmem with nelems = 32 + 8 * pe", [&] {
    (void)xshmem_alltoallmem(XSHMEM_TEAM_WORLD, d.data(), s.data(),
                             32 + 8 * static_cast<size_t>(xt::me()));
  });
}

TEST_CASE("ERR-06 death:alltoalls_different_sst", "[ERR-06][.death]") {
  xt::SymBuf<int> d(64), s(64);
  xshmem_barrier_all();
  all_collective("xshmem_int_alltoalls with sst = 1 + pe % 2", [&] {
    (void)xshmem_int_alltoalls(XSHMEM_TEAM_WORLD, d.data(), s.data(), 1, 1 + xt::me() % 2, 4);
  });
}

TEST_CASE("ERR-06 death:collect_different_dest", "[ERR-06][.death]") {
  xt::SymBuf<int> d(64), s(16);
  xshmem_barrier_all();
  all_collective("xshmem_int_collect into dest + 16 * (pe % 2)", [&] {
    (void)xshmem_int_collect(XSHMEM_TEAM_WORLD, d.data() + 16 * (xt::me() % 2), s.data(),
                             1 + static_cast<size_t>(xt::me()));
  });
}

TEST_CASE("ERR-06 death:different_collectives", "[ERR-06][.death]") {
  xt::SymBuf<int> d(16), s(16);
  xshmem_barrier_all();
  all_collective("even PEs: xshmem_int_broadcast, odd PEs: xshmem_int_sum_reduce", [&] {
    if (xt::me() % 2 == 0)
      (void)xshmem_int_broadcast(XSHMEM_TEAM_WORLD, d.data(), s.data(), 16, 0);
    else
      (void)xshmem_int_sum_reduce(XSHMEM_TEAM_WORLD, d.data(), s.data(), 16);
  });
}

TEST_CASE("ERR-07 death:sync_invalid_team", "[ERR-07][.death]") {
  xt::pe0_does("xshmem_team_sync(XSHMEM_TEAM_INVALID)",
               [&] { (void)xshmem_team_sync(XSHMEM_TEAM_INVALID); });
}

TEST_CASE("ERR-07 death:destroy_world", "[ERR-07][.death]") {
  xt::pe0_does("xshmem_team_destroy(XSHMEM_TEAM_WORLD)",
               [&] { xshmem_team_destroy(XSHMEM_TEAM_WORLD); });
}

TEST_CASE("ERR-07 death:use_after_destroy", "[ERR-07][.death]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  xshmem_team_t t = XSHMEM_TEAM_INVALID;
  REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &t) == 0);
  xshmem_team_destroy(t);
  xt::pe0_does("xshmem_team_sync on a destroyed team", [&] { (void)xshmem_team_sync(t); });
}

TEST_CASE("ERR-07 death:inconsistent_split", "[ERR-07][.death]") {
  // PE 0 asks for the whole world, PE 1 for itself alone.
  all_do("xshmem_team_split_strided with a triplet that differs per PE", [&] {
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    (void)xshmem_team_split_strided(XSHMEM_TEAM_WORLD, xt::me() == 0 ? 0 : 1, 1,
                                    xt::me() == 0 ? 2 : 1, nullptr, 0, &t);
  });
}

TEST_CASE("ERR-07 team_misuse_tier_d", "[ERR-07]") {
  const int n = xt::npes();
  xshmem_team_destroy(XSHMEM_TEAM_INVALID);  // no-op
  xshmem_team_t t = 99;
  // Stride 0 with size > 1, and a wrap-around triplet: invalid on every PE.
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 0, 2, nullptr, 0, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  t = 99;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, 1, 2, nullptr, 0, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  t = 99;
  CHECK(xshmem_team_split_strided(XSHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  xshmem_barrier_all();
}
