// GLOB rows (docs/globals.md; issue 14 item 2): the executable's global and static variables are
// symmetric objects on CPU PEs -- RMA, atomics, signals, waits, collectives, xshmem_ptr and
// xshmem_addr_accessible on them, on every transport that serves host heaps.
//
// Every target below is a global or a static of this executable (.data when initialised, .bss
// when not), never heap memory, with guard words around it; the data are PE dependent.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"

namespace {

constexpr size_t kN = 1031;  // elements of the bulk arrays (odd: no power-of-two luck)
constexpr size_t kG = 16;    // guard elements on each side
constexpr uint64_t kGuard = 0xD1CEB00CD1CEB00Cull;

// .bss: zero at start, guards set by reset().
struct Guarded {
  uint64_t lo[kG];
  uint64_t v[kN];
  uint64_t hi[kG];
};
Guarded g_bss;
// .data: initialised at static-init time, so its contents must survive xshmem_init.
int32_t g_data_init[8] = {11, -22, 33, -44, 55, -66, 77, -88};
struct GuardedInts {
  int32_t lo[kG];
  int32_t v[64];
  int32_t hi[kG];
} g_data = {{1}, {2}, {3}};
// Atomics, signals and waits.
uint64_t g_counter;
long g_longs[4];
uint64_t g_sig;
uint64_t g_flag;
// Collectives.
int64_t g_src[32];
int64_t g_dst[32 * 8 + 8];

void reset_bss() {
  for (size_t i = 0; i < kG; ++i) g_bss.lo[i] = g_bss.hi[i] = kGuard;
  std::fill(std::begin(g_bss.v), std::end(g_bss.v), 0xA5A5A5A5A5A5A5A5ull);
}

bool bss_guards_ok() {
  for (size_t i = 0; i < kG; ++i)
    if (g_bss.lo[i] != kGuard || g_bss.hi[i] != kGuard) return false;
  return true;
}

// A function-local static (also .bss).
int64_t *local_static() {
  static int64_t s[kG + 32 + kG];
  return s;
}

}  // namespace

TEST_CASE("GLOB-01 rma_on_globals: put, get, p, g, iput, nbi to .data, .bss and statics",
          "[GLOB-01]") {
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  // The initialised array kept its static-init values through xshmem_init.
  const int32_t want_init[8] = {11, -22, 33, -44, 55, -66, 77, -88};
  CHECK(std::memcmp(g_data_init, want_init, sizeof want_init) == 0);
  CHECK(xshmem_addr_accessible(g_bss.v, right) == 1);
  CHECK(xshmem_addr_accessible(&g_data, left) == 1);

  for (uint64_t iter = 0; iter < 3; ++iter) {
    xt::note("GLOB-01 iteration %llu", static_cast<unsigned long long>(iter));
    reset_bss();
    for (size_t i = 0; i < kG; ++i) g_data.lo[i] = g_data.hi[i] = -7;
    int64_t *st = local_static();
    for (size_t i = 0; i < kG + 32 + kG; ++i) st[i] = -9;
    xshmem_barrier_all();
    // Bulk put (blocking) of kN words into the right neighbour's .bss array.
    std::vector<uint64_t> src(kN);
    xt::fill(src.data(), kN, me, right, iter, 1);
    xshmem_uint64_put(g_bss.v, src.data(), kN, right);
    // p of every int of the .data array, nbi put of the static's middle.
    for (size_t i = 0; i < 64; ++i)
      xshmem_int32_p(&g_data.v[i], xt::value<int32_t>(me, right, i, iter, 2), right);
    std::vector<int64_t> s2(32);
    xt::fill(s2.data(), 32, me, right, iter, 3);
    xshmem_int64_put_nbi(st + kG, s2.data(), 32, right);
    xshmem_quiet();
    xshmem_barrier_all();
    CHECK(xt::mismatches(g_bss.v, kN, left, me, iter, 1, "put into .bss") == 0);
    CHECK(bss_guards_ok());
    CHECK(xt::mismatches(g_data.v, 64, left, me, iter, 2, "p into .data") == 0);
    CHECK(xt::mismatches(st + kG, 32, left, me, iter, 3, "nbi put into a static") == 0);
    for (size_t i = 0; i < kG; ++i) {
      CHECK(g_data.lo[i] == -7);
      CHECK(g_data.hi[i] == -7);
      CHECK(st[i] == -9);
      CHECK(st[kG + 32 + i] == -9);
    }
    // get and g from the left neighbour's globals (what it received from its own left).
    const int ll = (left + n - 1) % n;
    std::vector<uint64_t> got(kN + 2, 0x5A);
    xshmem_uint64_get(got.data() + 1, g_bss.v, kN, left);
    CHECK(xt::mismatches(got.data() + 1, kN, ll, left, iter, 1, "get from .bss") == 0);
    CHECK(got[0] == 0x5A);
    CHECK(got[kN + 1] == 0x5A);
    CHECK(xshmem_int32_g(&g_data.v[63], left) == xt::value<int32_t>(ll, left, 63, iter, 2));
    CHECK(xshmem_int32_g(&g_data_init[3], left) == -44);
    xshmem_barrier_all();
    // iput with stride 3 into the right neighbour's .bss array; elements between stay.
    reset_bss();
    xshmem_barrier_all();
    std::vector<uint64_t> s3(100);
    xt::fill(s3.data(), 100, me, right, iter, 4);
    xshmem_uint64_iput(g_bss.v, s3.data(), 3, 1, 100, right);
    xshmem_barrier_all();
    size_t bad = 0;
    for (size_t i = 0; i < 300; ++i) {
      uint64_t want =
          i % 3 == 0 ? xt::value<uint64_t>(left, me, i / 3, iter, 4) : 0xA5A5A5A5A5A5A5A5ull;
      bad += g_bss.v[i] != want;
    }
    CHECK(bad == 0);
    CHECK(bss_guards_ok());
    xshmem_barrier_all();
  }
}

