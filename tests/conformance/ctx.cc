// Contexts (CONFORMANCE.md §4.11 CTX-01/02, THR-01; TEAM-07's context part; ORD-06 pe_quiet;
// ORD-09 context-scoped ordering) on the host API, and their checked-mode errors (ERR-10, hidden
// "[.death]" cases that CTest runs one at a time through death_check.sh).
//
// CTest sets XSHMEM_MAX_CONTEXTS (the runtime's limit of contexts per PE besides the default one)
// so that the exhaustion cases know the exact limit. Cases that use several host threads need the
// runtime to claim XSHMEM_THREAD_MULTIPLE (xshmem_query_thread); without it they skip.
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidOpts = 0xC001;
constexpr uint32_t kTidMany = 0xC002;
constexpr uint32_t kTidTeam = 0xC007;
constexpr uint32_t kTidPeQuiet = 0xC006;
constexpr uint32_t kTidScoped = 0xC009;
constexpr uint32_t kTidThreads = 0xC00A;
constexpr uint32_t kTidThr = 0xC0A1;
constexpr int kMaxProbe = 1 << 16;  // bound of "create until failure"

// The limit the runtime was started with (XSHMEM_MAX_CONTEXTS, default 1024).
int ctx_limit() {
  const char *v = std::getenv("XSHMEM_MAX_CONTEXTS");
  return v && *v ? std::atoi(v) : 1024;
}

// Whether the runtime claims XSHMEM_THREAD_MULTIPLE (the same answer on every PE). Built against
// headers without thread levels, it does not.
bool thread_multiple(std::string *why) {
#if defined(XSHMEM_THREAD_MULTIPLE)
  int provided = -1;
  xshmem_query_thread(&provided);
  if (provided == XSHMEM_THREAD_MULTIPLE) return true;
  *why = "the runtime provides thread level " + std::to_string(provided) +
         ", not XSHMEM_THREAD_MULTIPLE";
  return false;
#else
  *why =
      "this xshmem has no thread levels (XSHMEM_THREAD_MULTIPLE is not defined): host threads "
      "may not call it concurrently";
  return false;
#endif
}

uint64_t load(const uint64_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

// Creates contexts with `options` until a creation fails (at most kMaxProbe); returns them.
// The failed creation must return nonzero and XSHMEM_CTX_INVALID.
std::vector<xshmem_ctx_t> create_until_failure(xshmem_team_t team, long options) {
  std::vector<xshmem_ctx_t> got;
  for (int i = 0; i < kMaxProbe; ++i) {
    xshmem_ctx_t c = 12345;
    const int rc = team == XSHMEM_TEAM_WORLD ? xshmem_ctx_create(options, &c)
                                             : xshmem_team_create_ctx(team, options, &c);
    if (rc != 0) {
      CHECK(c == XSHMEM_CTX_INVALID);
      break;
    }
    CHECK(c != XSHMEM_CTX_INVALID);
    CHECK(c != XSHMEM_CTX_DEFAULT);
    got.push_back(c);
  }
  return got;
}

}  // namespace

