// Unit tests of the dispatchers (device/include/xshmem/device/rma.h, amo.h, signal.h) compiled
// for the host, over peers of both paths the host serves: LSA (the peer's heap mapped) and PROXY
// (the serving transport's data operations). A fake job holds every PE's heap in this process;
// its fake transport moves bytes between them by heap offset and records the channel of every
// operation, so the tests see which path an operation took and which context it ran under. A
// PROXY peer's LSA base is 0, so an operation that took the wrong path faults.
#include <xshmem/device/coll_move.h>
#include <xshmem/device/coll_reduce.h>
#include <xshmem/device/ctx.h>
#include <xshmem/device/path.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../catch_compat.h"
#include "test_pattern.h"

namespace xd = xshmem::dev;

namespace {

constexpr size_t kUserOffset = (sizeof(xd::internal_region_t) + 4095) / 4096 * 4096;
constexpr size_t kHeapBytes = kUserOffset + 64 * 1024;
constexpr unsigned char kPoison = 0x5A;
constexpr size_t kGuard = 32;
constexpr int kChannels = 4;

using xt::mix;

size_t unpoisoned(const unsigned char *p, size_t n) {
  return xt::unpoisoned(p, n, kPoison);
}

struct alignas(4096) Heap {
  unsigned char bytes[kHeapBytes];
};

enum Op { kPut, kGet, kAmo, kPutSignal, kFence, kQuiet, kNumOps };

class MixedJob;

// The fake transport's context: the job and the PE that calls.
struct FakeCtx {
  MixedJob *job;
  int me;
};

// n PEs; lsa[me][pe] says whether PE me reaches pe by LSA (else by PROXY).
class MixedJob {
 public:
  MixedJob(int n, std::vector<std::vector<bool>> lsa) : n_(n), lsa_(std::move(lsa)) {
    for (int pe = 0; pe < n; ++pe) {
      heaps_.push_back(std::make_unique<Heap>());
      std::memset(heaps_.back()->bytes, 0, kHeapBytes);
    }
    peers_.resize(n);
    remote_.resize(n);
    ctxs_.resize(n);
    for (int me = 0; me < n; ++me) {
      ctxs_[me] = FakeCtx{this, me};
      peers_[me].resize(n);
      remote_[me].resize(n);
      for (int pe = 0; pe < n; ++pe) {
        if (lsa_[me][pe]) {
          peers_[me][pe].path = XSHMEM_PATH_LSA;
          peers_[me][pe].base = reinterpret_cast<uintptr_t>(heaps_[pe]->bytes);
        } else {
          peers_[me][pe].path = XSHMEM_PATH_PROXY;
          peers_[me][pe].base = 0;
          remote_[me][pe] = xd::host_remote_t{&ops_, &ctxs_[me]};
        }
      }
      transports_.push_back(xd::host_remote_t{&ops_, &ctxs_[me]});
    }
    for (auto &a : calls_)
      for (auto &c : a) c.store(0);
  }
  xd::state_t state(int me) {
    xd::state_t s;
    s.my_pe = me;
    s.n_pes = n_;
    s.heap_base = reinterpret_cast<uintptr_t>(heaps_[me]->bytes);
    s.heap_size = kHeapBytes;
    s.peers = peers_[me].data();
    s.internal = reinterpret_cast<xd::internal_region_t *>(heaps_[me]->bytes);
    s.remote = remote_[me].data();
    bool any_proxy = false;
    for (int pe = 0; pe < n_; ++pe) any_proxy |= !lsa_[me][pe];
    s.remote_transports = any_proxy ? &transports_[me] : nullptr;
    s.n_remote_transports = any_proxy ? 1 : 0;
    s.num_channels = kChannels;
    s.on_remote_error = [](int pe, const char *op, int st) {
      fprintf(stderr, "test: %s to pe %d failed (%d)\n", op, pe, st);
      abort();
    };
    s.on_bad_path = [](int pe) {
      fprintf(stderr, "test: no path to pe %d\n", pe);
      abort();
    };
    // A wait that lasts 20 s is a hang of the test: stop it with a line.
    s.wait_timeout_ns = 20'000'000'000ull;
    s.on_wait_timeout = [](const xd::wait_timeout_t *w) {
      fprintf(stderr, "test: wait %d for pe %d timed out\n", w->call, w->pe);
      abort();
    };
    return s;
  }
  unsigned char *at(int pe, size_t off) { return heaps_[pe]->bytes + off; }
  template <typename T>
  T *sym(int pe, size_t off) {
    return reinterpret_cast<T *>(at(pe, off));
  }
  int calls(int me, Op op, int channel) const { return calls_[me * kNumOps + op][channel].load(); }
  int calls(int me, Op op) const {
    int t = 0;
    for (int c = 0; c < kChannels; ++c) t += calls(me, op, c);
    return t;
  }
  // The flags of the last put, get or put_signal the transport saw.
  uint32_t last_flags() const { return last_flags_.load(); }
  void reset_calls() {
    for (auto &a : calls_)
      for (auto &c : a) c.store(0);
  }

