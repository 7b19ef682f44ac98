// The GDA posting protocol (device/include/xshmem/device/gda.h) on the host: several threads
// share one send queue of 64 WQEBBs (hundreds of passes of its ring), claim runs of 1 to 3
// entries, write inline RDMA writes of fresh, thread-dependent words, publish them in order and
// get flow control from a collapsed CQ, while the ibgda NIC model (backends/ibgda) drains the
// queue on its own thread. Every destination word and the guard bytes around them are checked,
// the model consumed exactly what was claimed, and an entry the model refuses surfaces as
// kPostError at quiet (the model's line names that entry's position).
#include <string.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <xshmem/device/gda.h>

#include "../catch_compat.h"
#include "nic_model.h"
#include "test_pattern.h"

namespace g = xshmem::dev::gda;
namespace m = xshmem::ibgda;

namespace {

constexpr uint32_t kNbb = 64, kQpn = 0x00BEEF, kRKey = 0x7777, kLKey = 0x1111;
constexpr uint8_t kPoison = 0xA7;
constexpr size_t kGuard = 64;

struct Rig {
  std::vector<uint8_t> sq = std::vector<uint8_t>(kNbb * g::kWqeBB, 0);
  g::cqe_t cqe{};
  alignas(8) uint64_t reserved = 0, ready = 0, published = 0;
  uint32_t dbr[2] = {0, 0};
  std::vector<uint8_t> remote;  // guard | words | guard
  size_t words;
  m::key_table lkeys, rkeys;
  m::queue_t q;
  g::sq_t s{};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> consumed{0};

  explicit Rig(size_t nwords) : remote(nwords * 8 + 2 * kGuard, kPoison), words(nwords) {
    memset(&cqe, 0, sizeof cqe);
    cqe.op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 1);
    static uint8_t local_dummy[64];
    REQUIRE(lkeys.add({kLKey, reinterpret_cast<uint64_t>(local_dummy), sizeof local_dummy,
                       m::kAccessLocalWrite}));
    REQUIRE(rkeys.add({kRKey, base(), nwords * 8, m::kAccessRemoteWrite}));
    q.sq = sq.data();
    q.nbb = kNbb;
    q.dbr = &dbr[g::kSendDbr];
    q.cq = &cqe;
    q.ncqe = 1;  // collapsed
    q.qpn = kQpn;
    q.pe = 0;
    q.peer = 1;
    s.wqes = sq.data();
    s.nbb = kNbb;
    s.qpn = kQpn;
    s.reserved = &reserved;
    s.ready = &ready;
    s.published = &published;
    s.dbr = &dbr[g::kSendDbr];
    s.doorbell = nullptr;
    s.cq = &cqe;
    s.deadline_ns = 20ull * 1000 * 1000 * 1000;  // a hang fails the test instead
  }
  uint64_t base() { return reinterpret_cast<uint64_t>(remote.data() + kGuard); }
  static m::reply_t send(void *ctx, int, const m::request_t &rq) {
    return m::execute(static_cast<Rig *>(ctx)->rkeys, rq);
  }
  void drain() {
    while (!stop.load(std::memory_order_acquire)) {
      const uint32_t n = m::progress(q, lkeys, &Rig::send, this, 1u << 30);
      consumed += n;
      if (n == 0) std::this_thread::yield();  // 2 cores in CI: leave them to the posters
    }
    consumed += m::progress(q, lkeys, &Rig::send, this, 1u << 30);
  }
};

uint64_t word_of(int t, int k) {
  return 0x9E3779B97F4A7C15ull * (uint64_t(t) * 100003 + uint64_t(k) + 1) ^ 0x5EED;
}

}  // namespace

