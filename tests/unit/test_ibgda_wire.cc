// The ibgda NIC model's wire (backends/ibgda/model_nic.h): two PEs' NICs in one process, joined
// over loopback TCP as the transport joins them. Host threads post into PE 0's send queue with
// the GDA posting protocol (gda.h) and the builders of gda_wqe.h: pipelined writes (inline and
// from registered memory), reads into local buffers and fetch-adds on shared words at PE 1; every
// word, the fetched values and the guard bytes are checked. Then a refused entry (a wrong remote
// key) puts the queue into error: quiet reports it, on_error gets one line naming the PE, the
// queue position and the syndrome, and the entries after it are flushed at the responder, not
// executed. A stranger without the job token is refused, and a PE presenting another token cannot
// connect.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/device/gda.h>

#include "../catch_compat.h"
#include "common/mem_access.h"
#include "model_nic.h"
#include "test_pattern.h"

namespace g = xshmem::dev::gda;
namespace m = xshmem::ibgda;

namespace {

constexpr uint32_t kNbb = 128, kRKey = 0x5151, kLKey = 0x100;
constexpr uint8_t kPoison = 0xC3;
constexpr size_t kGuard = 64;

// Everything a poster needs for one queue, and the model's view of it.
struct Queue {
  std::vector<uint8_t> sq = std::vector<uint8_t>(kNbb * g::kWqeBB, 0);
  g::cqe_t cqe{};
  alignas(8) uint64_t reserved = 0, ready = 0, published = 0;
  uint32_t dbr[2] = {0, 0};
  m::queue_t q;
  g::sq_t s{};
  Queue(uint32_t qpn, int pe, int peer) {
    memset(&cqe, 0, sizeof cqe);
    cqe.op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 1);
    q.sq = sq.data();
    q.nbb = kNbb;
    q.dbr = &dbr[g::kSendDbr];
    q.cq = &cqe;
    q.ncqe = 1;
    q.qpn = qpn;
    q.pe = pe;
    q.peer = peer;
    s.wqes = sq.data();
    s.nbb = kNbb;
    s.qpn = qpn;
    s.reserved = &reserved;
    s.ready = &ready;
    s.published = &published;
    s.dbr = &dbr[g::kSendDbr];
    s.cq = &cqe;
    s.deadline_ns = 30ull * 1000 * 1000 * 1000;
  }
};

struct Logs {
  std::mutex mu;
  std::vector<std::string> errors, lines;
  m::model_nic::options opts(int pe, const char *token) {
    m::model_nic::options o;
    o.my_pe = pe;
    o.n_pes = 2;
    o.token = token;
    o.timeout_ms = 3000;
    o.on_error = [this](const std::string &l) {
      std::lock_guard<std::mutex> gd(mu);
      errors.push_back(l);
    };
    o.log = [this](bool, const std::string &l) {
      std::lock_guard<std::mutex> gd(mu);
      lines.push_back(l);
    };
    return o;
  }
  size_t count(std::vector<std::string> &v, const std::string &needle) {
    std::lock_guard<std::mutex> gd(mu);
    size_t n = 0;
    for (const std::string &l : v) n += l.find(needle) != std::string::npos;
    return n;
  }
};

// Posts one entry built by `build` (given the WQEBB and its post_t) on s; signaled when asked.
template <typename B>
void post_one(const g::sq_t &s, bool signaled, B build) {
  uint64_t pos = 0;
  REQUIRE(g::reserve(s, 1, &pos) == g::kPostOk);
  build(g::slot(s, pos), g::post_of(s, pos, signaled || g::wants_cqe(s, pos, pos)));
  REQUIRE(g::publish(s, pos, 1) == g::kPostOk);
}

