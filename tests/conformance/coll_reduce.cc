// COLL rows of CONFORMANCE.md §4.9 about reductions and scans (host API): COLL-08 reduce_matrix
// (every op x every type of the team reduction table, sizes 0, 1, odd, larger than the 128 KiB
// team scratch, in place, over a bank of teams), COLL-09 scans, COLL-10 zero length and 1-PE
// teams, COLL-11 back-to-back and disjoint teams at once. CTest runs the group once per
// XSHMEM_COLL_REDUCE_ALGO: auto runs every case, direct and rsag the cases tagged [algo].
//
// Data per (op, member, element, iteration): integers are hash bits, so sums and products wrap
// around; AND gets mostly-one words and OR mostly-zero words so neither saturates; products of
// integers use odd factors (a product of even words would quickly be 0); floating-point data is
// exactly representable (halves, powers of two) except in the determinism case, which checks
// that every member gets the result of combining in team order, bit for bit.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidReduce = 0xC08;
constexpr uint32_t kTidScan = 0xC09;
constexpr uint32_t kTidB2b = 0xC0B;
constexpr uint32_t kTidComplex = 0xC0C;

enum Op : int { kAnd, kOr, kXor, kMax, kMin, kSum, kProd, kInscan, kExscan, kNumOps };
const char *const kOpName[kNumOps] = {"and_reduce",  "or_reduce",  "xor_reduce",
                                      "max_reduce",  "min_reduce", "sum_reduce",
                                      "prod_reduce", "sum_inscan", "sum_exscan"};

template <typename T>
using RedFn = int (*)(xshmem_team_t, T *, const T *, size_t);
template <typename T>
using Fns = std::array<RedFn<T>, kNumOps>;

// A team of the bank as this PE sees it.
struct Team {
  std::string name;
  xshmem_team_t handle = XSHMEM_TEAM_INVALID;
  std::vector<int> world;  // world PE of each member, in team order
  int me = -1;             // this PE's index, -1 when not a member
};

Team describe(const std::string &name, xshmem_team_t h) {
  Team t;
  t.name = name;
  t.handle = h;
  if (h == XSHMEM_TEAM_INVALID) return t;
  const int n = xshmem_team_n_pes(h);
  for (int i = 0; i < n; ++i) t.world.push_back(xshmem_team_translate_pe(h, i, XSHMEM_TEAM_WORLD));
  t.me = xshmem_team_my_pe(h);
  return t;
}

// One splitmix64 step.
inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The seed of member `pe`'s data for (op, iteration, test id): xt::hash of them, computed once
// per case and PE (a case generates and checks every element n + 2 times; hashing all five
// arguments per element was most of the group's CPU time).
uint64_t seed(int op, int pe, uint64_t iter, uint32_t tid) {
  static int c_op = -1;
  static uint64_t c_iter = ~uint64_t{0};
  static uint32_t c_tid = 0;
  static std::vector<uint64_t> c_seed;  // by world PE; 0: not computed yet
  if (op != c_op || iter != c_iter || tid != c_tid || c_seed.size() <= static_cast<size_t>(pe)) {
    c_op = op, c_iter = iter, c_tid = tid;
    c_seed.assign(static_cast<size_t>(std::max(xt::npes(), pe + 1)), 0);
  }
  uint64_t &sd = c_seed[static_cast<size_t>(pe)];
  if (sd == 0) sd = xt::hash(static_cast<uint64_t>(pe), iter, static_cast<uint64_t>(op), tid) | 1;
  return sd;
}

// Member `pe`'s element i for op in iteration `iter`: element i of the splitmix64 stream of the
// member's seed.
template <typename T>
T gen(int op, int pe, size_t i, uint64_t iter, uint32_t tid) {
  const uint64_t h = mix(seed(op, pe, iter, tid) + 0x9e3779b97f4a7c15ull * i);
  if constexpr (std::is_floating_point_v<T>) {
    if (op == kProd) {
      const int e = static_cast<int>(h % 7) - 3;  // +-2^-3 .. +-2^3: every product is exact
      const T m = (h >> 8) & 1 ? T(-1) : T(1);
      return m * static_cast<T>(std::ldexp(1.0, e));
    }
    // Halves of integers below 10^6 in magnitude (as xt::value): sums of a few are exact.
    return static_cast<T>(static_cast<int64_t>(h % 2000001) - 1000000) / static_cast<T>(2);
  } else {
    uint64_t v = h;
    if (op == kAnd) v = h | mix(h);
    if (op == kOr) v = h & mix(h);
    if (op == kProd) v = h | 1;
    T out;
    std::memcpy(&out, &v, sizeof(T));
    return out;
  }
}