 private:
  static MixedJob &job(void *ctx) { return *static_cast<FakeCtx *>(ctx)->job; }
  static int me_of(void *ctx) { return static_cast<FakeCtx *>(ctx)->me; }
  void count(void *ctx, Op op, int channel) {
    if (channel < 0 || channel >= kChannels) {
      fprintf(stderr, "test: channel %d outside [0, %d)\n", channel, kChannels);
      abort();
    }
    calls_[me_of(ctx) * kNumOps + op][channel].fetch_add(1);
  }
  static xshmem_status_t put(void *ctx, int ch, int pe, uint64_t off, const void *src, size_t n,
                             uint32_t flags) {
    job(ctx).count(ctx, kPut, ch);
    job(ctx).last_flags_.store(flags);
    std::memcpy(job(ctx).at(pe, off), src, n);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return XSHMEM_SUCCESS;
  }
  static xshmem_status_t get(void *ctx, int ch, int pe, void *dst, uint64_t off, size_t n,
                             uint32_t flags) {
    job(ctx).count(ctx, kGet, ch);
    job(ctx).last_flags_.store(flags);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::memcpy(dst, job(ctx).at(pe, off), n);
    return XSHMEM_SUCCESS;
  }
  template <typename T>
  static uint64_t amo_on(T *p, xshmem_amo_op_t op, T v, T c) {
    T old{};
    switch (op) {
      case XSHMEM_AMO_FETCH:
        old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_SET:
        __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_SWAP:
        old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_COMPARE_SWAP:
        old = c;
        __atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_ADD:
      case XSHMEM_AMO_FETCH_ADD:
        old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_FETCH_AND:
        old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_FETCH_OR:
        old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
        break;
      case XSHMEM_AMO_FETCH_XOR:
        old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
        break;
      default:
        fprintf(stderr, "test: amo op %d not faked\n", static_cast<int>(op));
        abort();
    }
    uint64_t b = 0;
    std::memcpy(&b, &old, sizeof(T));
    return b;
  }
  static xshmem_status_t amo(void *ctx, int ch, int pe, uint64_t off, xshmem_amo_op_t op,
                             xshmem_amo_type_t type, uint64_t operand, uint64_t compare,
                             uint64_t *fetched, uint32_t) {
    job(ctx).count(ctx, kAmo, ch);
    unsigned char *p = job(ctx).at(pe, off);
    uint64_t old;
    if (type == XSHMEM_AMO_U32 || type == XSHMEM_AMO_I32) {
      old = amo_on(reinterpret_cast<uint32_t *>(p), op, static_cast<uint32_t>(operand),
                   static_cast<uint32_t>(compare));
    } else if (type == XSHMEM_AMO_U64 || type == XSHMEM_AMO_I64) {
      old = amo_on(reinterpret_cast<uint64_t *>(p), op, operand, compare);
    } else {
      return XSHMEM_ERR_UNSUPPORTED;
    }
    if (fetched != nullptr) *fetched = old;
    return XSHMEM_SUCCESS;
  }
  static xshmem_status_t put_signal(void *ctx, int ch, int pe, uint64_t off, const void *src,
                                    size_t n, uint64_t sig_off, uint64_t signal, int sig_op,
                                    uint32_t flags) {
    job(ctx).count(ctx, kPutSignal, ch);
    job(ctx).last_flags_.store(flags);
    std::memcpy(job(ctx).at(pe, off), src, n);
    auto *sig = reinterpret_cast<uint64_t *>(job(ctx).at(pe, sig_off));
    if (sig_op == xd::kSignalAdd) {
      __atomic_fetch_add(sig, signal, __ATOMIC_SEQ_CST);
    } else {
      __atomic_store_n(sig, signal, __ATOMIC_SEQ_CST);
    }
    return XSHMEM_SUCCESS;
  }
  static xshmem_status_t fence(void *ctx, int ch) {
    job(ctx).count(ctx, kFence, ch);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return XSHMEM_SUCCESS;
  }
  static xshmem_status_t quiet(void *ctx, int ch) {
    job(ctx).count(ctx, kQuiet, ch);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return XSHMEM_SUCCESS;
  }

