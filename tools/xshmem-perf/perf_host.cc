// xshmem-perf: metrics of the host API, PE 0 -> PE 1 unless said otherwise.
//
// Every function here is called by every PE at the same point. PEs other than 0 and 1 take part
// in the barriers only. Bandwidth metrics calibrate an iteration count so that one repetition
// lasts at least opt.min_time_s, time `reps` repetitions and report the median; each repetition
// writes a pattern of its own, verified at the receiver after the repetition.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include <xshmem/xshmem.h>

#include "perf.h"

namespace xshmem::perf {
namespace {

constexpr int kSender = 0;
constexpr int kReceiver = 1;

// A private (non-symmetric) page-aligned buffer.
struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
using PrivateBuf = std::unique_ptr<uint8_t, FreeDeleter>;
PrivateBuf private_alloc(size_t n) {
  size_t rounded = (std::max<size_t>(n, 1) + 4095) / 4096 * 4096;
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(4096, rounded));
  if (p == nullptr) {
    std::fprintf(stderr, "xshmem-perf: cannot allocate %zu bytes of private memory\n", n);
    std::exit(1);
  }
  return PrivateBuf(p);
}

// A symmetric buffer, freed collectively when it goes out of scope (every PE holds one).
struct SymFree {
  void operator()(void *p) const { xshmem_free(p); }
};
template <typename T>
using SymBuf = std::unique_ptr<T, SymFree>;
template <typename T>
SymBuf<T> sym_calloc(Context &ctx, size_t count) {
  void *p = xshmem_calloc(count, sizeof(T));
  if (p == nullptr) {
    // calloc fails on every PE alike, so every PE leaves here; PE 0 explains.
    if (ctx.me == 0) {
      std::fprintf(stderr,
                   "xshmem-perf: xshmem_calloc of %zu bytes failed: the symmetric heap is too "
                   "small; lower --max-size or raise XSHMEM_SYMMETRIC_SIZE (default 1G)\n",
                   count * sizeof(T));
    }
    xshmem_global_exit(1);
  }
  return SymBuf<T>(static_cast<T *>(p));
}

// Keeps the compiler from merging or dropping the repeated copies of memcpy_bw.
void *(*volatile g_memcpy)(void *, const void *, size_t) = std::memcpy;

// Times at least `iters` calls of op on the sender only, between the barriers all PEs pass; if
// they end before min_time_s (the machine got faster than at calibration), adds calls in chunks
// until it is reached. Returns {calls, seconds}.
template <typename Op>
std::pair<uint64_t, double> time_sender(Context &ctx, uint64_t iters, Op &&op) {
  uint64_t calls = 0;
  double elapsed = 0;
  if (ctx.me == kSender) {
    const uint64_t chunk = std::max<uint64_t>(1, iters / 8);
    auto t0 = Clock::now();
    for (uint64_t i = 0; i < iters; ++i) op();
    calls = iters;
    xshmem_quiet();
    while ((elapsed = seconds_since(t0)) < ctx.opt.min_time_s) {
      for (uint64_t i = 0; i < chunk; ++i) op();
      calls += chunk;
      xshmem_quiet();
    }
  }
  return {calls, elapsed};
}

// Finds, on the sender, how many operations make one repetition last at least min_time_s. Also
// the warm-up: the first calls fault in the pages of every mapping involved.
template <typename Op>
uint64_t calibrate(Context &ctx, Op &&op) {
  uint64_t n = 0;
  if (ctx.me == kSender) {
    // One untimed call first: it pays for the page faults, which would otherwise make a single
    // call of a large size look long enough to be the whole repetition.
    op();
    xshmem_quiet();
    const double target = ctx.opt.min_time_s;
    n = 1;
    for (;;) {
      auto t0 = Clock::now();
      for (uint64_t i = 0; i < n; ++i) op();
      xshmem_quiet();
      double t = seconds_since(t0);
      if (t >= target / 4 || n >= (uint64_t{1} << 40)) {
        // Scale to the target with 10% margin; at least one op.
        double scaled = t > 0 ? static_cast<double>(n) * target * 1.1 / t : static_cast<double>(n);
        n = std::max<uint64_t>(1, static_cast<uint64_t>(scaled));
        break;
      }
      n *= 2;
    }
  }
  return n;
}

// The bandwidth loop shared by put, get and memcpy. `fill(seed)` runs on the PE holding the
// source before each repetition, `op()` on the sender, `check(seed)` on the PE holding the
// destination after it (returns the first bad offset or SIZE_MAX).
// With `ref` (put_bw), the sender also times ref() -- a plain memcpy of the same size -- right
// after each repetition, the same number of calls: both see the same machine load, so the
// per-repetition ratio is meaningful even on a busy machine. The reference samples go to *ref_gbps.
struct NoRef {
  void operator()() const {}
};
template <typename Fill, typename Op, typename Check, typename Ref = NoRef>
void bandwidth(Context &ctx, const char *metric, size_t size, int source_pe, int dest_pe,
               Fill &&fill, Op &&op, Check &&check, Ref &&ref = NoRef{},
               std::vector<double> *ref_gbps = nullptr) {
  // Warm-up pattern, different from every repetition's.
  if (ctx.me == source_pe) fill(~uint64_t{0});
  xshmem_barrier_all();
  const uint64_t iters = calibrate(ctx, op);
  xshmem_barrier_all();

  std::vector<double> gbps;
  uint64_t min_calls = UINT64_MAX;  // reported: the fewest calls one repetition timed
  bool ok = true;
  for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
    const uint64_t seed = (uint64_t{size} << 8) ^ (rep + 1);
    if (ctx.me == source_pe) fill(seed);
    xshmem_barrier_all();  // the source is ready before the sender starts
    auto [calls, t] = time_sender(ctx, iters, op);
    min_calls = std::min(min_calls, calls);
    xshmem_barrier_all();  // every transfer has landed before the receiver looks
    if (ctx.me == dest_pe) {
      size_t off = check(seed);
      if (off != SIZE_MAX && ok) {
        ok = false;
        std::fprintf(stderr,
                     "xshmem-perf: pe %d: %s size %zu repetition %u: wrong data at byte %zu\n",
                     ctx.me, metric, size, rep, off);
      }
    }
    if (ctx.me == kSender) gbps.push_back(static_cast<double>(size) * calls / t / 1e9);
    if (ref_gbps && ctx.me == kSender) {
      ref();  // untimed: faults in the reference buffer's pages on the first repetition
      auto t0 = Clock::now();
      for (uint64_t i = 0; i < calls; ++i) ref();
      ref_gbps->push_back(static_cast<double>(size) * calls / seconds_since(t0) / 1e9);
    }
  }
  ok = ctx.all_ok(ok);
  ctx.record(metric, size, std::move(gbps), "GB/s", min_calls, ok, ok ? "" : "wrong data");
}