// The reference combination (independent of the library's: 64-bit unsigned arithmetic, reduced
// modulo 2^bits by the conversion back).
template <typename T>
T ref(int op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    switch (op) {
      case kAnd:
        return static_cast<T>(x & y);
      case kOr:
        return static_cast<T>(x | y);
      case kXor:
        return static_cast<T>(x ^ y);
      case kMax:
        return a < b ? b : a;
      case kMin:
        return b < a ? b : a;
      case kProd:
        return static_cast<T>(x * y);
      default:
        return static_cast<T>(x + y);
    }
  } else {
    switch (op) {
      case kMax:
        return a < b ? b : a;
      case kMin:
        return b < a ? b : a;
      case kProd:
        return a * b;
      default:
        return a + b;
    }
  }
}

// What member `me` of `team` must hold at element i.
template <typename T>
T expected(int op, const Team &team, size_t i, uint64_t iter, uint32_t tid,
           T (*g)(int, int, size_t, uint64_t, uint32_t) = gen<T>) {
  int k1 = static_cast<int>(team.world.size());
  if (op == kInscan) k1 = team.me + 1;
  if (op == kExscan) k1 = team.me;
  if (k1 == 0) return T{};
  T acc = g(op, team.world[0], i, iter, tid);
  for (int k = 1; k < k1; ++k) acc = ref<T>(op, acc, g(op, team.world[k], i, iter, tid));
  return acc;
}

// Full-mantissa values in [-1, 2): their sums round, so the order of combination shows.
template <typename T>
T inexact(int, int pe, size_t i, uint64_t iter, uint32_t tid) {
  const uint64_t h = xt::hash(static_cast<uint64_t>(pe), i, iter, tid, 0xF1);
  return static_cast<T>(static_cast<double>(h >> 11) * 0x1.0p-53 * 3.0 - 1.0);
}

struct Case {
  int op;
  size_t n;
  bool in_place;
  uint64_t iter;
  uint32_t tid = kTidReduce;
};

// One call of fn on `team` (members only) with source/dest from the symmetric buffers; checks
// dest, the guards and (not in place) that the source is unchanged. Returns the mismatches.
template <typename T>
size_t run_case(const Team &team, RedFn<T> fn, const char *tname, const Case &c, xt::SymBuf<T> &src,
                xt::SymBuf<T> &dst) {
  if (team.me < 0) return 0;
  const int pe = xt::me();
  T *source = c.in_place ? dst.data() : src.data();
  dst.poison();
  for (size_t i = 0; i < c.n; ++i) source[i] = gen<T>(c.op, pe, i, c.iter, c.tid);
  xt::note("xshmem_%s_%s team %s n %zu%s iter %llu", tname, kOpName[c.op], team.name.c_str(), c.n,
           c.in_place ? " in place" : "", static_cast<unsigned long long>(c.iter));
  const int rc = fn(team.handle, dst.data(), source, c.n);
  const std::string what = std::string("xshmem_") + tname + "_" + kOpName[c.op] + " team " +
                           team.name + " n " + std::to_string(c.n) +
                           (c.in_place ? " in place" : "") + " iter " + std::to_string(c.iter);
  size_t bad = 0;
  if (rc != 0) {
    FAIL_CHECK("pe " << pe << ": " << what << " returned " << rc);
    ++bad;
  }
  for (size_t i = 0; i < c.n; ++i) {
    const T want = expected<T>(c.op, team, i, c.iter, c.tid);
    if (xt::detail::same(dst[i], want)) continue;
    if (++bad <= 3)
      FAIL_CHECK("pe " << pe << " (member " << team.me << "): " << what << ": element " << i
                       << " is " << xt::detail::show(dst[i]) << ", expected "
                       << xt::detail::show(want));
  }
  if (!dst.guards_ok()) {
    FAIL_CHECK("pe " << pe << ": " << what << ": guard bytes around dest overwritten");
    ++bad;
  }
  if (!c.in_place) {
    size_t changed = 0;
    for (size_t i = 0; i < c.n; ++i)
      if (!xt::detail::same(src[i], gen<T>(c.op, pe, i, c.iter, c.tid))) ++changed;
    if (changed) {
      FAIL_CHECK("pe " << pe << ": " << what << ": " << changed << " source elements changed");
      ++bad;
    }
  }
  return bad;
}

