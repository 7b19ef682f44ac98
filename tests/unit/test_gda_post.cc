// The GDA posting protocol (device/include/xshmem/device/gda.h) on the host: several threads
// share one send queue of 64 WQEBBs (hundreds of passes of its ring), claim runs of 1 to 3
// entries, write inline RDMA writes of fresh, thread-dependent words, publish them in order and
// get flow control from a collapsed CQ, while the ibgda NIC model (backends/ibgda) drains the
// queue on its own thread. Every destination word and the guard bytes around them are checked,
// the model consumed exactly what was claimed, and an entry the model refuses surfaces as
// kPostError at quiet (the model's line names that entry's position).
#include <string.h>

#include <atomic>
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