// Also records memcpy_bw (a plain memcpy of the same source into a private buffer of PE 0, timed
// right after each put repetition) and put_vs_memcpy (the median of the per-repetition ratios).
void put_bw(Context &ctx) {
  auto dst = sym_calloc<uint8_t>(ctx, ctx.opt.max_size);
  auto src = private_alloc(ctx.opt.max_size);
  PrivateBuf ref_dst;
  if (ctx.me == kSender) ref_dst = private_alloc(ctx.opt.max_size);
  struct Ref {
    size_t size;
    std::vector<double> gbps, ratio;
  };
  std::vector<Ref> refs;
  for (size_t size : ctx.sizes()) {
    // Touch the destination pages before timing (poison them, on the receiver).
    if (ctx.me == kReceiver) std::memset(dst.get(), 0xA5, size);
    Ref r{size, {}, {}};
    const size_t first = ctx.samples().size();
    bandwidth(
        ctx, "put_bw", size, kSender, kReceiver,
        [&](uint64_t seed) { fill_pattern(src.get(), size, seed); },
        [&] { xshmem_putmem(dst.get(), src.get(), size, kReceiver); },
        [&](uint64_t seed) { return verify_pattern(dst.get(), size, seed); },
        [&] { g_memcpy(ref_dst.get(), src.get(), size); }, &r.gbps);
    if (ctx.me == kSender && ctx.samples().size() > first) {
      // PE 0 is the sender and keeps the samples: pair each put repetition with its memcpy.
      const auto &put = ctx.per_rep(first);
      for (size_t i = 0; i < put.size() && i < r.gbps.size(); ++i)
        r.ratio.push_back(put[i] / r.gbps[i]);
    }
    refs.push_back(std::move(r));
  }
  const std::string transport = ctx.transport;
  ctx.transport = "local memcpy";
  for (auto &r : refs)
    if (!r.gbps.empty()) ctx.record("memcpy_bw", r.size, r.gbps, "GB/s", 0, true);
  ctx.transport = transport;
  for (auto &r : refs)
    if (!r.ratio.empty()) ctx.record("put_vs_memcpy", r.size, r.ratio, "ratio", 0, true);
}

