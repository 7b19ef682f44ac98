// COLL rows of CONFORMANCE.md §4.9 for the data-movement collectives (host API): COLL-03
// broadcast, COLL-04 collect, COLL-05 fcollect, COLL-06 alltoall, COLL-07 alltoalls, and their
// parts of COLL-10 (zero length, NULL, 1-PE teams) and COLL-11 (back to back, disjoint teams at
// once).
//
// Every case runs over a bank of teams: WORLD, the even or odd half (each PE runs its own half,
// so two disjoint teams run the same collective at once), WORLD reversed, and the row and column
// of a 2D split. Every type runs on WORLD; the other teams run one type per element size and
// kind (integer, floating point): a type reaches a team's algorithm only as its element size. Data
// is derived from (source world PE, destination world PE, index, iteration, case); destinations are
// poisoned and every byte outside the expected result must stay poisoned. 1.6 readiness: a member
// poisons its dest, then the team syncs (dest ready on every member), then sources are written and
// the collective is called at once.
#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidBcast = 0xC003, kTidCollect = 0xC004, kTidFcollect = 0xC005,
                   kTidAlltoall = 0xC006, kTidAlltoalls = 0xC007, kTidB2b = 0xC011;

// The typed entry points of one type.
template <typename T>
struct Api {
  const char *name;
  int (*broadcast)(xshmem_team_t, T *, const T *, size_t, int);
  int (*collect)(xshmem_team_t, T *, const T *, size_t);
  int (*fcollect)(xshmem_team_t, T *, const T *, size_t);
  int (*alltoall)(xshmem_team_t, T *, const T *, size_t);
  int (*alltoalls)(xshmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t);
};

// Calls f(Api<T>{...}, teams) for every type of the standard RMA table (long double too), in
// table order: `teams` (the bank positions the type runs on) is the whole bank for the first type
// of each element size and kind (float, double, char, short, int, long, long double), and only
// WORLD (position 0) for the others.
template <typename F>
void for_each_type(F &&f) {
  std::vector<std::pair<size_t, bool>> seen;
  auto teams = [&seen](size_t size, bool fp) {
    const std::pair<size_t, bool> kind{size, fp};
    if (std::find(seen.begin(), seen.end(), kind) != seen.end()) return uint32_t{1};
    seen.push_back(kind);
    return ~uint32_t{0};
  };
#define XT_TYPE(T, N)                                                               \
  f(Api<T>{#N, xshmem_##N##_broadcast, xshmem_##N##_collect, xshmem_##N##_fcollect, \
           xshmem_##N##_alltoall, xshmem_##N##_alltoalls},                          \
    teams(sizeof(T), std::is_floating_point_v<T>));
  XSHMEM_RMA_TYPES(XT_TYPE)
#undef XT_TYPE
}

// Whether bank position `pos` is in the set for_each_type passed.
bool runs_on(uint32_t teams, uint32_t pos) {
  return (teams >> pos) & 1u;
}

// A team of the bank as this PE sees it.
struct Member {
  xshmem_team_t team;
  std::string name;
  int me, n;
  uint32_t pos;  // position in the bank (the same on every PE)
  int world(int i) const { return xshmem_team_translate_pe(team, i, XSHMEM_TEAM_WORLD); }
};

// The bank: every PE gets the same number of entries in the same order (its own half of the
// even/odd split at the same position), so all PEs run the same sequence of team collectives.
class Bank {
 public:
  Bank() {
    const int n = xt::npes(), me = xt::me();
    add(XSHMEM_TEAM_WORLD, "world");
    xshmem_team_t even = XSHMEM_TEAM_INVALID, odd = XSHMEM_TEAM_INVALID, rev = XSHMEM_TEAM_INVALID;
    REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) ==
            0);
    if (n >= 2)
      REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd) == 0);
    own_.push_back(me % 2 == 0 ? even : odd);
    add(me % 2 == 0 ? even : odd, me % 2 == 0 ? "even" : "odd");
    REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev) == 0);
    own_.push_back(rev);
    add(rev, "reversed");
    xshmem_team_t row = XSHMEM_TEAM_INVALID, col = XSHMEM_TEAM_INVALID;
    REQUIRE(xshmem_team_split_2d(XSHMEM_TEAM_WORLD, 3, nullptr, 0, &row, nullptr, 0, &col) == 0);
    own_.push_back(row);
    own_.push_back(col);
    add(row, "2d row");
    add(col, "2d column");
  }
  ~Bank() {
    for (auto it = own_.rbegin(); it != own_.rend(); ++it) xshmem_team_destroy(*it);
  }
  const std::vector<Member> &teams() const { return teams_; }

 private:
  void add(xshmem_team_t t, const char *name) {
    REQUIRE(t != XSHMEM_TEAM_INVALID);
    teams_.push_back({t, name, xshmem_team_my_pe(t), xshmem_team_n_pes(t),
                      static_cast<uint32_t>(teams_.size())});
  }
  std::vector<Member> teams_;
  std::vector<xshmem_team_t> own_;
};