// Larger than the team scratch (128 KiB), so every algorithm chunks.
template <typename T>
size_t big_count() {
  return (size_t{128} << 10) / sizeof(T) + 37;
}

bool algo_type(const char *name, bool bitwise);

// The matrix for one type over the bank: every op of `fns` at sizes 1, odd, a few chunks and
// (WORLD only) more than the scratch, each also in place. The teams other than WORLD run the
// types of algo_type() (one per class and element size): a type reaches a team's algorithm only
// through its element size and combine function, which WORLD runs for every type.
template <typename T>
void matrix_type(const std::vector<Team> &bank, const char *tname, const Fns<T> &fns,
                 uint64_t *iter, size_t *bad) {
  const size_t big = big_count<T>();
  const bool bank_wide = algo_type(tname, fns[kAnd] != nullptr);
  xt::SymBuf<T> src(big), dst(big);
  xshmem_barrier_all();
  for (const Team &team : bank) {
    const bool world = team.handle == XSHMEM_TEAM_WORLD;
    if (!world && !bank_wide) continue;
    const std::vector<size_t> sizes =
        world ? std::vector<size_t>{1, 77, 5003, big} : std::vector<size_t>{1, 77};
    for (int op = 0; op < kNumOps; ++op) {
      if (fns[op] == nullptr) continue;
      for (size_t n : sizes) {
        for (bool in_place : {false, true}) {
          if (in_place && n == big && !world) continue;
          *bad += run_case<T>(team, fns[op], tname, Case{op, n, in_place, ++*iter}, src, dst);
        }
      }
    }
  }
  xshmem_barrier_all();
}

// The types the [algo] entries run: one per class and element size (bitwise 1, 2, 4, 8 bytes;
// integers signed and unsigned of 1, 2, 4, 8 bytes; float, double, long double). An algorithm
// sees a type only through its element size and combine function; the auto entries run every
// type. `bitwise` picks the list of the bitwise (and/or/xor) table.
bool algo_type(const char *name, bool bitwise) {
  static const char *const kBitwise[] = {"uint8", "int16", "uint32", "int64"};
  static const char *const kArith[] = {"schar", "ushort", "int",       "uint64",
                                       "float", "double", "longdouble"};
  if (bitwise)
    return std::find_if(std::begin(kBitwise), std::end(kBitwise), [&](const char *t) {
             return std::strcmp(t, name) == 0;
           }) != std::end(kBitwise);
  return std::find_if(std::begin(kArith), std::end(kArith),
                      [&](const char *t) { return std::strcmp(t, name) == 0; }) != std::end(kArith);
}

// The bank of TEAM-05 this group uses (created in the same order on every PE).
struct Bank {
  std::vector<Team> teams;
  std::vector<xshmem_team_t> owned;
  Bank() {
    const int n = xt::npes();
    teams.push_back(describe("world", XSHMEM_TEAM_WORLD));
    auto split = [&](const char *name, int start, int stride, int size) {
      xshmem_team_t t = XSHMEM_TEAM_INVALID;
      CHECK(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t) == 0);
      teams.push_back(describe(name, t));
      if (t != XSHMEM_TEAM_INVALID) owned.push_back(t);
    };
    split("even", 0, 2, (n + 1) / 2);
    if (n >= 2) split("odd", 1, 2, n / 2);
    split("reversed", n - 1, -1, n);
    xshmem_team_t x = XSHMEM_TEAM_INVALID, y = XSHMEM_TEAM_INVALID;
    CHECK(xshmem_team_split_2d(XSHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y) == 0);
    teams.push_back(describe("2d-row", x));
    teams.push_back(describe("2d-column", y));
    owned.push_back(x);
    owned.push_back(y);
  }
  ~Bank() {
    // Destroy in reverse creation order: every member destroys its teams in the same order.
    for (auto it = owned.rbegin(); it != owned.rend(); ++it) xshmem_team_destroy(*it);
  }
};

}  // namespace

