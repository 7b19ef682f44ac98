// STR rows of CONFORMANCE.md §4.12 on the host API: STR-01 amo_hammer, STR-02 alltoall_storm,
// STR-03 random_ops_vs_model, STR-04 signal_flood, STR-06 heap_churn_under_traffic, and the
// team part of STR-08 (team create/destroy loops while traffic flows). Run at 2, 4, 8 and 16
// PEs (16 oversubscribe the CI machine's 2 cores: waits yield the CPU).
//
// Every pseudo-random choice comes from xt::hash of (seed, round, pe, ...), so every PE can
// replay every other PE's schedule and compute the expected memory exactly; a failure prints the
// seed (XT_STRESS_SEED, default 1) and the round for replay.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.h"

namespace {

uint64_t seed() {
  const char *s = getenv("XT_STRESS_SEED");
  return s ? strtoull(s, nullptr, 0) : 1;
}

constexpr uint32_t kTid = 0x57;

}  // namespace

TEST_CASE("STR-01 amo_hammer", "[STR-01]") {
  const int n = xt::npes(), me = xt::me();
  const uint64_t sd = seed();
  // ~10^6 operations in all, whatever the PE count.
  const uint64_t per_pe = std::max<uint64_t>(20000, 1000000 / static_cast<uint64_t>(n));
  // Words at every PE: [0] fetch_add total, [1] add total, [2] inc total, [3] cswap ticket,
  // [4] fetch_inc ticket (permutation check), [5 + p] rotating counter hit by PE p.
  xt::SymBuf<uint64_t> w(5 + static_cast<size_t>(n));
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0;
  std::vector<uint64_t> tickets;  // fetch_inc results at PE 0
  tickets.reserve(per_pe / 5 + 1);
  xshmem_barrier_all();
  uint64_t my_adds = 0, my_fadds = 0, my_incs = 0, my_cswaps = 0, bad_fetch = 0;
  for (uint64_t i = 0; i < per_pe; ++i) {
    const uint64_t h = xt::hash(sd, static_cast<uint64_t>(me), i, kTid);
    const int target = static_cast<int>(h % static_cast<uint64_t>(n));
    const uint64_t v = (h >> 20) % 7 + 1;
    switch (i % 5) {
      case 0: {
        const uint64_t old = xshmem_uint64_atomic_fetch_add(w.data() + 0, v, 0);
        if (old > 7 * per_pe * static_cast<uint64_t>(n)) ++bad_fetch;
        my_fadds += v;
        break;
      }
      case 1:
        xshmem_uint64_atomic_add(w.data() + 1, v, 0);
        my_adds += v;
        break;
      case 2:
        xshmem_uint64_atomic_inc(w.data() + 2, 0);
        xshmem_uint64_atomic_add(w.data() + 5 + me, 1, target);  // rotating counters
        ++my_incs;
        break;
      case 3: {
        // compare_swap loop: take the next ticket on PE 0.
        uint64_t cur = xshmem_uint64_atomic_fetch(w.data() + 3, 0);
        for (;;) {
          const uint64_t seen = xshmem_uint64_atomic_compare_swap(w.data() + 3, cur, cur + 1, 0);
          if (seen == cur) break;
          cur = seen;
        }
        ++my_cswaps;
        break;
      }
      default:
        tickets.push_back(xshmem_uint64_atomic_fetch_inc(w.data() + 4, 0));
        break;
    }
  }
  xshmem_barrier_all();
  // Totals: every PE's contributions, replayed from the schedule.
  std::vector<uint64_t> mine = {my_fadds, my_adds, my_incs, my_cswaps, tickets.size()};
  std::vector<uint64_t> all(mine.size() * static_cast<size_t>(n));
  xt::allgather(mine.data(), all.data(), mine.size() * sizeof(uint64_t));
  if (me == 0) {
    for (size_t k = 0; k < 5; ++k) {
      uint64_t want = 0;
      for (int p = 0; p < n; ++p) want += all[static_cast<size_t>(p) * mine.size() + k];
      INFO("word " << k << " (seed " << sd << ")");
      CHECK(w[k] == want);
    }
  }
  // Rotating counters: PE p hit this PE's word 5 + p once per case-2 op whose target was me.
  for (int p = 0; p < n; ++p) {
    uint64_t want = 0;
    for (uint64_t i = 2; i < per_pe; i += 5)
      if (xt::hash(sd, static_cast<uint64_t>(p), i, kTid) % static_cast<uint64_t>(n) ==
          static_cast<uint64_t>(me))
        ++want;
    INFO("rotating counter of pe " << p << " at pe " << me);
    CHECK(w[5 + static_cast<size_t>(p)] == want);
  }
  CHECK(bad_fetch == 0);
  // fetch_inc tickets: together a permutation of 0 .. total-1.
  const uint64_t count = tickets.size();
  std::vector<uint64_t> counts(static_cast<size_t>(n));
  xt::allgather(&count, counts.data(), sizeof count);
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  xt::SymBuf<uint64_t> gathered(static_cast<size_t>(total));
  xshmem_barrier_all();
  uint64_t offset = 0;
  for (int p = 0; p < me; ++p) offset += counts[static_cast<size_t>(p)];
  if (count) xshmem_uint64_put(gathered.data() + offset, tickets.data(), count, 0);
  xshmem_barrier_all();
  if (me == 0) {
    std::vector<uint64_t> v(gathered.data(), gathered.data() + total);
    std::sort(v.begin(), v.end());
    size_t wrong = 0;
    for (uint64_t i = 0; i < total; ++i) wrong += v[i] != i;
    CHECK(wrong == 0);
  }
  xshmem_barrier_all();
  CHECK(w.guards_ok());
}