TEST_CASE("gda posting: 4 threads share one queue, in-order publish, collapsed-CQ flow control",
          "[gda_post]") {
  constexpr int kThreads = 4, kPer = 3000;
  Rig r(size_t(kThreads) * kPer);
  std::thread model([&] { r.drain(); });
  std::vector<std::thread> posters;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    posters.emplace_back([&, t] {
      int k = 0;
      while (k < kPer) {
        const uint32_t n = std::min<uint32_t>(1 + uint32_t(k + t) % 3, uint32_t(kPer - k));
        uint64_t first = 0;
        if (g::reserve(r.s, n, &first) != g::kPostOk) {
          ++failures;
          return;
        }
        for (uint32_t i = 0; i < n; ++i) {
          const uint64_t pos = first + i;
          const uint64_t v = word_of(t, k + int(i));
          const uint64_t dst = r.base() + (uint64_t(t) * kPer + uint64_t(k) + i) * 8;
          const bool last = i + 1 == n;
          g::build_write_inline(g::slot(r.s, pos),
                                g::post_of(r.s, pos, last && g::wants_cqe(r.s, first, pos)), dst,
                                kRKey, &v, 8);
        }
        if (g::publish(r.s, first, n) != g::kPostOk) {
          ++failures;
          return;
        }
        k += int(n);
      }
    });
  }
  for (auto &p : posters) p.join();
  CHECK(failures.load() == 0);
  uint64_t failed = 0;
  CHECK(g::quiet(r.s, &failed) == g::kPostOk);
  r.stop = true;
  model.join();
  INFO(r.q.error_line);
  CHECK_FALSE(r.q.error);
  CHECK(r.consumed.load() == r.reserved);
  CHECK(r.reserved == uint64_t(kThreads) * kPer + 1);  // and quiet's NOP
  CHECK(r.reserved / kNbb > 180);                      // passes of the ring
  size_t wrong = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kPer; ++k) {
      uint64_t got;
      memcpy(&got, r.remote.data() + kGuard + (size_t(t) * kPer + size_t(k)) * 8, 8);
      wrong += got != word_of(t, k);
    }
  CHECK(wrong == 0);
  CHECK(xt::unpoisoned(r.remote.data(), kGuard, kPoison) == 0);
  CHECK(xt::unpoisoned(r.remote.data() + kGuard + r.words * 8, kGuard, kPoison) == 0);
}

TEST_CASE("gda posting: an entry the NIC refuses surfaces at quiet with its position",
          "[gda_post]") {
  Rig r(16);
  std::thread model([&] { r.drain(); });
  // Three good writes, one to a key the target does not have, then two more.
  for (int k = 0; k < 6; ++k) {
    uint64_t pos = 0;
    REQUIRE(g::reserve(r.s, 1, &pos) == g::kPostOk);
    const uint64_t v = word_of(9, k);
    g::build_write_inline(g::slot(r.s, pos), g::post_of(r.s, pos, false), r.base() + 8 * k,
                          k == 3 ? kRKey + 1 : kRKey, &v, 8);
    REQUIRE(g::publish(r.s, pos, 1) == g::kPostOk);
  }
  uint64_t failed = 99;
  // The collapsed CQE holds the newest error: the failed entry's, or a later entry's flush.
  CHECK(g::quiet(r.s, &failed) == g::kPostError);
  CHECK(failed >= 3);
  CHECK(failed <= 6);
  r.stop = true;
  model.join();
  CHECK(r.q.error);
  CHECK(r.q.error_line.find("send-queue position 3") != std::string::npos);
  // The entries before it landed, the one after it did not (flushed).
  for (int k = 0; k < 6; ++k) {
    uint64_t got;
    memcpy(&got, r.remote.data() + kGuard + 8 * k, 8);
    if (k < 3) {
      CHECK(got == word_of(9, k));
    } else {
      CHECK(got == 0xA7A7A7A7A7A7A7A7ull);
    }
  }
}