  int n_;
  std::vector<std::vector<bool>> lsa_;
  std::vector<std::unique_ptr<Heap>> heaps_;
  std::vector<std::vector<xd::peer_t>> peers_;
  std::vector<std::vector<xd::host_remote_t>> remote_;
  std::vector<xd::host_remote_t> transports_;
  std::vector<FakeCtx> ctxs_;
  xshmem_transport_data_ops_v1_t ops_{
      .struct_size = sizeof(xshmem_transport_data_ops_v1_t),
      .flags = 0,
      .put = &MixedJob::put,
      .get = &MixedJob::get,
      .amo = &MixedJob::amo,
      .put_signal = &MixedJob::put_signal,
      .fence = &MixedJob::fence,
      .quiet = &MixedJob::quiet,
      .progress = nullptr,
      .mem_register = nullptr,
      .mem_deregister = nullptr,
      .error_query = nullptr,
  };
  std::array<std::array<std::atomic<int>, kChannels>, 8 * kNumOps> calls_;
  std::atomic<uint32_t> last_flags_{0xFFFFFFFFu};
};

// PE 0 and 1 reach each other by LSA; every pair involving PE 2 (and 3) is PROXY.
std::vector<std::vector<bool>> mixed(int n) {
  std::vector<std::vector<bool>> m(n, std::vector<bool>(n, false));
  for (int a = 0; a < n; ++a) m[a][a] = true;
  if (n >= 2) m[0][1] = m[1][0] = true;
  return m;
}

xd::team_t world(const xd::state_t &s) {
  return xd::world_team(s);
}

}  // namespace

TEST_CASE("ptr and team_ptr are NULL for PROXY peers, the mapping for LSA peers",
          "[dispatch][ptr]") {
  MixedJob job(3, mixed(3));
  const xd::state_t s = job.state(0);
  auto *sym = job.sym<uint64_t>(0, kUserOffset + 8 * 7);
  CHECK(xd::ptr(s, sym, 0) == job.sym<uint64_t>(0, kUserOffset + 8 * 7));
  CHECK(xd::ptr(s, sym, 1) == job.sym<uint64_t>(1, kUserOffset + 8 * 7));
  CHECK(xd::ptr(s, sym, 2) == nullptr);
  const xd::team_t t = world(s);
  CHECK(xd::team_ptr(s, t, sym, 1) == job.sym<uint64_t>(1, kUserOffset + 8 * 7));
  CHECK(xd::team_ptr(s, t, sym, 2) == nullptr);
  CHECK(xd::team_ptr(s, t, sym, 3) == nullptr);  // outside the team
  // A team of {0, 2} (stride 2): its member 1 is world PE 2, a PROXY peer.
  xd::team_t even = t;
  even.stride = 2;
  even.size = 2;
  even.my_index = 0;
  CHECK(xd::team_ptr(s, even, sym, 0) == job.sym<uint64_t>(0, kUserOffset + 8 * 7));
  CHECK(xd::team_ptr(s, even, sym, 1) == nullptr);
  // PE 2 sees both others as PROXY, itself as LSA.
  const xd::state_t s2 = job.state(2);
  auto *sym2 = job.sym<uint64_t>(2, kUserOffset);
  CHECK(xd::ptr(s2, sym2, 0) == nullptr);
  CHECK(xd::ptr(s2, sym2, 1) == nullptr);
  CHECK(xd::ptr(s2, sym2, 2) == job.sym<uint64_t>(2, kUserOffset));
}

