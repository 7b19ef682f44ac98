// The ibgda NIC model's core (backends/ibgda/nic_model.h) in one process: a send queue posted
// with the GDA builders (gda_wqe.h), drained by the model's requester, the "remote" side executed
// by its responder against a second key table. Checks the data moved (fresh patterns, guard bytes
// around every buffer), the completions (selective: only signaled or failed entries, owner bit
// per pass, wqe_counter), ring wrap-around, and that every corrupted entry (wrong key, wrong
// length, bad opcode, bad ds, stale index, missing rights, misaligned atomic) stops the queue with
// one line naming the PE, the queue, the position and the field, later entries flushed and not
// executed.
#include <string.h>

#include <string>
#include <vector>

#include "../catch_compat.h"
#include "common/mem_access.h"
#include "nic_model.h"
#include "test_pattern.h"

namespace g = xshmem::dev::gda;
namespace m = xshmem::ibgda;

namespace {

constexpr uint8_t kPoison = 0x5C;
constexpr size_t kGuard = 64;
constexpr uint32_t kLKey = 0x1111, kRKey = 0x2222, kQpn = 0x0ABCDE;

// A buffer with guard bytes on both sides.
struct Guarded {
  std::vector<uint8_t> raw;
  size_t n;
  explicit Guarded(size_t bytes) : raw(bytes + 2 * kGuard, kPoison), n(bytes) {}
  uint8_t *p() { return raw.data() + kGuard; }
  uint64_t addr() { return reinterpret_cast<uint64_t>(p()); }
  bool guards_intact() const {
    return xt::unpoisoned(raw.data(), kGuard, kPoison) == 0 &&
           xt::unpoisoned(raw.data() + kGuard + n, kGuard, kPoison) == 0;
  }
};

struct Pair {
  uint32_t nbb, ncqe;
  std::vector<uint8_t> sq;
  std::vector<g::cqe_t> cq;
  uint32_t dbr[2] = {0, 0};
  Guarded local, remote;
  m::key_table lkeys, rkeys;
  m::queue_t q;
  uint32_t posted = 0;  // producer
  uint32_t polled = 0;  // CQ consumer

  Pair(uint32_t bbs, uint32_t cqes, size_t bytes,
       uint32_t remote_access = m::kAccessRemoteRead | m::kAccessRemoteWrite |
                                m::kAccessRemoteAtomic)
      : nbb(bbs), ncqe(cqes), sq(bbs * g::kWqeBB, 0), cq(cqes), local(bytes), remote(bytes) {
    for (g::cqe_t &e : cq) {
      memset(&e, 0, sizeof e);
      e.op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 1);  // never written (owner 1)
    }
    REQUIRE(lkeys.add({kLKey, local.addr(), bytes, m::kAccessLocalWrite}));
    REQUIRE(rkeys.add({kRKey, remote.addr(), bytes, remote_access}));
    q.sq = sq.data();
    q.nbb = nbb;
    q.dbr = &dbr[g::kSendDbr];
    q.cq = cq.data();
    q.ncqe = ncqe;
    q.qpn = kQpn;
    q.pe = 0;
    q.peer = 1;
  }
  void *slot() { return sq.data() + (posted % nbb) * g::kWqeBB; }
  g::post_t post(bool signaled) {
    return g::post_t{static_cast<uint16_t>(posted), kQpn, signaled ? g::kCeCqUpdate : uint8_t{0}};
  }
  void ring() { dbr[g::kSendDbr] = g::send_dbr_value(posted); }
  static m::reply_t send(void *ctx, int peer, const m::request_t &rq) {
    REQUIRE(peer == 1);
    return m::execute(static_cast<Pair *>(ctx)->rkeys, rq);
  }
  uint32_t progress() { return m::progress(q, lkeys, &Pair::send, this, 1u << 30); }
  // The next CQE, if written.
  const g::cqe_t *poll() {
    const g::cqe_t &e = cq[polled % ncqe];
    if (!g::cqe_ready(e, polled, ncqe)) return nullptr;
    ++polled;
    return &e;
  }
};