TEST_CASE("CTX-01 ctx_create_options", "[CTX-01]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kN = 37;
  xt::SymBuf<int64_t> dst(kN);
  xt::LocalBuf<int64_t> src(kN);
  xshmem_barrier_all();
  const long opts[] = {0,
                       XSHMEM_CTX_SERIALIZED,
                       XSHMEM_CTX_PRIVATE,
                       XSHMEM_CTX_NOSTORE,
                       XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_NOSTORE,
                       XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_PRIVATE | XSHMEM_CTX_NOSTORE};
  uint64_t iter = 0;
  for (long o : opts) {
    ++iter;
    xt::note("CTX-01 options 0x%lx", o);
    INFO("options 0x" << std::hex << o);
    xshmem_ctx_t c = XSHMEM_CTX_INVALID;
    REQUIRE(xshmem_ctx_create(o, &c) == 0);
    CHECK(c != XSHMEM_CTX_INVALID);
    CHECK(c != XSHMEM_CTX_DEFAULT);
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    CHECK(xshmem_ctx_get_team(c, &t) == 0);
    CHECK(t == XSHMEM_TEAM_WORLD);
    dst.poison();
    xshmem_barrier_all();
    xt::fill(src.data(), kN, me, right, iter, kTidOpts);
    xshmem_ctx_int64_put(c, dst.data(), src.data(), kN, right);
    xshmem_ctx_quiet(c);
    xshmem_barrier_all();
    CHECK(xt::mismatches(dst.data(), kN, left, me, iter, kTidOpts, "ctx put") == 0);
    // A get on the same context reads back what this PE sent.
    xt::LocalBuf<int64_t> back(kN);
    xshmem_ctx_int64_get(c, back.data(), dst.data(), kN, right);
    CHECK(xt::mismatches(back.data(), kN, me, right, iter, kTidOpts, "ctx get") == 0);
    CHECK(back.guards_ok());
    xshmem_barrier_all();
    xshmem_ctx_destroy(c);
  }
  CHECK(dst.guards_ok());
  CHECK(src.guards_ok());

  // The default context and the invalid handle.
  xshmem_team_t t = 77;
  CHECK(xshmem_ctx_get_team(XSHMEM_CTX_DEFAULT, &t) == 0);
  CHECK(t == XSHMEM_TEAM_WORLD);
  CHECK(xshmem_ctx_get_team(XSHMEM_CTX_INVALID, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  xshmem_ctx_destroy(XSHMEM_CTX_INVALID);  // a no-op
  xshmem_ctx_t c = 5;
  CHECK(xshmem_team_create_ctx(XSHMEM_TEAM_INVALID, 0, &c) != 0);
  CHECK(c == XSHMEM_CTX_INVALID);

  // Creation beyond the limit fails (nonzero + INVALID), the library stays usable, and a
  // creation succeeds again once one context is destroyed.
  xt::note("CTX-01 exhaustion");
  std::vector<xshmem_ctx_t> all = create_until_failure(XSHMEM_TEAM_WORLD, 0);
  CHECK(static_cast<int>(all.size()) == ctx_limit());
  REQUIRE(!all.empty());
  xshmem_ctx_t extra = 1;
  CHECK(xshmem_ctx_create(XSHMEM_CTX_NOSTORE, &extra) != 0);
  CHECK(extra == XSHMEM_CTX_INVALID);
  dst.poison();
  xshmem_barrier_all();
  xt::fill(src.data(), kN, me, right, ++iter, kTidOpts);
  xshmem_ctx_int64_put(all.back(), dst.data(), src.data(), kN, right);
  xshmem_int64_p(dst.data() + kN - 1, xt::value<int64_t>(me, right, kN - 1, iter, kTidOpts), right);
  xshmem_ctx_quiet(all.back());
  xshmem_quiet();
  xshmem_barrier_all();
  CHECK(xt::mismatches(dst.data(), kN, left, me, iter, kTidOpts, "put at the limit") == 0);
  const size_t mid = all.size() / 2;
  xshmem_ctx_destroy(all[mid]);
  xshmem_ctx_t again = XSHMEM_CTX_INVALID;
  CHECK(xshmem_ctx_create(XSHMEM_CTX_PRIVATE, &again) == 0);
  CHECK(again != XSHMEM_CTX_INVALID);
  all[mid] = again;
  CHECK(xshmem_ctx_create(0, &extra) != 0);  // full again
  for (xshmem_ctx_t k : all) xshmem_ctx_destroy(k);
  // Every entry came back.
  std::vector<xshmem_ctx_t> second = create_until_failure(XSHMEM_TEAM_WORLD, XSHMEM_CTX_SERIALIZED);
  CHECK(second.size() == all.size());
  for (xshmem_ctx_t k : second) xshmem_ctx_destroy(k);
  xshmem_barrier_all();
}

TEST_CASE("CTX-02 many_ctx_up_to_the_limit", "[CTX-02]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<xshmem_ctx_t> ctxs = create_until_failure(XSHMEM_TEAM_WORLD, XSHMEM_CTX_PRIVATE);
  CHECK(static_cast<int>(ctxs.size()) == ctx_limit());
  const size_t k = ctxs.size();
  xt::SymBuf<uint64_t> dst(k);
  xt::SymBuf<uint32_t> cnt(k);
  std::memset(cnt.data(), 0, k * sizeof(uint32_t));
  xshmem_barrier_all();
  // Context i puts word i (nbi) and adds i+1 to counter i; then each context is quieted.
  for (size_t i = 0; i < k; ++i) {
    const uint64_t v = xt::value<uint64_t>(me, right, i, 1, kTidMany);
    xshmem_ctx_uint64_put_nbi(ctxs[i], dst.data() + i, &v, 1, right);
    xshmem_ctx_uint32_atomic_add(ctxs[i], cnt.data() + i, static_cast<uint32_t>(i + 1), right);
  }
  for (xshmem_ctx_t c : ctxs) xshmem_ctx_quiet(c);
  xshmem_barrier_all();
  CHECK(xt::mismatches(dst.data(), k, left, me, 1, kTidMany, "word i via context i") == 0);
  size_t bad = 0;
  for (size_t i = 0; i < k; ++i) bad += cnt[i] != i + 1;
  CHECK(bad == 0);
  CHECK(dst.guards_ok());
  CHECK(cnt.guards_ok());
  xshmem_barrier_all();
  for (xshmem_ctx_t c : ctxs) xshmem_ctx_destroy(c);
}

TEST_CASE("CTX-02 private_ctx_per_thread", "[CTX-02]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  std::string why;
  if (!thread_multiple(&why)) {
    xt::skip(why.c_str());
    return;
  }
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr int kThreads = 4;
  constexpr size_t kWords = 64;
  xt::SymBuf<uint64_t> dst(kThreads * kWords);
  xshmem_barrier_all();
  std::atomic<int> failures{0};
  std::vector<std::thread> th;
  for (int t = 0; t < kThreads; ++t) {
    th.emplace_back([&, t] {
      xshmem_ctx_t c = XSHMEM_CTX_INVALID;
      if (xshmem_ctx_create(XSHMEM_CTX_PRIVATE, &c) != 0) {
        failures.fetch_add(1);
        return;
      }
      std::vector<uint64_t> v(kWords);
      xt::fill(v.data(), kWords, me, right, static_cast<uint64_t>(t), kTidThreads);
      for (size_t i = 0; i < kWords; ++i)
        xshmem_ctx_uint64_p(c, dst.data() + t * kWords + i, v[i], right);
      xshmem_ctx_quiet(c);
      xshmem_ctx_destroy(c);
    });
  }
  for (auto &x : th) x.join();
  CHECK(failures.load() == 0);
  xshmem_barrier_all();
  for (int t = 0; t < kThreads; ++t)
    CHECK(xt::mismatches(dst.data() + t * kWords, kWords, left, me, static_cast<uint64_t>(t),
                         kTidThreads, "words of one thread's private context") == 0);
  CHECK(dst.guards_ok());
  xshmem_barrier_all();
}

TEST_CASE("TEAM-07 team_ctx_lifecycle", "[TEAM-07]") {
  if (!xt::require_npes_in({2, 4}, "P2,4")) return;
  const int me = xt::me(), n = xt::npes();
  xt::SymBuf<uint64_t> box(n);
  xshmem_barrier_all();
  // The reversed world (team PE i is world PE n-1-i) and the even PEs.
  xshmem_team_t rev = XSHMEM_TEAM_INVALID, even = XSHMEM_TEAM_INVALID;
  REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev) == 0);
  REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) == 0);
  xshmem_ctx_t crev = XSHMEM_CTX_INVALID, ceven = XSHMEM_CTX_INVALID, cshared = XSHMEM_CTX_INVALID;
  CHECK(xshmem_team_create_ctx(rev, XSHMEM_CTX_SERIALIZED, &crev) == 0);
  CHECK(xshmem_team_create_ctx(XSHMEM_TEAM_SHARED, 0, &cshared) == 0);
  const int erc = xshmem_team_create_ctx(even, 0, &ceven);
  if (me % 2 == 0) {
    CHECK(erc == 0);
    CHECK(ceven != XSHMEM_CTX_INVALID);
  } else {  // not a member: the handle is INVALID and so is the context
    CHECK(erc != 0);
    CHECK(ceven == XSHMEM_CTX_INVALID);
  }
  xshmem_team_t t = XSHMEM_TEAM_INVALID;
  CHECK(xshmem_ctx_get_team(crev, &t) == 0);
  CHECK(t == rev);
  CHECK(xshmem_ctx_get_team(cshared, &t) == 0);
  CHECK(t == XSHMEM_TEAM_SHARED);
  // Team-relative numbering: team PE i of rev is world PE n-1-i. Every PE writes its slot at
  // every team PE j; the word lands at world PE n-1-j.
  for (int j = 0; j < n; ++j)
    xshmem_ctx_uint64_p(crev, box.data() + me, xt::value<uint64_t>(me, n - 1 - j, 0, 1, kTidTeam),
                        j);
  xshmem_ctx_quiet(crev);
  xshmem_barrier_all();
  size_t bad = 0;
  for (int src = 0; src < n; ++src) bad += box[src] != xt::value<uint64_t>(src, me, 0, 1, kTidTeam);
  CHECK(bad == 0);
  xshmem_barrier_all();
  if (ceven != XSHMEM_CTX_INVALID) {  // even PEs: team PE j is world PE 2j
    const int en = xshmem_team_n_pes(even), tme = xshmem_team_my_pe(even);
    const int tr = (tme + 1) % en;
    CHECK(xshmem_ctx_uint64_atomic_fetch_add(ceven, box.data(), 0, tr) ==
          xt::value<uint64_t>(0, 2 * tr, 0, 1, kTidTeam));
    CHECK(xshmem_ctx_uint64_g(ceven, box.data() + me, tr) ==
          xt::value<uint64_t>(me, 2 * tr, 0, 1, kTidTeam));
  }
  // Destroying a team destroys its contexts: their handles stop naming contexts, and their
  // entries are free again.
  xshmem_team_destroy(rev);
  xshmem_team_destroy(even);
  CHECK(xshmem_ctx_get_team(crev, &t) != 0);
  CHECK(t == XSHMEM_TEAM_INVALID);
  if (ceven != XSHMEM_CTX_INVALID) CHECK(xshmem_ctx_get_team(ceven, &t) != 0);
  CHECK(xshmem_ctx_get_team(cshared, &t) == 0);  // other teams' contexts stay
  std::vector<xshmem_ctx_t> all = create_until_failure(XSHMEM_TEAM_WORLD, 0);
  CHECK(static_cast<int>(all.size()) == ctx_limit() - 1);  // cshared holds one
  for (xshmem_ctx_t c : all) xshmem_ctx_destroy(c);
  xshmem_ctx_destroy(cshared);
  CHECK(box.guards_ok());
  xshmem_barrier_all();
}

