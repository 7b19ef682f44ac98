// P2P rows of CONFORMANCE.md §4.7 (host API): P2P-01..03, for every point-to-point type of
// XSHMEM_P2P_TYPES.
//
// Waited-on words are updated by xshmem_<T>_atomic_set where the type has atomics; short and
// ushort have none, so they (and the separate "p" variant of P2P-01 for every type) are updated
// with xshmem_<T>_p: those cases rely on single-element put atomicity (runtime decision 11).
// Blocking waits under test are entered after xt::note; the harness watchdog bounds them. Every
// other wait goes through xt::wait_for.
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidCmp = 0xC001;
constexpr uint32_t kTidSets = 0xC002;
constexpr uint32_t kTidTest = 0xC003;

using xt::detail::same;
using xt::detail::show;

#define XT_P2P_TAG(T, N)                                                                    \
  struct P_##N {                                                                            \
    using type = T;                                                                         \
    static constexpr const char *name = #N;                                                 \
    static void wait_until(T *v, int c, T x) { xshmem_##N##_wait_until(v, c, x); }          \
    static void wait_all(T *v, size_t n, const int *s, int c, T x) {                        \
      xshmem_##N##_wait_until_all(v, n, s, c, x);                                           \
    }                                                                                       \
    static size_t wait_any(T *v, size_t n, const int *s, int c, T x) {                      \
      return xshmem_##N##_wait_until_any(v, n, s, c, x);                                    \
    }                                                                                       \
    static size_t wait_some(T *v, size_t n, size_t *i, const int *s, int c, T x) {          \
      return xshmem_##N##_wait_until_some(v, n, i, s, c, x);                                \
    }                                                                                       \
    static void wait_all_v(T *v, size_t n, const int *s, int c, const T *x) {               \
      xshmem_##N##_wait_until_all_vector(v, n, s, c, x);                                    \
    }                                                                                       \
    static size_t wait_any_v(T *v, size_t n, const int *s, int c, const T *x) {             \
      return xshmem_##N##_wait_until_any_vector(v, n, s, c, x);                             \
    }                                                                                       \
    static size_t wait_some_v(T *v, size_t n, size_t *i, const int *s, int c, const T *x) { \
      return xshmem_##N##_wait_until_some_vector(v, n, i, s, c, x);                         \
    }                                                                                       \
    static int test(T *v, int c, T x) { return xshmem_##N##_test(v, c, x); }                \
    static int test_all(T *v, size_t n, const int *s, int c, T x) {                         \
      return xshmem_##N##_test_all(v, n, s, c, x);                                          \
    }                                                                                       \
    static size_t test_any(T *v, size_t n, const int *s, int c, T x) {                      \
      return xshmem_##N##_test_any(v, n, s, c, x);                                          \
    }                                                                                       \
    static size_t test_some(T *v, size_t n, size_t *i, const int *s, int c, T x) {          \
      return xshmem_##N##_test_some(v, n, i, s, c, x);                                      \
    }                                                                                       \
    static int test_all_v(T *v, size_t n, const int *s, int c, const T *x) {                \
      return xshmem_##N##_test_all_vector(v, n, s, c, x);                                   \
    }                                                                                       \
    static size_t test_any_v(T *v, size_t n, const int *s, int c, const T *x) {             \
      return xshmem_##N##_test_any_vector(v, n, s, c, x);                                   \
    }                                                                                       \
    static size_t test_some_v(T *v, size_t n, size_t *i, const int *s, int c, const T *x) { \
      return xshmem_##N##_test_some_vector(v, n, i, s, c, x);                               \
    }                                                                                       \
    static void p(T *d, T v, int pe) { xshmem_##N##_p(d, v, pe); }                          \
  };
XSHMEM_P2P_TYPES(XT_P2P_TAG)
#undef XT_P2P_TAG

template <class Tag>
struct AtomicSet {
  static constexpr bool kHas = false;
};
#define XT_ASET(T, N)                                                         \
  template <>                                                                 \
  struct AtomicSet<P_##N> {                                                   \
    static constexpr bool kHas = true;                                        \
    static void set(T *d, T v, int pe) { xshmem_##N##_atomic_set(d, v, pe); } \
  };
XSHMEM_AMO_STANDARD_TYPES(XT_ASET)
#undef XT_ASET

// Update method of a waited-on word: 0 = atomic_set, 1 = p (single-element put).
template <class Tag, typename T = typename Tag::type>
void remote_set(int how, T *dest, T v, int pe) {
  if constexpr (AtomicSet<Tag>::kHas) {
    if (how == 0) return AtomicSet<Tag>::set(dest, v, pe);
  }
  Tag::p(dest, v, pe);
}
template <class Tag>
const char *method_name(int how) {
  return how == 0 && AtomicSet<Tag>::kHas ? "atomic_set" : "p (single-element put atomicity)";
}

template <typename T>
T atomic_load(const T *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

const char *cmp_name(int cmp) {
  static const char *const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}
constexpr int kCmps[] = {XSHMEM_CMP_EQ, XSHMEM_CMP_NE, XSHMEM_CMP_GT,
                         XSHMEM_CMP_GE, XSHMEM_CMP_LT, XSHMEM_CMP_LE};

template <typename T>
bool holds(int cmp, T a, T b) {
  switch (cmp) {
    case XSHMEM_CMP_EQ:
      return a == b;
    case XSHMEM_CMP_NE:
      return a != b;
    case XSHMEM_CMP_GT:
      return a > b;
    case XSHMEM_CMP_GE:
      return a >= b;
    case XSHMEM_CMP_LT:
      return a < b;
    case XSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}
// What a typical broken comparison computes: ordered comparisons with the opposite signedness,
// equality on the low half of the bits only.
template <typename T>
bool holds_wrong(int cmp, T a, T b) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  if (cmp == XSHMEM_CMP_EQ || cmp == XSHMEM_CMP_NE) {
    const U mask = static_cast<U>(~U{0} >> (4 * sizeof(T)));
    const bool eq = (static_cast<U>(a) & mask) == (static_cast<U>(b) & mask);
    return cmp == XSHMEM_CMP_EQ ? eq : !eq;
  }
  if constexpr (std::is_signed_v<T>) {
    return holds(cmp, static_cast<U>(a), static_cast<U>(b));
  } else {
    return holds(cmp, static_cast<S>(a), static_cast<S>(b));
  }
}

// Values for one comparison: s0 and mid do not satisfy `cmp` against cv, s1 does; where possible
// mid is a trap (a broken comparison accepts it) and s1 is one a broken comparison rejects.
template <typename T>
struct Trap {
  T s0, mid, cv, s1;
  bool trapped;
};
template <typename T>
std::vector<T> value_pool(uint32_t tid) {
  using U = std::make_unsigned_t<T>;
  const U ones = static_cast<U>(~U{0});
  const U sign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
  const U raw[] = {0,
                   1,
                   2,
                   3,
                   7,
                   100,
                   ones,
                   static_cast<U>(ones - 1),
                   sign,
                   static_cast<U>(sign + 1),
                   static_cast<U>(sign - 1),
                   static_cast<U>(sign - 2),
                   static_cast<U>(sign | 7),
                   static_cast<U>(sign | 100)};
  std::vector<T> pool;
  for (U r : raw) pool.push_back(static_cast<T>(r));
  pool.push_back(xt::value<T>(0, 0, 0, 0, tid));
  return pool;
}
template <typename T>
Trap<T> find_trap(int cmp) {
  const std::vector<T> pool = value_pool<T>(kTidCmp);
  Trap<T> best{};
  bool found = false;
  for (T cv : pool) {
    const T *s1 = nullptr, *s1_any = nullptr, *mid = nullptr, *s0 = nullptr;
    for (const T &x : pool) {
      if (holds(cmp, x, cv)) {
        if (!s1_any) s1_any = &x;
        if (!s1 && !holds_wrong(cmp, x, cv)) s1 = &x;
      } else if (!mid && holds_wrong(cmp, x, cv)) {
        mid = &x;
      }
    }
    for (const T &x : pool) {
      if (!holds(cmp, x, cv) && (!mid || !same(x, *mid))) {
        s0 = &x;
        break;
      }
    }
    if (!s1_any || !s0) continue;
    const Trap<T> t{*s0, mid ? *mid : *s0, cv, s1 ? *s1 : *s1_any, mid != nullptr};
    if (mid && s1) return t;
    if (!found || (t.trapped && !best.trapped)) best = t;
    found = true;
  }
  REQUIRE(found);
  return best;
}

// ---- P2P-01 -------------------------------------------------------------------------------------

// For every comparison and update method, both PEs take turns: the waiter's word goes s0 -> mid
// (checked with test, which must stay 0) -> s1 while the waiter is blocked in wait_until.
template <class Tag>
void wait_cmp_type(uint64_t &round) {
  using T = typename Tag::type;
  const int me = xt::me(), peer = 1 - me;
  xt::SymBuf<T> ivar(1);
  xt::SymBuf<uint64_t> go(1);
  go[0] = 0;
  xshmem_barrier_all();
  for (int cmp : kCmps) {
    const Trap<T> t = find_trap<T>(cmp);
    for (int how = 0; how < 2; ++how) {
      if (how == 0 && !AtomicSet<Tag>::kHas) continue;  // short, ushort: p only
      for (int waiter = 0; waiter < 2; ++waiter) {
        ++round;
        char what[200];
        std::snprintf(what, sizeof what, "P2P-01 %s_wait_until %s %s, updated by %s, waiter pe %d",
                      Tag::name, cmp_name(cmp), show(t.cv).c_str(), method_name<Tag>(how), waiter);
        xt::note("%s", what);
        if (me == waiter) ivar[0] = t.s0;
        xshmem_barrier_all();
        if (me == waiter) {
          if (Tag::test(ivar.data(), cmp, t.cv) != 0)
            FAIL_CHECK(what << ": test is true for the start value " << show(t.s0));
          char desc[240];
          std::snprintf(desc, sizeof desc, "%s: word == intermediate %s", what,
                        show(t.mid).c_str());
          xt::wait_for(desc, [&] { return Tag::test(ivar.data(), XSHMEM_CMP_EQ, t.mid) != 0; });
          if (Tag::test(ivar.data(), cmp, t.cv) != 0)
            FAIL_CHECK(what << ": test is true for " << show(t.mid)
                            << (t.trapped ? " (signedness/width trap)" : ""));
          xshmem_uint64_atomic_set(go.data(), round, peer);
          xt::note("%s: blocked in wait_until", what);
          Tag::wait_until(ivar.data(), cmp, t.cv);
          const T got = atomic_load(ivar.data());
          if (!same(got, t.s1))
            FAIL_CHECK(what << ": wait_until returned while the word holds " << show(got)
                            << ", expected the satisfying update " << show(t.s1));
          if (Tag::test(ivar.data(), cmp, t.cv) != 1)
            FAIL_CHECK(what << ": test is not 1 after wait_until returned");
          CHECK(ivar.guards_ok());
        } else {
          remote_set<Tag>(how, ivar.data(), t.mid, waiter);
          xshmem_quiet();
          char desc[240];
          std::snprintf(desc, sizeof desc, "%s: go from the waiter", what);
          xt::wait_for(desc, [&] { return atomic_load(go.data()) == round; });
          usleep(300);  // let the waiter block in wait_until
          remote_set<Tag>(how, ivar.data(), t.s1, waiter);
          xshmem_quiet();
        }
        xshmem_barrier_all();
      }
    }
  }
}

}  // namespace

TEST_CASE("P2P-01 wait_until_cmp_types", "[P2P-01]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  uint64_t round = 0;
#define XT_RUN(T, N) wait_cmp_type<P_##N>(round);
  XSHMEM_P2P_TYPES(XT_RUN)
#undef XT_RUN
}

namespace {

// ---- P2P-02 / P2P-03 shared: a condition, scalar or per element ---------------------------------

// Scalar form: cmp GE (or the given cmp) against one cv with trap values; vector form: EQ against
// per-element values, the unsatisfied value differing only in the top bit (a low-half trap).
template <typename T>
struct Cond {
  bool vector;
  int cmp;
  Trap<T> trap;
  std::vector<T> cvals;
  T sat(size_t i) const { return vector ? cvals[i] : trap.s1; }
  T unsat(size_t i) const {
    if (!vector) return i % 2 ? trap.mid : trap.s0;
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(cvals[i]) ^ static_cast<U>(U{1} << (8 * sizeof(T) - 1)));
  }
  const char *form() const { return vector ? "_vector" : ""; }
};
template <typename T>
Cond<T> make_cond(bool vector, size_t nel, int src, int dst, uint64_t iter, uint32_t tid) {
  Cond<T> c{vector, vector ? XSHMEM_CMP_EQ : XSHMEM_CMP_GE, find_trap<T>(XSHMEM_CMP_GE), {}};
  if (vector)
    for (size_t i = 0; i < nel; ++i) c.cvals.push_back(xt::value<T>(src, dst, i, iter, tid));
  return c;
}

template <class Tag, typename T = typename Tag::type>
void wait_all(const Cond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return Tag::wait_all_v(v, n, st, c.cmp, c.cvals.data());
  Tag::wait_all(v, n, st, c.cmp, c.trap.cv);
}
template <class Tag, typename T = typename Tag::type>
size_t wait_any(const Cond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return Tag::wait_any_v(v, n, st, c.cmp, c.cvals.data());
  return Tag::wait_any(v, n, st, c.cmp, c.trap.cv);
}
template <class Tag, typename T = typename Tag::type>
size_t wait_some(const Cond<T> &c, T *v, size_t n, size_t *idx, const int *st) {
  if (c.vector) return Tag::wait_some_v(v, n, idx, st, c.cmp, c.cvals.data());
  return Tag::wait_some(v, n, idx, st, c.cmp, c.trap.cv);
}
template <class Tag, typename T = typename Tag::type>
int test_all(const Cond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return Tag::test_all_v(v, n, st, c.cmp, c.cvals.data());
  return Tag::test_all(v, n, st, c.cmp, c.trap.cv);
}
template <class Tag, typename T = typename Tag::type>
size_t test_any(const Cond<T> &c, T *v, size_t n, const int *st) {
  if (c.vector) return Tag::test_any_v(v, n, st, c.cmp, c.cvals.data());
  return Tag::test_any(v, n, st, c.cmp, c.trap.cv);
}
template <class Tag, typename T = typename Tag::type>
size_t test_some(const Cond<T> &c, T *v, size_t n, size_t *idx, const int *st) {
  if (c.vector) return Tag::test_some_v(v, n, idx, st, c.cmp, c.cvals.data());
  return Tag::test_some(v, n, idx, st, c.cmp, c.trap.cv);
}

// Checks a _some result: count within [lo, allowed.size()], indices unique, each in `allowed`.
bool some_ok(const char *what, size_t count, const size_t *idx, const std::set<size_t> &allowed,
             size_t lo) {
  bool ok = count >= lo && count <= allowed.size();
  std::set<size_t> seen;
  for (size_t k = 0; ok && k < count; ++k) ok = allowed.count(idx[k]) && seen.insert(idx[k]).second;
  if (!ok) {
    std::string list;
    for (size_t k = 0; k < count && k < 16; ++k) list += " " + std::to_string(idx[k]);
    FAIL_CHECK(what << ": returned " << count << " indices [" << list << " ], expected between "
                    << lo << " and " << allowed.size()
                    << " unique indices of satisfied, included elements");
  }
  return ok;
}

constexpr size_t kNel = 12;
// Elements with i % 4 == 3 are excluded by the status mask.
bool excluded(size_t i) {
  return i % 4 == 3;
}

// ---- P2P-02 -------------------------------------------------------------------------------------

template <class Tag>
void sets_type(bool vector) {
  using T = typename Tag::type;
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const Cond<T> mine = make_cond<T>(vector, kNel, left, me, 0, kTidSets);
  const Cond<T> theirs = make_cond<T>(vector, kNel, me, right, 0, kTidSets);
  xt::SymBuf<T> ivars(kNel);
  std::vector<int> status(kNel);
  std::vector<int> none_masked(kNel, 0), all_masked(kNel, 1);
  for (size_t i = 0; i < kNel; ++i) status[i] = excluded(i) ? 1 : 0;
  std::set<size_t> included;
  for (size_t i = 0; i < kNel; ++i)
    if (!excluded(i)) included.insert(i);
  std::vector<size_t> idx(kNel + 1, ~size_t{0});
  const int how = AtomicSet<Tag>::kHas ? 0 : 1;
  char what[200];
  auto label = [&](const char *call) {
    std::snprintf(what, sizeof what, "P2P-02 %s_%s%s", Tag::name, call, mine.form());
    xt::note("%s", what);
    return what;
  };

  // Empty sets: nelems 0 or every element excluded, with every element unsatisfied.
  for (size_t i = 0; i < kNel; ++i) ivars[i] = mine.unsat(i);
  label("wait_until_all (empty set)");
  if (test_all<Tag>(mine, ivars.data(), kNel, all_masked.data()) != 1) {
    FAIL_CHECK(what << ": test_all with every element excluded is not 1; wait_until_all not run");
  } else {
    wait_all<Tag>(mine, ivars.data(), 0, nullptr);
    wait_all<Tag>(mine, ivars.data(), kNel, all_masked.data());
  }
  label("wait_until_any (empty set)");
  CHECK(wait_any<Tag>(mine, ivars.data(), 0, nullptr) == SIZE_MAX);
  CHECK(wait_any<Tag>(mine, ivars.data(), kNel, all_masked.data()) == SIZE_MAX);
  label("wait_until_some (empty set)");
  CHECK(wait_some<Tag>(mine, ivars.data(), 0, idx.data(), nullptr) == 0);
  CHECK(wait_some<Tag>(mine, ivars.data(), kNel, idx.data(), all_masked.data()) == 0);

  // wait_until_all: excluded elements stay unsatisfied; the left neighbour satisfies the rest.
  xshmem_barrier_all();
  for (size_t j = 0; j < kNel; ++j) {
    const size_t i = (j * 5) % kNel;  // scrambled order
    if (!excluded(i)) remote_set<Tag>(how, ivars.data() + i, theirs.sat(i), right);
  }
  xshmem_quiet();
  label("wait_until_all (status mask)");
  wait_all<Tag>(mine, ivars.data(), kNel, status.data());
  for (size_t i = 0; i < kNel; ++i) {
    const T want = excluded(i) ? mine.unsat(i) : mine.sat(i);
    if (!same(atomic_load(ivars.data() + i), want))
      FAIL_CHECK(what << ": after return element " << i << " is "
                      << show(atomic_load(ivars.data() + i)) << ", expected " << show(want));
  }
  xshmem_barrier_all();

  // wait_until_any: excluded elements are satisfied (and must be ignored); one included element
  // becomes satisfied per round.
  for (int r = 0; r < 3; ++r) {
    const size_t j = static_cast<size_t>(4 * r + r % 3);  // 0, 5, 10: never excluded
    for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? mine.sat(i) : mine.unsat(i);
    xshmem_barrier_all();
    remote_set<Tag>(how, ivars.data() + j, theirs.sat(j), right);
    xshmem_quiet();
    label("wait_until_any (status mask)");
    const size_t got = wait_any<Tag>(mine, ivars.data(), kNel, status.data());
    if (got != j) FAIL_CHECK(what << ": returned " << got << ", expected " << j);
    xshmem_barrier_all();
  }

  // wait_until_some: a subset S of the included elements becomes satisfied; calls that exclude
  // what earlier calls returned collect exactly S.
  const std::set<size_t> subset = {1, 4, 6, 9};
  for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? mine.sat(i) : mine.unsat(i);
  xshmem_barrier_all();
  for (size_t i : subset) remote_set<Tag>(how, ivars.data() + i, theirs.sat(i), right);
  xshmem_quiet();
  label("wait_until_some (status mask)");
  std::vector<int> st = status;
  std::set<size_t> remaining = subset, collected;
  for (size_t calls = 0; !remaining.empty() && calls < subset.size(); ++calls) {
    const size_t c = wait_some<Tag>(mine, ivars.data(), kNel, idx.data(), st.data());
    if (!some_ok(what, c, idx.data(), remaining, 1)) break;
    for (size_t k = 0; k < c; ++k) {
      remaining.erase(idx[k]);
      collected.insert(idx[k]);
      st[idx[k]] = 1;
    }
  }
  CHECK(collected == subset);

  // Eventual inclusion without masking: repeated _any and _some calls return every satisfied,
  // included element (bounded number of calls).
  label("wait_until_any (eventual inclusion)");
  std::set<size_t> any_seen, some_seen;
  for (size_t calls = 0; calls < 64 * subset.size() && any_seen != subset; ++calls) {
    const size_t got = wait_any<Tag>(mine, ivars.data(), kNel, status.data());
    if (!subset.count(got)) {
      FAIL_CHECK(what << ": returned " << got << ", not a satisfied included index");
      break;
    }
    any_seen.insert(got);
  }
  if (any_seen != subset)
    FAIL_CHECK(what << ": " << 64 * subset.size() << " calls returned only " << any_seen.size()
                    << " of the " << subset.size() << " satisfied indices");
  label("wait_until_some (eventual inclusion)");
  for (size_t calls = 0; calls < 64 && some_seen != subset; ++calls) {
    const size_t c = wait_some<Tag>(mine, ivars.data(), kNel, idx.data(), status.data());
    if (!some_ok(what, c, idx.data(), subset, 1)) break;
    some_seen.insert(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(c));
  }
  if (some_seen != subset)
    FAIL_CHECK(what << ": 64 calls returned only " << some_seen.size() << " of the "
                    << subset.size() << " satisfied indices");
  // NULL status: every element is included, so the satisfied excluded ones count as well.
  label("wait_until_all (NULL status)");
  for (size_t i = 0; i < kNel; ++i) ivars[i] = mine.sat(i);
  wait_all<Tag>(mine, ivars.data(), kNel, nullptr);
  CHECK(wait_any<Tag>(mine, ivars.data(), kNel, nullptr) < kNel);
  CHECK(ivars.guards_ok());
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("P2P-02 wait_all_any_some_vector", "[P2P-02]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
#define XT_RUN(T, N)       \
  sets_type<P_##N>(false); \
  sets_type<P_##N>(true);
  XSHMEM_P2P_TYPES(XT_RUN)
#undef XT_RUN
}

namespace {

// ---- P2P-03 -------------------------------------------------------------------------------------

// Local part: exact results of test and the _all/_any/_some tests for trap values, masks and
// empty sets (no remote updates, so every result is determined).
template <class Tag>
void test_local(bool vector) {
  using T = typename Tag::type;
  const int me = xt::me();
  xt::SymBuf<T> ivars(kNel);
  char what[200];
  if (!vector) {
    for (int cmp : kCmps) {
      const Trap<T> t = find_trap<T>(cmp);
      std::snprintf(what, sizeof what, "P2P-03 %s_test %s %s", Tag::name, cmp_name(cmp),
                    show(t.cv).c_str());
      ivars[0] = t.s0;
      if (Tag::test(ivars.data(), cmp, t.cv) != 0) FAIL_CHECK(what << ": 1 for " << show(t.s0));
      ivars[0] = t.mid;
      if (Tag::test(ivars.data(), cmp, t.cv) != 0) FAIL_CHECK(what << ": 1 for " << show(t.mid));
      ivars[0] = t.s1;
      if (Tag::test(ivars.data(), cmp, t.cv) != 1) FAIL_CHECK(what << ": 0 for " << show(t.s1));
    }
  }
  const Cond<T> c = make_cond<T>(vector, kNel, me, me, 1, kTidTest);
  std::vector<int> status(kNel), all_masked(kNel, 1);
  for (size_t i = 0; i < kNel; ++i) status[i] = excluded(i) ? 1 : 0;
  std::vector<size_t> idx(kNel + 1);
  std::snprintf(what, sizeof what, "P2P-03 %s test_all/any/some%s", Tag::name, c.form());
  INFO(what);
  // Nothing satisfied.
  for (size_t i = 0; i < kNel; ++i) ivars[i] = c.unsat(i);
  CHECK(test_all<Tag>(c, ivars.data(), kNel, status.data()) == 0);
  CHECK(test_all<Tag>(c, ivars.data(), 0, nullptr) == 1);               // empty set
  CHECK(test_all<Tag>(c, ivars.data(), kNel, all_masked.data()) == 1);  // all excluded
  CHECK(test_any<Tag>(c, ivars.data(), kNel, status.data()) == SIZE_MAX);
  CHECK(test_any<Tag>(c, ivars.data(), 0, nullptr) == SIZE_MAX);
  CHECK(test_some<Tag>(c, ivars.data(), kNel, idx.data(), status.data()) == 0);
  CHECK(test_some<Tag>(c, ivars.data(), 0, idx.data(), nullptr) == 0);
  // Only excluded elements satisfied: still nothing.
  for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? c.sat(i) : c.unsat(i);
  CHECK(test_all<Tag>(c, ivars.data(), kNel, status.data()) == 0);
  CHECK(test_any<Tag>(c, ivars.data(), kNel, status.data()) == SIZE_MAX);
  CHECK(test_some<Tag>(c, ivars.data(), kNel, idx.data(), status.data()) == 0);
  CHECK(test_any<Tag>(c, ivars.data(), kNel, all_masked.data()) == SIZE_MAX);
  CHECK(test_some<Tag>(c, ivars.data(), kNel, idx.data(), all_masked.data()) == 0);
  // A subset of the included elements satisfied.
  const std::set<size_t> subset = {0, 2, 5, 10};
  for (size_t i : subset) ivars[i] = c.sat(i);
  CHECK(test_all<Tag>(c, ivars.data(), kNel, status.data()) == 0);
  const size_t any = test_any<Tag>(c, ivars.data(), kNel, status.data());
  if (!subset.count(any)) FAIL_CHECK(what << ": test_any returned " << any);
  // Nothing changes concurrently here, so test_some reports every satisfied, included element
  // (the runtime's documented rule: _some returns every satisfied index).
  const size_t cnt = test_some<Tag>(c, ivars.data(), kNel, idx.data(), status.data());
  some_ok(what, cnt, idx.data(), subset, subset.size());
  // Repeated test_some with the returned indices masked collects exactly the subset.
  std::vector<int> st = status;
  std::set<size_t> collected;
  for (int calls = 0; calls < 8; ++calls) {
    const size_t k = test_some<Tag>(c, ivars.data(), kNel, idx.data(), st.data());
    if (k == 0) break;
    for (size_t j = 0; j < k; ++j) {
      if (idx[j] < kNel) st[idx[j]] = 1;
      collected.insert(idx[j]);
    }
  }
  CHECK(collected == subset);
  // Every included element satisfied.
  for (size_t i = 0; i < kNel; ++i) ivars[i] = excluded(i) ? c.unsat(i) : c.sat(i);
  CHECK(test_all<Tag>(c, ivars.data(), kNel, status.data()) == 1);
  CHECK(test_all<Tag>(c, ivars.data(), kNel, nullptr) == 0);  // NULL status includes all
  CHECK(ivars.guards_ok());
}

// Remote part: the left neighbour puts a payload, fences, then sets the flag (how: atomic_set or
// p); when test reports the flag, the payload is complete; test stays 0 before the update.
template <class Tag>
void test_remote(int how) {
  using T = typename Tag::type;
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kPayload = 61;
  constexpr uint64_t kIters = 300;
  xt::SymBuf<T> flag(1);
  xt::SymBuf<uint64_t> payload(kPayload), ack(1);
  xt::LocalBuf<uint64_t> src(kPayload);
  // Flag values: a distinct value per iteration, never the start value.
  auto flag_value = [](int s, int d, uint64_t it) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(xt::value<U>(s, d, 0, it, kTidTest) | U{1}) ^
                          static_cast<U>(it & 1));
  };
  flag[0] = T{0};
  ack[0] = 0;
  xshmem_barrier_all();
  size_t early = 0, torn = 0;
  char what[160];
  for (uint64_t it = 0; it < kIters; ++it) {
    std::snprintf(what, sizeof what, "P2P-03 %s_test remote iteration %llu (%s)", Tag::name,
                  static_cast<unsigned long long>(it), method_name<Tag>(how));
    xt::note("%s", what);
    const T want = flag_value(left, me, it);
    // Owner: the flag cannot hold this iteration's value before it is acknowledged.
    if (Tag::test(flag.data(), XSHMEM_CMP_EQ, want) != 0 && !same(want, T{0})) ++early;
    xshmem_uint64_atomic_set(ack.data(), it + 1, left);
    // Updater.
    char desc[200];
    std::snprintf(desc, sizeof desc, "%s: acknowledgement from pe %d", what, right);
    xt::wait_for(desc, [&] { return atomic_load(ack.data()) >= it + 1; });
    xt::fill(src.data(), kPayload, me, right, it, kTidTest);
    xshmem_uint64_put(payload.data(), src.data(), kPayload, right);
    xshmem_fence();
    remote_set<Tag>(how, flag.data(), flag_value(me, right, it), right);
    // Owner.
    std::snprintf(desc, sizeof desc, "%s: test(flag EQ %s)", what, show(want).c_str());
    xt::wait_for(desc, [&] { return Tag::test(flag.data(), XSHMEM_CMP_EQ, want) != 0; });
    if (!same(atomic_load(flag.data()), want)) ++torn;
    CHECK(xt::mismatches(payload.data(), kPayload, left, me, it, kTidTest, what) == 0);
  }
  CHECK(early == 0);
  CHECK(torn == 0);
  CHECK(flag.guards_ok());
  CHECK(payload.guards_ok());
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("P2P-03 test_family", "[P2P-03]") {
  if (!xt::require_npes_in({2}, "P2")) return;
#define XT_RUN(T, N)        \
  test_local<P_##N>(false); \
  test_local<P_##N>(true);
  XSHMEM_P2P_TYPES(XT_RUN)
#undef XT_RUN
  xshmem_barrier_all();
  test_remote<P_int>(0);
  test_remote<P_uint64>(0);
  test_remote<P_ptrdiff>(1);
  test_remote<P_short>(1);
  test_remote<P_ushort>(1);
}
