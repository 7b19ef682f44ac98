// xshmem-perf: raw libfabric next to the proxy path (built when libfabric is found).
//
// fi_write_vs_put opens its own libfabric endpoint in PE 0 and PE 1 (the provider the libfabric
// transport uses: XSHMEM_LIBFABRIC_PROVIDER, else libfabric's choice; same hints: reliable
// datagram, RMA, delivery complete), exchanges names and keys with xshmemx_oob_allgather, and in
// the same run, repetition by repetition, times the proxy path (whatever transport serves PE 1)
// and the raw endpoint doing the same thing. Both sides are set up alike, so that the difference
// is what the layering adds:
//   - sender (PE 0): the calling thread posts and reads its own completions on both sides (the
//     transport's channel endpoint is progressed only by the thread that issues on it; its
//     progress thread serves PE 0's service endpoint, which receives nothing here);
//   - receiver (PE 1): one thread progresses the target endpoint on both sides (the transport's
//     progress thread; for the raw endpoint a thread of this file with the same policy: spin,
//     yield, 10 us naps, 200 us naps after a long idle spell), so tcp, a manual-progress
//     provider, places incoming writes at the same pace.
// Rows, each a median over --reps repetitions:
//   fi_write_bw (GB/s, per size): n back-to-back blocking raw writes, PE 0 -> PE 1. A write of
//     at most the provider's inject size is fi_inject_write (returns once the provider copied
//     it, no completion read), a larger one is fi_write plus reading its delivery-complete
//     completion: what the transport does for a blocking xshmem_putmem of that size.
//   put_vs_fi_write (ratio, per size): put bandwidth / raw bandwidth of the same repetition
//     (raw time / put time for the same n), where the put side is n back-to-back blocking
//     xshmem_putmem: injected and not waited for up to the inject size, delivery complete above.
//   put_lat_8B (us): one blocking remote-completed 8-byte write, back to back --iters times:
//     xshmem_putmem + xshmem_quiet (the quiet waits until the bytes are at PE 1).
//   fi_write_lat_8B (us): the same round trip raw: fi_write (never inject) with
//     FI_DELIVERY_COMPLETE, then reading its completion.
//   put_added_lat_8B (us): put_lat_8B - fi_write_lat_8B of the same repetition: what the
//     layering (API, dispatch, channel, the transport's completion protocol) adds to it.
// Data is checked at PE 1 after every repetition (both destinations), the 8-byte rows included.
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "perf.h"