// Bytes [from, size) of buf are still poison; reports the first that is not. Compares 4 KiB
// at a time with memcmp (the areas are up to 8 MiB and every case checks all of them).
bool poisoned_from(const unsigned char *buf, size_t from, size_t size, const std::string &what) {
  static const std::vector<unsigned char> block(4096, xt::kPoison);
  for (size_t i = from; i < size; i += block.size()) {
    const size_t k = std::min(size - i, block.size());
    if (std::memcmp(buf + i, block.data(), k) == 0) continue;
    size_t j = i;
    while (buf[j] == xt::kPoison) ++j;
    FAIL_CHECK("pe " << xt::me() << ": " << what << ": byte " << j << " outside the result ("
                     << from << " bytes) was overwritten");
    return false;
  }
  return true;
}

// Symmetric source and destination areas shared by the cases (allocated once per test case on
// the world team, so teams never allocate).
// Every case starts from all-poison areas, but only the bytes that can differ from poison are
// written again: intact() has just checked every dest byte past the result, so only the result
// is dirty, and each case names the source bytes it fills (ready()'s argument).
struct Areas {
  xt::SymBuf<unsigned char> src, dst;
  size_t src_dirty = 0, dst_dirty = 0;  // bytes from the start that may not be poison
  Areas(size_t src_bytes, size_t dst_bytes) : src(src_bytes), dst(dst_bytes) {}
  template <typename T>
  T *s() const {
    return reinterpret_cast<T *>(src.data());
  }
  template <typename T>
  T *d() const {
    return reinterpret_cast<T *>(dst.data());
  }
  // Poisons dest and source, then the team syncs: dest is ready on every member. The case then
  // writes at most src_bytes bytes of the source.
  void ready(const Member &m, size_t src_bytes) {
    std::memset(dst.data(), xt::kPoison, std::min(dst_dirty, dst.size()));
    std::memset(src.data(), xt::kPoison, std::min(src_dirty, src.size()));
    dst_dirty = dst.size();  // until intact() has checked it
    src_dirty = src_bytes;
    xshmem_team_sync(m.team);
  }
  bool intact(size_t used, const std::string &what) {
    const bool rest = poisoned_from(dst.data(), used, dst.size(), what);
    const bool guards = dst.guards_ok() && src.guards_ok();
    if (!guards) FAIL_CHECK("pe " << xt::me() << ": " << what << ": guard bytes overwritten");
    if (rest && guards) {
      dst_dirty = used;
    } else {  // start the next case from scratch, guards included
      dst.poison();
      src.poison();
      dst_dirty = src_dirty = 0;
    }
    return rest && guards;
  }
};

std::string label(const char *coll, const char *type, const Member &m, size_t nelems,
                  const std::string &extra = {}) {
  return std::string(coll) + " " + type + " on " + m.name + " (" + std::to_string(m.n) +
         " PEs), nelems " + std::to_string(nelems) + extra;
}

// ---- broadcast ----------------------------------------------------------------------------------