// A memory access (common/mem_access.h) that counts what goes through it and then does it as
// the host access does: stands for the CUDA access of a GPU heap, which the NIC model then uses
// for every byte it moves (the responder's heap operations, the requester's local side).
class CountingAccess final : public xshmem::backend::MemAccess {
 public:
  const char *name() const override { return "counting"; }
  xshmem_status_t copy(void *lane, void *dst, const void *src, size_t n) override {
    CHECK(lane == kLane);
    ++copies;
    if (refuse) return XSHMEM_ERR_IO;
    memcpy(dst, src, n);
    return XSHMEM_SUCCESS;
  }
  void apply(void *lane, xshmem_heap_op_v1_t *ops, size_t n) override {
    CHECK(lane == kLane);
    for (size_t i = 0; i < n; ++i) ++(ops[i].kind == XSHMEM_HEAP_OP_AMO ? amos : heap_copies);
    if (refuse) {
      for (size_t i = 0; i < n; ++i) ops[i].status = XSHMEM_ERR_INVALID;
      return;
    }
    host.apply(lane, ops, n);
  }
  static inline void *const kLane = reinterpret_cast<void *>(0x1a4e);
  xshmem::backend::HostAccess host;
  int copies = 0, heap_copies = 0, amos = 0;
  bool refuse = false;
};

}  // namespace