TEST_CASE("GLOB-02 atomics_on_globals: every PE updates counters in .bss on every PE",
          "[GLOB-02]") {
  const int me = xt::me(), n = xt::npes();
  constexpr int kOps = 200;
  g_counter = 0;
  std::fill(std::begin(g_longs), std::end(g_longs), 0);
  xshmem_barrier_all();
  std::vector<uint64_t> fetched;
  for (int k = 0; k < kOps; ++k) {
    const int pe = (me + k) % n;
    fetched.push_back(xshmem_uint64_atomic_fetch_add(&g_counter, 1, 0));
    xshmem_long_atomic_add(&g_longs[0], me + 1, pe);
    xshmem_long_atomic_inc(&g_longs[1], pe);
  }
  // A compare-swap race on PE 0's g_longs[2]: exactly one PE wins each round.
  for (int round = 0; round < 5; ++round)
    xshmem_long_atomic_compare_swap(&g_longs[2], round, round + 1, 0);
  xshmem_quiet();
  xshmem_barrier_all();
  if (me == 0) CHECK(g_counter == uint64_t(kOps) * n);
  // Every PE sent its (me + 1) to this PE kOps / n times (+1 for the first k % n PEs).
  long want_add = 0, want_inc = 0;
  for (int src = 0; src < n; ++src) {
    long times = 0;
    for (int k = 0; k < kOps; ++k) times += (src + k) % n == me;
    want_add += times * (src + 1);
    want_inc += times;
  }
  CHECK(g_longs[0] == want_add);
  CHECK(g_longs[1] == want_inc);
  if (me == 0) CHECK(g_longs[2] == 5);
  // The fetched values of PE 0's counter are a permutation of 0 .. kOps * n - 1 over all PEs.
  std::vector<uint64_t> all(fetched.size() * n);
  xt::allgather(fetched.data(), all.data(), fetched.size() * sizeof(uint64_t));
  std::sort(all.begin(), all.end());
  bool perm = true;
  for (size_t i = 0; i < all.size(); ++i) perm &= all[i] == i;
  CHECK(perm);
  CHECK(xshmem_long_atomic_fetch(&g_longs[0], (me + 1) % n) != -1);
  xshmem_barrier_all();
}

TEST_CASE("GLOB-03 signals_and_waits_on_globals: put_signal into .bss, waits on globals",
          "[GLOB-03]") {
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  for (uint64_t iter = 1; iter <= 3; ++iter) {
    reset_bss();
    g_sig = 0;
    g_flag = 0;
    xshmem_barrier_all();
    std::vector<uint64_t> src(kN);
    xt::fill(src.data(), kN, me, right, iter, 5);
    xshmem_uint64_put_signal(g_bss.v, src.data(), kN, &g_sig, iter, XSHMEM_SIGNAL_SET, right);
    // The left neighbour's signal_add below may land before this PE looks: GE, not EQ.
    uint64_t seen = xshmem_signal_wait_until(&g_sig, XSHMEM_CMP_GE, iter);
    CHECK((seen == iter || seen == iter + 10));
    CHECK(xt::mismatches(g_bss.v, kN, left, me, iter, 5, "put_signal into .bss") == 0);
    CHECK(bss_guards_ok());
    // A p of a flag, waited on with wait_until.
    xshmem_uint64_p(&g_flag, 100 + iter, right);
    xshmem_uint64_wait_until(&g_flag, XSHMEM_CMP_EQ, 100 + iter);
    CHECK(g_flag == 100 + iter);
    xshmem_signal_add(&g_sig, 10, right);
    xshmem_uint64_wait_until(&g_sig, XSHMEM_CMP_EQ, iter + 10);
    CHECK(xshmem_signal_fetch(&g_sig) == iter + 10);
    xshmem_barrier_all();
  }
}