TEST_CASE("RMA reaches PROXY peers through the transport, LSA peers through the mapping",
          "[dispatch][rma]") {
  MixedJob job(3, mixed(3));
  const int me = 0;
  const xd::state_t s = job.state(me);
  for (int pe : {1, 2}) {
    for (size_t n : {1, 7, 64, 1000}) {
      job.reset_calls();
      const size_t off = kUserOffset + kGuard + 3;
      std::vector<unsigned char> src(n);
      for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(mix(me, pe, n * 131 + i));
      std::memset(job.at(pe, kUserOffset), kPoison, n + 3 + 2 * kGuard);
      xd::putmem(s, job.at(me, off), src.data(), n, pe);
      INFO("pe " << pe << " n " << n);
      CHECK(std::memcmp(job.at(pe, off), src.data(), n) == 0);
      CHECK(unpoisoned(job.at(pe, kUserOffset), kGuard + 3) == 0);
      CHECK(unpoisoned(job.at(pe, off + n), kGuard) == 0);
      CHECK(job.calls(me, kPut) == (pe == 2 ? 1 : 0));
      std::vector<unsigned char> back(n + 2 * kGuard, kPoison);
      xd::getmem_nbi(s, back.data() + kGuard, job.at(me, off), n, pe);
      xd::quiet(s);
      CHECK(std::memcmp(back.data() + kGuard, src.data(), n) == 0);
      CHECK(unpoisoned(back.data(), kGuard) == 0);
      CHECK(unpoisoned(back.data() + kGuard + n, kGuard) == 0);
      CHECK(job.calls(me, kGet) == (pe == 2 ? 1 : 0));
      // quiet visits the transport whatever the peer of the operation was.
      CHECK(job.calls(me, kQuiet) == 1);
    }
    // p and g, and the strided forms (every other element; the gaps keep their poison).
    const uint64_t v = mix(7, pe);
    xd::p(s, job.sym<uint64_t>(me, kUserOffset), v, pe);
    CHECK(*job.sym<uint64_t>(pe, kUserOffset) == v);
    *job.sym<uint64_t>(pe, kUserOffset + 8) = ~v;
    CHECK(xd::g(s, job.sym<uint64_t>(me, kUserOffset + 8), pe) == ~v);
    std::array<uint32_t, 5> in{};
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(mix(pe, i, 3));
    std::memset(job.at(pe, kUserOffset + 64), kPoison, 64);
    xd::iput(s, job.sym<uint32_t>(me, kUserOffset + 64), in.data(), 2, 1, in.size(), pe);
    const uint32_t *d = job.sym<uint32_t>(pe, kUserOffset + 64);
    for (size_t i = 0; i < in.size(); ++i) {
      CHECK(d[2 * i] == in[i]);
      if (i + 1 < in.size())
        CHECK(unpoisoned(reinterpret_cast<const unsigned char *>(d + 2 * i + 1), 4) == 0);
    }
    std::array<uint32_t, 5> out{};
    xd::iget(s, out.data(), job.sym<uint32_t>(me, kUserOffset + 64), 1, 2, out.size(), pe);
    CHECK(out == in);
  }
}