template <typename T>
void broadcast_case(Areas &a, const Member &m,
                    int (*fn)(xshmem_team_t, T *, const T *, size_t, int), const char *type,
                    size_t nelems, int root, bool in_place, uint64_t iter) {
  const std::string what = label("broadcast", type, m, nelems,
                                 ", root " + std::to_string(root) + (in_place ? ", in place" : ""));
  xt::note("COLL-03 %s", what.c_str());
  a.ready(m, in_place ? 0 : nelems * sizeof(T));
  const int wroot = m.world(root);
  T *src = in_place ? a.d<T>() : a.s<T>();
  if (m.me == root) xt::fill(src, nelems, wroot, -1, iter, kTidBcast);
  CHECK(fn(m.team, a.d<T>(), src, nelems, root) == 0);
  INFO(what);
  CHECK(xt::mismatches(a.d<T>(), nelems, wroot, -1, iter, kTidBcast, what.c_str()) == 0);
  CHECK(a.intact(nelems * sizeof(T), what));
}

// ---- fcollect / collect -------------------------------------------------------------------------

template <typename T>
void fcollect_case(Areas &a, const Member &m, int (*fn)(xshmem_team_t, T *, const T *, size_t),
                   const char *type, size_t nelems, uint64_t iter) {
  const std::string what = label("fcollect", type, m, nelems);
  xt::note("COLL-05 %s", what.c_str());
  a.ready(m, nelems * sizeof(T));
  xt::fill(a.s<T>(), nelems, xt::me(), -1, iter, kTidFcollect);
  CHECK(fn(m.team, a.d<T>(), a.s<T>(), nelems) == 0);
  INFO(what);
  for (int i = 0; i < m.n; ++i)
    CHECK(xt::mismatches(a.d<T>() + i * nelems, nelems, m.world(i), -1, iter, kTidFcollect,
                         what.c_str()) == 0);
  CHECK(a.intact(nelems * m.n * sizeof(T), what));
}

// count(member index): the elements each member contributes.
template <typename T, typename C>
void collect_case(Areas &a, const Member &m, int (*fn)(xshmem_team_t, T *, const T *, size_t),
                  const char *type, C count, const char *how, uint64_t iter) {
  const size_t mine = count(m.me);
  const std::string what = label("collect", type, m, mine, std::string(", counts ") + how);
  xt::note("COLL-04 %s", what.c_str());
  a.ready(m, mine * sizeof(T));
  xt::fill(a.s<T>(), mine, xt::me(), -1, iter, kTidCollect);
  CHECK(fn(m.team, a.d<T>(), a.s<T>(), mine) == 0);
  INFO(what);
  size_t off = 0;
  for (int i = 0; i < m.n; ++i) {
    const size_t c = count(i);
    CHECK(xt::mismatches(a.d<T>() + off, c, m.world(i), -1, iter, kTidCollect, what.c_str()) == 0);
    off += c;
  }
  CHECK(a.intact(off * sizeof(T), what));
}

// ---- alltoall / alltoalls -----------------------------------------------------------------------

template <typename T>
void alltoall_case(Areas &a, const Member &m, int (*fn)(xshmem_team_t, T *, const T *, size_t),
                   const char *type, size_t nelems, uint64_t iter) {
  const std::string what = label("alltoall", type, m, nelems);
  xt::note("COLL-06 %s", what.c_str());
  a.ready(m, nelems * m.n * sizeof(T));
  for (int j = 0; j < m.n; ++j)
    xt::fill(a.s<T>() + j * nelems, nelems, xt::me(), m.world(j), iter, kTidAlltoall);
  CHECK(fn(m.team, a.d<T>(), a.s<T>(), nelems) == 0);
  INFO(what);
  for (int j = 0; j < m.n; ++j)  // block j came from member j, addressed to me
    CHECK(xt::mismatches(a.d<T>() + j * nelems, nelems, m.world(j), xt::me(), iter, kTidAlltoall,
                         what.c_str()) == 0);
  CHECK(a.intact(nelems * m.n * sizeof(T), what));
}