TEST_CASE("GLOB-04 collectives_on_globals: broadcast, fcollect, alltoall, sum_reduce",
          "[GLOB-04]") {
  const int me = xt::me(), n = xt::npes();
  constexpr size_t kC = 32, kBlk = 4;  // broadcast/reduce elements; fcollect/alltoall block
  REQUIRE(size_t(n) * kBlk <= kC);     // g_src holds a block for every PE
  for (uint64_t iter = 0; iter < 2; ++iter) {
    const int root = int(iter) % n;
    xt::note("GLOB-04 iteration %llu", static_cast<unsigned long long>(iter));
    xt::fill(g_src, kC, me, -1, iter, 6);
    std::fill(std::begin(g_dst), std::end(g_dst), int64_t{-3});
    xshmem_barrier_all();
    CHECK(xshmem_int64_broadcast(XSHMEM_TEAM_WORLD, g_dst, g_src, kC, root) == 0);
    CHECK(xt::mismatches(g_dst, kC, root, -1, iter, 6, "broadcast into .bss") == 0);
    CHECK(g_dst[kC] == -3);
    xshmem_barrier_all();
    // fcollect: PE i's first kBlk elements land at g_dst[i * kBlk] everywhere.
    std::fill(std::begin(g_dst), std::end(g_dst), int64_t{-3});
    xshmem_barrier_all();
    CHECK(xshmem_int64_fcollect(XSHMEM_TEAM_WORLD, g_dst, g_src, kBlk) == 0);
    for (int pe = 0; pe < n; ++pe)
      CHECK(xt::mismatches(g_dst + pe * kBlk, kBlk, pe, -1, iter, 6, "fcollect into .bss") == 0);
    CHECK(g_dst[n * kBlk] == -3);
    xshmem_barrier_all();
    // alltoall: block j of PE i's g_src goes to PE j at g_dst[i * kBlk].
    for (int pe = 0; pe < n; ++pe) xt::fill(g_src + pe * kBlk, kBlk, me, pe, iter, 7);
    std::fill(std::begin(g_dst), std::end(g_dst), int64_t{-3});
    xshmem_barrier_all();
    CHECK(xshmem_int64_alltoall(XSHMEM_TEAM_WORLD, g_dst, g_src, kBlk) == 0);
    for (int pe = 0; pe < n; ++pe)
      CHECK(xt::mismatches(g_dst + pe * kBlk, kBlk, pe, me, iter, 7, "alltoall into .bss") == 0);
    CHECK(g_dst[n * kBlk] == -3);
    xshmem_barrier_all();
    // sum_reduce of small PE-dependent values (exact), in place into a global.
    for (size_t i = 0; i < kC; ++i) g_src[i] = int64_t(me + 1) * int64_t(i + iter);
    xshmem_barrier_all();
    CHECK(xshmem_int64_sum_reduce(XSHMEM_TEAM_WORLD, g_dst, g_src, kC) == 0);
    size_t bad = 0;
    for (size_t i = 0; i < kC; ++i) bad += g_dst[i] != int64_t(n) * (n + 1) / 2 * int64_t(i + iter);
    CHECK(bad == 0);
    xshmem_barrier_all();
  }
}

TEST_CASE("GLOB-05 ptr_on_globals: xshmem_ptr gives a load/store address of a peer's global",
          "[GLOB-05]") {
  const int me = xt::me(), n = xt::npes(), right = (me + 1) % n, left = (me + n - 1) % n;
  g_flag = 0;
  xshmem_barrier_all();
  auto *mine = static_cast<uint64_t *>(xshmem_ptr(&g_flag, me));
  CHECK(mine == &g_flag);  // this PE's own global: its address
  // The global is load/store reachable exactly where heap memory is (hostshm: yes; libfabric,
  // ibgda: NULL).
  void *heap_obj = xshmem_malloc(8);
  const bool lsa = xshmem_ptr(heap_obj, right) != nullptr;
  auto *theirs = static_cast<uint64_t *>(xshmem_ptr(&g_flag, right));
  CHECK((theirs != nullptr) == lsa);
  CHECK(xshmem_addr_accessible(&g_flag, right) == 1);
  if (theirs != nullptr)
    *reinterpret_cast<volatile uint64_t *>(theirs) = 0xF00D0000ull + uint64_t(me);
  xshmem_barrier_all();
  if (theirs != nullptr) CHECK(g_flag == 0xF00D0000ull + uint64_t(left));
  // Past the end of the executable's data: not symmetric.
  CHECK(xshmem_addr_accessible(reinterpret_cast<const char *>(&errno), right) == 0);
  xshmem_free(heap_obj);
}

// ---- Death cases (CMakeLists.txt: conf.globals.death.*): a global that is not symmetric, or a
// range that runs past the executable's data, stops the job with one line naming the call, the
// argument and the PE.
namespace {
thread_local long t_local[8];
}

TEST_CASE("GLOB death:put_to_global", "[GLOB][.death]") {
  // Run with XSHMEM_SYMMETRIC_GLOBALS=0: the global is private.
  xshmem_long_p(&g_longs[1], 1, (xt::me() + 1) % xt::npes());
  xshmem_barrier_all();
}

TEST_CASE("GLOB death:past_end", "[GLOB][.death]") {
  static unsigned char src[64];
  xshmem_putmem(&g_bss, src, size_t{1} << 36, (xt::me() + 1) % xt::npes());
  xshmem_barrier_all();
}

TEST_CASE("GLOB death:thread_local", "[GLOB][.death]") {
  xshmem_long_p(&t_local[2], 1, (xt::me() + 1) % xt::npes());
  xshmem_barrier_all();
}