TEST_CASE("ORD-06 pe_quiet_subset", "[ORD-06]") {
  if (!xt::require_npes_in({3, 4}, "3,4")) return;
  const int me = xt::me(), n = xt::npes();
  constexpr size_t kWords = 513;
  xt::SymBuf<uint64_t> data(static_cast<size_t>(n) * kWords);
  xt::SymBuf<uint64_t> flag(n);
  std::memset(flag.data(), 0, n * sizeof(uint64_t));
  xshmem_barrier_all();
  // xshmem_pe_quiet with no targets returns at once (NULL allowed), also on a context.
  xshmem_pe_quiet(nullptr, 0);
  xshmem_ctx_pe_quiet(XSHMEM_CTX_DEFAULT, nullptr, 0);
  xshmem_ctx_pe_quiet(XSHMEM_CTX_INVALID, nullptr, 3);  // INVALID: a no-op
  xshmem_ctx_t c = XSHMEM_CTX_INVALID;
  REQUIRE(xshmem_ctx_create(0, &c) == 0);
  // One source per target: a put_nbi's source may not change before the quiet that completes
  // it (a NIC reads it when it gets to the entry, after the call returned).
  xt::LocalBuf<uint64_t> src(static_cast<size_t>(n) * kWords);
  for (uint64_t iter = 1; iter <= 20; ++iter) {
    xt::note("ORD-06 iteration %llu", static_cast<unsigned long long>(iter));
    // Targets: the PEs after me at odd distances (a strict subset for n >= 3).
    std::vector<int> targets;
    for (int d = 1; d < n; d += 2) targets.push_back((me + d) % n);
    for (int pe : targets) {
      uint64_t *from = src.data() + static_cast<size_t>(pe) * kWords;
      xt::fill(from, kWords, me, pe, iter, kTidPeQuiet);
      xshmem_ctx_uint64_put_nbi(c, data.data() + me * kWords, from, kWords, pe);
    }
    if (iter % 2)
      xshmem_ctx_pe_quiet(c, targets.data(), static_cast<int>(targets.size()));
    else
      xshmem_pe_quiet(targets.data(), static_cast<int>(targets.size()));
    for (int pe : targets) xshmem_uint64_atomic_set(flag.data() + me, iter, pe);
    // Every PE that targets me: wait for its flag, then its data is complete.
    for (int d = 1; d < n; d += 2) {
      const int from = (me - d + n) % n;
      std::string what = "flag from pe " + std::to_string(from);
      xt::wait_for(what.c_str(), [&] { return load(flag.data() + from) >= iter; });
      CHECK(xt::mismatches(data.data() + from * kWords, kWords, from, me, iter, kTidPeQuiet,
                           "data before pe_quiet's flag") == 0);
    }
    xshmem_barrier_all();  // nobody overwrites data before its reader checked it
  }
  xshmem_ctx_destroy(c);
  CHECK(data.guards_ok());
  CHECK(flag.guards_ok());
}