template <typename T>
void alltoalls_case(Areas &a, const Member &m,
                    int (*fn)(xshmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t),
                    const char *type, size_t nelems, ptrdiff_t dst, ptrdiff_t sst, uint64_t iter) {
  const std::string what = label("alltoalls", type, m, nelems,
                                 ", dst " + std::to_string(dst) + ", sst " + std::to_string(sst));
  xt::note("COLL-07 %s", what.c_str());
  a.ready(m, nelems * m.n * sst * sizeof(T));
  T *src = a.s<T>();
  for (int j = 0; j < m.n; ++j)
    for (size_t i = 0; i < nelems; ++i)
      src[(j * nelems + i) * sst] = xt::value<T>(xt::me(), m.world(j), i, iter, kTidAlltoalls);
  CHECK(fn(m.team, a.d<T>(), src, dst, sst, nelems) == 0);
  INFO(what);
  const T *d = a.d<T>();
  size_t bad = 0, gaps = 0;
  const size_t total = nelems * m.n;
  for (int j = 0; j < m.n; ++j)
    for (size_t i = 0; i < nelems; ++i) {
      const T want = xt::value<T>(m.world(j), xt::me(), i, iter, kTidAlltoalls);
      if (!xt::detail::same(d[(j * nelems + i) * dst], want) && ++bad <= 4)
        FAIL_CHECK("pe " << xt::me() << ": " << what << ": element " << i << " of block " << j
                         << " differs");
    }
  // The gaps between strided elements stay poisoned.
  const auto *bytes = reinterpret_cast<const unsigned char *>(d);
  for (size_t e = 0; e + 1 < total; ++e)
    for (size_t b = (e * dst + 1) * sizeof(T); b < (e + 1) * dst * sizeof(T); ++b)
      if (bytes[b] != xt::kPoison) ++gaps;
  CHECK(bad == 0);
  CHECK(gaps == 0);
  CHECK(a.intact(total == 0 ? 0 : ((total - 1) * dst + 1) * sizeof(T), what));
}

// Iteration numbers per bank position: the members of a team make the same calls in the same
// order, but the even and odd halves (one position) run different numbers of cases, so a single
// counter would differ between PEs of different halves.
struct Iters {
  uint64_t ctr[8] = {};
  uint64_t next(const Member &m) { return (uint64_t{m.pos} << 40) | ++ctr[m.pos]; }
};

// Sizes every type runs (elements); the large ones run for the mem forms.
const size_t kSmall[] = {0, 1, 7, 8, 4095};

}  // namespace

TEST_CASE("COLL-03 broadcast_matrix", "[COLL-03]") {
  const int n = xt::npes();
  const size_t big = size_t{1} << 20;  // 1 MiB: more than the 128 KiB team scratch
  Areas a(big + 64, big + 64);
  Bank bank;
  Iters iter;
  for_each_type([&](auto api, uint32_t teams) {
    for (const Member &m : bank.teams()) {
      if (!runs_on(teams, m.pos)) continue;
      for (size_t s : kSmall) {
        // Every root on small teams; first, middle and last above 4 members (time on 2 cores).
        for (int root = 0; root < m.n; ++root) {
          if (m.n > 4 && root != 0 && root != m.n / 2 && root != m.n - 1) continue;
          broadcast_case(a, m, api.broadcast, api.name, s, root, false, iter.next(m));
        }
      }
      broadcast_case(a, m, api.broadcast, api.name, 100, m.n - 1, true, iter.next(m));
    }
  });
  // The byte form with sizes past the scratch, every root of WORLD.
  for (const Member &m : bank.teams()) {
    for (size_t s : {size_t{4095}, size_t{200000}, big}) {
      for (int root = 0; root < m.n; ++root) {
        if (m.n > 3 && root != 0 && root != m.n - 1) continue;
        broadcast_case<unsigned char>(
            a, m,
            [](xshmem_team_t t, unsigned char *d, const unsigned char *src, size_t k, int r) {
              return xshmem_broadcastmem(t, d, src, k, r);
            },
            "mem", s, root, false, iter.next(m));
      }
    }
  }
  (void)n;
  xshmem_barrier_all();
}

TEST_CASE("COLL-04 collect_variable", "[COLL-04]") {
  const size_t big = size_t{1} << 20;
  Areas a(size_t{300000}, big + 64);
  Bank bank;
  Iters iter;
  for_each_type([&](auto api, uint32_t teams) {
    for (const Member &m : bank.teams()) {
      if (!runs_on(teams, m.pos)) continue;
      collect_case(
          a, m, api.collect, api.name, [](int i) { return size_t(i); }, "= member index",
          iter.next(m));
      const uint64_t salt = iter.next(m);
      collect_case(
          a, m, api.collect, api.name,
          [salt](int i) { return size_t(xt::hash(salt, static_cast<uint64_t>(i)) % 41); },
          "pseudo-random 0..40", salt);
    }
  });
  for (const Member &m : bank.teams()) {
    // Larger than the team scratch per member, and one member with nothing.
    collect_case<unsigned char>(
        a, m,
        [](xshmem_team_t t, unsigned char *d, const unsigned char *src, size_t k) {
          return xshmem_collectmem(t, d, src, k);
        },
        "mem", [](int i) { return i == 1 ? size_t{0} : size_t{131072 + 4099 * size_t(i)}; },
        "128 KiB + 4099 x index, member 1 none", iter.next(m));
  }
  xshmem_barrier_all();
}

