// AMO rows of CONFORMANCE.md §4.5 (host API): AMO-01..07.
//
// The type lists come from the X-macro tables of xshmem/types.h, so a type added there is tested
// here without edits. Every PE plays sender and owner at once: it operates on its right
// neighbour's word and owns the word its left neighbour operates on; both sides compute the same
// script (operands and expected old/new values) from (src PE, dst PE, step, iteration).
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.h"

namespace {

constexpr uint32_t kTidOps = 0xA001;
constexpr uint32_t kTidNbi = 0xA002;
constexpr uint32_t kTidBits = 0xA005;
constexpr uint32_t kTidAdj = 0xA007;

using xt::detail::same;
using xt::detail::show;

// Two's-complement wrapping arithmetic (what the atomics do; signed overflow in plain C++
// arithmetic would be undefined).
template <typename T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
T bit_of(unsigned b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U{1} << b));
}
template <typename T>
T atomic_load(const T *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

// ---- Per-type entry points ----------------------------------------------------------------------

// One tag per name of the extended class (a superset of the standard and bitwise names); StdOps and
// BitOps add the operations of the other classes where the name belongs to them.
#define XT_EXT_TAG(T, N)                                                                         \
  struct Tag_##N {                                                                               \
    using type = T;                                                                              \
    static constexpr const char *name = #N;                                                      \
    static T fetch(const T *s, int pe) { return xshmem_##N##_atomic_fetch(s, pe); }              \
    static void set(T *d, T v, int pe) { xshmem_##N##_atomic_set(d, v, pe); }                    \
    static T swap(T *d, T v, int pe) { return xshmem_##N##_atomic_swap(d, v, pe); }              \
    static void fetch_nbi(T *f, const T *s, int pe) { xshmem_##N##_atomic_fetch_nbi(f, s, pe); } \
    static void swap_nbi(T *f, T *d, T v, int pe) { xshmem_##N##_atomic_swap_nbi(f, d, v, pe); } \
  };
XSHMEM_AMO_EXTENDED_TYPES(XT_EXT_TAG)
#undef XT_EXT_TAG

template <class Tag>
struct StdOps {
  static constexpr bool kHas = false;
};
#define XT_STD_OPS(T, N)                                                                           \
  template <>                                                                                      \
  struct StdOps<Tag_##N> {                                                                         \
    static constexpr bool kHas = true;                                                             \
    static T cswap(T *d, T c, T v, int pe) {                                                       \
      return xshmem_##N##_atomic_compare_swap(d, c, v, pe);                                        \
    }                                                                                              \
    static T fetch_inc(T *d, int pe) { return xshmem_##N##_atomic_fetch_inc(d, pe); }              \
    static void inc(T *d, int pe) { xshmem_##N##_atomic_inc(d, pe); }                              \
    static T fetch_add(T *d, T v, int pe) { return xshmem_##N##_atomic_fetch_add(d, v, pe); }      \
    static void add(T *d, T v, int pe) { xshmem_##N##_atomic_add(d, v, pe); }                      \
    static void cswap_nbi(T *f, T *d, T c, T v, int pe) {                                          \
      xshmem_##N##_atomic_compare_swap_nbi(f, d, c, v, pe);                                        \
    }                                                                                              \
    static void fetch_inc_nbi(T *f, T *d, int pe) { xshmem_##N##_atomic_fetch_inc_nbi(f, d, pe); } \
    static void fetch_add_nbi(T *f, T *d, T v, int pe) {                                           \
      xshmem_##N##_atomic_fetch_add_nbi(f, d, v, pe);                                              \
    }                                                                                              \
  };
XSHMEM_AMO_STANDARD_TYPES(XT_STD_OPS)
#undef XT_STD_OPS

template <class Tag>
struct BitOps {
  static constexpr bool kHas = false;
};
#define XT_BIT_OPS(T, N)                                                                      \
  template <>                                                                                 \
  struct BitOps<Tag_##N> {                                                                    \
    static constexpr bool kHas = true;                                                        \
    static T fetch_and(T *d, T v, int pe) { return xshmem_##N##_atomic_fetch_and(d, v, pe); } \
    static void and_(T *d, T v, int pe) { xshmem_##N##_atomic_and(d, v, pe); }                \
    static T fetch_or(T *d, T v, int pe) { return xshmem_##N##_atomic_fetch_or(d, v, pe); }   \
    static void or_(T *d, T v, int pe) { xshmem_##N##_atomic_or(d, v, pe); }                  \
    static T fetch_xor(T *d, T v, int pe) { return xshmem_##N##_atomic_fetch_xor(d, v, pe); } \
    static void xor_(T *d, T v, int pe) { xshmem_##N##_atomic_xor(d, v, pe); }                \
    static void fetch_and_nbi(T *f, T *d, T v, int pe) {                                      \
      xshmem_##N##_atomic_fetch_and_nbi(f, d, v, pe);                                         \
    }                                                                                         \
    static void fetch_or_nbi(T *f, T *d, T v, int pe) {                                       \
      xshmem_##N##_atomic_fetch_or_nbi(f, d, v, pe);                                          \
    }                                                                                         \
    static void fetch_xor_nbi(T *f, T *d, T v, int pe) {                                      \
      xshmem_##N##_atomic_fetch_xor_nbi(f, d, v, pe);                                         \
    }                                                                                         \
  };
XSHMEM_AMO_BITWISE_TYPES(XT_BIT_OPS)
#undef XT_BIT_OPS

// ---- Operation model ----------------------------------------------------------------------------

enum class Op {
  kFetch,
  kSet,
  kSwap,
  kFetchNbi,
  kSwapNbi,  // extended
  kCswap,
  kCswapNbi,
  kFetchInc,
  kInc,
  kFetchIncNbi,
  kFetchAdd,
  kAdd,
  kFetchAddNbi,  // standard
  kFetchAnd,
  kAnd,
  kFetchAndNbi,
  kFetchOr,
  kOr,
  kFetchOrNbi,
  kFetchXor,
  kXor,
  kFetchXorNbi,
};

const char *op_name(Op op) {
  switch (op) {
    case Op::kFetch:
      return "atomic_fetch";
    case Op::kSet:
      return "atomic_set";
    case Op::kSwap:
      return "atomic_swap";
    case Op::kFetchNbi:
      return "atomic_fetch_nbi";
    case Op::kSwapNbi:
      return "atomic_swap_nbi";
    case Op::kCswap:
      return "atomic_compare_swap";
    case Op::kCswapNbi:
      return "atomic_compare_swap_nbi";
    case Op::kFetchInc:
      return "atomic_fetch_inc";
    case Op::kInc:
      return "atomic_inc";
    case Op::kFetchIncNbi:
      return "atomic_fetch_inc_nbi";
    case Op::kFetchAdd:
      return "atomic_fetch_add";
    case Op::kAdd:
      return "atomic_add";
    case Op::kFetchAddNbi:
      return "atomic_fetch_add_nbi";
    case Op::kFetchAnd:
      return "atomic_fetch_and";
    case Op::kAnd:
      return "atomic_and";
    case Op::kFetchAndNbi:
      return "atomic_fetch_and_nbi";
    case Op::kFetchOr:
      return "atomic_fetch_or";
    case Op::kOr:
      return "atomic_or";
    case Op::kFetchOrNbi:
      return "atomic_fetch_or_nbi";
    case Op::kFetchXor:
      return "atomic_fetch_xor";
    case Op::kXor:
      return "atomic_xor";
    case Op::kFetchXorNbi:
      return "atomic_fetch_xor_nbi";
  }
  return "?";
}
bool is_fetching(Op op) {
  return op != Op::kSet && op != Op::kInc && op != Op::kAdd && op != Op::kAnd && op != Op::kOr &&
         op != Op::kXor;
}
bool is_nbi(Op op) {
  return op == Op::kFetchNbi || op == Op::kSwapNbi || op == Op::kCswapNbi ||
         op == Op::kFetchIncNbi || op == Op::kFetchAddNbi || op == Op::kFetchAndNbi ||
         op == Op::kFetchOrNbi || op == Op::kFetchXorNbi;
}

// One operation of a script: operands a (value, cond or mask) and b (cswap's new value), and the
// value the word holds before (= the fetched value) and after it.
template <typename T>
struct Step {
  Op op;
  T a, b, old, now;
};

template <typename T>
T apply(Op op, T old, T a, T b) {
  switch (op) {
    case Op::kFetch:
    case Op::kFetchNbi:
      return old;
    case Op::kSet:
    case Op::kSwap:
    case Op::kSwapNbi:
      return a;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::kCswap:
      case Op::kCswapNbi:
        return old == a ? b : old;
      case Op::kFetchInc:
      case Op::kInc:
      case Op::kFetchIncNbi:
        return wrap_add(old, T{1});
      case Op::kFetchAdd:
      case Op::kAdd:
      case Op::kFetchAddNbi:
        return wrap_add(old, a);
      case Op::kFetchAnd:
      case Op::kAnd:
      case Op::kFetchAndNbi:
        return static_cast<T>(old & a);
      case Op::kFetchOr:
      case Op::kOr:
      case Op::kFetchOrNbi:
        return static_cast<T>(old | a);
      case Op::kFetchXor:
      case Op::kXor:
      case Op::kFetchXorNbi:
        return static_cast<T>(old ^ a);
      default:
        break;
    }
  }
  return old;
}

// Builds scripts while tracking the modelled value of the word.
template <typename T>
struct Script {
  T cur;
  std::vector<Step<T>> steps;
  explicit Script(T init) : cur(init) {}
  void add(Op op, T a = T{}, T b = T{}) {
    T now = apply(op, cur, a, b);
    steps.push_back(Step<T>{op, a, b, cur, now});
    cur = now;
  }
};

// Issues one step on `dest` at `pe`; a fetching step leaves the fetched value in *fetch (nbi
// steps: after the next quiet).
template <class Tag, typename T = typename Tag::type>
void issue(const Step<T> &s, T *dest, int pe, T *fetch) {
  switch (s.op) {
    case Op::kFetch:
      *fetch = Tag::fetch(dest, pe);
      return;
    case Op::kSet:
      Tag::set(dest, s.a, pe);
      return;
    case Op::kSwap:
      *fetch = Tag::swap(dest, s.a, pe);
      return;
    case Op::kFetchNbi:
      Tag::fetch_nbi(fetch, dest, pe);
      return;
    case Op::kSwapNbi:
      Tag::swap_nbi(fetch, dest, s.a, pe);
      return;
    default:
      break;
  }
  if constexpr (StdOps<Tag>::kHas) {
    using S = StdOps<Tag>;
    switch (s.op) {
      case Op::kCswap:
        *fetch = S::cswap(dest, s.a, s.b, pe);
        return;
      case Op::kCswapNbi:
        S::cswap_nbi(fetch, dest, s.a, s.b, pe);
        return;
      case Op::kFetchInc:
        *fetch = S::fetch_inc(dest, pe);
        return;
      case Op::kInc:
        S::inc(dest, pe);
        return;
      case Op::kFetchIncNbi:
        S::fetch_inc_nbi(fetch, dest, pe);
        return;
      case Op::kFetchAdd:
        *fetch = S::fetch_add(dest, s.a, pe);
        return;
      case Op::kAdd:
        S::add(dest, s.a, pe);
        return;
      case Op::kFetchAddNbi:
        S::fetch_add_nbi(fetch, dest, s.a, pe);
        return;
      default:
        break;
    }
  }
  if constexpr (BitOps<Tag>::kHas) {
    using B = BitOps<Tag>;
    switch (s.op) {
      case Op::kFetchAnd:
        *fetch = B::fetch_and(dest, s.a, pe);
        return;
      case Op::kAnd:
        B::and_(dest, s.a, pe);
        return;
      case Op::kFetchAndNbi:
        B::fetch_and_nbi(fetch, dest, s.a, pe);
        return;
      case Op::kFetchOr:
        *fetch = B::fetch_or(dest, s.a, pe);
        return;
      case Op::kOr:
        B::or_(dest, s.a, pe);
        return;
      case Op::kFetchOrNbi:
        B::fetch_or_nbi(fetch, dest, s.a, pe);
        return;
      case Op::kFetchXor:
        *fetch = B::fetch_xor(dest, s.a, pe);
        return;
      case Op::kXor:
        B::xor_(dest, s.a, pe);
        return;
      case Op::kFetchXorNbi:
        B::fetch_xor_nbi(fetch, dest, s.a, pe);
        return;
      default:
        break;
    }
  }
  FAIL_CHECK("test bug: " << op_name(s.op) << " is not an operation of type " << Tag::name);
}

// Runs the script gen(src, dst) between every PE (sender, to its right neighbour) and its left
// neighbour (owner): after each step the sender checks the fetched value, then (after a barrier)
// the owner checks the new value of its word and the guard bands around it.
template <class Tag, typename Gen>
void run_pairwise(const char *what, Gen gen) {
  using T = typename Tag::type;
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const Script<T> send = gen(me, right);
  const Script<T> mine = gen(left, me);
  REQUIRE(send.steps.size() == mine.steps.size());

  xt::SymBuf<T> word(1);
  xt::LocalBuf<T> fetch(1);
  word[0] = mine.steps.empty() ? T{} : mine.steps.front().old;
  xshmem_barrier_all();
  for (size_t k = 0; k < send.steps.size(); ++k) {
    const Step<T> &s = send.steps[k];
    xt::note("%s: %s %s step %zu to pe %d", what, Tag::name, op_name(s.op), k, right);
    fetch.poison();
    issue<Tag>(s, word.data(), right, fetch.data());
    if (is_nbi(s.op)) xshmem_quiet();
    if (is_fetching(s.op) && !same(fetch[0], s.old)) {
      FAIL_CHECK("pe " << me << ": " << what << ": xshmem_" << Tag::name << "_" << op_name(s.op)
                       << " (step " << k << ", to pe " << right << ") fetched " << show(fetch[0])
                       << ", expected " << show(s.old));
    }
    if (!fetch.guards_ok())
      FAIL_CHECK("pe " << me << ": " << what << ": " << Tag::name << "_" << op_name(s.op)
                       << " wrote outside its fetch buffer");
    xshmem_barrier_all();
    const Step<T> &m = mine.steps[k];
    const T got = word[0];
    if (!same(got, m.now)) {
      FAIL_CHECK("pe " << me << ": " << what << ": after xshmem_" << Tag::name << "_"
                       << op_name(m.op) << " from pe " << left << " (step " << k
                       << ") the word holds " << show(got) << ", expected " << show(m.now)
                       << " (was " << show(m.old) << ", operand " << show(m.a) << ")");
    }
    if (!word.guards_ok())
      FAIL_CHECK("pe " << me << ": " << what << ": guard band around the word damaged by "
                       << Tag::name << "_" << op_name(m.op) << " (step " << k << ")");
    xshmem_barrier_all();
  }
}

// AMO-01: every operation of every class the type belongs to; operands from xt::value.
template <class Tag>
void ops_matrix() {
  using T = typename Tag::type;
  auto gen = [](int src, int dst) {
    size_t k = 0;
    auto v = [&]() { return xt::value<T>(src, dst, k++, 0, kTidOps); };
    Script<T> s(v());
    s.add(Op::kFetch);
    s.add(Op::kSet, v());
    s.add(Op::kFetch);
    s.add(Op::kSwap, v());
    s.add(Op::kFetchNbi);
    s.add(Op::kSwapNbi, v());
    s.add(Op::kSwap, v());
    if constexpr (StdOps<Tag>::kHas) {
      s.add(Op::kCswap, wrap_add(s.cur, T{1}), v());  // not equal: no change
      s.add(Op::kCswap, s.cur, v());                  // equal: swapped
      s.add(Op::kCswapNbi, s.cur, v());
      s.add(Op::kCswapNbi, static_cast<T>(~s.cur), v());
      s.add(Op::kFetchInc);
      s.add(Op::kInc);
      s.add(Op::kFetchIncNbi);
      s.add(Op::kFetchAdd, v());
      s.add(Op::kAdd, v());
      s.add(Op::kFetchAddNbi, v());
      s.add(Op::kFetch);
    }
    if constexpr (BitOps<Tag>::kHas) {
      s.add(Op::kSet, v());
      s.add(Op::kFetchOr, v());
      s.add(Op::kFetchAnd, v());
      s.add(Op::kFetchXor, v());
      s.add(Op::kOr, v());
      s.add(Op::kAnd, v());
      s.add(Op::kXor, v());
      s.add(Op::kFetchOrNbi, v());
      s.add(Op::kFetchAndNbi, v());
      s.add(Op::kFetchXorNbi, v());
      s.add(Op::kFetch);
    }
    return s;
  };
  run_pairwise<Tag>("AMO-01", gen);
}

// AMO-06: boundary values: wrap-around of inc/add in both directions, negative addends, extremes,
// compare_swap equal / not equal at the extremes, swap returning the old extreme.
template <class Tag>
void boundaries() {
  using T = typename Tag::type;
  if constexpr (StdOps<Tag>::kHas) {
    auto gen = [](int, int) {
      const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      const T m1 = static_cast<T>(~T{0});  // -1, or the maximum of an unsigned type
      Script<T> s(T{0});
      s.add(Op::kSet, T{0});
      s.add(Op::kFetchAdd, static_cast<T>(wrap_add(m1, static_cast<T>(~T{3}))));  // += -5
      s.add(Op::kFetchAdd, T{3});                                                 // -2
      s.add(Op::kFetchInc);                                                       // -1
      s.add(Op::kFetchInc);                                                       // 0 (wraps)
      s.add(Op::kAdd, lo);
      s.add(Op::kFetchAdd, m1);      // min - 1 wraps to max
      s.add(Op::kFetchInc);          // max + 1 wraps to min
      s.add(Op::kCswap, hi, T{0});   // not equal at an extreme
      s.add(Op::kCswap, s.cur, hi);  // equal at an extreme
      s.add(Op::kSwap, lo);
      s.add(Op::kSwap, hi);
      s.add(Op::kFetchAdd, hi);  // max + max
      s.add(Op::kSet, lo);
      s.add(Op::kFetchAdd, lo);  // min + min
      s.add(Op::kInc);
      s.add(Op::kCswapNbi, hi, lo);
      s.add(Op::kCswapNbi, s.cur, static_cast<T>(lo + T{1}) /* min+1: no overflow */);
      s.add(Op::kFetchAddNbi, m1);
      s.add(Op::kSet, static_cast<T>(hi - T{1}));
      s.add(Op::kFetchIncNbi);
      s.add(Op::kFetchIncNbi);  // wraps
      if constexpr (BitOps<Tag>::kHas) {
        s.add(Op::kFetchXor, m1);
        s.add(Op::kFetchOr, hi);
        s.add(Op::kFetchAnd, lo);
        s.add(Op::kFetchXor, lo);
        s.add(Op::kFetchAndNbi, m1);
      }
      s.add(Op::kFetch);
      return s;
    };
    run_pairwise<Tag>("AMO-06", gen);
  }
}

// AMO-02: ladders of fetching nbi operations to every PE, each step separated by a fence (fence
// orders the operations' delivery, not the fetched values); one quiet; all fetched values exact.
template <class Tag>
void nbi_ladder() {
  using T = typename Tag::type;
  const int me = xt::me(), n = xt::npes();
  auto gen = [](int src, int dst) {
    size_t k = 0;
    auto v = [&]() { return xt::value<T>(src, dst, k++, 0, kTidNbi); };
    Script<T> s(v());
    s.add(Op::kFetchNbi);
    s.add(Op::kSwapNbi, v());
    s.add(Op::kSwapNbi, v());
    if constexpr (StdOps<Tag>::kHas) {
      s.add(Op::kCswapNbi, s.cur, v());                  // succeeds
      s.add(Op::kCswapNbi, wrap_add(s.cur, T{7}), v());  // fails
      s.add(Op::kFetchIncNbi);
      s.add(Op::kFetchAddNbi, v());
      s.add(Op::kCswapNbi, s.cur, v());
    }
    if constexpr (BitOps<Tag>::kHas) {
      s.add(Op::kFetchXorNbi, v());
      s.add(Op::kFetchOrNbi, v());
      s.add(Op::kFetchAndNbi, v());
    }
    s.add(Op::kSwapNbi, v());
    s.add(Op::kFetchNbi);
    return s;
  };
  // slot[src] on every PE belongs to PE src.
  xt::SymBuf<T> slot(static_cast<size_t>(n));
  for (int src = 0; src < n; ++src) slot[src] = gen(src, me).steps.front().old;
  std::vector<Script<T>> scripts;
  for (int d = 0; d < n; ++d) scripts.push_back(gen(me, d));
  const size_t len = scripts[0].steps.size();
  xt::LocalBuf<T> fetched(static_cast<size_t>(n) * len);
  xshmem_barrier_all();

  xt::note("AMO-02 %s nbi ladders to all pes", Tag::name);
  // Interleave destinations: step k to every PE, then one fence, then step k+1.
  for (size_t k = 0; k < len; ++k) {
    for (int j = 0; j < n; ++j) {
      const int d = (me + j) % n;
      issue<Tag>(scripts[d].steps[k], slot.data() + me, d, fetched.data() + d * len + k);
    }
    xshmem_fence();
  }
  xshmem_quiet();
  size_t bad = 0;
  for (int d = 0; d < n; ++d) {
    for (size_t k = 0; k < len; ++k) {
      const Step<T> &s = scripts[d].steps[k];
      const T got = fetched[d * len + k];
      if (!same(got, s.old) && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": AMO-02 " << Tag::name << "_" << op_name(s.op) << " step " << k
                         << " to pe " << d << " fetched " << show(got) << ", expected "
                         << show(s.old));
    }
  }
  CHECK(bad == 0);
  CHECK(fetched.guards_ok());
  xshmem_barrier_all();
  for (int src = 0; src < n; ++src) {
    const T want = gen(src, me).cur;
    if (!same(slot[src], want))
      FAIL_CHECK("pe " << me << ": AMO-02 " << Tag::name << " slot of pe " << src << " holds "
                       << show(slot[src]) << " after the ladder, expected " << show(want));
  }
  CHECK(slot.guards_ok());
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("AMO-01 ops_types_matrix", "[AMO-01]") {
  if (!xt::require_npes_in({2, 3}, "P2,3")) return;
    // No context API exists yet (xshmem.h has no ctx_* calls): the ctx variants are not testable.
#define XT_RUN(T, N) ops_matrix<Tag_##N>();
  XSHMEM_AMO_EXTENDED_TYPES(XT_RUN)
#undef XT_RUN
}

TEST_CASE("AMO-02 nbi_fetching", "[AMO-02]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
#define XT_RUN(T, N) nbi_ladder<Tag_##N>();
  XSHMEM_AMO_EXTENDED_TYPES(XT_RUN)
#undef XT_RUN
}

namespace {

// AMO-03 for one type: K increments per PE on a counter at PE 0 that starts at `base`; the
// fetched values of all PEs, gathered on PE 0 with puts, are base + a permutation of 0..total-1.
template <class Tag>
void uniqueness(typename Tag::type base) {
  using T = typename Tag::type;
  using S = StdOps<Tag>;
  using U = std::make_unsigned_t<T>;
  const int me = xt::me(), n = xt::npes();
  constexpr size_t K = 1000;
  const size_t total = K * static_cast<size_t>(n);
  auto offset = [base](T v) { return static_cast<U>(static_cast<U>(v) - static_cast<U>(base)); };
  xt::SymBuf<T> counter(1);
  xt::SymBuf<T> gathered(total);
  std::vector<T> mine(K);
  if (me == 0) counter[0] = base;
  xshmem_barrier_all();

  xt::note("AMO-03 %s: %zu increments of the counter on pe 0", Tag::name, K);
  // The four fetching increments, interleaved: fetch_inc, fetch_add(1) and their nbi forms.
  for (size_t k = 0; k < K; ++k) {
    switch (k % 4) {
      case 0:
        mine[k] = S::fetch_inc(counter.data(), 0);
        break;
      case 1:
        mine[k] = S::fetch_add(counter.data(), T{1}, 0);
        break;
      case 2:
        S::fetch_inc_nbi(&mine[k], counter.data(), 0);
        break;
      default:
        S::fetch_add_nbi(&mine[k], counter.data(), T{1}, 0);
        break;
    }
  }
  xshmem_quiet();
  // This PE's blocking increments are ordered: their fetched values grow.
  for (size_t k = 1; k < K; ++k) {
    if (k % 4 > 1) continue;
    const size_t prev = (k % 4 == 1) ? k - 1 : k - 3;
    if (offset(mine[k]) <= offset(mine[prev]))
      FAIL_CHECK("pe " << me << ": AMO-03 " << Tag::name << ": blocking increment " << k
                       << " fetched " << show(mine[k]) << " after increment " << prev << " fetched "
                       << show(mine[prev]));
  }
  xshmem_putmem(gathered.data() + static_cast<size_t>(me) * K, mine.data(), K * sizeof(T), 0);
  xshmem_barrier_all();
  if (me == 0) {
    const T want = static_cast<T>(static_cast<U>(static_cast<U>(base) + static_cast<U>(total)));
    if (!same(counter[0], want))
      FAIL_CHECK("AMO-03 " << Tag::name << ": counter holds " << show(counter[0]) << " after "
                           << total << " increments from " << show(base) << ", expected "
                           << show(want));
    std::vector<U> seen(total);
    for (size_t i = 0; i < total; ++i) seen[i] = offset(gathered[i]);
    std::sort(seen.begin(), seen.end());
    size_t bad = 0;
    for (size_t i = 0; i < total; ++i) {
      if (seen[i] != static_cast<U>(i) && ++bad <= 4)
        FAIL_CHECK("AMO-03 " << Tag::name << ": fetched values are not a permutation: sorted "
                             << "offset " << i << " is "
                             << static_cast<unsigned long long>(seen[i]));
    }
    CHECK(bad == 0);
    CHECK(counter.guards_ok());
    CHECK(gathered.guards_ok());
  }
  xshmem_barrier_all();
}

// AMO-04 for one type: the counter on PE 0 climbs base-1, base, ..., base+npes-1; PE i's
// compare_swap(base+i-1 -> base+i) succeeds exactly once, and every value it fetches on the way
// lies in range and never decreases.
template <class Tag>
void cswap_chain(int round) {
  using T = typename Tag::type;
  using S = StdOps<Tag>;
  const int me = xt::me(), n = xt::npes();
  const T base = static_cast<T>(static_cast<T>(round) * T{1000});
  const T expect = static_cast<T>(base + static_cast<T>(me) - T{1});
  const T mine = static_cast<T>(base + static_cast<T>(me));
  const T top = static_cast<T>(base + static_cast<T>(n) - T{1});
  xt::SymBuf<T> counter(1);
  if (me == 0) counter[0] = static_cast<T>(base - T{1});
  xshmem_barrier_all();

  // Positions relative to the start value base-1 (unsigned: the start wraps for unsigned types).
  using U = std::make_unsigned_t<T>;
  auto pos = [base](T v) {
    return static_cast<U>(static_cast<U>(v) - static_cast<U>(static_cast<T>(base - T{1})));
  };
  const U my_pos = static_cast<U>(me) + 1, top_pos = static_cast<U>(n);
  U last = 0;
  size_t out_of_order = 0;
  char what[160];
  std::snprintf(what, sizeof what, "the %s counter on pe 0 to reach %lld (cswap chain, round %d)",
                Tag::name, static_cast<long long>(expect), round);
  xt::note("AMO-04 %s", what);
  xt::wait_for(what, [&] {
    const T old = S::cswap(counter.data(), expect, mine, 0);
    if (pos(old) > top_pos || pos(old) < last) ++out_of_order;
    last = pos(old);
    return old == expect;
  });
  if (out_of_order != 0)
    FAIL_CHECK("pe " << me << ": AMO-04 " << Tag::name << ": " << out_of_order
                     << " compare_swap attempts fetched a value out of range or lower than before");
  // A second attempt must fail: the counter has moved past `expect` for good.
  const T again = S::cswap(counter.data(), expect, mine, 0);
  if (!(pos(again) >= my_pos && pos(again) <= top_pos))
    FAIL_CHECK("pe " << me << ": AMO-04 " << Tag::name << ": repeated compare_swap fetched "
                     << show(again) << ", expected a value in [" << show(mine) << ", " << show(top)
                     << "]");
  xshmem_barrier_all();
  if (me == 0) {
    if (!same(counter[0], top))
      FAIL_CHECK("AMO-04 " << Tag::name << ": chain ended at " << show(counter[0]) << ", expected "
                           << show(top));
    CHECK(counter.guards_ok());
  }
  xshmem_barrier_all();
}

// AMO-04, lock-style retry loop: a spin lock on PE 0 (compare_swap 0 -> me+1, released with
// swap) guards a plain get/put counter and a history of holders; both come out exact.
void cswap_lock(int rounds) {
  const int me = xt::me(), n = xt::npes();
  const size_t total = static_cast<size_t>(rounds) * static_cast<size_t>(n);
  xt::SymBuf<long> lock(1), counter(1);
  xt::SymBuf<int> history(total);
  if (me == 0) {
    lock[0] = 0;
    counter[0] = 0;
  }
  xshmem_barrier_all();
  size_t bad_holder = 0, bad_release = 0;
  for (int r = 0; r < rounds; ++r) {
    xt::note("AMO-04 lock round %d", r);
    xt::wait_for("the lock word on pe 0 to be free (compare_swap 0 -> me+1)", [&] {
      return xshmem_long_atomic_compare_swap(lock.data(), 0L, static_cast<long>(me + 1), 0) == 0;
    });
    if (xshmem_long_atomic_fetch(lock.data(), 0) != me + 1) ++bad_holder;
    const long c = xshmem_long_g(counter.data(), 0);
    if (c >= 0 && static_cast<size_t>(c) < total) xshmem_int_p(history.data() + c, me, 0);
    xshmem_long_p(counter.data(), c + 1, 0);
    xshmem_quiet();  // the critical section's puts complete before the lock is released
    if (xshmem_long_atomic_swap(lock.data(), 0L, 0) != me + 1) ++bad_release;
  }
  CHECK(bad_holder == 0);
  CHECK(bad_release == 0);
  xshmem_barrier_all();
  if (me == 0) {
    CHECK(counter[0] == static_cast<long>(total));
    CHECK(lock[0] == 0);
    std::vector<int> per_pe(static_cast<size_t>(n), 0);
    for (size_t i = 0; i < total; ++i) {
      const int h = history[i];
      if (h >= 0 && h < n) {
        ++per_pe[static_cast<size_t>(h)];
      } else {
        FAIL_CHECK("AMO-04 lock: history slot " << i << " holds " << h << ", not a PE");
      }
    }
    for (int p = 0; p < n; ++p) {
      INFO("lock acquisitions of pe " << p);
      CHECK(per_pe[static_cast<size_t>(p)] == rounds);
    }
    CHECK(history.guards_ok());
  }
  xshmem_barrier_all();
}

// AMO-05 for one type: every PE owns one bit of a word on every PE (bit me, or width-1-me) and
// sets, clears and toggles it there with fetch_or/and/xor and their non-fetching forms. The other
// bits start from a value-derived pattern and must never change; each fetched value shows the
// owner's bit as the owner last left it.
template <class Tag>
void ownership() {
  using T = typename Tag::type;
  using B = BitOps<Tag>;
  const int me = xt::me(), n = xt::npes();
  const unsigned width = 8 * sizeof(T);
  xt::SymBuf<T> word(1);
  for (int round = 0; round < 2; ++round) {
    auto bit_index = [&](int pe) {
      return round == 0 ? static_cast<unsigned>(pe) : width - 1 - static_cast<unsigned>(pe);
    };
    T all = T{0};
    for (int p = 0; p < n; ++p) all = static_cast<T>(all | bit_of<T>(bit_index(p)));
    const T others = static_cast<T>(~all);
    const T bit = bit_of<T>(bit_index(me));
    auto w0 = [&](int p) { return xt::value<T>(p, p, 0, static_cast<uint64_t>(round), kTidBits); };
    word[0] = w0(me);
    xshmem_barrier_all();

    // fetch: apply a fetching op to every PE; the own bit before must be `before`.
    auto fetching = [&](const char *name, T (*op)(T *, T, int), T operand, int before_code) {
      xt::note("AMO-05 %s %s round %d", Tag::name, name, round);
      for (int j = 0; j < n; ++j) {
        const int p = (me + j) % n;
        const T f = op(word.data(), operand, p);
        const bool own = (f & bit) != 0;
        // before_code: 0 or 1, or -1 for "as in the initial pattern of pe p".
        const bool before = before_code < 0 ? (w0(p) & bit) != 0 : before_code == 1;
        if (static_cast<T>(f & others) != static_cast<T>(w0(p) & others) || own != before)
          FAIL_CHECK("pe " << me << ": AMO-05 " << Tag::name << "_" << name << " on pe " << p
                           << " (round " << round << ") fetched " << show(f) << "; bits not owned "
                           << "should be " << show(static_cast<T>(w0(p) & others)) << ", own bit "
                           << bit_index(me) << " should be " << before);
      }
    };
    auto plain = [&](const char *name, void (*op)(T *, T, int), T operand) {
      xt::note("AMO-05 %s %s round %d", Tag::name, name, round);
      for (int j = 0; j < n; ++j) op(word.data(), operand, (me + j) % n);
    };
    auto expect_word = [&](const char *after, T want) {
      xshmem_barrier_all();
      if (!same(word[0], want))
        FAIL_CHECK("pe " << me << ": AMO-05 " << Tag::name << " after " << after << " (round "
                         << round << ") the word is " << show(word[0]) << ", expected "
                         << show(want));
      CHECK(word.guards_ok());
      xshmem_barrier_all();
    };
    const T base = static_cast<T>(w0(me) & others);
    fetching("atomic_fetch_or", &B::fetch_or, bit, -1);
    expect_word("fetch_or", static_cast<T>(base | all));
    fetching("atomic_fetch_and", &B::fetch_and, static_cast<T>(~bit), 1);
    expect_word("fetch_and", base);
    fetching("atomic_fetch_xor", &B::fetch_xor, bit, 0);
    expect_word("fetch_xor", static_cast<T>(base | all));
    plain("atomic_xor", &B::xor_, bit);
    expect_word("xor", base);
    plain("atomic_or", &B::or_, bit);
    expect_word("or", static_cast<T>(base | all));
    plain("atomic_and", &B::and_, static_cast<T>(~bit));
    expect_word("and", base);
    // Every owner restores its bit of the initial pattern on every PE.
    for (int j = 0; j < n; ++j) {
      const int p = (me + j) % n;
      if (w0(p) & bit) B::or_(word.data(), bit, p);
    }
    expect_word("restoring the initial bits", w0(me));
  }
}

// AMO-07 for one 32-bit type: words[2p] is PE p's fetch_add counter and words[2p+1] the target
// of PE p-1's single-element puts, all on PE 0: AMOs and puts hit adjacent 32-bit halves of the
// same 8-byte words concurrently. Every fetched value and final word is exact.
template <class Tag>
void adjacent(void (*put_one)(typename Tag::type *, typename Tag::type, int)) {
  using T = typename Tag::type;
  using S = StdOps<Tag>;
  static_assert(sizeof(T) == 4, "AMO-07 is about adjacent 32-bit words");
  const int me = xt::me(), n = xt::npes();
  const int right = (me + 1) % n;
  // At 8 PEs on 2 oversubscribed cores each PE does fewer rounds; the contention stays the same.
  const uint64_t rounds = n <= 4 ? 2000 : 1000;
  auto init = [](int p) { return xt::value<T>(p, 0, 0, 0, kTidAdj); };
  auto addend = [](int p, uint64_t r) {
    return static_cast<T>(xt::value<uint32_t>(p, 0, r, 1, kTidAdj) & 0xFFFFu);
  };
  auto put_value = [](int p, uint64_t r) { return xt::value<T>(p, 0, r, 2, kTidAdj); };
  auto final_of = [&](int p) {
    T v = init(p);
    for (uint64_t r = 0; r < rounds; ++r) v = wrap_add(v, addend(p, r));
    return v;
  };
  xt::SymBuf<T> words(2 * static_cast<size_t>(n));
  if (me == 0) {
    for (int p = 0; p < n; ++p) {
      words[2 * p] = init(p);
      words[2 * p + 1] = xt::value<T>(p, 0, 0, 3, kTidAdj);
    }
  }
  xshmem_barrier_all();
  xt::note("AMO-07 %s: %llu fetch_add + p rounds into pe 0", Tag::name,
           static_cast<unsigned long long>(rounds));
  T cur = init(me);
  size_t bad = 0;
  for (uint64_t r = 0; r < rounds; ++r) {
    const T f = S::fetch_add(words.data() + 2 * me, addend(me, r), 0);
    if (!same(f, cur) && ++bad <= 4)
      FAIL_CHECK("pe " << me << ": AMO-07 " << Tag::name << " fetch_add round " << r << " fetched "
                       << show(f) << ", expected " << show(cur));
    cur = wrap_add(cur, addend(me, r));
    put_one(words.data() + 2 * right + 1, put_value(me, r), 0);
  }
  CHECK(bad == 0);
  xshmem_barrier_all();
  if (me == 0) {
    for (int p = 0; p < n; ++p) {
      const int writer = (p + n - 1) % n;
      const T want_amo = final_of(p), want_put = put_value(writer, rounds - 1);
      if (!same(words[2 * p], want_amo))
        FAIL_CHECK("AMO-07 " << Tag::name << ": counter word of pe " << p << " is "
                             << show(words[2 * p]) << ", expected " << show(want_amo));
      if (!same(words[2 * p + 1], want_put))
        FAIL_CHECK("AMO-07 " << Tag::name << ": put word written by pe " << writer << " is "
                             << show(words[2 * p + 1]) << ", expected " << show(want_put));
    }
    CHECK(words.guards_ok());
  }
  xshmem_barrier_all();
}

}  // namespace

TEST_CASE("AMO-03 fetch_add_uniqueness", "[AMO-03]") {
  if (!xt::require_npes_in({1, 2, 3, 4, 5, 7, 8}, "PS,PW")) return;
  uniqueness<Tag_int32>(0);
  uniqueness<Tag_uint32>(0xFFFFFE00u);                      // crosses the unsigned wrap
  uniqueness<Tag_int64>(-777);                              // crosses zero
  uniqueness<Tag_uint64>(~static_cast<uint64_t>(0) - 499);  // crosses the unsigned wrap
}

TEST_CASE("AMO-04 cswap_chain", "[AMO-04]") {
  if (!xt::require_npes_in({2, 3, 4, 5, 7, 8}, "PS,PO")) return;
  for (int round = 0; round < 3; ++round) {
    cswap_chain<Tag_long>(round);
    cswap_chain<Tag_int32>(round);
    cswap_chain<Tag_uint64>(round);
  }
  cswap_lock(xt::npes() <= 4 ? 40 : 15);
}

TEST_CASE("AMO-05 bitwise_ownership", "[AMO-05]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
#define XT_RUN(T, N) ownership<Tag_##N>();
  XSHMEM_AMO_BITWISE_TYPES(XT_RUN)
#undef XT_RUN
}

TEST_CASE("AMO-06 boundary_values", "[AMO-06]") {
  if (!xt::require_npes_in({2}, "P2")) return;
#define XT_RUN(T, N) boundaries<Tag_##N>();
  XSHMEM_AMO_STANDARD_TYPES(XT_RUN)
#undef XT_RUN
}

TEST_CASE("AMO-07 adjacent_words", "[AMO-07]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  adjacent<Tag_uint32>(&xshmem_uint32_p);
  adjacent<Tag_int32>(&xshmem_int32_p);
  adjacent<Tag_uint>(&xshmem_uint_p);
}