bool wait_for(const std::function<bool()> &done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("ibgda model wire: pipelined writes, reads and fetch-adds between two PEs' NICs",
          "[ibgda_wire]") {
  Logs logs;
  constexpr size_t kWords = 512;  // remote words (PE 1)
  constexpr int kThreads = 2, kRounds = 400;
  std::vector<uint8_t> remote(kWords * 8 + 2 * kGuard, kPoison);
  const uint64_t rbase = reinterpret_cast<uint64_t>(remote.data() + kGuard);
  alignas(8) static uint64_t counters[4];
  memset(counters, 0, sizeof counters);

  m::model_nic nic0(logs.opts(0, "job-token-1")), nic1(logs.opts(1, "job-token-1"));
  std::string why;
  REQUIRE(nic0.listen("127.0.0.1", &why));
  REQUIRE(nic1.listen("127.0.0.1", &why));
  // PE 0's local side: the whole address space (the transport's implicit key); PE 1's targets.
  REQUIRE(nic0.local_keys().add({kLKey, 0, UINT64_MAX, m::kAccessLocalWrite}));
  REQUIRE(nic1.target_keys().add(
      {kRKey, rbase, kWords * 8, m::kAccessRemoteRead | m::kAccessRemoteWrite}));
  REQUIRE(nic1.target_keys().add(
      {kRKey + 1, reinterpret_cast<uint64_t>(counters), sizeof counters, m::kAccessRemoteAtomic}));
  nic0.start();
  nic1.start();
  REQUIRE(nic0.connect(1, "127.0.0.1", nic1.port(), &why));
  Queue q(0x10, 0, 1);
  nic0.add_queue(&q.q);

  // Thread t owns words [t * kWords / kThreads, ...): each round writes two words (one inline,
  // one from a registered source), reads both back into local memory, and adds to a counter.
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  std::vector<uint64_t> fetched[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      const size_t per = kWords / kThreads, first = size_t(t) * per;
      std::vector<uint64_t> src(per), back(per, 0);
      for (int r = 0; r < kRounds; ++r) {
        const size_t w = first + (size_t(r) * 2) % per, w2 = first + (size_t(r) * 2 + 1) % per;
        const uint64_t v = xt::mix(t, r, 1), v2 = xt::mix(t, r, 2);
        src[w2 - first] = v2;
        post_one(q.s, false, [&](void *wqe, const g::post_t &p) {
          g::build_write_inline(wqe, p, rbase + w * 8, kRKey, &v, 8);
        });
        post_one(q.s, false, [&](void *wqe, const g::post_t &p) {
          g::build_write(wqe, p, rbase + w2 * 8, kRKey,
                         reinterpret_cast<uint64_t>(&src[w2 - first]), kLKey, 8);
        });
        back[w - first] = back[w2 - first] = 0;
        post_one(q.s, false, [&](void *wqe, const g::post_t &p) {
          g::build_read(wqe, p, rbase + w * 8, kRKey, reinterpret_cast<uint64_t>(&back[w - first]),
                        kLKey, 8);
        });
        uint64_t old = ~0ull;
        post_one(q.s, true, [&](void *wqe, const g::post_t &p) {
          g::build_read(wqe, p, rbase + w2 * 8, kRKey,
                        reinterpret_cast<uint64_t>(&back[w2 - first]), kLKey, 8);
        });
        post_one(q.s, true, [&](void *wqe, const g::post_t &p) {
          g::build_fetch_add(wqe, p, reinterpret_cast<uint64_t>(&counters[t % 4]), kRKey + 1,
                             reinterpret_cast<uint64_t>(&old), kLKey, 1 + uint64_t(t));
        });
        if (g::quiet(q.s) != g::kPostOk) {
          bad++;
          return;
        }
        // In order on one queue: the reads saw this round's writes.
        if (back[w - first] != v || back[w2 - first] != v2) bad++;
        fetched[t].push_back(old);
      }
    });
  }
  for (auto &th : ts) th.join();
  for (const std::string &e : logs.errors) UNSCOPED_INFO(e);
  CHECK(bad.load() == 0);
  // Every word holds its last writer's value; the guards are untouched.
  for (int t = 0; t < kThreads; ++t) {
    const size_t per = kWords / kThreads, first = size_t(t) * per;
    for (int r = kRounds - per / 2 > 0 ? kRounds - int(per / 2) : 0; r < kRounds; ++r) {
      const size_t w = first + (size_t(r) * 2) % per, w2 = first + (size_t(r) * 2 + 1) % per;
      uint64_t got, got2;
      memcpy(&got, remote.data() + kGuard + w * 8, 8);
      memcpy(&got2, remote.data() + kGuard + w2 * 8, 8);
      CHECK(got == xt::mix(t, r, 1));
      CHECK(got2 == xt::mix(t, r, 2));
    }
  }
  for (size_t i = 0; i < kGuard; ++i) {
    CHECK(remote[i] == kPoison);
    CHECK(remote[kGuard + kWords * 8 + i] == kPoison);
  }
  // Fetch-adds: each thread's fetched values step by its addend (one adder per counter).
  for (int t = 0; t < kThreads; ++t) {
    REQUIRE(fetched[t].size() == size_t(kRounds));
    for (int r = 0; r < kRounds; ++r) CHECK(fetched[t][size_t(r)] == uint64_t(r) * (1 + t));
    CHECK(counters[t % 4] == uint64_t(kRounds) * (1 + t));
  }
  CHECK(logs.errors.empty());

  // A wrong remote key: quiet reports the error, on_error names it, and the write posted after
  // it is flushed at the responder, never executed.
  const uint64_t before = counters[3];
  const uint64_t one = 1;
  uint64_t spare = 0;
  post_one(q.s, false, [&](void *wqe, const g::post_t &p) {
    g::build_write_inline(wqe, p, rbase, 0xDEAD, &one, 8);
  });
  post_one(q.s, false, [&](void *wqe, const g::post_t &p) {
    g::build_fetch_add(wqe, p, reinterpret_cast<uint64_t>(&counters[3]), kRKey + 1,
                       reinterpret_cast<uint64_t>(&spare), kLKey, 5);
  });
  uint64_t failed = 0;
  CHECK(g::quiet(q.s, &failed) == g::kPostError);
  REQUIRE(wait_for([&] { return logs.count(logs.errors, "send-queue position") == 1; }));
  CHECK(logs.count(logs.errors, "ibgda NIC model: pe 0, queue qp 0x10 to pe 1") == 1);
  CHECK(logs.count(logs.errors, "remote key 0xdead is not registered") == 1);
  CHECK(logs.count(logs.errors, "syndrome 0x13") == 1);
  CHECK(counters[3] == before);

  // A stranger on PE 1's port, and a PE of another job: both refused.
  {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(nic1.port());
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0);
    std::vector<char> junk(256, 'x');
    (void)send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    REQUIRE(wait_for([&] { return logs.count(logs.lines, "refused a connection") == 1; }));
    close(fd);
  }
  m::model_nic other(logs.opts(0, "another-job"));
  CHECK_FALSE(other.connect(1, "127.0.0.1", nic1.port(), &why));
  CHECK(why.find("did not accept this pe's hello") != std::string::npos);
  // The refusal is logged by PE 1's listener, which may answer before it writes the line.
  CHECK(wait_for([&] { return logs.count(logs.lines, "refused a connection") == 2; }));
  nic0.stop();
  nic1.stop();
}