void get_bw(Context &ctx) {
  auto src = sym_calloc<uint8_t>(ctx, ctx.opt.max_size);
  auto dst = private_alloc(ctx.opt.max_size);
  for (size_t size : ctx.sizes()) {
    if (ctx.me == kSender) std::memset(dst.get(), 0xA5, size);
    bandwidth(
        ctx, "get_bw", size, kReceiver, kSender,
        [&](uint64_t seed) { fill_pattern(src.get(), size, seed); },
        [&] { xshmem_getmem(dst.get(), src.get(), size, kReceiver); },
        [&](uint64_t seed) { return verify_pattern(dst.get(), size, seed); });
  }
}

// ---- Latency ------------------------------------------------------------------------------------

unsigned warmup_iters(const Context &ctx) {
  return std::max(10u, ctx.opt.iters / 10);
}

// Runs `body(seq)` warm-up + reps * iters times on every PE, with seq counting from 1 across all
// of them, and returns the per-repetition time per iteration in microseconds (on PE 0).
template <typename Body>
std::vector<double> latency_loop(Context &ctx, Body &&body) {
  uint64_t seq = 0;
  for (unsigned i = 0; i < warmup_iters(ctx); ++i) body(++seq);
  std::vector<double> us;
  for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
    xshmem_barrier_all();
    auto t0 = Clock::now();
    for (unsigned i = 0; i < ctx.opt.iters; ++i) body(++seq);
    double t = seconds_since(t0);
    us.push_back(t * 1e6 / ctx.opt.iters);
  }
  xshmem_barrier_all();
  return us;
}

void p_pingpong_half_rtt(Context &ctx) {
  auto flag = sym_calloc<int>(ctx, 1);
  int *f = flag.get();
  bool ok = true;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    const int v = static_cast<int>(seq);
    if (ctx.me == kSender) {
      xshmem_int_p(f, v, kReceiver);
      xshmem_int_wait_until(f, XSHMEM_CMP_EQ, v);
    } else if (ctx.me == kReceiver) {
      xshmem_int_wait_until(f, XSHMEM_CMP_EQ, v);
      xshmem_int_p(f, v, kSender);
    }
  });
  // The last value each side saw is the final sequence number.
  const int last = static_cast<int>(warmup_iters(ctx) + uint64_t{ctx.opt.reps} * ctx.opt.iters);
  if ((ctx.me == kSender || ctx.me == kReceiver) && *f != last) ok = false;
  ok = ctx.all_ok(ok);
  for (double &u : us) u /= 2;
  ctx.record("p_pingpong_half_rtt", 0, std::move(us), "us", ctx.opt.iters, ok);
}