TEST_CASE("ibgda model: every opcode moves the right bytes, selective completions, wrap-around",
          "[ibgda_model]") {
  const size_t kBytes = 4096;
  Pair t(16, 8, kBytes);
  // Plain host memory, or every byte through a memory access (a GPU heap's way).
  const bool via_access = GENERATE(false, true);
  INFO("through a memory access: " << via_access);
  CountingAccess access;
  if (via_access) {
    t.lkeys.set_access(&access, CountingAccess::kLane);
    t.rkeys.set_access(&access, CountingAccess::kLane);
  }
  int inline_writes = 0;                      // of at least one byte (a NIC moves none for 0)
  for (int round = 0; round < 12; ++round) {  // 12 x 8 entries over a 16-entry queue
    INFO("round " << round);
    for (size_t i = 0; i < kBytes; ++i) {
      t.local.p()[i] = static_cast<uint8_t>(xt::mix(round, i, 1));
      t.remote.p()[i] = static_cast<uint8_t>(xt::mix(round, i, 2));
    }
    const std::vector<uint8_t> remote0(t.remote.p(), t.remote.p() + kBytes);
    const size_t wlen = 1 + xt::mix(round, 3) % 1024, woff = 8 * (xt::mix(round, 4) % 64);
    const size_t rlen = 1 + xt::mix(round, 5) % 512, roff = 2048 + xt::mix(round, 6) % 1024;
    const uint32_t ilen = static_cast<uint32_t>(xt::mix(round, 7) % (g::kMaxInline + 1));
    const size_t ioff = 1500;
    inline_writes += ilen != 0;
    uint8_t inl[g::kMaxInline];
    for (uint32_t i = 0; i < ilen; ++i) inl[i] = static_cast<uint8_t>(xt::mix(round, i, 8));
    const uint64_t add = xt::mix(round, 9), swp = xt::mix(round, 11);
    uint64_t word0, word1;
    memcpy(&word0, remote0.data() + 3584, 8);
    memcpy(&word1, remote0.data() + 3592, 8);
    const uint32_t first = t.posted;
    // 0 write local[0..wlen) -> remote[woff..), unsignaled
    g::build_write(t.slot(), t.post(false), t.remote.addr() + woff, kRKey, t.local.addr(), kLKey,
                   static_cast<uint32_t>(wlen));
    ++t.posted;
    // 1 inline write -> remote[ioff..), signaled
    g::build_write_inline(t.slot(), t.post(true), t.remote.addr() + ioff, kRKey, inl, ilen);
    ++t.posted;
    // 2 read remote[roff..) -> local[1024..), unsignaled
    g::build_read(t.slot(), t.post(false), t.remote.addr() + roff, kRKey, t.local.addr() + 1024,
                  kLKey, static_cast<uint32_t>(rlen));
    ++t.posted;
    // 3 fetch-add at remote[3584], old -> local[4000]
    g::build_fetch_add(t.slot(), t.post(true), t.remote.addr() + 3584, kRKey, t.local.addr() + 4000,
                       kLKey, add);
    ++t.posted;
    // 4 compare-swap that fails (compare != current) at remote[3592], old -> local[4008]
    g::build_compare_swap(t.slot(), t.post(false), t.remote.addr() + 3592, kRKey,
                          t.local.addr() + 4008, kLKey, word1 ^ 1, swp);
    ++t.posted;
    // 5 compare-swap that succeeds, old -> local[4016]
    g::build_compare_swap(t.slot(), t.post(false), t.remote.addr() + 3592, kRKey,
                          t.local.addr() + 4016, kLKey, word1, swp);
    ++t.posted;
    // 6 nop, 7 nop signaled (the batch's completion point)
    g::build_nop(t.slot(), t.post(false));
    ++t.posted;
    g::build_nop(t.slot(), t.post(true));
    ++t.posted;
    // Nothing happens before the doorbell record moves.
    REQUIRE(t.progress() == 0);
    t.ring();
    REQUIRE(t.progress() == 8);
    REQUIRE(t.progress() == 0);
    REQUIRE_FALSE(t.q.error);
    // Completions: entries 1, 3 and 7, in order, nothing else.
    for (uint32_t k : {1u, 3u, 7u}) {
      const g::cqe_t *e = t.poll();
      REQUIRE(e != nullptr);
      REQUIRE(g::cqe_opcode(*e) == g::kCqeReq);
      REQUIRE(g::be16(e->wqe_counter) == static_cast<uint16_t>(first + k));
    }
    REQUIRE(t.poll() == nullptr);
    // Remote memory: the write, the inline write, the atomics; everything else unchanged.
    std::vector<uint8_t> want = remote0;
    memcpy(want.data() + woff, t.local.p(), wlen);  // local[0..wlen) was not overwritten first
    memcpy(want.data() + ioff, inl, ilen);
    const uint64_t after_add = word0 + add;
    memcpy(want.data() + 3584, &after_add, 8);
    memcpy(want.data() + 3592, &swp, 8);
    REQUIRE(memcmp(t.remote.p(), want.data(), kBytes) == 0);
    // Local memory: the read, the three old values.
    REQUIRE(memcmp(t.local.p() + 1024, want.data() + roff, rlen) == 0);
    uint64_t v;
    memcpy(&v, t.local.p() + 4000, 8);
    REQUIRE(v == word0);
    memcpy(&v, t.local.p() + 4008, 8);
    REQUIRE(v == word1);
    memcpy(&v, t.local.p() + 4016, 8);
    REQUIRE(v == word1);
    REQUIRE(t.local.guards_intact());
    REQUIRE(t.remote.guards_intact());
  }
  if (via_access) {
    // Per round: the write's source and the landings of the read and the three atomics (local
    // copies), the write, the read and a non-empty inline write at the target (heap copies), three
    // atomics.
    CHECK(access.copies == 12 * 5);
    CHECK(access.heap_copies == 12 * 2 + inline_writes);
    CHECK(access.amos == 12 * 3);
  }
}

TEST_CASE("ibgda model: a memory access that refuses stops the queue with one line",
          "[ibgda_model]") {
  for (const bool local_side : {false, true}) {
    INFO("the " << (local_side ? "local" : "target") << " access refuses");
    Pair t(8, 8, 256);
    CountingAccess access;
    access.refuse = true;
    (local_side ? t.lkeys : t.rkeys).set_access(&access, CountingAccess::kLane);
    for (size_t i = 0; i < 256; ++i) t.remote.p()[i] = static_cast<uint8_t>(xt::mix(i, 30));
    const std::vector<uint8_t> remote0(t.remote.p(), t.remote.p() + 256);
    // An RDMA write (its source read through the local access, its target written through the
    // target's), then a later inline write that must be flushed.
    g::build_write(t.slot(), t.post(false), t.remote.addr() + 64, kRKey, t.local.addr(), kLKey,
                   100);
    ++t.posted;
    const uint64_t v = 0x1234;
    g::build_write_inline(t.slot(), t.post(true), t.remote.addr() + 8, kRKey, &v, 8);
    ++t.posted;
    t.ring();
    REQUIRE(t.progress() == 2);
    REQUIRE(t.q.error);
    REQUIRE(t.q.error_pos == 0);
    const std::string &line = t.q.error_line;
    INFO(line);
    REQUIRE(line.find("send-queue position 0") != std::string::npos);
    REQUIRE(line.find("memory access (counting)") != std::string::npos);
    REQUIRE(line.find('\n') == std::string::npos);
    REQUIRE(memcmp(t.remote.p(), remote0.data(), 256) == 0);  // nothing executed
    REQUIRE(t.remote.guards_intact());
  }
}