TEST_CASE("COLL-05 fcollect", "[COLL-05]") {
  const int n = xt::npes();
  const size_t per = size_t{1} << 20;
  Areas a(per + 64, per * n + 64);
  Bank bank;
  Iters iter;
  for_each_type([&](auto api, uint32_t teams) {
    for (const Member &m : bank.teams())
      if (runs_on(teams, m.pos))
        for (size_t s : kSmall) fcollect_case(a, m, api.fcollect, api.name, s, iter.next(m));
  });
  for (const Member &m : bank.teams())
    for (size_t s : {size_t{65537}, per})
      fcollect_case<unsigned char>(
          a, m,
          [](xshmem_team_t t, unsigned char *d, const unsigned char *src, size_t k) {
            return xshmem_fcollectmem(t, d, src, k);
          },
          "mem", s, iter.next(m));
  xshmem_barrier_all();
}

TEST_CASE("COLL-06 alltoall", "[COLL-06]") {
  const int n = xt::npes();
  const size_t blk = size_t{256} << 10;
  Areas a(blk * n + 64, blk * n + 64);
  Bank bank;
  Iters iter;
  for_each_type([&](auto api, uint32_t teams) {
    for (const Member &m : bank.teams())
      if (runs_on(teams, m.pos))
        for (size_t s : kSmall) alltoall_case(a, m, api.alltoall, api.name, s, iter.next(m));
  });
  for (const Member &m : bank.teams())
    for (size_t s : {size_t{65535}, blk})
      alltoall_case<unsigned char>(
          a, m,
          [](xshmem_team_t t, unsigned char *d, const unsigned char *src, size_t k) {
            return xshmem_alltoallmem(t, d, src, k);
          },
          "mem", s, iter.next(m));
  xshmem_barrier_all();
}

TEST_CASE("COLL-07 alltoalls_strides", "[COLL-07]") {
  const int n = xt::npes();
  // Up to 100 elements per block, stride 3, 16-byte elements.
  Areas a(size_t{100} * n * 3 * 16 + 64, size_t{100} * n * 3 * 16 + 64);
  Bank bank;
  Iters iter;
  for_each_type([&](auto api, uint32_t teams) {
    for (const Member &m : bank.teams())
      if (runs_on(teams, m.pos))
        for (ptrdiff_t dst : {1, 2, 3})
          for (ptrdiff_t sst : {1, 2, 3})
            for (size_t s : {size_t{0}, size_t{1}, size_t{5}})
              alltoalls_case(a, m, api.alltoalls, api.name, s, dst, sst, iter.next(m));
  });
  for (const Member &m : bank.teams())
    for (ptrdiff_t dst : {1, 3})
      for (ptrdiff_t sst : {1, 2})
        alltoalls_case<unsigned char>(
            a, m,
            [](xshmem_team_t t, unsigned char *d, const unsigned char *src, ptrdiff_t ds,
               ptrdiff_t ss, size_t k) { return xshmem_alltoallsmem(t, d, src, ds, ss, k); },
            "mem", 100, dst, sst, iter.next(m));
  xshmem_barrier_all();
}