namespace xshmem::perf {
namespace {

constexpr int kSender = 0;
constexpr int kReceiver = 1;

struct Raw {
  fi_info *info = nullptr;
  fid_fabric *fabric = nullptr;
  fid_domain *domain = nullptr;
  fid_av *av = nullptr;
  fid_cq *cq = nullptr;
  fid_ep *ep = nullptr;
  fid_mr *mr = nullptr;
  fi_addr_t peer = FI_ADDR_UNSPEC;
  uint64_t raddr = 0, rkey = 0;
  std::string why;  // set when the raw endpoint could not be opened
  ~Raw() {
    if (ep) fi_close(&ep->fid);
    if (mr) fi_close(&mr->fid);
    if (cq) fi_close(&cq->fid);
    if (av) fi_close(&av->fid);
    if (domain) fi_close(&domain->fid);
    if (fabric) fi_close(&fabric->fid);
    if (info) fi_freeinfo(info);
  }
};

bool fail(Raw &r, const char *what, int rc) {
  r.why = std::string(what) + ": " + fi_strerror(rc < 0 ? -rc : rc);
  return false;
}

// Opens the endpoint and registers [buf, buf+len) for remote writes.
bool raw_open(Raw &r, void *buf, size_t len) {
  fi_info *h = fi_allocinfo();
  h->caps = FI_RMA | FI_MSG;
  h->ep_attr->type = FI_EP_RDM;
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  h->domain_attr->threading = FI_THREAD_SAFE;
  h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  const char *prov = std::getenv("XSHMEM_LIBFABRIC_PROVIDER");
  if (prov && *prov && std::strcmp(prov, "auto") != 0) h->fabric_attr->prov_name = strdup(prov);
  int rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, h, &r.info);
  fi_freeinfo(h);
  if (rc) return fail(r, "fi_getinfo", rc);
  if ((rc = fi_fabric(r.info->fabric_attr, &r.fabric, nullptr))) return fail(r, "fi_fabric", rc);
  if ((rc = fi_domain(r.fabric, r.info, &r.domain, nullptr))) return fail(r, "fi_domain", rc);
  fi_av_attr ava{};
  ava.type = FI_AV_TABLE;
  if ((rc = fi_av_open(r.domain, &ava, &r.av, nullptr))) return fail(r, "fi_av_open", rc);
  fi_cq_attr cqa{};
  cqa.format = FI_CQ_FORMAT_CONTEXT;
  cqa.size = 1024;
  if ((rc = fi_cq_open(r.domain, &cqa, &r.cq, nullptr))) return fail(r, "fi_cq_open", rc);
  if ((rc = fi_endpoint(r.domain, r.info, &r.ep, nullptr))) return fail(r, "fi_endpoint", rc);
  if ((rc = fi_ep_bind(r.ep, &r.av->fid, 0))) return fail(r, "fi_ep_bind av", rc);
  if ((rc = fi_ep_bind(r.ep, &r.cq->fid, FI_TRANSMIT | FI_RECV)))
    return fail(r, "fi_ep_bind cq", rc);
  if ((rc = fi_enable(r.ep))) return fail(r, "fi_enable", rc);
  if ((rc = fi_mr_reg(r.domain, buf, len, FI_WRITE | FI_REMOTE_WRITE, 0, 7, 0, &r.mr, nullptr)))
    return fail(r, "fi_mr_reg", rc);
  if (r.info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
    if ((rc = fi_mr_bind(r.mr, &r.ep->fid, 0)) || (rc = fi_mr_enable(r.mr)))
      return fail(r, "fi_mr_bind", rc);
  }
  return true;
}

struct Card {
  char name[64];
  uint64_t addr, key;
  uint32_t len, ok;
};

// Reads completions until one arrives, with the transport's wait policy (spin briefly, then
// yield), so that the comparison measures the proxy path's own cost rather than a different
// polling policy; false on an error or past `deadline`.
bool raw_wait(Raw &r, Clock::time_point deadline) {
  fi_cq_entry e;
  for (unsigned idle = 0;; ++idle) {
    ssize_t rc = fi_cq_read(r.cq, &e, 1);
    if (rc == 1) return true;
    if (rc != -FI_EAGAIN || Clock::now() > deadline) return false;
    if (idle >= 128) sched_yield();
  }
}

// Posts one write and, unless the provider copied it at once (at most the inject size:
// fi_inject_write, what the transport does for a put this small), reads its completion;
// false on an error or after 10 s without one. The endpoint's default op flags carry
// FI_DELIVERY_COMPLETE (raw_open), so the completion means the bytes are at the target.
bool raw_write(Raw &r, const void *src, size_t n, void *desc) {
  static fi_context2 ctx;
  ssize_t rc;
  auto deadline = Clock::now() + std::chrono::seconds(10);
  if (n <= r.info->tx_attr->inject_size) {
    while ((rc = fi_inject_write(r.ep, src, n, r.peer, r.raddr, r.rkey)) == -FI_EAGAIN) {
      fi_cq_entry e;
      (void)fi_cq_read(r.cq, &e, 1);
      if (Clock::now() > deadline) return false;
    }
    return rc == 0;
  }
  while ((rc = fi_write(r.ep, src, n, desc, r.peer, r.raddr, r.rkey, &ctx)) == -FI_EAGAIN) {
    fi_cq_entry e;
    (void)fi_cq_read(r.cq, &e, 1);
    if (Clock::now() > deadline) return false;
  }
  if (rc) return false;
  return raw_wait(r, deadline);
}

// One blocking remote-completed write: fi_writemsg with FI_DELIVERY_COMPLETE and a completion
// (never FI_INJECT), then reading that completion.
bool raw_write_delivered(Raw &r, const void *src, size_t n, void *desc) {
  static fi_context2 ctx;
  iovec iov{const_cast<void *>(src), n};
  fi_rma_iov riov{r.raddr, n, r.rkey};
  fi_msg_rma msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = r.peer;
  msg.rma_iov = &riov;
  msg.rma_iov_count = 1;
  msg.context = &ctx;
  auto deadline = Clock::now() + std::chrono::seconds(10);
  ssize_t rc;
  while ((rc = fi_writemsg(r.ep, &msg, FI_DELIVERY_COMPLETE | FI_COMPLETION)) == -FI_EAGAIN) {
    fi_cq_entry e;
    (void)fi_cq_read(r.cq, &e, 1);
    if (Clock::now() > deadline) return false;
  }
  if (rc) return false;
  return raw_wait(r, deadline);
}

void fi_write_vs_put(Context &ctx) {
  // The raw endpoint must use the provider and interface the transport does (tests pin both to
  // loopback); without the transport it has nothing to compare with.
  if (ctx.transport != "libfabric") {
    if (ctx.me == kSender)
      std::fprintf(stderr,
                   "xshmem-perf: fi_write_vs_put skipped: PE 1 is reached through %s, not "
                   "libfabric (XSHMEM_TRANSPORTS=libfabric runs it)\n",
                   ctx.transport.c_str());
    return;
  }
  const size_t max = ctx.opt.max_size;
  void *dst = xshmem_calloc(max, 1);
  std::vector<uint8_t> src(max), raw_dst;
  Raw r;
  bool ok = true;
  if (ctx.me == kReceiver) raw_dst.assign(max, 0);
  if (ctx.me == kSender || ctx.me == kReceiver)
    ok = raw_open(r, ctx.me == kReceiver ? raw_dst.data() : src.data(), max);
  Card mine{};
  if (ok && (ctx.me == kSender || ctx.me == kReceiver)) {
    size_t len = sizeof mine.name;
    ok = fi_getname(&r.ep->fid, mine.name, &len) == 0;
    mine.len = static_cast<uint32_t>(len);
    mine.addr = (r.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
                    ? reinterpret_cast<uintptr_t>(raw_dst.data())
                    : 0;
    mine.key = fi_mr_key(r.mr);
  }
  mine.ok = ok || ctx.me > kReceiver;
  std::vector<Card> all(static_cast<size_t>(ctx.npes));
  if (xshmemx_oob_allgather(&mine, all.data(), sizeof(Card)) != 0) ok = false;
  bool every = ok;
  for (const Card &c : all) every = every && c.ok;
  if (every && ctx.me == kSender) {
    every = fi_av_insert(r.av, all[kReceiver].name, 1, &r.peer, 0, nullptr) == 1;
    r.raddr = all[kReceiver].addr;
    r.rkey = all[kReceiver].key;
  }
  if (!ctx.all_ok(every)) {
    if (ctx.me == kSender)
      std::fprintf(stderr, "xshmem-perf: fi_write_vs_put: raw libfabric endpoint: %s\n",
                   r.why.empty() ? "setup failed on a PE" : r.why.c_str());
    xshmem_free(dst);
    return;
  }
  const std::string prov = r.info->fabric_attr->prov_name;
  void *desc = r.mr ? fi_mr_desc(r.mr) : nullptr;
  // PE 1 progresses its raw endpoint while PE 0 writes to it.
  std::atomic<bool> stop{false};
  // Bumped by PE 1's main thread after each barrier: the transport's progress thread sees the
  // barrier's messages and starts its back-off again; incoming writes leave no completion at the
  // target, so the raw thread would otherwise back off ever deeper (200 us naps) and the two
  // sides would not be alike.
  std::atomic<unsigned> barriers{0};
  auto barrier = [&] {
    xshmem_barrier_all();
    barriers.fetch_add(1, std::memory_order_relaxed);
  };
  std::thread progress;
  if (ctx.me == kReceiver)
    progress = std::thread([&] {
      (void)prctl(PR_SET_TIMERSLACK, 1000UL);  // as the transport's progress thread
      fi_cq_entry e;
      unsigned idle = 0, seen = 0;
      // The transport's progress-thread policy (progress_main: spin, yield, then 10 us naps,
      // 200 us ones after a long idle spell), so that the difference between the two is the
      // proxy path's own cost, not the polling policy, and so that the idle one of the two
      // threads takes as much CPU from the busy side in either part.
      while (!stop.load(std::memory_order_relaxed))
        if (fi_cq_read(r.cq, &e, 1) != -FI_EAGAIN ||
            seen != barriers.load(std::memory_order_relaxed)) {
          idle = 0;
          seen = barriers.load(std::memory_order_relaxed);
        } else if (++idle > 256)
          std::this_thread::sleep_for(std::chrono::microseconds(idle > 100000 ? 200 : 10));
        else if (idle > 32)
          sched_yield();
    });
  const std::string proxy_tr = ctx.transport;
  struct Row {
    size_t size;
    std::vector<double> raw, ratio;
  };
  std::vector<Row> rows;
  bool data_ok = true;
  // PE 1: both destinations hold the pattern of `seed`; the first wrong one is named once.
  auto verify = [&](size_t size, uint64_t seed, const char *part, unsigned rep) {
    const size_t bad_put = verify_pattern(dst, size, seed);
    const size_t bad_raw = verify_pattern(raw_dst.data(), size, seed);
    if (bad_put == SIZE_MAX && bad_raw == SIZE_MAX) return;
    if (data_ok)
      std::fprintf(stderr,
                   "xshmem-perf: fi_write_vs_put: %zu-byte%s %s data wrong at byte %zu "
                   "(repetition %u, pe %d)\n",
                   size, part, bad_put != SIZE_MAX ? "put" : "fi_write",
                   bad_put != SIZE_MAX ? bad_put : bad_raw, rep, ctx.me);
    data_ok = false;
  };
  for (size_t size : ctx.sizes()) {
    // Calibrate on the proxy put (untimed warm-up of both paths first).
    uint64_t n = 1;
    if (ctx.me == kSender) {
      xshmem_putmem(dst, src.data(), size, kReceiver);
      data_ok = data_ok && raw_write(r, src.data(), size, desc);
      for (;;) {
        auto t0 = Clock::now();
        for (uint64_t i = 0; i < n; ++i) xshmem_putmem(dst, src.data(), size, kReceiver);
        if (seconds_since(t0) >= ctx.opt.min_time_s / 2 || n >= (uint64_t{1} << 30)) break;
        n *= 2;
      }
    }
    Row row{size, {}, {}};
    std::vector<double> put;
    for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
      barrier();
      if (ctx.me == kSender) {
        fill_pattern(src.data(), size, (uint64_t{size} << 8) ^ (rep + 1));
        auto t0 = Clock::now();
        for (uint64_t i = 0; i < n; ++i) xshmem_putmem(dst, src.data(), size, kReceiver);
        const double tp = seconds_since(t0);
        t0 = Clock::now();
        for (uint64_t i = 0; i < n && data_ok; ++i) data_ok = raw_write(r, src.data(), size, desc);
        const double tr = seconds_since(t0);
        // A write of at most the inject size has no completion, and the barrier below travels
        // on another endpoint: one delivery-complete write of the same bytes (untimed) makes
        // them visible before PE 1 checks them (tcp and sockets keep a connection's writes in
        // order).
        data_ok = data_ok && raw_write_delivered(r, src.data(), size, desc);
        put.push_back(static_cast<double>(size) * n / tp / 1e9);
        row.raw.push_back(static_cast<double>(size) * n / tr / 1e9);
        row.ratio.push_back(tr / tp);
      }
      barrier();
      if (ctx.me == kReceiver) {
        const uint64_t seed = (uint64_t{size} << 8) ^ (rep + 1);
        verify(size, seed, "", rep);
      }
    }
    (void)put;
    rows.push_back(std::move(row));
  }
  // 8-byte latency: one blocking remote-completed write per iteration on both sides (put +
  // quiet; fi_write with delivery complete + its completion), back to back.
  std::vector<double> put_us, raw_us, added;
  const unsigned iters = ctx.opt.iters;
  for (unsigned rep = 0; rep < ctx.opt.reps; ++rep) {
    const uint64_t seed = (uint64_t{0x1a7} << 32) ^ (rep + 1);
    barrier();
    if (ctx.me == kSender) {
      fill_pattern(src.data(), 8, seed);
      auto t0 = Clock::now();
      for (unsigned i = 0; i < iters; ++i) {
        xshmem_putmem(dst, src.data(), 8, kReceiver);
        xshmem_quiet();
      }
      const double tp = seconds_since(t0) * 1e6 / iters;
      t0 = Clock::now();
      for (unsigned i = 0; i < iters && data_ok; ++i)
        data_ok = raw_write_delivered(r, src.data(), 8, desc);
      const double tr = seconds_since(t0) * 1e6 / iters;
      put_us.push_back(tp);
      raw_us.push_back(tr);
      added.push_back(tp - tr);
    }
    barrier();
    if (ctx.me == kReceiver) verify(8, seed, " latency", rep);
  }
  barrier();
  stop.store(true);
  if (progress.joinable()) progress.join();
  data_ok = ctx.all_ok(data_ok);
  const std::string raw_tr = "raw " + prov;
  for (Row &row : rows) {
    ctx.transport = raw_tr;
    ctx.record("fi_write_bw", row.size, row.raw, "GB/s", 0, data_ok);
  }
  for (Row &row : rows) {
    ctx.transport = proxy_tr + " / " + raw_tr;
    ctx.record("put_vs_fi_write", row.size, row.ratio, "ratio", 0, data_ok);
  }
  ctx.transport = proxy_tr;
  ctx.record("put_lat_8B", 0, put_us, "us", iters, data_ok);
  ctx.transport = raw_tr;
  ctx.record("fi_write_lat_8B", 0, raw_us, "us", iters, data_ok);
  ctx.transport = proxy_tr + " - " + raw_tr;
  ctx.record("put_added_lat_8B", 0, added, "us", iters, data_ok);
  ctx.transport = proxy_tr;
  xshmem_free(dst);
}

}  // namespace