namespace {

// One corrupted entry after a good one, and a good one after it: the first completes, the bad one
// completes with `syndrome` and the line names the field; the last is flushed and not executed.
void corrupted(const char *name, uint8_t syndrome, const char *needle,
               void (*build)(Pair &t, void *wqe, g::post_t p),
               uint32_t remote_access = m::kAccessRemoteRead | m::kAccessRemoteWrite |
                                        m::kAccessRemoteAtomic) {
  INFO(name);
  Pair t(8, 8, 1024, remote_access);
  for (size_t i = 0; i < 1024; ++i) {
    t.local.p()[i] = static_cast<uint8_t>(xt::mix(i, 20));
    t.remote.p()[i] = static_cast<uint8_t>(xt::mix(i, 21));
  }
  // Advance the queue a little so positions are not all zero.
  for (int i = 0; i < 5; ++i) {
    g::build_nop(t.slot(), t.post(false));
    ++t.posted;
  }
  t.ring();
  REQUIRE(t.progress() == 5);
  g::build_nop(t.slot(), t.post(true));
  ++t.posted;
  const uint32_t bad = t.posted;
  build(t, t.slot(), t.post(false));
  ++t.posted;
  // A later good write that must not happen.
  g::build_write(t.slot(), t.post(true), t.remote.addr() + 512, kRKey, t.local.addr(), kLKey, 64);
  ++t.posted;
  const std::vector<uint8_t> remote0(t.remote.p(), t.remote.p() + 1024);
  t.ring();
  REQUIRE(t.progress() == 3);
  REQUIRE(t.q.error);
  const g::cqe_t *ok = t.poll();
  REQUIRE(ok != nullptr);
  REQUIRE(g::cqe_opcode(*ok) == g::kCqeReq);
  const g::cqe_t *err = t.poll();
  REQUIRE(err != nullptr);
  REQUIRE(g::cqe_opcode(*err) == g::kCqeReqErr);
  REQUIRE(err->syndrome == syndrome);
  REQUIRE(g::be16(err->wqe_counter) == static_cast<uint16_t>(bad));
  REQUIRE((g::be32(err->s_wqe_opcode_qpn) & 0xFFFFFF) == kQpn);
  const g::cqe_t *flushed = t.poll();
  REQUIRE(flushed != nullptr);
  REQUIRE(g::cqe_opcode(*flushed) == g::kCqeReqErr);
  REQUIRE(flushed->syndrome == g::kSynWrFlush);
  REQUIRE(t.poll() == nullptr);
  REQUIRE(memcmp(t.remote.p() + 512, remote0.data() + 512, 64) == 0);  // not executed
  const std::string &line = t.q.error_line;
  INFO(line);
  REQUIRE(line.find("pe 0") != std::string::npos);
  REQUIRE(line.find("qp 0xabcde to pe 1") != std::string::npos);
  REQUIRE(line.find("position " + std::to_string(bad)) != std::string::npos);
  REQUIRE(line.find(needle) != std::string::npos);
  REQUIRE(line.find(g::syndrome_name(syndrome)) != std::string::npos);
  REQUIRE(line.find('\n') == std::string::npos);
  REQUIRE(t.local.guards_intact());
  REQUIRE(t.remote.guards_intact());
}

}  // namespace