// One put-with-signal each way per iteration: the payload's first word carries the sequence
// number (checked by the receiver on every iteration), the rest is the sender's pattern (checked
// after the last one).
void put_signal_pingpong(Context &ctx, size_t bytes, const char *metric) {
  const size_t words = bytes / sizeof(uint64_t);
  auto buf = sym_calloc<uint64_t>(ctx, words);
  auto sig = sym_calloc<uint64_t>(ctx, 1);
  std::vector<uint64_t> src(words);
  fill_pattern(src.data(), bytes, static_cast<uint64_t>(ctx.me) + 1);
  const int peer = ctx.me == kSender ? kReceiver : kSender;
  bool ok = true;
  uint64_t bad_seq = 0;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    if (ctx.me == kSender) {
      src[0] = seq;
      xshmem_putmem_signal(buf.get(), src.data(), bytes, sig.get(), seq, XSHMEM_SIGNAL_SET, peer);
      xshmem_signal_wait_until(sig.get(), XSHMEM_CMP_EQ, seq);
      if (buf.get()[0] != seq && ok) ok = false, bad_seq = seq;
    } else if (ctx.me == kReceiver) {
      xshmem_signal_wait_until(sig.get(), XSHMEM_CMP_EQ, seq);
      if (buf.get()[0] != seq && ok) ok = false, bad_seq = seq;
      src[0] = seq;
      xshmem_putmem_signal(buf.get(), src.data(), bytes, sig.get(), seq, XSHMEM_SIGNAL_SET, peer);
    }
  });
  if (ctx.me == kSender || ctx.me == kReceiver) {
    if (!ok) {
      std::fprintf(stderr,
                   "xshmem-perf: pe %d: %s: payload of iteration %llu arrived without its data\n",
                   ctx.me, metric, static_cast<unsigned long long>(bad_seq));
    }
    // Everything after the first word is the peer's pattern.
    std::vector<uint64_t> expect(words);
    fill_pattern(expect.data(), bytes, static_cast<uint64_t>(peer) + 1);
    if (std::memcmp(buf.get() + 1, expect.data() + 1, bytes - 8) != 0) {
      std::fprintf(stderr, "xshmem-perf: pe %d: %s: last payload differs from pe %d's data\n",
                   ctx.me, metric, peer);
      ok = false;
    }
  }
  ok = ctx.all_ok(ok);
  for (double &u : us) u /= 2;
  ctx.record(metric, bytes, std::move(us), "us", ctx.opt.iters, ok);
}

void put_signal_pingpong_8(Context &ctx) {
  put_signal_pingpong(ctx, 8, "put_signal_pingpong_half_rtt_8B");
}
void put_signal_pingpong_256(Context &ctx) {
  put_signal_pingpong(ctx, 256, "put_signal_pingpong_half_rtt_256B");
}
void put_signal_pingpong_4096(Context &ctx) {
  put_signal_pingpong(ctx, 4096, "put_signal_pingpong_half_rtt_4096B");
}

// Remote fetch_add back to back; the increments vary with the iteration, and every returned old
// value is checked against the running sum (so is the final value at the target).
void atomic_fetch_add_lat(Context &ctx) {
  auto ctr = sym_calloc<uint64_t>(ctx, 1);
  auto increment = [](uint64_t seq) { return seq % 7 + 1; };
  uint64_t expected = 0;
  bool ok = true;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    if (ctx.me == kSender) {
      uint64_t old = xshmem_uint64_atomic_fetch_add(ctr.get(), increment(seq), kReceiver);
      if (old != expected) ok = false;
    }
    expected += increment(seq);
  });
  if (ctx.me == kReceiver && *ctr != expected) {
    std::fprintf(stderr, "xshmem-perf: pe %d: atomic_fetch_add_lat: counter %llu, expected %llu\n",
                 ctx.me, static_cast<unsigned long long>(*ctr),
                 static_cast<unsigned long long>(expected));
    ok = false;
  }
  ok = ctx.all_ok(ok);
  ctx.record("atomic_fetch_add_lat", 0, std::move(us), "us", ctx.opt.iters, ok);
}

// Blocking 8-byte puts back to back, PE 0 -> PE 1, each carrying its sequence number; the
// receiver checks the last one. The per-call cost of the host API (checks included).
void put_lat_8B(Context &ctx) {
  auto dst = sym_calloc<uint64_t>(ctx, 1);
  uint64_t last = 0;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    if (ctx.me == kSender) xshmem_putmem(dst.get(), &seq, sizeof(seq), kReceiver);
    last = seq;
  });
  bool ok = ctx.me != kReceiver || *dst.get() == last;
  if (!ok)
    std::fprintf(stderr, "xshmem-perf: pe %d: put_lat_8B: last word %llu, expected %llu\n", ctx.me,
                 static_cast<unsigned long long>(*dst.get()),
                 static_cast<unsigned long long>(last));
  ok = ctx.all_ok(ok);
  ctx.record("put_lat_8B", 8, std::move(us), "us", ctx.opt.iters, ok);
}