TEST_CASE("STR-02 alltoall_storm", "[STR-02]") {
  const int n = xt::npes(), me = xt::me();
  const uint64_t sd = seed();
  const size_t kMax = 2048;  // bytes per (src) slot
  const int rounds = n <= 8 ? 20 : 8;
  // slot (src) of `data`: what src put this round; sig[src] counts src's signals.
  xt::SymBuf<unsigned char> data(static_cast<size_t>(n) * kMax);
  xt::SymBuf<uint64_t> sig(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) sig[static_cast<size_t>(p)] = 0;
  std::vector<unsigned char> src(kMax);
  xshmem_barrier_all();
  size_t bad = 0;
  for (int r = 0; r < rounds; ++r) {
    xt::note("STR-02 round %d", r);
    for (int k = 0; k < n; ++k) {
      const int to = (me + k) % n;
      const size_t len = 1 + xt::hash(sd, r, me, to) % kMax;
      for (size_t i = 0; i < len; ++i)
        src[i] = static_cast<unsigned char>(xt::hash(sd, r, me, to, i));
      unsigned char *dst = data.data() + static_cast<size_t>(me) * kMax;
      switch ((r + k) % 3) {
        case 0:
          xshmem_putmem(dst, src.data(), len, to);
          xshmem_uint64_atomic_add(sig.data() + me, 1, to);
          break;
        case 1:
          xshmem_putmem_nbi(dst, src.data(), len, to);
          xshmem_quiet();  // src is reused by the next put
          xshmem_uint64_atomic_add(sig.data() + me, 1, to);
          break;
        default:
          xshmem_putmem_signal_nbi(dst, src.data(), len, sig.data() + me, 1, XSHMEM_SIGNAL_ADD, to);
          xshmem_quiet();
          break;
      }
    }
    xshmem_barrier_all();
    for (int p = 0; p < n; ++p) {
      const size_t len = 1 + xt::hash(sd, r, p, me) % kMax;
      const unsigned char *d = data.data() + static_cast<size_t>(p) * kMax;
      for (size_t i = 0; i < len; ++i)
        if (d[i] != static_cast<unsigned char>(xt::hash(sd, r, p, me, i)) && ++bad <= 4)
          FAIL_CHECK("pe " << me << ": seed " << sd << " round " << r << ": byte " << i
                           << " from pe " << p << " wrong");
      if (sig[static_cast<size_t>(p)] != static_cast<uint64_t>(r + 1) && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": round " << r << ": signal of pe " << p << " is "
                         << sig[static_cast<size_t>(p)] << ", expected " << r + 1);
    }
    xshmem_barrier_all();
  }
  CHECK(bad == 0);
  CHECK(data.guards_ok());
  CHECK(sig.guards_ok());
}