TEST_CASE("ibgda model: corrupted entries stop the queue with one line", "[ibgda_model]") {
  corrupted("wrong rkey", g::kSynRemoteAccess, "remote key 0x2223 is not registered",
            [](Pair &t, void *w, g::post_t p) {
              g::build_write(w, p, t.remote.addr(), kRKey + 1, t.local.addr(), kLKey, 16);
            });
  corrupted("wrong length (past the remote region)", g::kSynRemoteAccess,
            "lies outside the region of remote key 0x2222", [](Pair &t, void *w, g::post_t p) {
              g::build_write(w, p, t.remote.addr() + 1000, kRKey, t.local.addr(), kLKey, 100);
            });
  corrupted("wrong length (past the local region)", g::kSynLocalProt,
            "lies outside the region of local key 0x1111", [](Pair &t, void *w, g::post_t p) {
              g::build_read(w, p, t.remote.addr(), kRKey, t.local.addr() + 1020, kLKey, 8);
            });
  corrupted("wrong lkey", g::kSynLocalProt, "local key 0x1112 is not registered",
            [](Pair &t, void *w, g::post_t p) {
              g::build_read(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey + 1, 8);
            });
  corrupted("zero byte count", g::kSynLocalLength, "byte_count: 0",
            [](Pair &t, void *w, g::post_t p) {
              g::build_write(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 0);
            });
  corrupted("bad opcode", g::kSynLocalQpOp, "opcode: 0x0d", [](Pair &t, void *w, g::post_t p) {
    g::build_write(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 8);
    auto *c = static_cast<g::ctrl_seg_t *>(w);
    c->opmod_idx_opcode = g::be32((g::be32(c->opmod_idx_opcode) & ~0xFFu) | 0x0D);
  });
  corrupted("ds that does not match the opcode", g::kSynLocalQpOp, "ds: 3 for a fetch-add",
            [](Pair &t, void *w, g::post_t p) {
              g::build_fetch_add(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 1);
              auto *c = static_cast<g::ctrl_seg_t *>(w);
              c->qpn_ds = g::be32((g::be32(c->qpn_ds) & ~0x3Fu) | 3);
            });
  corrupted("stale index (slot not written this pass)", g::kSynLocalQpOp, "wqe index",
            [](Pair &t, void *w, g::post_t p) {
              p.index = static_cast<uint16_t>(p.index - t.nbb);
              g::build_write(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 8);
            });
  corrupted("another queue's qpn", g::kSynLocalQpOp, "qpn: 0xabcdf",
            [](Pair &t, void *w, g::post_t p) {
              p.qpn = kQpn + 1;
              g::build_write(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 8);
            });
  corrupted("misaligned atomic", g::kSynRemoteInvalReq,
            "raddr: ", [](Pair &t, void *w, g::post_t p) {
              g::build_fetch_add(w, p, t.remote.addr() + 4, kRKey, t.local.addr(), kLKey, 1);
            });
  corrupted("inline length past the WQEBB", g::kSynLocalLength, "inline length 40",
            [](Pair &t, void *w, g::post_t p) {
              uint8_t src[g::kMaxInline] = {};
              g::build_write_inline(w, p, t.remote.addr(), kRKey, src, 8);
              const uint32_t hdr = g::be32(40 | g::kInlineSeg);
              memcpy(static_cast<uint8_t *>(w) + 32, &hdr, 4);
            });
  corrupted(
      "write without remote write access", g::kSynRemoteAccess, "does not allow remote write",
      [](Pair &t, void *w, g::post_t p) {
        g::build_write(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 8);
      },
      m::kAccessRemoteRead);
  corrupted(
      "atomic without remote atomic access", g::kSynRemoteAccess, "does not allow remote atomic",
      [](Pair &t, void *w, g::post_t p) {
        g::build_fetch_add(w, p, t.remote.addr(), kRKey, t.local.addr(), kLKey, 1);
      },
      m::kAccessRemoteRead | m::kAccessRemoteWrite);
}