std::vector<MetricDef> fabric_metrics() {
  return {
      {"fi_write_vs_put", "-", Where::kHost, 2,
       "blocking xshmem_putmem and a raw libfabric fi_write (own endpoint, same provider) of the "
       "same sizes, PE 0 -> PE 1, alternating per repetition, then 8-byte remote-completed "
       "round trips (put + quiet; fi_write delivery complete); records fi_write_bw, "
       "put_vs_fi_write, put_lat_8B, fi_write_lat_8B and put_added_lat_8B",
       fi_write_vs_put},
      {"fi_write_bw", "GB/s", Where::kHost, 2, "raw fi_write (blocking), per size", nullptr},
      {"put_vs_fi_write", "ratio", Where::kHost, 2,
       "put bandwidth / raw fi_write bandwidth, per repetition", nullptr},
      {"put_lat_8B", "us", Where::kHost, 2,
       "8-byte xshmem_putmem + xshmem_quiet (remote completion), back to back", nullptr},
      {"fi_write_lat_8B", "us", Where::kHost, 2,
       "8-byte raw fi_write with FI_DELIVERY_COMPLETE + its completion, back to back", nullptr},
      {"put_added_lat_8B", "us", Where::kHost, 2, "put_lat_8B - fi_write_lat_8B, per repetition",
       nullptr},
  };
}

}  // namespace xshmem::perf