// Every op x every type, split in two test cases: the types the [algo] entries run, then the
// others (the auto entries run both).
static void reduce_matrix(bool algo_types) {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PO")) return;
  xt::test_budget(280);
  Bank bank;
  uint64_t iter = 0;
  size_t bad = 0;
#define XT_BIT(T, N)                                                                              \
  if (algo_type(#N, true) == algo_types)                                                          \
    matrix_type<T>(                                                                               \
        bank.teams, #N,                                                                           \
        Fns<T>{xshmem_##N##_and_reduce, xshmem_##N##_or_reduce, xshmem_##N##_xor_reduce, nullptr, \
               nullptr, nullptr, nullptr, nullptr, nullptr},                                      \
        &iter, &bad);
#define XT_ARITH(T, N)                                                                      \
  if (algo_type(#N, false) == algo_types)                                                   \
    matrix_type<T>(                                                                         \
        bank.teams, #N,                                                                     \
        Fns<T>{nullptr, nullptr, nullptr, xshmem_##N##_max_reduce, xshmem_##N##_min_reduce, \
               xshmem_##N##_sum_reduce, xshmem_##N##_prod_reduce, nullptr, nullptr},        \
        &iter, &bad);
  XSHMEM_REDUCE_BITWISE_TYPES(XT_BIT)
  XSHMEM_REDUCE_ARITH_TYPES(XT_ARITH)
#undef XT_BIT
#undef XT_ARITH
  CHECK(bad == 0);
}

TEST_CASE("COLL-08 reduce_matrix (one type per class and size)", "[COLL-08][algo]") {
  reduce_matrix(true);
}

TEST_CASE("COLL-08 reduce_matrix (the other types)", "[COLL-08]") {
  reduce_matrix(false);
}

// Integer sums and products wrap around at the type's width, signed types included.
TEST_CASE("COLL-08 integer_wraparound", "[COLL-08][algo]") {
  if (!xt::require_npes_in({2, 3, 4, 5, 7, 8}, "PS")) return;
  const int me = xt::me(), n = xt::npes();
  xt::SymBuf<int8_t> a8(3);
  xt::SymBuf<int> ai(3);
  xt::SymBuf<int64_t> a64(3);
  xt::SymBuf<uint16_t> u16(3);
  xshmem_barrier_all();
  a8[0] = INT8_MAX, a8[1] = INT8_MIN, a8[2] = static_cast<int8_t>(me % 2 ? -3 : 5);
  ai[0] = INT_MAX, ai[1] = INT_MIN, ai[2] = me + 1;
  a64[0] = INT64_MAX, a64[1] = INT64_MIN, a64[2] = -(int64_t{1} << 62);
  u16[0] = UINT16_MAX, u16[1] = 0x8001, u16[2] = 3;
  CHECK(xshmem_int8_sum_reduce(XSHMEM_TEAM_WORLD, a8.data(), a8.data(), 2) == 0);
  CHECK(xshmem_int_sum_reduce(XSHMEM_TEAM_WORLD, ai.data(), ai.data(), 3) == 0);
  CHECK(xshmem_int64_sum_reduce(XSHMEM_TEAM_WORLD, a64.data(), a64.data(), 3) == 0);
  CHECK(xshmem_uint16_prod_reduce(XSHMEM_TEAM_WORLD, u16.data(), u16.data(), 3) == 0);
  const uint64_t un = static_cast<uint64_t>(n);
  CHECK(a8[0] == static_cast<int8_t>(un * static_cast<uint64_t>(INT8_MAX)));
  CHECK(a8[1] == static_cast<int8_t>(un * static_cast<uint64_t>(int64_t{INT8_MIN})));
  CHECK(ai[0] == static_cast<int>(un * static_cast<uint64_t>(INT_MAX)));
  CHECK(ai[1] == static_cast<int>(un * static_cast<uint64_t>(int64_t{INT_MIN})));
  CHECK(ai[2] == n * (n + 1) / 2);
  CHECK(a64[0] == static_cast<int64_t>(un * static_cast<uint64_t>(INT64_MAX)));
  CHECK(a64[1] == static_cast<int64_t>(un * static_cast<uint64_t>(INT64_MIN)));
  CHECK(a64[2] == static_cast<int64_t>(un * static_cast<uint64_t>(-(int64_t{1} << 62))));
  uint64_t p0 = 1, p1 = 1, p2 = 1;
  for (int k = 0; k < n; ++k) p0 *= UINT16_MAX, p1 *= 0x8001, p2 *= 3;
  CHECK(u16[0] == static_cast<uint16_t>(p0));
  CHECK(u16[1] == static_cast<uint16_t>(p1));
  CHECK(u16[2] == static_cast<uint16_t>(p2));
  CHECK(a8.guards_ok());
  CHECK(ai.guards_ok());
  CHECK(a64.guards_ok());
  CHECK(u16.guards_ok());
  xshmem_barrier_all();
}

// Inexact floating-point data: every member gets the combination in team order, bit for bit
// (and so the same result as every other member).
TEST_CASE("COLL-08 float_identical_results", "[COLL-08][algo]") {
  if (!xt::require_npes_in({2, 3, 4, 5, 7, 8}, "PS")) return;
  Bank bank;
  const size_t n = big_count<float>();
  xt::SymBuf<float> f(n);
  xt::SymBuf<double> d(n);
  xshmem_barrier_all();
  size_t bad = 0;
  uint64_t iter = 0;
  for (const Team &team : bank.teams) {
    if (team.me < 0) continue;
    for (size_t count : {size_t{1000}, n}) {
      ++iter;
      for (size_t i = 0; i < count; ++i) {
        f[i] = inexact<float>(kSum, xt::me(), i, iter, kTidReduce);
        d[i] = inexact<double>(kSum, xt::me(), i, iter, kTidReduce);
      }
      xt::note("float_identical_results team %s n %zu", team.name.c_str(), count);
      CHECK(xshmem_float_sum_reduce(team.handle, f.data(), f.data(), count) == 0);
      CHECK(xshmem_double_sum_reduce(team.handle, d.data(), d.data(), count) == 0);
      for (size_t i = 0; i < count; ++i) {
        const float wf = expected<float>(kSum, team, i, iter, kTidReduce, inexact<float>);
        const double wd = expected<double>(kSum, team, i, iter, kTidReduce, inexact<double>);
        if (!xt::detail::same(f[i], wf) && ++bad <= 3)
          FAIL_CHECK("pe " << xt::me() << ": float sum team " << team.name << " element " << i
                           << " is " << f[i] << ", expected (team order) " << wf);
        if (!xt::detail::same(d[i], wd) && ++bad <= 3)
          FAIL_CHECK("pe " << xt::me() << ": double sum team " << team.name << " element " << i
                           << " is " << d[i] << ", expected (team order) " << wd);
      }
    }
  }
  CHECK(bad == 0);
  CHECK(f.guards_ok());
  CHECK(d.guards_ok());
  xshmem_barrier_all();
}

// ---- Complex sums and products (COLL-08: complexd, complexf) ------------------------------------
// The arrays are std::complex<F> (the layout of xshmem_complexd_t / xshmem_complexf_t), passed
// through a cast as a C++ program would. Sums: parts are halves of integers below 10^6 in
// magnitude, distinct for the real and the imaginary part. Products: Gaussian integers with a
// nonzero real part in {-2, -1, 1, 2} and an imaginary part in -2..2, so no factor is 0 and up to
// 8 factors keep every part and partial product below 2^13. Every result is exact: it must equal
// the textbook combination (ac - bd, ad + bc) in team order, bit for bit. Then inexact data on
// WORLD: the combination in team order, each product rounded on its own, bit for bit.
namespace {

template <typename F>
std::complex<F> cgen(int op, int pe, size_t i, uint64_t iter) {
  const uint64_t h = mix(seed(op, pe, iter, kTidComplex) + 0x9e3779b97f4a7c15ull * i);
  if (op == kProd) {
    static const F kRe[4] = {F(-2), F(-1), F(1), F(2)};
    return {kRe[h & 3], static_cast<F>(static_cast<int>((h >> 8) % 5) - 2)};
  }
  auto half = [](uint64_t x) {
    return static_cast<F>(static_cast<int64_t>(x % 2000001) - 1000000) / static_cast<F>(2);
  };
  return {half(h), half(mix(h))};
}

template <typename F>
std::complex<F> cref(int op, std::complex<F> a, std::complex<F> b) {
  if (op == kProd)
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
  return {a.real() + b.real(), a.imag() + b.imag()};
}

template <typename F>
std::complex<F> cexpected(int op, const Team &team, size_t i, uint64_t iter) {
  std::complex<F> acc = cgen<F>(op, team.world[0], i, iter);
  for (size_t k = 1; k < team.world.size(); ++k)
    acc = cref<F>(op, acc, cgen<F>(op, team.world[k], i, iter));
  return acc;
}

template <typename F>
bool csame(std::complex<F> a, std::complex<F> b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// C: xshmem_complexd_t or xshmem_complexf_t.
template <typename F, typename C>
using CplxFn = int (*)(xshmem_team_t, C *, const C *, size_t);

// One call of fn on `team` (members only); checks dest, its guards, and (not in place) that the
// source is unchanged. Returns the mismatches.
template <typename F, typename C>
size_t run_complex(const Team &team, CplxFn<F, C> fn, const char *name, int op, size_t n,
                   bool in_place, uint64_t iter, xt::SymBuf<std::complex<F>> &src,
                   xt::SymBuf<std::complex<F>> &dst) {
  static_assert(sizeof(C) == sizeof(std::complex<F>) && alignof(C) == alignof(std::complex<F>),
                "the public complex type has std::complex's layout");
  if (team.me < 0) return 0;
  const int pe = xt::me();
  std::complex<F> *source = in_place ? dst.data() : src.data();
  dst.poison();
  for (size_t i = 0; i < n; ++i) source[i] = cgen<F>(op, pe, i, iter);
  const std::string what = std::string(name) + " team " + team.name + " n " + std::to_string(n) +
                           (in_place ? " in place" : "") + " iter " + std::to_string(iter);
  xt::note("%s", what.c_str());
  const int rc =
      fn(team.handle, reinterpret_cast<C *>(dst.data()), reinterpret_cast<const C *>(source), n);
  size_t bad = 0;
  if (rc != 0) {
    FAIL_CHECK("pe " << pe << ": " << what << " returned " << rc);
    ++bad;
  }
  for (size_t i = 0; i < n; ++i) {
    const std::complex<F> want = cexpected<F>(op, team, i, iter);
    if (csame(dst[i], want)) continue;
    if (++bad <= 3)
      FAIL_CHECK("pe " << pe << " (member " << team.me << "): " << what << ": element " << i
                       << " is " << dst[i] << ", expected " << want);
  }
  if (!dst.guards_ok()) {
    FAIL_CHECK("pe " << pe << ": " << what << ": guard bytes around dest overwritten");
    ++bad;
  }
  if (!in_place) {
    size_t changed = 0;
    for (size_t i = 0; i < n; ++i)
      if (!csame(src[i], cgen<F>(op, pe, i, iter))) ++changed;
    if (changed) {
      FAIL_CHECK("pe " << pe << ": " << what << ": " << changed << " source elements changed");
      ++bad;
    }
  }
  return bad;
}

// sum and prod of one complex type over the bank: sizes 1, odd, a few chunks and (WORLD) more
// than the team scratch, each also in place.
template <typename F, typename C>
size_t complex_type(const Bank &bank, const char *tname, CplxFn<F, C> sum, CplxFn<F, C> prod,
                    uint64_t *iter) {
  const size_t big = (size_t{128} << 10) / sizeof(C) + 37;
  xt::SymBuf<std::complex<F>> src(big), dst(big);
  xshmem_barrier_all();
  size_t bad = 0;
  for (const Team &team : bank.teams) {
    const bool world = team.handle == XSHMEM_TEAM_WORLD;
    const std::vector<size_t> sizes =
        world ? std::vector<size_t>{1, 77, 5003, big} : std::vector<size_t>{1, 77};
    for (int op : {kSum, kProd}) {
      const std::string name = std::string("xshmem_") + tname + "_" + kOpName[op];
      for (size_t n : sizes)
        for (bool in_place : {false, true})
          bad += run_complex<F, C>(team, op == kSum ? sum : prod, name.c_str(), op, n, in_place,
                                   ++*iter, src, dst);
    }
  }
  xshmem_barrier_all();
  return bad;
}

// Full-mantissa parts in [-1, 2) (products and sums round), and the reference combination with
// each product rounded on its own (volatile: no fused multiply-add, as docs/semantics.md says of
// the library), in team order.
template <typename F>
std::complex<F> cinexact(int pe, size_t i, uint64_t iter) {
  return {inexact<F>(0, pe, i, iter, kTidComplex), inexact<F>(0, pe, i, iter + 7, kTidComplex)};
}
template <typename F>
F rounded_product(F a, F b) {
  volatile F p = a * b;
  return p;
}
template <typename F>
std::complex<F> cinexact_expected(int op, const Team &team, size_t i, uint64_t iter) {
  std::complex<F> acc = cinexact<F>(team.world[0], i, iter);
  for (size_t k = 1; k < team.world.size(); ++k) {
    const std::complex<F> b = cinexact<F>(team.world[k], i, iter);
    if (op == kProd) {
      acc = {rounded_product(acc.real(), b.real()) - rounded_product(acc.imag(), b.imag()),
             rounded_product(acc.real(), b.imag()) + rounded_product(acc.imag(), b.real())};
    } else {
      acc = {acc.real() + b.real(), acc.imag() + b.imag()};
    }
  }
  return acc;
}

// Inexact data on WORLD, in place, sizes below and past the team scratch: every member gets the
// combination in team order, bit for bit.
template <typename F, typename C>
size_t complex_team_order(const Team &world, CplxFn<F, C> sum, CplxFn<F, C> prod, const char *tname,
                          uint64_t *iter) {
  const size_t big = (size_t{128} << 10) / sizeof(C) + 37;
  xt::SymBuf<std::complex<F>> buf(big);
  xshmem_barrier_all();
  size_t bad = 0;
  for (int op : {kSum, kProd}) {
    for (size_t n : {size_t{1000}, big}) {
      const uint64_t it = ++*iter;
      for (size_t i = 0; i < n; ++i) buf[i] = cinexact<F>(xt::me(), i, it);
      xt::note("%s_%s team order n %zu", tname, kOpName[op], n);
      CHECK((op == kSum ? sum : prod)(XSHMEM_TEAM_WORLD, reinterpret_cast<C *>(buf.data()),
                                      reinterpret_cast<const C *>(buf.data()), n) == 0);
      for (size_t i = 0; i < n; ++i) {
        const std::complex<F> want = cinexact_expected<F>(op, world, i, it);
        if (!csame(buf[i], want) && ++bad <= 3)
          FAIL_CHECK("pe " << xt::me() << ": xshmem_" << tname << "_" << kOpName[op] << " n " << n
                           << " element " << i << " is " << buf[i] << ", expected (team order) "
                           << want);
      }
    }
  }
  CHECK(buf.guards_ok());
  xshmem_barrier_all();
  return bad;
}

static_assert(XSHMEM_HAVE_COMPLEX_REDUCE == 1, "xshmem.h announces the complex reductions");

}  // namespace

TEST_CASE("COLL-08 complex_sum_prod", "[COLL-08][algo]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PO")) return;
  xt::test_budget(200);
  Bank bank;
  uint64_t iter = 5000000;
  size_t bad = 0;
  bad += complex_type<double, xshmem_complexd_t>(bank, "complexd", xshmem_complexd_sum_reduce,
                                                 xshmem_complexd_prod_reduce, &iter);
  bad += complex_type<float, xshmem_complexf_t>(bank, "complexf", xshmem_complexf_sum_reduce,
                                                xshmem_complexf_prod_reduce, &iter);
  bad += complex_team_order<double, xshmem_complexd_t>(
      bank.teams[0], xshmem_complexd_sum_reduce, xshmem_complexd_prod_reduce, "complexd", &iter);
  bad += complex_team_order<float, xshmem_complexf_t>(
      bank.teams[0], xshmem_complexf_sum_reduce, xshmem_complexf_prod_reduce, "complexf", &iter);
  CHECK(bad == 0);
}

// Inclusive and exclusive sums of every arithmetic type, split like the reduce matrix.
static void scan(bool algo_types) {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PO")) return;
  Bank bank;
  uint64_t iter = 1000000;
  size_t bad = 0;
#define XT_SCAN(T, N)                                                                    \
  if (algo_type(#N, false) == algo_types)                                                \
    matrix_type<T>(bank.teams, #N,                                                       \
                   Fns<T>{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, \
                          xshmem_##N##_sum_inscan, xshmem_##N##_sum_exscan},             \
                   &iter, &bad);
  XSHMEM_REDUCE_ARITH_TYPES(XT_SCAN)
#undef XT_SCAN
  CHECK(bad == 0);
}

TEST_CASE("COLL-09 scan (one type per class and size)", "[COLL-09][algo]") {
  scan(true);
}

TEST_CASE("COLL-09 scan (the other types)", "[COLL-09]") {
  scan(false);
}

// nreduce 0 with NULL buffers returns 0 at once; a 1-PE team (2D rows of one) copies source to
// dest (exscan: zeros).
TEST_CASE("COLL-10 zero_length_and_single_pe", "[COLL-10][algo]") {
  if (!xt::require_npes_in({1, 2, 3}, "P1,P2,3")) return;
  CHECK(xshmem_int_sum_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_double_max_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_uint64_xor_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_long_sum_inscan(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_long_sum_exscan(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_longdouble_prod_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_complexd_sum_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  CHECK(xshmem_complexf_prod_reduce(XSHMEM_TEAM_WORLD, nullptr, nullptr, 0) == 0);
  xshmem_team_t one = XSHMEM_TEAM_INVALID, col = XSHMEM_TEAM_INVALID;
  REQUIRE(xshmem_team_split_2d(XSHMEM_TEAM_WORLD, 1, nullptr, 0, &one, nullptr, 0, &col) == 0);
  REQUIRE(xshmem_team_n_pes(one) == 1);
  const Team t = describe("single", one);
  xt::SymBuf<long> src(big_count<long>()), dst(big_count<long>());
  size_t bad = 0;
  uint64_t iter = 2000000;
  for (int op : {kSum, kMax, kInscan, kExscan}) {
    RedFn<long> fn = op == kSum      ? xshmem_long_sum_reduce
                     : op == kMax    ? xshmem_long_max_reduce
                     : op == kInscan ? xshmem_long_sum_inscan
                                     : xshmem_long_sum_exscan;
    for (size_t n : {size_t{1}, size_t{13}, big_count<long>()})
      for (bool in_place : {false, true})
        bad += run_case<long>(t, fn, "long", Case{op, n, in_place, ++iter}, src, dst);
  }
  CHECK(bad == 0);
  xshmem_barrier_all();
  xshmem_team_destroy(col);
  xshmem_team_destroy(one);
}

// 100 reductions back to back without synchronisation, sizes across chunk boundaries, ops and
// in-place alternating, each checked before the next; then even and odd teams (disjoint) run
// different reductions at the same time.
TEST_CASE("COLL-11 b2b_and_concurrent_teams", "[COLL-11][algo]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS")) return;
  Bank bank;
  const Team &world = bank.teams[0];
  const size_t sizes[] = {1, 3, 64, 4096, 4099, 12000, 33000};
  xt::SymBuf<int> src(33000), dst(33000);
  xshmem_barrier_all();
  size_t bad = 0;
  for (int it = 0; it < 100; ++it) {
    const int op = it % 3 == 0 ? kSum : it % 3 == 1 ? kMax : kInscan;
    RedFn<int> fn = op == kSum   ? xshmem_int_sum_reduce
                    : op == kMax ? xshmem_int_max_reduce
                                 : xshmem_int_sum_inscan;
    const size_t n = sizes[it % 7];
    bad +=
        run_case<int>(world, fn, "int", Case{op, n, it % 4 == 3, 3000000u + it, kTidB2b}, src, dst);
  }
  // Disjoint teams at once: even members sum doubles while odd members run uint64 xor and
  // int64 min, 20 rounds each, without synchronising in between.
  const Team *even = &bank.teams[1];
  const Team *odd = xt::npes() >= 2 ? &bank.teams[2] : nullptr;
  xt::SymBuf<double> ds(5000), dd(5000);
  xt::SymBuf<uint64_t> us(5000), ud(5000);
  xt::SymBuf<int64_t> is(5000), id(5000);
  xshmem_barrier_all();
  for (int r = 0; r < 20; ++r) {
    const size_t n = r % 2 ? 5000 : 77;
    if (even->me >= 0)
      bad += run_case<double>(*even, xshmem_double_sum_reduce, "double",
                              Case{kSum, n, false, 4000000u + r, kTidB2b}, ds, dd);
    if (odd != nullptr && odd->me >= 0) {
      bad += run_case<uint64_t>(*odd, xshmem_uint64_xor_reduce, "uint64",
                                Case{kXor, n, r % 3 == 0, 4100000u + r, kTidB2b}, us, ud);
      bad += run_case<int64_t>(*odd, xshmem_int64_min_reduce, "int64",
                               Case{kMin, n, false, 4200000u + r, kTidB2b}, is, id);
    }
  }
  CHECK(bad == 0);
  xshmem_barrier_all();
}