TEST_CASE("STR-03 random_ops_vs_model", "[STR-03]") {
  const int n = xt::npes(), me = xt::me();
  const uint64_t sd = seed();
  constexpr size_t kCells = 512;  // uint64 cells at every PE
  constexpr int kEpochs = 30;
  xt::SymBuf<uint64_t> mem(kCells);
  for (size_t c = 0; c < kCells; ++c) mem[c] = 0;
  // The model: the memory of every PE (every PE computes all of it).
  std::vector<uint64_t> model(kCells * static_cast<size_t>(n), 0);
  xshmem_barrier_all();
  size_t bad = 0;
  for (int e = 0; e < kEpochs && bad == 0; ++e) {
    xt::note("STR-03 seed %llu epoch %d", static_cast<unsigned long long>(sd), e);
    // Cell c of PE t in this epoch: written by one PE with one op, or (atomic cells) added to by
    // every PE. Cells: [0, 384) single-writer, [384, 512) atomic add cells.
    for (int t = 0; t < n; ++t) {
      for (size_t c = 0; c < kCells;) {
        const uint64_t h = xt::hash(sd, e, t, c, 0x3);
        if (c >= 384) {  // every PE adds (writer + 1) * h-derived value
          for (int w = 0; w < n; ++w) {
            const uint64_t v = xt::hash(sd, e, t, c, static_cast<uint64_t>(w)) & 0xFFFF;
            if (w == me) xshmem_uint64_atomic_add(mem.data() + c, v, t);
            model[static_cast<size_t>(t) * kCells + c] += v;
          }
          ++c;
          continue;
        }
        const int writer = static_cast<int>(h % static_cast<uint64_t>(n));
        const int op = static_cast<int>((h >> 8) % 5);
        const size_t run = 1 + (h >> 16) % 8;  // cells this op covers
        const size_t len = std::min(run, size_t{384} - c);
        uint64_t vals[8];
        for (size_t i = 0; i < len; ++i) vals[i] = xt::hash(sd, e, t, c + i, 0x7);
        if (writer == me) {
          switch (op) {
            case 0:
              xshmem_uint64_put(mem.data() + c, vals, len, t);
              break;
            case 1:
              for (size_t i = 0; i < len; ++i) xshmem_uint64_p(mem.data() + c + i, vals[i], t);
              break;
            case 2:
              xshmem_uint64_put_nbi(mem.data() + c, vals, len, t);
              xshmem_quiet();
              break;
            case 3:
              xshmem_uint64_iput(mem.data() + c, vals, 1, 1, len, t);
              break;
            default:
              for (size_t i = 0; i < len; ++i)
                xshmem_uint64_atomic_set(mem.data() + c + i, vals[i], t);
              break;
          }
          if ((h >> 40) % 4 == 0) xshmem_fence();
        }
        for (size_t i = 0; i < len; ++i) model[static_cast<size_t>(t) * kCells + c + i] = vals[i];
        c += len;
      }
    }
    xshmem_barrier_all();
    // Every PE reads back a pseudo-random PE's memory with get, and checks its own directly.
    const int other = static_cast<int>(xt::hash(sd, e, me, 0x9) % static_cast<uint64_t>(n));
    std::vector<uint64_t> got(kCells);
    xshmem_uint64_get(got.data(), mem.data(), kCells, other);
    for (size_t c = 0; c < kCells; ++c) {
      if (mem[c] != model[static_cast<size_t>(me) * kCells + c] && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": seed " << sd << " epoch " << e << ": own cell " << c
                         << " differs from the model (replay with XT_STRESS_SEED=" << sd << ")");
      if (got[c] != model[static_cast<size_t>(other) * kCells + c] && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": seed " << sd << " epoch " << e << ": cell " << c << " of pe "
                         << other << " (get) differs from the model");
      const uint64_t g = xshmem_uint64_g(mem.data() + c, other);
      if (c % 64 == 0 && g != model[static_cast<size_t>(other) * kCells + c] && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": epoch " << e << ": g of cell " << c << " differs");
    }
    xshmem_barrier_all();
  }
  CHECK(bad == 0);
  CHECK(mem.guards_ok());
}