TEST_CASE("atomics and signals reach PROXY peers with their values", "[dispatch][amo]") {
  MixedJob job(3, mixed(3));
  const xd::state_t s = job.state(1);
  for (int pe : {0, 2}) {
    job.reset_calls();
    auto *w = job.sym<uint64_t>(1, kUserOffset + 256);
    const uint64_t base = mix(pe, 11);
    *job.sym<uint64_t>(pe, kUserOffset + 256) = base;
    CHECK(xd::atomic_fetch_add(s, w, uint64_t{5}, pe) == base);
    CHECK(xd::atomic_compare_swap(s, w, base + 5, uint64_t{42}, pe) == base + 5);
    CHECK(xd::atomic_swap(s, w, uint64_t{43}, pe) == 42);
    CHECK(xd::atomic_fetch(s, w, pe) == 43);
    xd::atomic_set(s, w, uint64_t{0xF0F0}, pe);
    CHECK(xd::atomic_fetch_xor(s, w, uint64_t{0xFF}, pe) == 0xF0F0);
    CHECK(*job.sym<uint64_t>(pe, kUserOffset + 256) == (0xF0F0 ^ 0xFF));
    auto *w32 = job.sym<int32_t>(1, kUserOffset + 264);
    *job.sym<int32_t>(pe, kUserOffset + 264) = -3;
    CHECK(xd::atomic_fetch_add(s, w32, int32_t{-4}, pe) == -3);
    CHECK(*job.sym<int32_t>(pe, kUserOffset + 264) == -7);
    CHECK(job.calls(1, kAmo) == (pe == 2 ? 7 : 0));

    // put_signal: data and signal land; the signal ADDs.
    std::array<uint64_t, 3> data{mix(pe, 1), mix(pe, 2), mix(pe, 3)};
    auto *dst = job.sym<uint64_t>(1, kUserOffset + 512);
    auto *sig = job.sym<uint64_t>(1, kUserOffset + 600);
    *job.sym<uint64_t>(pe, kUserOffset + 600) = 10;
    xd::putmem_signal(s, dst, data.data(), sizeof(data), sig, 7, xd::kSignalAdd, pe);
    CHECK(std::memcmp(job.at(pe, kUserOffset + 512), data.data(), sizeof(data)) == 0);
    CHECK(*job.sym<uint64_t>(pe, kUserOffset + 600) == 17);
    xd::signal_op(s, sig, 99, xd::kSignalSet, pe);
    CHECK(*job.sym<uint64_t>(pe, kUserOffset + 600) == 99);
    CHECK(job.calls(1, kPutSignal) == (pe == 2 ? 1 : 0));
  }
}

TEST_CASE("a context selects the transport channel; its fence and quiet run on it",
          "[dispatch][ctx]") {
  MixedJob job(3, mixed(3));
  const xd::state_t s = job.state(0);
  auto *w = job.sym<uint64_t>(0, kUserOffset);
  for (int32_t entry : {0, 1, 3, 6, 9}) {
    job.reset_calls();
    const int32_t ctx = xd::ctx_handle(entry, 0);
    const int ch = entry % kChannels;
    INFO("ctx entry " << entry);
    const uint64_t v = mix(entry, 5);
    xd::putmem(s, ctx, w, &v, sizeof(v), 2);
    uint64_t got = 0;
    xd::getmem(s, ctx, &got, w, sizeof(got), 2);
    CHECK(got == v);
    xd::p(s, ctx, w, v + 1, 2);
    CHECK(xd::g(s, ctx, w, 2) == v + 1);
    CHECK(xd::amo_path<xd::amo_op::fetch_add, xd::thread_group>(s, ctx, w, uint64_t{1}, uint64_t{0},
                                                                2) == v + 1);
    xd::putmem_signal(s, ctx, w, &v, sizeof(v), w + 1, 1, xd::kSignalSet, 2);
    xd::fence(s, ctx);
    xd::quiet(s, ctx);
    CHECK(job.calls(0, kPut, ch) == 2);  // putmem, p
    CHECK(job.calls(0, kGet, ch) == 2);  // getmem, g
    CHECK(job.calls(0, kAmo, ch) == 1);
    CHECK(job.calls(0, kPutSignal, ch) == 1);
    CHECK(job.calls(0, kFence, ch) == 1);
    CHECK(job.calls(0, kQuiet, ch) == 1);
    // Nothing ran on another channel.
    CHECK(job.calls(0, kPut) + job.calls(0, kGet) + job.calls(0, kAmo) + job.calls(0, kPutSignal) +
              job.calls(0, kFence) + job.calls(0, kQuiet) ==
          8);
    // An LSA peer under the same context: no transport call.
    xd::putmem(s, ctx, w, &v, sizeof(v), 1);
    CHECK(*job.sym<uint64_t>(1, kUserOffset) == v);
    CHECK(job.calls(0, kPut) == 2);
  }
}