TEST_CASE("ORD-09 ctx_scoped_ordering", "[ORD-09]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  const int me = xt::me(), peer = 1 - me;
  constexpr size_t kBytes = 4099;
  constexpr uint64_t kIters = 200;
  xt::SymBuf<unsigned char> data(kBytes);
  xt::SymBuf<uint64_t> flag(2);
  flag[0] = flag[1] = 0;
  xshmem_barrier_all();
  // fence and quiet on XSHMEM_CTX_INVALID are no-ops.
  xshmem_ctx_fence(XSHMEM_CTX_INVALID);
  xshmem_ctx_quiet(XSHMEM_CTX_INVALID);
  xshmem_ctx_t a = XSHMEM_CTX_INVALID, b = XSHMEM_CTX_INVALID;
  REQUIRE(xshmem_ctx_create(XSHMEM_CTX_SERIALIZED, &a) == 0);
  REQUIRE(xshmem_ctx_create(XSHMEM_CTX_NOSTORE, &b) == 0);
  std::vector<uint64_t> words((kBytes + 7) / 8), got((kBytes + 7) / 8);
  // PE 0 sends, PE 1 receives, alternating the pattern each iteration:
  // odd iterations: data on A (nbi), quiet(A), flag on B — quiet of A completes A's data;
  // even iterations: data on A, fence(A), flag on A — fence of A orders A's operations.
  for (uint64_t it = 1; it <= kIters; ++it) {
    if (me == 0) {
      xt::fill(words.data(), words.size(), 0, 1, it, kTidScoped);
      if (it % 2) {
        xshmem_ctx_putmem_nbi(a, data.data(), words.data(), kBytes, peer);
        xshmem_ctx_quiet(a);
        xshmem_ctx_uint64_atomic_set(b, flag.data(), it, peer);
        xshmem_ctx_quiet(b);
      } else {
        xshmem_ctx_putmem(a, data.data(), words.data(), kBytes, peer);
        xshmem_ctx_fence(a);
        xshmem_ctx_uint64_p(a, flag.data(), it, peer);
        xshmem_ctx_quiet(a);
      }
      std::string what = "ack " + std::to_string(it) + " from pe 1";
      xt::wait_for(what.c_str(), [&] { return load(flag.data() + 1) >= it; });
    } else {
      std::string what = "flag " + std::to_string(it) + " from pe 0";
      xt::wait_for(what.c_str(), [&] { return load(flag.data()) >= it; });
      std::memcpy(got.data(), data.data(), kBytes);
      xt::fill(words.data(), words.size(), 0, 1, it, kTidScoped);
      if (std::memcmp(got.data(), words.data(), kBytes) != 0)
        FAIL_CHECK("iteration " << it << ": data incomplete when the flag arrived");
      xshmem_ctx_uint64_atomic_set(b, flag.data() + 1, it, peer);
      xshmem_ctx_quiet(b);
    }
  }
  xshmem_barrier_all();
  xshmem_ctx_destroy(a);
  xshmem_ctx_destroy(b);
  CHECK(data.guards_ok());
  CHECK(flag.guards_ok());
}