TEST_CASE("STR-04 signal_flood", "[STR-04]") {
  const int n = xt::npes(), me = xt::me();
  const uint64_t sd = seed();
  constexpr int kMsgs = 200;
  constexpr size_t kPayload = 64;
  // Root 0 receives kMsgs put_signal_nbi ADDs from every PE; slot (src, msg).
  xt::SymBuf<unsigned char> slots(static_cast<size_t>(n) * kMsgs * kPayload);
  xt::SymBuf<uint64_t> sig(1);
  sig[0] = 0;
  xshmem_barrier_all();
  unsigned char src[kMsgs][kPayload];
  uint64_t my_sum = 0;
  for (int m = 0; m < kMsgs; ++m) {
    for (size_t i = 0; i < kPayload; ++i)
      src[m][i] = static_cast<unsigned char>(xt::hash(sd, me, m, i, 0x4));
    const uint64_t add = 1 + xt::hash(sd, me, m, 0x5) % 1000;
    my_sum += add;
    xshmem_putmem_signal_nbi(slots.data() + (static_cast<size_t>(me) * kMsgs + m) * kPayload,
                             src[m], kPayload, sig.data(), add, XSHMEM_SIGNAL_ADD, 0);
  }
  xshmem_quiet();
  std::vector<uint64_t> sums(static_cast<size_t>(n));
  xt::allgather(&my_sum, sums.data(), sizeof my_sum);
  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  if (me == 0) {
    xt::note("STR-04 waiting for signal total %llu", static_cast<unsigned long long>(total));
    const uint64_t v = xshmem_signal_wait_until(sig.data(), XSHMEM_CMP_EQ, total);
    CHECK(v == total);
    size_t bad = 0;
    for (int p = 0; p < n; ++p)
      for (int m = 0; m < kMsgs; ++m)
        for (size_t i = 0; i < kPayload; ++i)
          bad += slots[(static_cast<size_t>(p) * kMsgs + m) * kPayload + i] !=
                 static_cast<unsigned char>(xt::hash(sd, p, m, i, 0x4));
    CHECK(bad == 0);
  }
  xshmem_barrier_all();
  CHECK(slots.guards_ok());
}