TEST_CASE("the nbi forms reach the transport as non-blocking, the blocking ones as blocking",
          "[dispatch][nbi]") {
  MixedJob job(3, mixed(3));
  const xd::state_t s = job.state(0);
  auto *w = job.sym<uint64_t>(0, kUserOffset + 64);
  uint64_t v = mix(3, 4), got = 0;
  xd::putmem(s, w, &v, sizeof v, 2);
  CHECK(job.last_flags() == 0u);
  xd::putmem_nbi(s, w, &v, sizeof v, 2);
  CHECK(job.last_flags() == XSHMEM_DATA_NBI);
  xd::getmem(s, &got, w, sizeof got, 2);
  CHECK(job.last_flags() == 0u);
  xd::getmem_nbi(s, &got, w, sizeof got, 2);
  CHECK(job.last_flags() == XSHMEM_DATA_NBI);
  xd::quiet(s);
  CHECK(got == v);
  xd::putmem_signal(s, w, &v, sizeof v, w + 1, 1, xd::kSignalAdd, 2);
  CHECK(job.last_flags() == 0u);
  xd::putmem_signal_nbi(s, w, &v, sizeof v, w + 1, 1, xd::kSignalAdd, 2);
  CHECK(job.last_flags() == XSHMEM_DATA_NBI);
  // The group dispatchers at thread scope keep the distinction (the _warp/_block forms are these
  // templates with another group).
  xd::putmem_group<xd::thread_group>(s, xd::kCtxDefault, w, &v, sizeof v, 2, false);
  CHECK(job.last_flags() == 0u);
  xd::putmem_group<xd::thread_group>(s, xd::kCtxDefault, w, &v, sizeof v, 2, true);
  CHECK(job.last_flags() == XSHMEM_DATA_NBI);
  xd::quiet(s);
  CHECK(*job.sym<uint64_t>(2, kUserOffset + 72) == 2);  // both signals added
}

namespace {

// Runs fn(pe, state) on one thread per PE.
template <typename F>
void on_every_pe(MixedJob &job, int n, F fn) {
  std::vector<std::thread> th;
  for (int pe = 0; pe < n; ++pe) th.emplace_back([&, pe] { fn(pe, job.state(pe)); });
  for (auto &t : th) t.join();
}

}  // namespace