// The CQE's 16-bit counter gets its full position from `published`. A `published` read that is
// older than the CQE (a CQE for a position at or past it) must not turn into a count of
// completed entries near 2^64 (every claim would then overwrite entries the NIC has not read, as
// GPU threads did in session 18's run): it reads as "nothing known", and a consistent pair reads
// exactly, below and above position 2^16.
TEST_CASE("gda posting: the completed count from an inconsistent CQE and published pair",
          "[gda_post]") {
  Rig r(1);
  auto cqe_at = [&](uint64_t pos, uint8_t op) {
    r.cqe.wqe_counter = g::be16(static_cast<uint16_t>(pos));
    r.cqe.op_own = static_cast<uint8_t>(op << 4);
  };
  uint64_t done = 77;
  // Nothing published, no CQE.
  CHECK(g::completed(r.s, &done));
  CHECK(done == 0);
  for (const uint64_t base : {uint64_t{0}, uint64_t{1} << 16, (uint64_t{5} << 16) + 1000}) {
    for (const uint64_t at : {base + 10, base + 12000, base + 65000}) {
      // Consistent: the CQE's position below published, at most nbb below.
      cqe_at(at, g::kCqeReq);
      for (const uint64_t ahead : {uint64_t{1}, uint64_t{kNbb / 2}, uint64_t{kNbb}}) {
        r.published = at + ahead;
        REQUIRE(g::completed(r.s, &done));
        CHECK(done == at + 1);
      }
      // A stale published: at or below the CQE's position, or far behind it.
      for (const uint64_t stale : {at + 1 - 1, at - 1, at - 5, at - kNbb - 1}) {
        if (stale == 0) continue;
        r.published = stale;
        REQUIRE(g::completed(r.s, &done));
        CAPTURE(base, at, stale, done);
        CHECK(done == 0);
      }
      // More than nbb published past the CQE: the reads straddled other posters' progress.
      r.published = at + kNbb + 2;
      REQUIRE(g::completed(r.s, &done));
      CHECK(done == 0);
      // An error CQE read consistently reports its position.
      cqe_at(at, g::kCqeReqErr);
      r.published = at + 3;
      CHECK_FALSE(g::completed(r.s, &done));
      CHECK(done == at);
    }
  }
}

// A poster's deadline is for a queue that stops, not one that is slow: a quiet behind a full ring
// that a slow NIC drains (one entry per 8 ms, progress reported every 16 entries) waits about
// 0.5 s in all, past the 0.3 s deadline, and succeeds; with the NIC stopped it times out.
TEST_CASE("gda posting: the deadline is for a queue that stops moving, not a slow one",
          "[gda_post]") {
  Rig r(kNbb);
  r.s.deadline_ns = 300ull * 1000 * 1000;
  std::atomic<bool> slow{true};
  std::thread model([&] {
    while (!r.stop.load(std::memory_order_acquire)) {
      if (slow.load()) r.consumed += m::progress(r.q, r.lkeys, &Rig::send, &r, 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(8));
    }
  });
  for (uint32_t k = 0; k < kNbb; ++k) {
    uint64_t pos = 0;
    REQUIRE(g::reserve(r.s, 1, &pos) == g::kPostOk);
    const uint64_t v = word_of(11, k);
    g::build_write_inline(g::slot(r.s, pos), g::post_of(r.s, pos, g::wants_cqe(r.s, pos, pos)),
                          r.base() + 8 * k, kRKey, &v, 8);
    REQUIRE(g::publish(r.s, pos, 1) == g::kPostOk);
  }
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(g::quiet(r.s) == g::kPostOk);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited > 0.3);  // longer than the deadline: the test shows what it claims
  for (uint32_t k = 0; k < kNbb; ++k) {
    uint64_t got;
    memcpy(&got, r.remote.data() + kGuard + 8 * k, 8);
    CHECK(got == word_of(11, k));
  }
  // The NIC stops: the next wait ends with a timeout within about the deadline.
  slow = false;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a progress call under way ends
  uint64_t pos = 0;
  REQUIRE(g::reserve(r.s, 1, &pos) == g::kPostOk);
  g::build_nop(g::slot(r.s, pos), g::post_of(r.s, pos, true));
  REQUIRE(g::publish(r.s, pos, 1) == g::kPostOk);
  const auto t1 = std::chrono::steady_clock::now();
  CHECK(g::wait_done(r.s, pos) == g::kPostTimeout);
  const double stalled =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  CHECK(stalled >= 0.3);
  CHECK(stalled < 5.0);
  r.stop = true;
  model.join();
}