TEST_CASE("STR-06 heap_churn_under_traffic", "[STR-06]") {
  const int n = xt::npes(), me = xt::me();
  const uint64_t sd = seed();
  struct Block {
    uint64_t *p = nullptr;
    size_t words = 0;
    uint64_t tag = 0;
  };
  std::vector<Block> live;
  size_t bad = 0;
  const int rounds = n <= 8 ? 60 : 25;
  for (int r = 0; r < rounds; ++r) {
    xt::note("STR-06 round %d, %zu live blocks", r, live.size());
    const uint64_t h = xt::hash(sd, r, 0x6);
    // Same decisions on every PE (collective calls): allocate, free, or realloc one block.
    const int action = live.size() < 3 ? 0 : static_cast<int>(h % 3);
    if (action == 0 || live.empty()) {
      Block b;
      b.words = 1 + (h >> 8) % 4000;
      b.p = static_cast<uint64_t *>(xshmem_malloc(b.words * sizeof(uint64_t)));
      REQUIRE(b.p != nullptr);
      b.tag = h;
      live.push_back(b);
    } else if (action == 1) {
      const size_t k = (h >> 8) % live.size();
      xshmem_free(live[k].p);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      const size_t k = (h >> 8) % live.size();
      Block &b = live[k];
      const size_t words = 1 + (h >> 20) % 4000;
      auto *q = static_cast<uint64_t *>(xshmem_realloc(b.p, words * sizeof(uint64_t)));
      // Contents up to the smaller size survive: check what the last traffic wrote.
      const int from = (me + n - 1) % n;
      const size_t keep = std::min(words, b.words);
      for (size_t i = 0; i < keep; ++i)
        if (q[i] != xt::hash(b.tag, from, i) && ++bad <= 4)
          FAIL_CHECK("pe " << me << ": round " << r << ": realloc lost word " << i);
      b.p = q;
      b.words = words;
      xshmem_barrier_all();  // every PE checked its copy before the next traffic overwrites it
    }
    // Traffic to every live block: each PE fills its right neighbour's copy.
    const int right = (me + 1) % n;
    for (Block &b : live) {
      b.tag = xt::hash(b.tag, r);
      std::vector<uint64_t> v(b.words);
      for (size_t i = 0; i < b.words; ++i) v[i] = xt::hash(b.tag, me, i);
      if (r % 2)
        xshmem_uint64_put_nbi(b.p, v.data(), b.words, right);
      else
        xshmem_uint64_put(b.p, v.data(), b.words, right);
      xshmem_quiet();
    }
    xshmem_barrier_all();
    const int from = (me + n - 1) % n;
    for (const Block &b : live)
      for (size_t i = 0; i < b.words; ++i)
        if (b.p[i] != xt::hash(b.tag, from, i) && ++bad <= 4)
          FAIL_CHECK("pe " << me << ": round " << r << ": block word " << i << " wrong");
    xshmem_barrier_all();
  }
  for (Block &b : live) xshmem_free(b.p);
  CHECK(bad == 0);
}

TEST_CASE("STR-08 team_create_destroy_loops", "[STR-08]") {
  const int n = xt::npes(), me = xt::me();
  xt::SymBuf<uint64_t> box(2);
  box[0] = box[1] = 0;
  xshmem_barrier_all();
  size_t bad = 0;
  for (int it = 0; it < 40; ++it) {
    xshmem_team_t t = XSHMEM_TEAM_INVALID;
    const int stride = 1 + it % 2;
    const int size = (n + stride - 1) / stride;
    REQUIRE(xshmem_team_split_strided(XSHMEM_TEAM_WORLD, 0, stride, size, nullptr, 0, &t) == 0);
    // Traffic on the world while teams come and go.
    xshmem_uint64_atomic_add(box.data(), 1, (me + it) % n);
    if (t != XSHMEM_TEAM_INVALID) {
      const int tn = xshmem_team_n_pes(t), tme = xshmem_team_my_pe(t);
      const int right = xshmem_team_translate_pe(t, (tme + 1) % tn, XSHMEM_TEAM_WORLD);
      xshmem_uint64_p(box.data() + 1, static_cast<uint64_t>(it), right);
      xshmem_quiet();
      xshmem_team_sync(t);
      if (box[1] != static_cast<uint64_t>(it) && ++bad <= 4)
        FAIL_CHECK("pe " << me << ": iteration " << it << ": team put not seen");
      xshmem_team_destroy(t);
    }
  }
  xshmem_barrier_all();
  // In every iteration exactly one PE (the one with (pe + it) % n == me) added to this PE's word.
  CHECK(box[0] == 40);
  CHECK(bad == 0);
}