// Blocking 8-byte gets back to back, PE 0 <- PE 1 (a word PE 1 set to a PE-dependent value).
void get_lat_8B(Context &ctx) {
  auto src = sym_calloc<uint64_t>(ctx, 1);
  const uint64_t expect = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(kReceiver);
  *src.get() = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(ctx.me);
  xshmem_barrier_all();
  bool ok = true;
  auto us = latency_loop(ctx, [&](uint64_t) {
    if (ctx.me == kSender) {
      uint64_t v = 0;
      xshmem_getmem(&v, src.get(), sizeof(v), kReceiver);
      if (v != expect) ok = false;
    }
  });
  if (!ok)
    std::fprintf(stderr, "xshmem-perf: pe %d: get_lat_8B: a get returned a wrong word\n", ctx.me);
  ok = ctx.all_ok(ok);
  ctx.record("get_lat_8B", 8, std::move(us), "us", ctx.opt.iters, ok);
}

// Team collectives on the world, all PEs, back to back; every result is checked.
void host_reduce_int_1_lat(Context &ctx) {
  auto src = sym_calloc<int>(ctx, 1);
  auto dst = sym_calloc<int>(ctx, 1);
  bool ok = true;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    const int v = static_cast<int>(seq % 1000) * (ctx.me + 1);
    *src.get() = v;
    xshmem_int_sum_reduce(XSHMEM_TEAM_WORLD, dst.get(), src.get(), 1);
    const int expect = static_cast<int>(seq % 1000) * (ctx.npes * (ctx.npes + 1) / 2);
    if (*dst.get() != expect) ok = false;
  });
  if (!ok) std::fprintf(stderr, "xshmem-perf: pe %d: host_reduce_int_1_lat: wrong sum\n", ctx.me);
  ok = ctx.all_ok(ok);
  ctx.record("host_reduce_int_1_lat", sizeof(int), std::move(us), "us", ctx.opt.iters, ok,
             std::to_string(ctx.npes) + " PEs");
}

void host_broadcast_64B_lat(Context &ctx) {
  constexpr size_t kWords = 8;
  // Two destinations by parity: a member may write the next call's dest as soon as it enters
  // the call, while a slower member still checks this one (the dest readiness rule).
  auto buf = sym_calloc<uint64_t>(ctx, 3 * kWords);
  bool ok = true;
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    uint64_t *src = buf.get(), *dst = buf.get() + (1 + seq % 2) * kWords;
    const int root = static_cast<int>(seq % static_cast<uint64_t>(ctx.npes));
    for (size_t i = 0; i < kWords; ++i) src[i] = seq * 131 + i + static_cast<uint64_t>(ctx.me) * 7;
    xshmem_uint64_broadcast(XSHMEM_TEAM_WORLD, dst, src, kWords, root);
    for (size_t i = 0; i < kWords; ++i)
      if (dst[i] != seq * 131 + i + static_cast<uint64_t>(root) * 7) ok = false;
  });
  if (!ok) std::fprintf(stderr, "xshmem-perf: pe %d: host_broadcast_64B_lat: wrong data\n", ctx.me);
  ok = ctx.all_ok(ok);
  ctx.record("host_broadcast_64B_lat", 64, std::move(us), "us", ctx.opt.iters, ok,
             std::to_string(ctx.npes) + " PEs");
}

void host_alltoall_64B_lat(Context &ctx) {
  constexpr size_t kWords = 8;  // per PE pair
  const size_t n = static_cast<size_t>(ctx.npes) * kWords;
  auto src = sym_calloc<uint64_t>(ctx, n);
  auto dsts = sym_calloc<uint64_t>(ctx, 2 * n);  // by parity, as in host_broadcast_64B_lat
  bool ok = true;
  auto word = [](uint64_t seq, int from, int to, size_t i) {
    return seq << 24 ^ static_cast<uint64_t>(from) << 16 ^ static_cast<uint64_t>(to) << 8 ^ i;
  };
  auto us = latency_loop(ctx, [&](uint64_t seq) {
    for (int to = 0; to < ctx.npes; ++to)
      for (size_t i = 0; i < kWords; ++i) src.get()[to * kWords + i] = word(seq, ctx.me, to, i);
    uint64_t *dst = dsts.get() + (seq % 2) * n;
    xshmem_uint64_alltoall(XSHMEM_TEAM_WORLD, dst, src.get(), kWords);
    for (int from = 0; from < ctx.npes; ++from)
      for (size_t i = 0; i < kWords; ++i)
        if (dst[from * kWords + i] != word(seq, from, ctx.me, i)) ok = false;
  });
  if (!ok) std::fprintf(stderr, "xshmem-perf: pe %d: host_alltoall_64B_lat: wrong data\n", ctx.me);
  ok = ctx.all_ok(ok);
  ctx.record("host_alltoall_64B_lat", 64, std::move(us), "us", ctx.opt.iters, ok,
             std::to_string(ctx.npes) + " PEs");
}