TEST_CASE("ibgda model: a doorbell record that goes back stops the queue with one line",
          "[ibgda_model]") {
  Pair t(8, 8, 1024);
  for (size_t i = 0; i < 1024; ++i) t.remote.p()[i] = static_cast<uint8_t>(xt::mix(i, 23));
  for (int i = 0; i < 6; ++i) {
    g::build_nop(t.slot(), t.post(i == 5));
    ++t.posted;
  }
  t.ring();
  REQUIRE(t.progress() == 6);
  REQUIRE_FALSE(t.q.error);
  // A write published, then a record write from an earlier publisher lands last: the count goes
  // back by one, which reads as 65535 entries ahead.
  g::build_write(t.slot(), t.post(true), t.remote.addr(), kRKey, t.local.addr(), kLKey, 64);
  ++t.posted;
  const std::vector<uint8_t> remote0(t.remote.p(), t.remote.p() + 1024);
  t.dbr[g::kSendDbr] = g::send_dbr_value(t.posted - 2);
  t.progress();
  REQUIRE(t.q.error);
  INFO(t.q.error_line);
  CHECK(t.q.error_line.find("pe 0, queue qp 0xabcde to pe 1, send-queue position 6") !=
        std::string::npos);
  CHECK(t.q.error_line.find("doorbell record: producer count 0x0005 is 65535 positions past the "
                            "next entry 0x0006, more than the queue's 8 WQEBBs") !=
        std::string::npos);
  CHECK(t.q.error_line.find("syndrome 0x02") != std::string::npos);
  CHECK(std::equal(remote0.begin(), remote0.end(), t.remote.p()));  // nothing executed
  CHECK(t.remote.guards_intact());
}

TEST_CASE("ibgda model: key table", "[ibgda_model]") {
  m::key_table k;
  REQUIRE(k.add({1, 0x1000, 0x100, m::kAccessRemoteWrite}));
  REQUIRE_FALSE(k.add({1, 0x5000, 0x100, 0}));
  std::string why;
  REQUIRE(k.check(1, 0x1000, 0x100, m::kAccessRemoteWrite, true, &why) == 0);
  REQUIRE(k.check(1, 0x10FF, 1, 0, true, &why) == 0);
  REQUIRE(k.check(1, 0x1100, 0, 0, true, &why) == 0);  // empty range at the end
  REQUIRE(k.check(1, 0x10FF, 2, 0, true, &why) == g::kSynRemoteAccess);
  REQUIRE(k.check(1, 0xFFF, 1, 0, true, &why) == g::kSynRemoteAccess);
  REQUIRE(k.check(1, 0x1000, ~0ull, 0, true, &why) == g::kSynRemoteAccess);  // no wrap
  REQUIRE(k.check(1, ~0ull, 2, 0, false, &why) == g::kSynLocalProt);
  REQUIRE(k.check(2, 0x1000, 1, 0, false, &why) == g::kSynLocalProt);
  REQUIRE(k.remove(1));
  REQUIRE_FALSE(k.remove(1));
  REQUIRE(k.find(1) == nullptr);
}

// The CUDA memory access's copies between addresses that are not GPU memory go through the kernel:
// an address that means nothing on the host (a GPU thread's __shared__ or local address in an
// entry) fails the copy (the model then stops the queue with its line) instead of crashing the
// process. Where the kernel call is forbidden (seccomp) the copy is a plain memcpy: skipped.
TEST_CASE("ibgda model: a host copy from or to an unmapped address fails, not crashes",
          "[ibgda_model]") {
  using xshmem::backend::CudaAccess;
  uint64_t a = 0x1122334455667788ull, b = 0;
  iovec probe_to{&b, 8}, probe_from{&a, 8};
  if (process_vm_readv(getpid(), &probe_to, 1, &probe_from, 1, 0) != 8) {
    WARN("process_vm_readv is not allowed here (errno " << errno << "): nothing to check");
    return;
  }
  b = 0;
  CHECK(CudaAccess::host_copy(&b, &a, 8) == XSHMEM_SUCCESS);
  CHECK(b == a);
  // An address in the first page (never mapped) and one past the user address space.
  // (Through volatile words: the compiler is not to see constant addresses in the copies.)
  volatile uintptr_t low_word = 0x40, high_word = 0xffff900000000000ull;
  auto *low = reinterpret_cast<void *>(low_word);
  auto *high = reinterpret_cast<void *>(high_word);
  CHECK(CudaAccess::host_copy(&b, low, 8) == XSHMEM_ERR_IO);
  CHECK(CudaAccess::host_copy(low, &a, 8) == XSHMEM_ERR_IO);
  CHECK(CudaAccess::host_copy(&b, high, 5) == XSHMEM_ERR_IO);
  CHECK(b == a);  // untouched by the failed copies
}