TEST_CASE("collectives and team syncs work over mixed LSA and PROXY peers", "[dispatch][coll]") {
  const int n = GENERATE(3, 4);
  MixedJob job(n, mixed(n));
  const size_t nb = 200;  // bytes per member
  const size_t src_off = kUserOffset, dst_off = kUserOffset + 8192;
  for (int pe = 0; pe < n; ++pe) {
    for (size_t i = 0; i < nb * n; ++i)
      job.at(pe, src_off)[i] = static_cast<unsigned char>(mix(pe, i, 77));
  }
  SECTION("broadcast from each root") {
    for (int root = 0; root < n; ++root) {
      for (int pe = 0; pe < n; ++pe) std::memset(job.at(pe, dst_off), kPoison, nb + kGuard);
      on_every_pe(job, n, [&](int pe, const xd::state_t &s) {
        xd::broadcastmem<xd::coll_thread>(s, world(s), job.at(pe, dst_off), job.at(pe, src_off), nb,
                                          root);
      });
      for (int pe = 0; pe < n; ++pe) {
        INFO("root " << root << " pe " << pe);
        CHECK(std::memcmp(job.at(pe, dst_off), job.at(root, src_off), nb) == 0);
        CHECK(unpoisoned(job.at(pe, dst_off + nb), kGuard) == 0);
      }
    }
  }
  SECTION("fcollect and alltoall") {
    for (int pe = 0; pe < n; ++pe) std::memset(job.at(pe, dst_off), kPoison, nb * n + kGuard);
    on_every_pe(job, n, [&](int pe, const xd::state_t &s) {
      xd::fcollectmem<xd::coll_thread>(s, world(s), job.at(pe, dst_off), job.at(pe, src_off), nb);
    });
    for (int pe = 0; pe < n; ++pe) {
      for (int k = 0; k < n; ++k) {
        INFO("fcollect pe " << pe << " block " << k);
        CHECK(std::memcmp(job.at(pe, dst_off + k * nb), job.at(k, src_off), nb) == 0);
      }
      CHECK(unpoisoned(job.at(pe, dst_off + n * nb), kGuard) == 0);
    }
    for (int pe = 0; pe < n; ++pe) std::memset(job.at(pe, dst_off), kPoison, nb * n + kGuard);
    on_every_pe(job, n, [&](int pe, const xd::state_t &s) {
      xd::alltoallmem<xd::coll_thread>(s, world(s), job.at(pe, dst_off), job.at(pe, src_off), nb);
    });
    for (int pe = 0; pe < n; ++pe) {
      for (int k = 0; k < n; ++k) {
        INFO("alltoall pe " << pe << " from " << k);
        CHECK(std::memcmp(job.at(pe, dst_off + k * nb), job.at(k, src_off + pe * nb), nb) == 0);
      }
      CHECK(unpoisoned(job.at(pe, dst_off + n * nb), kGuard) == 0);
    }
  }
  SECTION("sum reduction (direct and rsag requests) and team barriers") {
    const size_t cnt = 300;
    for (int algo : {xd::kReduceDirect, xd::kReduceRsag}) {
      for (int pe = 0; pe < n; ++pe) {
        auto *v = job.sym<uint64_t>(pe, src_off);
        for (size_t i = 0; i < cnt; ++i) v[i] = mix(pe, i) >> 8;
        std::memset(job.at(pe, dst_off), kPoison, cnt * 8 + kGuard);
      }
      on_every_pe(job, n, [&](int pe, xd::state_t s) {
        s.coll_reduce_algo = algo;  // rsag must fall back to direct: not every member is LSA
        const xd::team_t t = world(s);
        xd::team_barrier(s, t);
        xd::team_reduce<xd::reduce_thread_group, xd::kRedSum>(s, t, job.sym<uint64_t>(pe, dst_off),
                                                              job.sym<uint64_t>(pe, src_off), cnt);
        xd::barrier_all(s);
      });
      for (int pe = 0; pe < n; ++pe) {
        const auto *d = job.sym<uint64_t>(pe, dst_off);
        for (size_t i = 0; i < cnt; ++i) {
          uint64_t want = 0;
          for (int k = 0; k < n; ++k) want += mix(k, i) >> 8;
          if (d[i] != want) {
            INFO("algo " << algo << " pe " << pe << " element " << i);
            CHECK(d[i] == want);
            break;
          }
        }
        CHECK(unpoisoned(job.at(pe, dst_off + cnt * 8), kGuard) == 0);
      }
    }
  }
  // Every PE that has a PROXY peer used the transport.
  for (int pe = 0; pe < n; ++pe) CHECK(job.calls(pe, kPut) + job.calls(pe, kAmo) > 0);
}
