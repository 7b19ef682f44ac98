// The proxy engine (core/src/proxy/) and its rings (device/include/xshmem/device/proxy_ring.h),
// against a fake transport (fake_transport.h) whose remote heaps are local buffers.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/device/proxy_ring.h>
#include "../catch_compat.h"
#include "fake_transport.h"
#include "proxy/engine.h"

namespace ring = xshmem::dev::proxy::ring;
namespace at = xshmem::dev::atomic;
using xshmem::proxy::Engine;
using xshmem::proxy::Options;

namespace {

constexpr int kPes = 4;
constexpr size_t kHeap = size_t{4} << 20;
constexpr unsigned char kGuard = 0xA5;

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

xshmem::dev::state_t make_state(int my_pe, uint64_t timeout_ns = 0) {
  xshmem::dev::state_t s;
  s.my_pe = my_pe;
  s.n_pes = kPes;
  s.wait_timeout_ns = timeout_ns;
  return s;
}

// Errors the engine reports, for tests that expect some (the default handler stops the job).
struct ErrorLog {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string &)> handler() {
    return [this](const std::string &l) {
      std::lock_guard lock(mu);
      lines.push_back(l);
    };
  }
  size_t size() {
    std::lock_guard lock(mu);
    return lines.size();
  }
};

Options small_options(uint32_t channels, uint32_t slots, uint32_t threads, ErrorLog *errors) {
  Options o;
  o.my_pe = 0;
  o.channels = channels;
  o.slots = slots;
  o.threads = threads;
  if (errors != nullptr) o.on_error = errors->handler();
  return o;
}

std::unique_ptr<Engine> start(const Options &o, pt::FakeTransport &ft,
                              const std::vector<int> &lsa = {}) {
  std::unique_ptr<Engine> e;
  REQUIRE(Engine::create(o, ft.remote_table(lsa), &e).ok());
  REQUIRE(e != nullptr);
  return e;
}

// The byte pattern of (pe, tag, i): PE- and call-dependent, never the guard.
unsigned char pattern(int pe, uint64_t tag, size_t i) {
  unsigned char b = static_cast<unsigned char>((pe * 131 + tag * 31 + i * 7 + 1) & 0xff);
  return b == kGuard ? 0x5A : b;
}