namespace {
// A local memory access whose copies take `delay` (a driver copy stuck behind GPU work).
class SlowAccess final : public xshmem::backend::MemAccess {
 public:
  explicit SlowAccess(int ms) : delay_ms(ms) {}
  const char *name() const override { return "slow"; }
  xshmem_status_t copy(void *, void *dst, const void *src, size_t n) override {
    xshmem::backend::in_driver_call c("cuFakeCopy");  // as CudaAccess marks its driver calls
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    memcpy(dst, src, n);
    return XSHMEM_SUCCESS;
  }
  void apply(void *lane, xshmem_heap_op_v1_t *ops, size_t n) override { host.apply(lane, ops, n); }
  std::atomic<int> delay_ms;
  xshmem::backend::HostAccess host;
};
}  // namespace

TEST_CASE("ibgda model wire: the watchdog names a NIC thread stuck in a copy, once",
          "[ibgda_wire]") {
  Logs logs;
  alignas(8) static uint64_t word = 0;
  word = 0;
  m::model_nic::options o0 = logs.opts(0, "job-token-w"), o1 = logs.opts(1, "job-token-w");
  o0.stall_warn_ms = 150;
  o1.stall_warn_ms = 150;
  m::model_nic nic0(o0), nic1(o1);
  std::string why;
  REQUIRE(nic0.listen("127.0.0.1", &why));
  REQUIRE(nic1.listen("127.0.0.1", &why));
  SlowAccess slow(900);
  nic0.local_keys().set_access(&slow, nullptr);
  REQUIRE(nic0.local_keys().add({kLKey, 0, UINT64_MAX, m::kAccessLocalWrite}));
  REQUIRE(nic1.target_keys().add(
      {kRKey, reinterpret_cast<uint64_t>(&word), sizeof word, m::kAccessRemoteWrite}));
  nic0.start();
  nic1.start();
  REQUIRE(nic0.connect(1, "127.0.0.1", nic1.port(), &why));
  Queue q(0x30, 0, 1);
  nic0.add_queue(&q.q);
  const uint64_t v = 0x5EED5EED12345678ull;
  // A write from registered memory: the NIC reads its source through the (slow) local access.
  post_one(q.s, true, [&](void *wqe, const g::post_t &p) {
    g::build_write(wqe, p, reinterpret_cast<uint64_t>(&word), kRKey, reinterpret_cast<uint64_t>(&v),
                   kLKey, 8);
  });
  CHECK(g::quiet(q.s) == g::kPostOk);
  CHECK(word == v);
  const std::string needle =
      "ibgda NIC model: pe 0's NIC thread has been reading a write's source through the local "
      "memory access";
  CHECK(logs.count(logs.lines, needle) == 1);
  CHECK(logs.count(logs.lines,
                   ", inside cuFakeCopy (the entry at send-queue position 0 of its "
                   "queue to pe 1)") == 1);
  // A fast copy names nothing.
  slow.delay_ms = 0;
  post_one(q.s, true, [&](void *wqe, const g::post_t &p) {
    g::build_write(wqe, p, reinterpret_cast<uint64_t>(&word), kRKey, reinterpret_cast<uint64_t>(&v),
                   kLKey, 8);
  });
  CHECK(g::quiet(q.s) == g::kPostOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  CHECK(logs.count(logs.lines, needle) == 1);
  for (const std::string &l : logs.lines) UNSCOPED_INFO(l);
  CHECK(logs.errors.empty());
  nic0.stop();
  nic1.stop();
}