TEST_CASE("THR-01 mt_contention", "[THR-01]") {
  if (!xt::require_npes_in({2, 4}, "P2,4")) return;
  std::string why;
  if (!thread_multiple(&why)) {
    xt::skip(why.c_str());
    return;
  }
  const int me = xt::me(), n = xt::npes();
  constexpr int kThreads = 4;
  constexpr size_t kWords = 32;
  constexpr int kAdds = 500;
  // Slot (src pe, thread) of every PE receives kWords words from that thread of that PE.
  xt::SymBuf<uint64_t> a2a(static_cast<size_t>(n) * kThreads * kWords);
  xt::SymBuf<uint64_t> counter(1);
  counter[0] = 0;
  xshmem_barrier_all();
  std::vector<std::thread> th;
  for (int t = 0; t < kThreads; ++t) {
    th.emplace_back([&, t] {
      std::vector<uint64_t> v(kWords);
      for (int k = 0; k < n; ++k) {
        const int pe = (me + k) % n;
        xt::fill(v.data(), kWords, me, pe, static_cast<uint64_t>(t), kTidThr);
        xshmem_uint64_put_nbi(a2a.data() + (static_cast<size_t>(me) * kThreads + t) * kWords,
                              v.data(), kWords, pe);
        for (int i = 0; i < kAdds / n + 1; ++i) xshmem_uint64_atomic_add(counter.data(), 1, pe);
        xshmem_quiet();
      }
    });
  }
  for (auto &x : th) x.join();
  xshmem_barrier_all();
  for (int src = 0; src < n; ++src)
    for (int t = 0; t < kThreads; ++t)
      CHECK(xt::mismatches(a2a.data() + (static_cast<size_t>(src) * kThreads + t) * kWords, kWords,
                           src, me, static_cast<uint64_t>(t), kTidThr, "all-to-all word") == 0);
  CHECK(counter[0] == static_cast<uint64_t>(n) * kThreads * (kAdds / n + 1));
  CHECK(a2a.guards_ok());
  xshmem_barrier_all();
}