// Waits (deadline 10 s) until pred holds.
template <typename F>
bool eventually(F pred, uint64_t ms = 10000) {
  const uint64_t end = now_ns() + ms * 1000000ull;
  while (!pred()) {
    if (now_ns() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

}  // namespace

TEST_CASE("ring layout: one cache line per request, counters apart, slots start free",
          "[proxy_ring]") {
  CHECK(sizeof(ring::request_t) == 64);
  CHECK(alignof(ring::request_t) == 64);
  CHECK(sizeof(ring::channel_t) == 128);
  CHECK(offsetof(ring::channel_t, completed) == 64);
  const size_t bytes = ring::block_bytes(3, 8);
  CHECK(bytes == sizeof(ring::channels_t) + 3 * 128 + 3 * 8 * 64);
  std::vector<unsigned char> mem(bytes + 64, 0xEE);
  void *base = mem.data() + (64 - reinterpret_cast<uintptr_t>(mem.data()) % 64) % 64;
  ring::channels_t *cs = ring::init_block(base, 3, 8, ring::kMapCtx);
  CHECK(cs->magic == ring::kMagic);
  for (uint32_t c = 0; c < 3; ++c) {
    CHECK(ring::channel(cs, c)->issued == 0);
    CHECK(ring::channel(cs, c)->completed == 0);
    for (uint64_t t = 0; t < 8; ++t) CHECK(ring::slot(cs, c, t)->seq == t);
    // Ticket t + slots wraps onto the same slot.
    CHECK(ring::slot(cs, c, 9) == ring::slot(cs, c, 1));
  }
  // The block ends where the last slot does.
  CHECK(reinterpret_cast<unsigned char *>(ring::slot(cs, 2, 7) + 1) ==
        static_cast<unsigned char *>(base) + bytes);
  // Channel choice by context entry.
  CHECK(ring::pick_channel(cs, xshmem::dev::ctx_handle(0, 0)) == 0);
  CHECK(ring::pick_channel(cs, xshmem::dev::ctx_handle(4, 2)) == 1);
  CHECK(ring::pick_channel(cs, xshmem::dev::ctx_handle(5, 0)) == 2);
}

TEST_CASE("wrap-around: a 4-slot ring carries 2000 puts, each lands with its guards", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  memset(ft.heap(2), kGuard, kHeap);
  auto e = start(small_options(1, 4, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  constexpr int kN = 2000;
  for (int i = 0; i < kN; ++i) {
    // 8..40 bytes: inline and pointer puts alternate; each at its own 48-byte cell.
    const size_t n = 8 + static_cast<size_t>(i % 5) * 8;
    unsigned char src[48];
    for (size_t b = 0; b < n; ++b) src[b] = pattern(2, static_cast<uint64_t>(i), b);
    REQUIRE(ring::put(s, cs, 0, 2, static_cast<uint64_t>(i) * 48 + 4, src, n) == XSHMEM_SUCCESS);
  }
  REQUIRE(ring::quiet_all(s, cs) == XSHMEM_SUCCESS);
  CHECK(ring::channel(cs, 0)->issued == kN + 1);
  CHECK(ring::channel(cs, 0)->completed == kN + 1);
  CHECK(ft.puts == kN);
  int bad = 0;
  for (int i = 0; i < kN; ++i) {
    const size_t n = 8 + static_cast<size_t>(i % 5) * 8;
    const unsigned char *cell = ft.heap(2) + static_cast<size_t>(i) * 48;
    for (size_t b = 0; b < 4; ++b) bad += cell[b] != kGuard;
    for (size_t b = 0; b < n; ++b) bad += cell[4 + b] != pattern(2, static_cast<uint64_t>(i), b);
    for (size_t b = 4 + n; b < 48; ++b) bad += cell[b] != kGuard;
  }
  CHECK(bad == 0);
  // Past the last cell: untouched.
  CHECK(ft.heap(2)[kN * 48] == kGuard);
}

TEST_CASE("full ring: producers wait for the proxy (back-pressure) and meet the deadline",
          "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  // NBI sources: they must outlive the engine, which executes what is queued when it stops.
  std::vector<unsigned char> src(256);
  for (size_t b = 0; b < src.size(); ++b) src[b] = pattern(1, 7, b);
  auto e = start(small_options(1, 4, 1, nullptr), ft);
  ring::channels_t *cs = e->host_channels();

  SECTION("a producer on a full ring goes on once the proxy frees a slot") {
    auto s = make_state(0);
    ft.gate_open = false;  // the proxy blocks in its first put (its slot stays taken)
    // 4 published requests fill the 4 slots.
    for (int i = 0; i < 4; ++i)
      REQUIRE(ring::put(s, cs, 0, 1, static_cast<uint64_t>(i) * 256, src.data(), 256, true) ==
              XSHMEM_SUCCESS);
    std::atomic<bool> returned{false};
    std::thread producer([&] {
      REQUIRE(ring::put(s, cs, 0, 1, 4 * 256, src.data(), 256, true) == XSHMEM_SUCCESS);
      returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(returned.load());  // it waits
    CHECK(ring::channel(cs, 0)->issued == 5);
    CHECK(ring::channel(cs, 0)->completed == 0);
    ft.gate_open = true;
    CHECK(eventually([&] { return returned.load(); }));
    producer.join();
    REQUIRE(ring::quiet_all(s, cs) == XSHMEM_SUCCESS);
    CHECK(ft.puts == 5);
    for (int i = 0; i < 5; ++i) CHECK(memcmp(ft.heap(1) + i * 256, src.data(), 256) == 0);
  }
  SECTION("with XSHMEM_WAIT_TIMEOUT set, a ring that stays full times out") {
    auto s = make_state(0, 300ull * 1000000);  // 300 ms
    ft.gate_open = false;
    for (int i = 0; i < 4; ++i)
      REQUIRE(ring::put(s, cs, 0, 1, 0, src.data(), 256, true) == XSHMEM_SUCCESS);
    const uint64_t t0 = now_ns();
    CHECK(ring::put(s, cs, 0, 1, 0, src.data(), 256, true) == XSHMEM_ERR_TIMEOUT);
    const uint64_t waited = now_ns() - t0;
    CHECK(waited >= 300ull * 1000000);
    CHECK(waited < 5000ull * 1000000);
    // The timed-out ticket stays reserved; the engine still drains the rest at shutdown.
    ft.gate_open = true;
  }
}

namespace {

// Many producer threads, each on its own context: exact fetch_add totals, distinct fetched
// values, and every put's bytes in place with guards.
void many_producers(uint32_t channels, uint32_t threads) {
  pt::FakeTransport ft(kPes, kHeap);
  memset(ft.heap(3), kGuard, kHeap);
  memset(ft.heap(1), 0, 64);
  ErrorLog errors;
  auto e = start(small_options(channels, 16, threads, &errors), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  constexpr int kThreads = 8;
  constexpr int kOps = 1500;
  std::vector<std::vector<uint64_t>> fetched(kThreads);
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      const int32_t ctx = xshmem::dev::ctx_handle(t, 0);
      fetched[static_cast<size_t>(t)].reserve(kOps);
      for (int i = 0; i < kOps; ++i) {
        uint64_t old = ~0ull;
        if (ring::amo(s, cs, ctx, 1, 0, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &old) != 0)
          ++failures;
        fetched[static_cast<size_t>(t)].push_back(old);
        // A non-fetching add of 3 on a 32-bit word.
        if (ring::amo(s, cs, ctx, 1, 8, XSHMEM_AMO_ADD, XSHMEM_AMO_U32, 3, 0, nullptr) != 0)
          ++failures;
        if (i % 10 == 0) {
          // Every 10th: a 100-byte put (pointer, blocking) and a 24-byte one (inline) into
          // this thread's cell of 128 bytes at PE 3, behind an 4-byte guard.
          const uint64_t cell = (static_cast<uint64_t>(t) * kOps + i) * 128;
          unsigned char big[100], small[24];
          for (size_t b = 0; b < 100; ++b) big[b] = pattern(t, static_cast<uint64_t>(i), b);
          for (size_t b = 0; b < 24; ++b) small[b] = pattern(t, static_cast<uint64_t>(i) + 1, b);
          if (ring::put(s, cs, ctx, 3, cell + 4, big, 100) != 0) ++failures;
          if (ring::put(s, cs, ctx, 3, cell + 104, small, 24) != 0) ++failures;
        }
      }
      if (ring::quiet(s, cs, ctx) != 0) ++failures;
    });
  }
  for (auto &t : ts) t.join();
  REQUIRE(ring::quiet_all(s, cs) == XSHMEM_SUCCESS);
  CHECK(failures == 0);
  CHECK(errors.size() == 0);
  uint64_t total = 0, total32 = 0;
  memcpy(&total, ft.heap(1), 8);
  uint32_t w32 = 0;
  memcpy(&w32, ft.heap(1) + 8, 4);
  total32 = w32;
  CHECK(total == uint64_t{kThreads} * kOps);
  CHECK(total32 == uint64_t{kThreads} * kOps * 3);
  // Every fetched value 0 .. N-1 exactly once.
  std::vector<uint64_t> all;
  for (auto &v : fetched) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  bool perm = all.size() == uint64_t{kThreads} * kOps;
  for (size_t i = 0; perm && i < all.size(); ++i) perm = all[i] == i;
  CHECK(perm);
  int bad = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kOps; ++i) {
      const unsigned char *c = ft.heap(3) + (static_cast<size_t>(t) * kOps + i) * 128;
      if (i % 10 != 0) {
        for (size_t b = 0; b < 128; ++b) bad += c[b] != kGuard;
        continue;
      }
      for (size_t b = 0; b < 4; ++b) bad += c[b] != kGuard;
      for (size_t b = 0; b < 100; ++b) bad += c[4 + b] != pattern(t, static_cast<uint64_t>(i), b);
      for (size_t b = 0; b < 24; ++b)
        bad += c[104 + b] != pattern(t, static_cast<uint64_t>(i) + 1, b);
    }
  CHECK(bad == 0);
  // Every channel carried work and all of it completed.
  uint64_t issued = 0;
  for (uint32_t c = 0; c < channels; ++c) {
    CHECK(ring::channel(cs, c)->completed == ring::channel(cs, c)->issued);
    CHECK(ring::channel(cs, c)->issued > 0);
    issued += ring::channel(cs, c)->issued;
  }
  CHECK(e->executed() == issued);
}

}  // namespace

TEST_CASE("8 producer threads on one channel", "[proxy]") {
  many_producers(1, 1);
}

TEST_CASE("8 producer threads on four channels served by two proxy threads", "[proxy]") {
  many_producers(4, 2);
}

// XSHMEM_PROXY_CHANNELS > 1 through the configuration table, as init sets the engine up: four
// threads, each on its own context and so its own channel, put rounds of thread- and
// round-dependent data and quiet their context after each round. The fake delivers NBI puts only
// at their channel's quiet (deferred), so a quiet that missed its channel, or a put enqueued on
// another thread's channel, leaves bytes out; every thread checks its cells exactly (guards
// included) after each quiet, and the main thread gives the threads 30 s.
TEST_CASE("4 threads on XSHMEM_PROXY_CHANNELS=4: each context's puts and quiet on its own channel",
          "[proxy]") {
  setenv("XSHMEM_PROXY_CHANNELS", "4", 1);
  setenv("XSHMEM_PROXY_THREADS", "2", 1);
  Options o;
  std::string err;
  const bool ok = xshmem::proxy::options_from_config(&o, &err);
  unsetenv("XSHMEM_PROXY_CHANNELS");
  unsetenv("XSHMEM_PROXY_THREADS");
  REQUIRE(ok);
  REQUIRE(o.channels == 4);
  REQUIRE(o.threads == 2);
  REQUIRE(o.map == ring::kMapCtx);
  o.my_pe = 0;
  o.slots = 16;  // small rings: the producers also meet back-pressure
  ErrorLog errors;
  o.on_error = errors.handler();
  pt::FakeTransport ft(kPes, kHeap);
  ft.deferred = true;
  ft.record = true;
  memset(ft.heap(2), kGuard, kHeap);
  auto e = start(o, ft);
  auto s = make_state(0, 10ull * 1000000000);  // producers' ring waits: 10 s
  ring::channels_t *cs = e->host_channels();
  constexpr int kThreads = 4, kRounds = 50, kPuts = 20;
  constexpr uint64_t kCell = 128, kThreadBytes = kPuts * kCell;
  // Thread t's i-th put: (24 + (t * 7 + i * 5) % 90) bytes at 4 bytes into its cell.
  auto len_of = [](int t, int i) { return size_t{24} + static_cast<size_t>(t * 7 + i * 5) % 90; };
  std::atomic<int> done{0}, failures{0}, bad_bytes{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      const int32_t ctx = xshmem::dev::ctx_handle(t + 1, 0);  // entries 1..4: channels 1,2,3,0
      const uint64_t base = static_cast<uint64_t>(t) * kThreadBytes;
      std::vector<unsigned char> src(kPuts * kCell);
      for (int r = 0; r < kRounds; ++r) {
        for (int i = 0; i < kPuts; ++i) {
          unsigned char *p = src.data() + i * kCell;
          for (size_t b = 0; b < len_of(t, i); ++b)
            p[b] = pattern(t, static_cast<uint64_t>(r) * kPuts + i, b);
          if (ring::put(s, cs, ctx, 2, base + i * kCell + 4, p, len_of(t, i), true) != 0)
            ++failures;
        }
        if (ring::quiet(s, cs, ctx) != 0) ++failures;
        // After the quiet every byte of this round is in place, and nothing outside the cells.
        int bad = 0;
        for (int i = 0; i < kPuts; ++i) {
          const unsigned char *c = ft.heap(2) + base + i * kCell;
          for (size_t b = 0; b < 4; ++b) bad += c[b] != kGuard;
          for (size_t b = 0; b < len_of(t, i); ++b)
            bad += c[4 + b] != pattern(t, static_cast<uint64_t>(r) * kPuts + i, b);
          for (size_t b = 4 + len_of(t, i); b < kCell; ++b) bad += c[b] != kGuard;
        }
        bad_bytes += bad;
      }
      ++done;
    });
  }
  const bool finished = eventually([&] { return done.load() == kThreads; }, 30000);
  if (!finished) {
    fprintf(stderr, "proxy test: only %d of %d producer threads finished within 30 s\n",
            done.load(), kThreads);
    std::_Exit(1);  // the threads are stuck in the engine: no join, no hang
  }
  for (auto &t : ts) t.join();
  CHECK(failures == 0);
  CHECK(bad_bytes == 0);
  CHECK(errors.size() == 0);
  // Each thread's puts went through its own channel, and each channel carried one thread's.
  int misplaced = 0;
  std::vector<uint64_t> per_channel(4, 0);
  for (const pt::Event &ev : ft.events()) {
    if (ev.op != 'p' && ev.op != 'd') continue;
    const int t = static_cast<int>(ev.offset / kThreadBytes);
    misplaced += ev.channel != (t + 1) % 4;
    if (ev.op == 'p') ++per_channel[static_cast<size_t>(ev.channel)];
  }
  CHECK(misplaced == 0);
  for (uint32_t c = 0; c < 4; ++c) {
    CHECK(per_channel[c] == uint64_t{kRounds} * kPuts);
    CHECK(ring::channel(cs, c)->completed == ring::channel(cs, c)->issued);
  }
  CHECK(ft.quiets >= uint64_t{kThreads} * kRounds);
  CHECK(ft.heap(2)[kThreads * kThreadBytes] == kGuard);
}

TEST_CASE("quiet returns only once every earlier request completed at its target", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  ft.deferred = true;         // NBI puts land only at the channel's fence or quiet
  ft.quiet_delay_us = 20000;  // and the transport's quiet takes 20 ms
  memset(ft.heap(2), kGuard, kHeap);
  memset(ft.heap(3), 0, kHeap);
  for (size_t b = 0; b < 4096; ++b) ft.heap(3)[b] = pattern(3, 99, b);
  auto e = start(small_options(2, 64, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  std::vector<std::vector<unsigned char>> src(40, std::vector<unsigned char>(1024));
  for (int i = 0; i < 40; ++i) {
    for (size_t b = 0; b < 1024; ++b) src[static_cast<size_t>(i)][b] = pattern(2, i, b);
    REQUIRE(ring::put(s, cs, 0, 2, static_cast<uint64_t>(i) * 1024, src[i].data(), 1024, true) ==
            0);
  }
  std::vector<unsigned char> got(4096 + 8, kGuard);
  REQUIRE(ring::get(s, cs, 0, 3, got.data() + 4, 0, 4096, true) == 0);
  // Nothing delivered yet (deferred): the puts wait for the quiet.
  CHECK(ft.heap(2)[0] == kGuard);
  const uint64_t t0 = now_ns();
  REQUIRE(ring::quiet(s, cs, 0) == XSHMEM_SUCCESS);
  CHECK(now_ns() - t0 >= 20000ull * 1000);  // it waited for the transport's quiet
  int bad = 0;
  for (int i = 0; i < 40; ++i)
    bad += memcmp(ft.heap(2) + i * 1024, src[static_cast<size_t>(i)].data(), 1024) != 0;
  CHECK(bad == 0);
  CHECK(ft.heap(2)[40 * 1024] == kGuard);
  for (size_t b = 0; b < 4096; ++b) bad += got[4 + b] != pattern(3, 99, b);
  CHECK(bad == 0);
  CHECK(got[0] == kGuard);
  CHECK(got[4100] == kGuard);
  CHECK(ft.quiets >= 1);
  // The other channel was not quieted by this context's quiet.
  CHECK(ring::channel(cs, 1)->issued == 0);
}

TEST_CASE("fence orders a channel's puts to a target; without it the transport may reorder",
          "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  ft.deferred = true;  // NBI puts delivered in reverse at the next fence/quiet
  ft.record = true;
  auto e = start(small_options(1, 16, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  std::vector<unsigned char> a(64), b(64);
  for (size_t i = 0; i < 64; ++i) {
    a[i] = pattern(1, 1, i);
    b[i] = pattern(1, 2, i);
  }
  // Region 0: a then b, no fence. Region 1: a, fence, b.
  REQUIRE(ring::put(s, cs, 0, 1, 0, a.data(), 64, true) == 0);
  REQUIRE(ring::put(s, cs, 0, 1, 0, b.data(), 64, true) == 0);
  REQUIRE(ring::quiet(s, cs, 0) == 0);
  REQUIRE(ring::put(s, cs, 0, 1, 4096, a.data(), 64, true) == 0);
  REQUIRE(ring::fence(s, cs, 0) == 0);
  REQUIRE(ring::put(s, cs, 0, 1, 4096, b.data(), 64, true) == 0);
  REQUIRE(ring::quiet(s, cs, 0) == 0);
  // The fake reorders unfenced puts: the first one wins in region 0.
  CHECK(memcmp(ft.heap(1), a.data(), 64) == 0);
  // The fence made b arrive after a.
  CHECK(memcmp(ft.heap(1) + 4096, b.data(), 64) == 0);
  // The transport saw: p p q(d d) p f p q, with the fence between the two puts of region 1.
  std::string order;
  for (const pt::Event &ev : ft.events()) order += static_cast<char>(ev.op);
  CHECK(order == "ppddqpdfpdq");
  CHECK(ft.fences == 1);
}

TEST_CASE("atomics: every op and type returns the old value and leaves the neighbours", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  auto e = start(small_options(2, 8, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  struct Case {
    int op;
    uint64_t operand, compare;
    bool fetches;
  };
  const Case cases[] = {
      {XSHMEM_AMO_FETCH, 0, 0, true},
      {XSHMEM_AMO_SET, 0x1122334455667788ull, 0, false},
      {XSHMEM_AMO_SWAP, 0x0fedcba987654321ull, 0, true},
      {XSHMEM_AMO_COMPARE_SWAP, 0x5555, 0 /* set below: the current value */, true},
      {XSHMEM_AMO_COMPARE_SWAP, 0x7777, 1 /* a value it does not hold */, true},
      {XSHMEM_AMO_ADD, 0x1001, 0, false},
      {XSHMEM_AMO_FETCH_ADD, 0x20000003ull, 0, true},
      {XSHMEM_AMO_AND, 0xf0f0f0f0f0f0f0f0ull, 0, false},
      {XSHMEM_AMO_FETCH_AND, 0xff00ff00ff00ff00ull, 0, true},
      {XSHMEM_AMO_OR, 0x0101010101010101ull, 0, false},
      {XSHMEM_AMO_FETCH_OR, 0x8000000000000080ull, 0, true},
      {XSHMEM_AMO_XOR, 0x3333333333333333ull, 0, false},
      {XSHMEM_AMO_FETCH_XOR, 0xaaaaaaaaaaaaaaaaull, 0, true},
  };
  const int types[] = {XSHMEM_AMO_U32, XSHMEM_AMO_U64, XSHMEM_AMO_I32, XSHMEM_AMO_I64};
  int pe = 1;
  uint64_t off = 64;
  int checked = 0;
  for (int type : types) {
    const bool wide = type == XSHMEM_AMO_U64 || type == XSHMEM_AMO_I64;
    const uint64_t mask = wide ? ~0ull : 0xffffffffull;
    for (const Case &c : cases) {
      pe = pe % (kPes - 1) + 1;
      off += 64;
      unsigned char *w = ft.heap(pe) + off;
      // Fresh, PE- and case-dependent start value and guards either side.
      const uint64_t start_v = (0x9e3779b97f4a7c15ull * (off + static_cast<uint64_t>(pe))) & mask;
      memset(w - 8, kGuard, 24);
      memcpy(w, &start_v, wide ? 8 : 4);
      uint64_t cmp = c.compare == 0 ? start_v : (start_v ^ 1);
      if (c.op != XSHMEM_AMO_COMPARE_SWAP) cmp = 0;
      uint64_t expect = start_v;
      const uint64_t v = c.operand & mask;
      switch (c.op) {
        case XSHMEM_AMO_SET:
        case XSHMEM_AMO_SWAP:
          expect = v;
          break;
        case XSHMEM_AMO_COMPARE_SWAP:
          expect = start_v == cmp ? v : start_v;
          break;
        case XSHMEM_AMO_ADD:
        case XSHMEM_AMO_FETCH_ADD:
          expect = (start_v + v) & mask;
          break;
        case XSHMEM_AMO_AND:
        case XSHMEM_AMO_FETCH_AND:
          expect = start_v & v;
          break;
        case XSHMEM_AMO_OR:
        case XSHMEM_AMO_FETCH_OR:
          expect = start_v | v;
          break;
        case XSHMEM_AMO_XOR:
        case XSHMEM_AMO_FETCH_XOR:
          expect = start_v ^ v;
          break;
        default:
          break;
      }
      uint64_t old = 0xdeadbeefdeadbeefull;
      const int32_t ctx = xshmem::dev::ctx_handle(checked % 3, 0);
      REQUIRE(ring::amo(s, cs, ctx, pe, off, c.op, type, v, cmp, &old) == 0);
      REQUIRE(ring::quiet(s, cs, ctx) == 0);
      INFO("op " << c.op << " type " << type << " start " << start_v);
      if (c.fetches)
        CHECK(old == start_v);
      else
        CHECK(old == 0xdeadbeefdeadbeefull);  // untouched: nothing to fetch
      uint64_t now = 0;
      memcpy(&now, w, wide ? 8 : 4);
      CHECK(now == expect);
      for (int g = -8; g < 0; ++g) CHECK(w[g] == kGuard);
      for (int g = wide ? 8 : 4; g < 16; ++g) CHECK(w[g] == kGuard);
      ++checked;
    }
  }
  // Floating point: fetch, set and swap move bit patterns (a NaN payload, -0.0).
  for (int type : {XSHMEM_AMO_F32, XSHMEM_AMO_F64}) {
    const bool wide = type == XSHMEM_AMO_F64;
    unsigned char *w = ft.heap(2) + 8192;
    const uint64_t nan_bits = wide ? 0x7ff8dead0000beefull : 0x7fc0beefull;
    const uint64_t neg_zero = wide ? 0x8000000000000000ull : 0x80000000ull;
    memcpy(w, &nan_bits, wide ? 8 : 4);
    uint64_t old = 0;
    REQUIRE(ring::amo(s, cs, 0, 2, 8192, XSHMEM_AMO_FETCH, type, 0, 0, &old) == 0);
    CHECK(old == nan_bits);
    REQUIRE(ring::amo(s, cs, 0, 2, 8192, XSHMEM_AMO_SWAP, type, neg_zero, 0, &old) == 0);
    CHECK(old == nan_bits);
    REQUIRE(ring::amo(s, cs, 0, 2, 8192, XSHMEM_AMO_SET, type, nan_bits ^ 1, 0, nullptr) == 0);
    REQUIRE(ring::amo(s, cs, 0, 2, 8192, XSHMEM_AMO_FETCH, type, 0, 0, &old) == 0);
    CHECK(old == (nan_bits ^ 1));
  }
  CHECK(checked == 52);
}

TEST_CASE("put_signal: a PE that sees the signal sees the data", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  memset(ft.heap(1), 0, kHeap);
  auto e = start(small_options(1, 8, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  constexpr int kRounds = 300;
  constexpr size_t kBytes = 2048;
  constexpr uint64_t kSig = 0;
  std::atomic<int> bad{0};
  std::atomic<bool> watcher_ok{true};
  // The watcher (the target PE) waits for each signal value and checks that round's data.
  std::thread watcher([&] {
    uint64_t *sig = reinterpret_cast<uint64_t *>(ft.heap(1) + kSig);
    for (int k = 1; k <= kRounds; ++k) {
      const uint64_t end = now_ns() + 10ull * 1000000000;
      while (at::load_acquire(sig) < static_cast<uint64_t>(k)) {
        if (now_ns() > end) {
          watcher_ok = false;
          return;
        }
        sched_yield();
      }
      const unsigned char *d = ft.heap(1) + 64 + static_cast<size_t>(k) * kBytes;
      for (size_t b = 0; b < kBytes; ++b) bad += d[b] != pattern(1, static_cast<uint64_t>(k), b);
    }
  });
  std::vector<std::vector<unsigned char>> src(kRounds + 1, std::vector<unsigned char>(kBytes));
  for (int k = 1; k <= kRounds; ++k) {
    for (size_t b = 0; b < kBytes; ++b) src[k][b] = pattern(1, static_cast<uint64_t>(k), b);
    // Odd rounds NBI (the source stays valid until the quiet below), even rounds blocking.
    REQUIRE(ring::put_signal(s, cs, 0, 1, 64 + static_cast<uint64_t>(k) * kBytes, src[k].data(),
                             kBytes, kSig, 1, 1 /* XSHMEM_SIGNAL_ADD */, k % 2 == 1) == 0);
  }
  REQUIRE(ring::quiet(s, cs, 0) == 0);
  watcher.join();
  CHECK(watcher_ok);
  CHECK(bad == 0);
  CHECK(ft.put_signals == kRounds);
  uint64_t sig = 0;
  memcpy(&sig, ft.heap(1) + kSig, 8);
  CHECK(sig == kRounds);
  // SET: the value itself.
  REQUIRE(ring::put_signal(s, cs, 0, 1, 64, src[1].data(), 16, 8, 0x1234, 0, false) == 0);
  memcpy(&sig, ft.heap(1) + 8, 8);
  CHECK(sig == 0x1234);
}

TEST_CASE("a producer that spins on data its own proxy delivers still progresses", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  memset(ft.heap(0), 0, 4096);
  // PE 1's word the get fetches.
  const uint64_t v = 0x0123456789abcdefull;
  memcpy(ft.heap(1) + 128, &v, 8);
  auto e = start(small_options(2, 8, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  std::atomic<int> result{0};
  // A "kernel": issues a non-blocking put to its own PE and a non-blocking get, then spins on
  // the words only the proxy fills, without quiet (a deadline instead of a hang).
  std::thread kernel([&] {
    const uint64_t flag = 42;
    uint64_t got = 0;
    if (ring::put(s, cs, 0, 0, 256, &flag, 8, true) != 0) return;
    if (ring::get(s, cs, 1, 1, &got, 128, 8, true) != 0) return;
    const uint64_t end = now_ns() + 10ull * 1000000000;
    uint64_t *word = reinterpret_cast<uint64_t *>(ft.heap(0) + 256);
    while (at::load_acquire(word) != 42 || at::load_acquire(&got) != v) {
      if (now_ns() > end) {
        result = -1;
        return;
      }
    }
    result = 1;
  });
  kernel.join();
  CHECK(result == 1);
}

TEST_CASE("a transport's asynchronous error stops the job with its line", "[proxy]") {
  // The default handler is core::fatal: run the engine in a child and read what it printed.
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    setenv("XSHMEM_LOG_LEVEL", "warn", 1);
    pt::FakeTransport ft(kPes, 1 << 16);
    ft.error_line = "fake: connection to pe 3 lost (peer closed the socket)";
    ft.error_after_polls = 20;
    ft.error_status = XSHMEM_ERR_PEER_FAILED;
    std::unique_ptr<Engine> e;
    Options o = small_options(2, 8, 1, nullptr);  // default on_error
    if (!Engine::create(o, ft.remote_table(), &e).ok()) _exit(50);
    sleep(20);  // the engine must stop the process long before
    _exit(51);
  }
  close(pipefd[1]);
  std::string out;
  char buf[512];
  const uint64_t t0 = now_ns();
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  const uint64_t took = now_ns() - t0;
  INFO("child stderr: " << out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(took < 5ull * 1000000000);
  CHECK(out.find("pe 0: the proxy's transport reported an error: fake: connection to pe 3 lost "
                 "(peer closed the socket)") != std::string::npos);
  // One line with it (reported once).
  size_t count = 0;
  for (size_t p = out.find("connection to pe 3 lost"); p != std::string::npos;
       p = out.find("connection to pe 3 lost", p + 1))
    ++count;
  CHECK(count >= 1);
}

TEST_CASE("a request for a PE no proxy transport serves is reported with the PE", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  ErrorLog errors;
  auto e = start(small_options(1, 8, 1, &errors), ft, {2});  // PE 2: an LSA peer
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  uint64_t old = 0;
  CHECK(ring::amo(s, cs, 0, 2, 0, XSHMEM_AMO_FETCH, XSHMEM_AMO_U64, 0, 0, &old) ==
        XSHMEM_ERR_INVALID);
  CHECK(ring::amo(s, cs, 0, 7, 0, XSHMEM_AMO_FETCH, XSHMEM_AMO_U64, 0, 0, &old) ==
        XSHMEM_ERR_INVALID);
  // An out-of-range remote location: the transport's status comes back, with a line.
  std::vector<unsigned char> dst(64);
  CHECK(ring::get(s, cs, 0, 1, dst.data(), kHeap - 8, 64) == XSHMEM_ERR_INVALID);
  REQUIRE(errors.size() == 3);
  CHECK(errors.lines[0] ==
        "pe 0: proxy channel 0: atomic for pe 2, which no proxy transport "
        "serves (4 PEs)");
  CHECK(errors.lines[1].find("atomic for pe 7") != std::string::npos);
  CHECK(errors.lines[2].find("get to pe 1 (offset 0x3ffff8, 64 bytes) failed") !=
        std::string::npos);
  CHECK(ft.amos == 0);
}

TEST_CASE("an idle engine uses almost no CPU and still calls progress", "[proxy]") {
  pt::FakeTransport ft(kPes, 1 << 16);
  auto e = start(small_options(4, 16, 1, nullptr), ft);  // the default shape: 4 channels, 1 thread
  auto s = make_state(0);
  // Some work first, so the threads go through the whole back-off ladder afterwards.
  uint64_t x = 7;
  for (int i = 0; i < 100; ++i) REQUIRE(ring::put(s, e->host_channels(), i, 1, 0, &x, 8) == 0);
  REQUIRE(ring::quiet_all(s, e->host_channels()) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto cpu_ns = [] {
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (static_cast<uint64_t>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
            static_cast<uint64_t>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) *
           1000ull;
  };
  const uint64_t p0 = ft.progresses;
  const uint64_t c0 = cpu_ns();
  const uint64_t w0 = now_ns();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const uint64_t used = cpu_ns() - c0;
  const uint64_t wall = now_ns() - w0;
  const double share = static_cast<double>(used) / static_cast<double>(wall);
  INFO("idle engine used " << used / 1000 << " us of CPU in " << wall / 1000
                           << " us: " << share * 100 << "% of a core");
  printf("proxy idle: the engine used %.2f%% of a core over 1 s, %" PRIu64 " progress calls\n",
         share * 100, static_cast<uint64_t>(ft.progresses - p0));
  CHECK(share < 0.05);  // "a few %": 1.5 to 2.5% per thread measured on the loaded 2-core VM
  // Deep idle: ~1 ms sleeps, so some 500 to 1000 progress calls per second (thread 0 only).
  CHECK(ft.progresses - p0 > 200);
  CHECK(ft.progresses - p0 < 20000);
}

TEST_CASE("shutdown with requests in flight executes them, quiets and joins", "[proxy]") {
  pt::FakeTransport ft(kPes, kHeap);
  ft.put_delay_us = 200;  // a slow transport: the ring still holds most of them at shutdown
  memset(ft.heap(3), kGuard, kHeap);
  auto e = start(small_options(2, 256, 2, nullptr), ft);
  auto s = make_state(0);
  std::vector<unsigned char> src(200 * 64);
  for (size_t b = 0; b < src.size(); ++b) src[b] = pattern(3, 5, b);
  for (int i = 0; i < 200; ++i)
    REQUIRE(ring::put(s, e->host_channels(), i % 2, 3, static_cast<uint64_t>(i) * 64,
                      src.data() + i * 64, 64, true) == 0);
  const uint64_t before = ft.puts;
  const uint64_t t0 = now_ns();
  e.reset();
  const uint64_t took = now_ns() - t0;
  INFO("puts executed before shutdown: " << before << ", shutdown took " << took / 1000 << " us");
  CHECK(before < 200);
  CHECK(ft.puts == 200);
  CHECK(ft.quiets >= 2);  // each channel quieted
  CHECK(memcmp(ft.heap(3), src.data(), src.size()) == 0);
  CHECK(ft.heap(3)[src.size()] == kGuard);
  CHECK(took < 5ull * 1000000000);
}

TEST_CASE("configuration: defaults, ranges and the CPU list", "[proxy]") {
  Options o;
  std::string err;
  REQUIRE(xshmem::proxy::options_from_config(&o, &err));
  CHECK(o.channels == 4);
  CHECK(o.threads == 1);
  CHECK(o.slots == 256);
  CHECK(o.map == ring::kMapCtx);
  std::vector<int> cpus;
  CHECK(xshmem::proxy::parse_cpu_list("0-3,8,10-11", &cpus));
  CHECK(cpus == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK_FALSE(xshmem::proxy::parse_cpu_list("3-1", &cpus));
  CHECK_FALSE(xshmem::proxy::parse_cpu_list("1,,2", &cpus));
  CHECK_FALSE(xshmem::proxy::parse_cpu_list("a", &cpus));
  CHECK_FALSE(xshmem::proxy::parse_cpu_list("1,", &cpus));
  setenv("XSHMEM_PROXY_THREADS", "9", 1);
  CHECK_FALSE(xshmem::proxy::options_from_config(&o, &err));
  CHECK(err ==
        "XSHMEM_PROXY_THREADS=9 is out of range; give 1 to XSHMEM_PROXY_CHANNELS (4) "
        "threads");
  unsetenv("XSHMEM_PROXY_THREADS");
  setenv("XSHMEM_PROXY_RING_SLOTS", "100", 1);
  CHECK_FALSE(xshmem::proxy::options_from_config(&o, &err));
  CHECK(err == "XSHMEM_PROXY_RING_SLOTS=100 is not a power of two from 4 to 65536");
  unsetenv("XSHMEM_PROXY_RING_SLOTS");
  setenv("XSHMEM_PROXY_CHANNEL_MAP", "warp", 1);
  setenv("XSHMEM_PROXY_CPUS", "0", 1);
  REQUIRE(xshmem::proxy::options_from_config(&o, &err));
  CHECK(o.map == ring::kMapWarp);
  CHECK(o.cpus == "0");
  unsetenv("XSHMEM_PROXY_CHANNEL_MAP");
  unsetenv("XSHMEM_PROXY_CPUS");
  // XSHMEM_PROXY_CPUS pins the threads.
  pt::FakeTransport ft(kPes, 1 << 16);
  o = small_options(2, 8, 2, nullptr);
  o.cpus = "0";
  auto e = start(o, ft);
  CHECK(e->thread_cpus() == std::vector<int>{0, 0});
  o.cpus = "";
  o.near_cpuset = "1";
  o.near_what = "nic fake0";
  auto e2 = start(o, ft);
  CHECK(e2->thread_cpus() == std::vector<int>{1, 1});
  o.near_cpuset = "";
  auto e3 = start(o, ft);
  CHECK(e3->thread_cpus() == std::vector<int>{-1, -1});
}

TEST_CASE("latency: an 8-byte put through the ring, enqueue to completion", "[proxy]") {
  pt::FakeTransport ft(kPes, 1 << 16);
  auto e = start(small_options(1, 256, 1, nullptr), ft);
  auto s = make_state(0);
  ring::channels_t *cs = e->host_channels();
  ring::channel_t *ch = ring::channel(cs, 0);
  constexpr int kWarm = 2000;
  constexpr int kN = 20000;
  std::vector<uint64_t> proxied, raw;
  proxied.reserve(kN);
  raw.reserve(kN);
  for (int i = 0; i < kWarm + kN; ++i) {
    const uint64_t v = 0x1000000000ull * 3 + static_cast<uint64_t>(i);
    const uint64_t before = at::load_acquire(&ch->completed);
    const uint64_t t0 = now_ns();
    REQUIRE(ring::put(s, cs, 0, 1, 512, &v, 8) == 0);
    at::backoff bo;
    while (at::load_acquire(&ch->completed) == before) bo();
    const uint64_t t1 = now_ns();
    if (i >= kWarm) proxied.push_back(t1 - t0);
  }
  uint64_t last = 0;
  memcpy(&last, ft.heap(1) + 512, 8);
  CHECK(last == 0x1000000000ull * 3 + kWarm + kN - 1);
  for (int i = 0; i < kN; ++i) {
    const uint64_t v = static_cast<uint64_t>(i);
    const uint64_t t0 = now_ns();
    REQUIRE(ft.put(0, 1, 520, &v, 8, 0) == 0);
    raw.push_back(now_ns() - t0);
  }
  std::sort(proxied.begin(), proxied.end());
  std::sort(raw.begin(), raw.end());
  const uint64_t p50 = proxied[kN / 2], p99 = proxied[kN * 99 / 100];
  const uint64_t r50 = raw[kN / 2];
  printf("proxy latency: 8-byte put enqueue-to-completion p50 %" PRIu64 " ns, p99 %" PRIu64
         " ns; the fake transport's put alone p50 %" PRIu64 " ns; added p50 %" PRIu64 " ns\n",
         p50, p99, r50, p50 > r50 ? p50 - r50 : 0);
  // A loose bound (shared 2-core CI machines): the acceptance number (<= 2 us added on an idle
  // machine) is read from the line above.
  CHECK(p50 < 50000);
}