void host_barrier_all_lat(Context &ctx) {
  auto us = latency_loop(ctx, [](uint64_t) { xshmem_barrier_all(); });
  ctx.record("host_barrier_all_lat", 0, std::move(us), "us", ctx.opt.iters, true,
             std::to_string(ctx.npes) + " PEs");
}

constexpr MetricDef kHostMetrics[] = {
    {"init_ms", "ms", Where::kHost, 1, "xshmem_init, as seen by PE 0", nullptr},
    {"put_bw", "GB/s", Where::kHost, 2, "xshmem_putmem (blocking) PE 0 -> PE 1, per size", put_bw},
    {"get_bw", "GB/s", Where::kHost, 2, "xshmem_getmem (blocking) PE 0 <- PE 1, per size", get_bw},
    {"memcpy_bw", "GB/s", Where::kHost, 2,
     "memcpy of put_bw's source into a private buffer of PE 0, timed after each put repetition",
     nullptr},
    {"put_vs_memcpy", "ratio", Where::kHost, 2,
     "put_bw / memcpy_bw, median of the per-repetition ratios", nullptr},
    {"p_pingpong_half_rtt", "us", Where::kHost, 2, "xshmem_int_p + wait_until ping-pong",
     p_pingpong_half_rtt},
    {"put_signal_pingpong_half_rtt_8B", "us", Where::kHost, 2,
     "xshmem_putmem_signal + signal_wait_until ping-pong, 8 B", put_signal_pingpong_8},
    {"put_signal_pingpong_half_rtt_256B", "us", Where::kHost, 2,
     "xshmem_putmem_signal + signal_wait_until ping-pong, 256 B", put_signal_pingpong_256},
    {"put_signal_pingpong_half_rtt_4096B", "us", Where::kHost, 2,
     "xshmem_putmem_signal + signal_wait_until ping-pong, 4096 B", put_signal_pingpong_4096},
    {"atomic_fetch_add_lat", "us", Where::kHost, 2,
     "xshmem_uint64_atomic_fetch_add on PE 1, back to back", atomic_fetch_add_lat},
    {"put_lat_8B", "us", Where::kHost, 2, "xshmem_putmem of 8 B PE 0 -> PE 1, back to back",
     put_lat_8B},
    {"get_lat_8B", "us", Where::kHost, 2, "xshmem_getmem of 8 B PE 0 <- PE 1, back to back",
     get_lat_8B},
    {"host_barrier_all_lat", "us", Where::kHost, 1, "xshmem_barrier_all, all PEs",
     host_barrier_all_lat, false},
    {"host_reduce_int_1_lat", "us", Where::kHost, 2,
     "xshmem_int_sum_reduce of 1 int over the world team, all PEs, back to back",
     host_reduce_int_1_lat},
    {"host_broadcast_64B_lat", "us", Where::kHost, 2,
     "xshmem_uint64_broadcast of 64 B over the world team (root rotating), all PEs",
     host_broadcast_64B_lat},
    {"host_alltoall_64B_lat", "us", Where::kHost, 2,
     "xshmem_uint64_alltoall of 64 B per PE pair over the world team, all PEs",
     host_alltoall_64B_lat},
    {"finalize_ms", "ms", Where::kHost, 1, "xshmem_finalize, as seen by PE 0", nullptr},
};

}  // namespace

std::vector<MetricDef> host_metrics() {
  return {std::begin(kHostMetrics), std::end(kHostMetrics)};
}

}  // namespace xshmem::perf