// ---- Checked-mode errors (ERR-10 and context misuse)
// ---------------------------------------------

TEST_CASE("death:ctx_invalid_put", "[.death]") {
  xt::SymBuf<int> d(4);
  int v[4] = {1, 2, 3, 4};
  xt::pe0_does("xshmem_ctx_int_put on XSHMEM_CTX_INVALID",
               [&] { xshmem_ctx_int_put(XSHMEM_CTX_INVALID, d.data(), v, 4, 1); });
}

TEST_CASE("death:ctx_invalid_amo", "[.death]") {
  xt::SymBuf<uint64_t> d(1);
  xt::pe0_does("xshmem_ctx_uint64_atomic_fetch_add on XSHMEM_CTX_INVALID", [&] {
    (void)xshmem_ctx_uint64_atomic_fetch_add(XSHMEM_CTX_INVALID, d.data(), 1, 1);
  });
}

TEST_CASE("death:ctx_bad_options", "[.death]") {
  xt::pe0_does("xshmem_ctx_create with unknown option bits", [&] {
    xshmem_ctx_t c;
    (void)xshmem_ctx_create(XSHMEM_CTX_PRIVATE | (1L << 20), &c);
  });
}

TEST_CASE("death:ctx_use_after_destroy", "[.death]") {
  xt::SymBuf<long> d(2);
  xt::pe0_does("xshmem_ctx_long_p on a destroyed context", [&] {
    xshmem_ctx_t c = XSHMEM_CTX_INVALID;
    REQUIRE(xshmem_ctx_create(0, &c) == 0);
    xshmem_ctx_destroy(c);
    xshmem_ctx_long_p(c, d.data(), 5, 1);
  });
}

TEST_CASE("death:ctx_destroy_default", "[.death]") {
  xt::pe0_does("xshmem_ctx_destroy(XSHMEM_CTX_DEFAULT)",
               [&] { xshmem_ctx_destroy(XSHMEM_CTX_DEFAULT); });
}

TEST_CASE("death:ctx_team_pe_out_of_range", "[.death]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  xt::SymBuf<int> d(1);
  xshmem_team_t rev = XSHMEM_TEAM_INVALID;
  REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 1, -1, 2, nullptr, 0, &rev) == 0);
  xshmem_ctx_t c = XSHMEM_CTX_INVALID;
  REQUIRE(xshmem_team_create_ctx(rev, 0, &c) == 0);
  xt::pe0_does("xshmem_ctx_int_p to team pe 2 of a 2-PE team",
               [&] { xshmem_ctx_int_p(c, d.data(), 1, 2); });
}

TEST_CASE("death:ctx_private_other_thread", "[.death]") {
  xt::SymBuf<int> d(1);
  xt::pe0_does("xshmem_ctx_int_p on another thread's XSHMEM_CTX_PRIVATE context", [&] {
    xshmem_ctx_t c = XSHMEM_CTX_INVALID;
    REQUIRE(xshmem_ctx_create(XSHMEM_CTX_PRIVATE, &c) == 0);
    std::thread other([&] { xshmem_ctx_int_p(c, d.data(), 1, 1); });
    other.join();
  });
}

TEST_CASE("death:team_destroy_with_private_ctx", "[.death]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  xt::test_budget(30);
  xshmem_team_t t = XSHMEM_TEAM_INVALID;
  REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &t) == 0);
  xshmem_ctx_t c = XSHMEM_CTX_INVALID;
  REQUIRE(xshmem_team_create_ctx(t, XSHMEM_CTX_PRIVATE, &c) == 0);
  xt::note("xshmem_team_destroy with a private context left");
  xshmem_team_destroy(t);
  FAIL("the runtime returned from xshmem_team_destroy instead of stopping the job");
}