TEST_CASE("COLL-10 zero_length_and_single_pe (data movement)", "[COLL-10][algo]") {
  const int me = xt::me();
  // nelems 0 with NULL buffers on WORLD: returns 0, and the team still synchronises.
  CHECK(xshmem_int_broadcast(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0, 0) == 0);
  CHECK(xshmem_broadcastmem(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0, 0) == 0);
  CHECK(xshmem_long_collect(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_collectmem(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_double_fcollect(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_fcollectmem(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_float_alltoall(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_alltoallmem(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_int64_alltoalls(XSHMEM_TEAM_WORLD, nullptr, nullptr, 1, 1, 0) == 0);
  CHECK(xshmem_alltoallsmem(XSHMEM_TEAM_WORLD, nullptr, nullptr, 2, 3, 0) == 0);
  // A 1-PE team per PE: every collective is a local copy; broadcast updates the root's dest.
  // Every PE makes every split (identical arguments), so PE k is alone in the k-th team.
  xt::SymBuf<uint32_t> src(64), dst(64);
  for (int k = 0; k < xt::npes(); ++k) {
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, k, 0, 1, nullptr, 0, &t) == 0);
    if (k == me) {
      REQUIRE(t != XSHMEM_TEAM_INVALID);
      const uint64_t it = 1000 + k;
      xt::fill(src.data(), 64, me, me, it, kTidBcast);
      CHECK(xshmem_uint32_broadcast(t, dst.data(), src.data(), 64, 0) == 0);
      CHECK(xt::mismatches(dst.data(), 64, me, me, it, kTidBcast, "1-PE broadcast") == 0);
      dst.poison();
      CHECK(xshmem_uint32_fcollect(t, dst.data(), src.data(), 64) == 0);
      CHECK(xt::mismatches(dst.data(), 64, me, me, it, kTidBcast, "1-PE fcollect") == 0);
      dst.poison();
      CHECK(xshmem_uint32_collect(t, dst.data(), src.data(), 33) == 0);
      CHECK(xt::mismatches(dst.data(), 33, me, me, it, kTidBcast, "1-PE collect") == 0);
      dst.poison();
      CHECK(xshmem_uint32_alltoall(t, dst.data(), src.data(), 64) == 0);
      CHECK(xt::mismatches(dst.data(), 64, me, me, it, kTidBcast, "1-PE alltoall") == 0);
      dst.poison();
      CHECK(xshmem_uint32_alltoalls(t, dst.data(), src.data(), 1, 1, 64) == 0);
      CHECK(xt::mismatches(dst.data(), 64, me, me, it, kTidBcast, "1-PE alltoalls") == 0);
      CHECK(dst.guards_ok());
      xshmem_team_destroy(t);
    } else {
      CHECK(t == XSHMEM_TEAM_INVALID);
    }
  }
  xshmem_barrier_all();
}

TEST_CASE("COLL-11 b2b (data movement)", "[COLL-11]") {
  // 100 of each collective back to back on WORLD, no synchronisation but the collectives': two
  // destinations alternate, which the readiness rule allows (a member writes into dest k % 2 of
  // collective k only after every member left collective k - 1, so after it checked k - 2).
  const int n = xt::npes(), me = xt::me();
  constexpr size_t kN = 64;
  constexpr int kIters = 100;
  xt::SymBuf<uint64_t> src(kN * n), d0(kN * n), d1(kN * n);
  xt::SymBuf<uint64_t> *dst[2] = {&d0, &d1};
  xshmem_barrier_all();
  size_t bad = 0;
  for (int coll = 0; coll < 4; ++coll) {
    for (int it = 0; it < kIters; ++it) {
      const uint64_t iter = static_cast<uint64_t>(coll) * 1000 + it;
      xt::note("COLL-11 collective %d iteration %d", coll, it);
      uint64_t *d = dst[it % 2]->data();
      const int root = it % n;
      switch (coll) {
        case 0:
          if (me == root) xt::fill(src.data(), kN, root, -1, iter, kTidB2b);
          CHECK(xshmem_uint64_broadcast(XSHMEM_TEAM_WORLD, d, src.data(), kN, root) == 0);
          bad += xt::mismatches(d, kN, root, -1, iter, kTidB2b, "b2b broadcast");
          break;
        case 1:
          xt::fill(src.data(), kN, me, -1, iter, kTidB2b);
          CHECK(xshmem_uint64_fcollect(XSHMEM_TEAM_WORLD, d, src.data(), kN) == 0);
          for (int i = 0; i < n; ++i)
            bad += xt::mismatches(d + i * kN, kN, i, -1, iter, kTidB2b, "b2b fcollect");
          break;
        case 2: {
          const size_t mine = (me + it) % 5;
          xt::fill(src.data(), mine, me, -1, iter, kTidB2b);
          CHECK(xshmem_uint64_collect(XSHMEM_TEAM_WORLD, d, src.data(), mine) == 0);
          size_t off = 0;
          for (int i = 0; i < n; ++i) {
            const size_t c = (i + it) % 5;
            bad += xt::mismatches(d + off, c, i, -1, iter, kTidB2b, "b2b collect");
            off += c;
          }
          break;
        }
        default:
          for (int j = 0; j < n; ++j) xt::fill(src.data() + j * kN, kN, me, j, iter, kTidB2b);
          CHECK(xshmem_uint64_alltoall(XSHMEM_TEAM_WORLD, d, src.data(), kN) == 0);
          for (int j = 0; j < n; ++j)
            bad += xt::mismatches(d + j * kN, kN, j, me, iter, kTidB2b, "b2b alltoall");
          break;
      }
    }
  }
  CHECK(bad == 0);
  CHECK(src.guards_ok());
  CHECK(d0.guards_ok());
  CHECK(d1.guards_ok());
  xshmem_barrier_all();
}

// ---- the algorithms (XSHMEM_COLL_BCAST_ALGO, XSHMEM_COLL_FCOLLECT_ALGO)
// -------------------------- CTest runs this binary once per algorithm; these cases aim at what the
// tree and the ring can get wrong: non-power-of-two and strided teams (the bank plus WORLD without
// PE 0), every root, payloads that end inside, at and just past the 64 KiB pipeline chunks, and
// collectives of alternating kinds back to back with no other synchronisation.

namespace {

constexpr uint32_t kTidAlgoB2b = 0xC111;
constexpr size_t kChunk = size_t{64} << 10;  // coll_move.h kMoveChunk

int mem_bcast(xshmem_team_t t, unsigned char *d, const unsigned char *s, size_t k, int r) {
  return xshmem_broadcastmem(t, d, s, k, r);
}
int mem_fcollect(xshmem_team_t t, unsigned char *d, const unsigned char *s, size_t k) {
  return xshmem_fcollectmem(t, d, s, k);
}
int mem_collect(xshmem_team_t t, unsigned char *d, const unsigned char *s, size_t k) {
  return xshmem_collectmem(t, d, s, k);
}

// The bank plus WORLD without PE 0 (n - 1 members: 3 at 4 PEs, 7 at 8), a team PE 0 sits out.
struct AlgoTeams {
  Bank bank;
  xshmem_team_t tail = XSHMEM_TEAM_INVALID;
  std::vector<Member> teams;
  AlgoTeams() : teams(bank.teams()) {
    const int n = xt::npes();
    if (n >= 2) {
      REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &tail) == 0);
      if (xt::me() != 0) {
        REQUIRE(tail != XSHMEM_TEAM_INVALID);
        teams.push_back({tail, "world without pe 0", xshmem_team_my_pe(tail),
                         xshmem_team_n_pes(tail), static_cast<uint32_t>(teams.size())});
      }
    }
  }
  ~AlgoTeams() {
    if (tail != XSHMEM_TEAM_INVALID) xshmem_team_destroy(tail);
  }
};

}  // namespace

TEST_CASE("COLL-03 broadcast_algorithms (every root, chunk edges)", "[COLL-03][algo]") {
  const size_t sizes[] = {1, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 4097};
  Areas a(3 * kChunk + 4097 + 64, 3 * kChunk + 4097 + 64);
  AlgoTeams teams;
  Iters iter;
  for (const Member &m : teams.teams)
    for (size_t s : sizes)
      for (int root = 0; root < m.n; ++root) {
        broadcast_case<unsigned char>(a, m, mem_bcast, "mem", s, root, false, iter.next(m));
        // In place at one root per size (the tree forwards from dest).
        if (root == static_cast<int>(s % static_cast<size_t>(m.n)))
          broadcast_case<unsigned char>(a, m, mem_bcast, "mem", s, root, true, iter.next(m));
      }
  xshmem_barrier_all();
}

TEST_CASE("COLL-05 fcollect_collect_algorithms (teams, chunk edges)", "[COLL-05][COLL-04][algo]") {
  const int n = xt::npes();
  const size_t per_max = 2 * kChunk + 8;  // >= every block below
  Areas a(per_max + 64, per_max * n + 64);
  AlgoTeams teams;
  Iters iter;
  for (const Member &m : teams.teams) {
    for (size_t s : {size_t{1}, size_t{13}, kChunk + 3, per_max})
      fcollect_case<unsigned char>(a, m, mem_fcollect, "mem", s, iter.next(m));
    // Uneven blocks across chunk edges, zero-length ones among them (first, middle or last).
    collect_case<unsigned char>(
        a, m, mem_collect, "mem",
        [](int i) { return i % 3 == 1 ? size_t{0} : kChunk - 7 + 4099 * size_t(i); },
        "64 KiB - 7 + 4099 x index, every third none", iter.next(m));
    collect_case<unsigned char>(
        a, m, mem_collect, "mem",
        [&m](int i) { return i == m.n - 1 ? size_t{0} : 2 * kChunk + size_t(i); },
        "128 KiB + index, the last none", iter.next(m));
    // Typed, element size 8 and 16 (long double on x86-64), the offsets of every block in bytes.
    fcollect_case<uint64_t>(a, m, xshmem_uint64_fcollect, "uint64", 8193, iter.next(m));
    collect_case<long double>(
        a, m, xshmem_longdouble_collect, "longdouble", [](int i) { return size_t(1000 + 37 * i); },
        "1000 + 37 x index", iter.next(m));
  }
  xshmem_barrier_all();
}

TEST_CASE("COLL-11 b2b_algorithms (large payloads, alternating kinds)", "[COLL-11][algo]") {
  // Broadcasts from rotating roots, fcollects and collects back to back on WORLD and on WORLD
  // without PE 0, with payloads of several chunks and two alternating destinations: a fast member
  // that starts the next collective must not disturb a slow member of the previous one.
  const int n = xt::npes(), me = xt::me();
  constexpr size_t kBc = 2 * kChunk + 333, kFc = kChunk + 17;
  constexpr int kIters = 24;
  AlgoTeams teams;
  const size_t dbytes = std::max(kBc, kFc * n);  // the broadcast is the larger below 3 PEs
  xt::SymBuf<unsigned char> src(kBc), d0(dbytes), d1(dbytes);
  xt::SymBuf<unsigned char> *dst[2] = {&d0, &d1};
  xshmem_barrier_all();
  size_t bad = 0;
  for (const Member &m : teams.teams) {
    if (m.pos != 0 && m.name != "world without pe 0") continue;
    for (int it = 0; it < kIters; ++it) {
      const uint64_t iter = (uint64_t{m.pos} << 40) | static_cast<uint64_t>(it);
      xt::note("COLL-11 algorithms on %s iteration %d", m.name.c_str(), it);
      unsigned char *d = dst[it % 2]->data();
      switch (it % 3) {
        case 0: {
          const int root = (it / 3) % m.n;
          if (m.me == root) xt::fill(src.data(), kBc, m.world(root), -1, iter, kTidAlgoB2b);
          CHECK(xshmem_broadcastmem(m.team, d, src.data(), kBc, root) == 0);
          bad += xt::mismatches(d, kBc, m.world(root), -1, iter, kTidAlgoB2b, "b2b broadcast");
          break;
        }
        case 1:
          xt::fill(src.data(), kFc, me, -1, iter, kTidAlgoB2b);
          CHECK(xshmem_fcollectmem(m.team, d, src.data(), kFc) == 0);
          for (int i = 0; i < m.n; ++i)
            bad +=
                xt::mismatches(d + i * kFc, kFc, m.world(i), -1, iter, kTidAlgoB2b, "b2b fcollect");
          break;
        default: {
          const size_t mine = kFc - static_cast<size_t>((m.me + it) % 4) * 4000;
          xt::fill(src.data(), mine, me, -1, iter, kTidAlgoB2b);
          CHECK(xshmem_collectmem(m.team, d, src.data(), mine) == 0);
          size_t off = 0;
          for (int i = 0; i < m.n; ++i) {
            const size_t c = kFc - static_cast<size_t>((i + it) % 4) * 4000;
            bad += xt::mismatches(d + off, c, m.world(i), -1, iter, kTidAlgoB2b, "b2b collect");
            off += c;
          }
          break;
        }
      }
    }
  }
  CHECK(bad == 0);
  CHECK(src.guards_ok());
  CHECK(d0.guards_ok());
  CHECK(d1.guards_ok());
  xshmem_barrier_all();
}
