// The software NIC model's requester and responder (nic_model.h).
#include "nic_model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <algorithm>

#include "common/mem_access.h"

namespace xshmem::ibgda {

namespace g = xshmem::dev::gda;

namespace {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

const char *opcode_name(uint8_t op) {
  switch (op) {
    case g::kOpNop:
      return "nop";
    case g::kOpRdmaWrite:
      return "rdma write";
    case g::kOpRdmaWriteImm:
      return "rdma write with immediate";
    case g::kOpRdmaRead:
      return "rdma read";
    case g::kOpAtomicCs:
      return "compare-swap";
    case g::kOpAtomicFa:
      return "fetch-add";
    default:
      return "unknown opcode";
  }
}

bool fail(fault_t *f, const char *field, uint8_t syndrome, std::string detail) {
  f->field = field;
  f->syndrome = syndrome;
  f->detail = std::move(detail);
  return false;
}

// The WQEBB at position `pos` of a send queue of `nbb` WQEBBs.
const uint8_t *wqebb(const void *sq, uint32_t nbb, uint32_t pos) {
  return static_cast<const uint8_t *>(sq) + static_cast<size_t>(pos & (nbb - 1)) * g::kWqeBB;
}

// The fence, completion and solicited bits an entry may carry.
constexpr uint8_t kKnownFlags = 0xE0 | 0x0C | g::kSolicited;

}  // namespace

// ---- key table ----------------------------------------------------------------------------------

bool key_table::add(const mr_t &mr) {
  if (find(mr.key) != nullptr) return false;
  mrs_.push_back(mr);
  return true;
}
bool key_table::remove(uint32_t key) {
  auto it = std::find_if(mrs_.begin(), mrs_.end(), [&](const mr_t &m) { return m.key == key; });
  if (it == mrs_.end()) return false;
  mrs_.erase(it);
  return true;
}
const mr_t *key_table::find(uint32_t key) const {
  for (const mr_t &m : mrs_)
    if (m.key == key) return &m;
  return nullptr;
}
uint8_t key_table::check(uint32_t key, uint64_t addr, uint64_t len, uint32_t need, bool remote,
                         std::string *why) const {
  const uint8_t syn = remote ? g::kSynRemoteAccess : g::kSynLocalProt;
  const mr_t *m = find(key);
  if (m == nullptr) {
    *why = format("%s key 0x%x is not registered", remote ? "remote" : "local", key);
    return syn;
  }
  if (addr < m->addr || addr - m->addr > m->length || len > m->length - (addr - m->addr)) {
    *why = format("[0x%" PRIx64 ", +%" PRIu64 ") lies outside the region of %s key 0x%x [0x%" PRIx64
                  ", +%" PRIu64 ")",
                  addr, len, remote ? "remote" : "local", key, m->addr, m->length);
    return syn;
  }
  if ((m->access & need) != need) {
    const char *what = (need & kAccessRemoteAtomic)  ? "remote atomic"
                       : (need & kAccessRemoteWrite) ? "remote write"
                       : (need & kAccessRemoteRead)  ? "remote read"
                                                     : "local write";
    *why = format("%s key 0x%x does not allow %s", remote ? "remote" : "local", key, what);
    return syn;
  }
  return 0;
}

// ---- requester: decoding ------------------------------------------------------------------------

bool decode(const void *sq, uint32_t nbb, uint32_t pos, uint32_t qpn, op_t *op, fault_t *f) {
  const uint8_t *bb = wqebb(sq, nbb, pos);
  g::ctrl_seg_t c;
  memcpy(&c, bb, sizeof c);
  *op = op_t{};
  op->opcode = g::ctrl_opcode(c);
  op->index = g::ctrl_index(c);
  op->ds = g::ctrl_ds(c);
  op->fm_ce_se = c.fm_ce_se;
  const uint16_t want = static_cast<uint16_t>(pos);
  if (op->index != want)
    return fail(f, "wqe index", g::kSynLocalQpOp,
                format("0x%x where position %u expects 0x%x (an entry not written, or written "
                       "to the wrong slot)",
                       op->index, pos, want));
  if (g::ctrl_qpn(c) != qpn)
    return fail(f, "qpn", g::kSynLocalQpOp,
                format("0x%x, this queue is qp 0x%x", g::ctrl_qpn(c), qpn));
  if (g::ctrl_opmod(c) != 0)
    return fail(
        f, "opmod", g::kSynLocalQpOp,
        format("0x%x with %s (xshmem posts none)", g::ctrl_opmod(c), opcode_name(op->opcode)));
  if ((c.fm_ce_se & ~kKnownFlags) != 0)
    return fail(f, "fm_ce_se", g::kSynLocalQpOp, format("unknown bits 0x%x", c.fm_ce_se));
  if (op->ds == 0 || op->ds > g::kSegsPerBB)
    return fail(f, "ds", g::kSynLocalQpOp,
                format("%u segments (an entry xshmem posts has 1 to %u)", op->ds, g::kSegsPerBB));
  auto raddr = [&] {
    g::raddr_seg_t r;
    memcpy(&r, bb + 16, sizeof r);
    op->raddr = g::be64(r.raddr);
    op->rkey = g::be32(r.rkey);
  };
  auto data = [&](int at) {
    g::data_seg_t d;
    memcpy(&d, bb + at * 16, sizeof d);
    op->length = g::be32(d.byte_count);
    op->lkey = g::be32(d.lkey);
    op->laddr = g::be64(d.addr);
  };
  switch (op->opcode) {
    case g::kOpNop:
      if (op->ds != 1) return fail(f, "ds", g::kSynLocalQpOp, format("%u for a nop (1)", op->ds));
      return true;
    case g::kOpRdmaWrite:
    case g::kOpRdmaRead: {
      if (op->ds < 3)
        return fail(
            f, "ds", g::kSynLocalQpOp,
            format("%u for an %s (3, or an inline write's 3..4)", op->ds, opcode_name(op->opcode)));
      raddr();
      uint32_t first;
      memcpy(&first, bb + 32, 4);
      first = g::be32(first);
      if (first & g::kInlineSeg) {
        const uint32_t n = first & ~g::kInlineSeg;
        if (op->opcode == g::kOpRdmaRead)
          return fail(f, "byte_count", g::kSynLocalQpOp, "inline data in an rdma read");
        if (n > g::kMaxInline)
          return fail(f, "byte_count", g::kSynLocalLength,
                      format("inline length %u (at most %u in one WQEBB)", n, g::kMaxInline));
        if (op->ds != g::inline_ds(n))
          return fail(f, "ds", g::kSynLocalQpOp,
                      format("%u for %u inline bytes (%u)", op->ds, n, g::inline_ds(n)));
        op->is_inline = true;
        op->length = n;
        memcpy(op->inline_data, bb + 36, n);
        return true;
      }
      if (op->ds != 3)
        return fail(
            f, "ds", g::kSynLocalQpOp,
            format("%u for an %s with one data segment (3)", op->ds, opcode_name(op->opcode)));
      data(2);
      if (op->length == 0)
        return fail(f, "byte_count", g::kSynLocalLength,
                    "0 (an mlx5 NIC reads a zero byte count as 2 GiB; xshmem never posts one)");
      return true;
    }
    case g::kOpAtomicFa:
    case g::kOpAtomicCs: {
      if (op->ds != 4)
        return fail(f, "ds", g::kSynLocalQpOp,
                    format("%u for a %s (4)", op->ds, opcode_name(op->opcode)));
      raddr();
      g::atomic_seg_t a;
      memcpy(&a, bb + 32, sizeof a);
      op->swap_add = g::be64(a.swap_add);
      op->compare = g::be64(a.compare);
      data(3);
      if (op->length != 8)
        return fail(f, "byte_count", g::kSynLocalLength,
                    format("%u for an 8-byte %s", op->length, opcode_name(op->opcode)));
      if (op->raddr & 7)
        return fail(
            f, "raddr", g::kSynRemoteInvalReq,
            format("0x%" PRIx64 " is not 8-byte aligned (%s)", op->raddr, opcode_name(op->opcode)));
      if (op->laddr & 7)
        return fail(f, "laddr", g::kSynLocalQpOp,
                    format("0x%" PRIx64 " is not 8-byte aligned (the %s result)", op->laddr,
                           opcode_name(op->opcode)));
      return true;
    }
    default:
      return fail(f, "opcode", g::kSynLocalQpOp,
                  format("0x%02x (%s)", op->opcode, opcode_name(op->opcode)));
  }
}

// ---- responder ----------------------------------------------------------------------------------

namespace {
xshmem_heap_op_v1_t copy_op(void *dst, const void *src, uint64_t n) {
  xshmem_heap_op_v1_t op{};
  op.kind = XSHMEM_HEAP_OP_COPY;
  op.addr = dst;
  op.src = src;
  op.operand = n;
  return op;
}
}  // namespace

uint8_t precheck(const key_table &keys, const request_t &rq, std::string *why) {
  switch (rq.opcode) {
    case g::kOpRdmaWrite:
      return keys.check(rq.rkey, rq.raddr, rq.length, kAccessRemoteWrite, true, why);
    case g::kOpRdmaRead:
      return keys.check(rq.rkey, rq.raddr, rq.length, kAccessRemoteRead, true, why);
    case g::kOpAtomicFa:
    case g::kOpAtomicCs:
      if (rq.length != 8 || (rq.raddr & 7) != 0) {
        *why = format("a %u-byte atomic at 0x%" PRIx64 " (8 bytes, 8-byte aligned)", rq.length,
                      rq.raddr);
        return g::kSynRemoteInvalReq;
      }
      return keys.check(rq.rkey, rq.raddr, 8, kAccessRemoteAtomic, true, why);
    default:
      *why = format("opcode 0x%02x is not executed by the responder", rq.opcode);
      return g::kSynRemoteInvalReq;
  }
}

void execute_batch(const key_table &keys, const request_t *rqs, size_t n, reply_t *out) {
  if (keys.access() == nullptr) {
    for (size_t i = 0; i < n; ++i) out[i] = execute(keys, rqs[i]);
    return;
  }
  std::vector<xshmem_heap_op_v1_t> ops;
  std::vector<size_t> of;  // ops[k] belongs to request of[k]
  ops.reserve(n);
  of.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const request_t &rq = rqs[i];
    reply_t &r = out[i];
    r = reply_t{};
    if ((r.syndrome = precheck(keys, rq, &r.why)) != 0) continue;
    xshmem_heap_op_v1_t op{};
    if (rq.opcode == g::kOpRdmaWrite) {
      if (rq.length == 0) continue;
      op = copy_op(reinterpret_cast<void *>(rq.raddr), rq.data, rq.length);
    } else if (rq.opcode == g::kOpRdmaRead) {
      r.data.resize(rq.length);
      if (rq.length == 0) continue;
      op = copy_op(r.data.data(), reinterpret_cast<const void *>(rq.raddr), rq.length);
    } else {
      op.kind = XSHMEM_HEAP_OP_AMO;
      op.width = 8;
      op.op = rq.opcode == g::kOpAtomicFa ? XSHMEM_AMO_FETCH_ADD : XSHMEM_AMO_COMPARE_SWAP;
      op.addr = reinterpret_cast<void *>(rq.raddr);
      op.operand = rq.swap_add;
      op.compare = rq.compare;
    }
    op.src_pe = -1;
    ops.push_back(op);
    of.push_back(i);
  }
  if (ops.empty()) return;
  {
    doing mark(
        "executing peers' requests through the target's memory access (GPU heap: driver "
        "copies and atomic kernels)");
    keys.access()->apply(keys.lane(), ops.data(), ops.size());
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    reply_t &r = out[of[k]];
    if (ops[k].status != XSHMEM_SUCCESS) {
      r.syndrome = g::kSynRemoteOp;
      r.why = format("the target's memory access (%s) refused the operation at 0x%" PRIx64,
                     keys.access()->name(), rqs[of[k]].raddr);
      r.data.clear();
    } else if (ops[k].kind == XSHMEM_HEAP_OP_AMO) {
      r.old = ops[k].old;
    }
  }
}

reply_t execute(const key_table &keys, const request_t &rq) {
  reply_t r;
  if (keys.access() != nullptr) {
    execute_batch(keys, &rq, 1, &r);
    return r;
  }
  if ((r.syndrome = precheck(keys, rq, &r.why)) != 0) return r;
  switch (rq.opcode) {
    case g::kOpRdmaWrite:
      if (rq.length != 0) memcpy(reinterpret_cast<void *>(rq.raddr), rq.data, rq.length);
      return r;
    case g::kOpRdmaRead:
      r.data.resize(rq.length);
      memcpy(r.data.data(), reinterpret_cast<const void *>(rq.raddr), rq.length);
      return r;
    default: {  // the atomics (precheck refused every other opcode)
      auto *w = reinterpret_cast<uint64_t *>(rq.raddr);
      if (rq.opcode == g::kOpAtomicFa) {
        r.old = __atomic_fetch_add(w, rq.swap_add, __ATOMIC_SEQ_CST);
      } else {
        uint64_t expect = rq.compare;
        __atomic_compare_exchange_n(w, &expect, rq.swap_add, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        r.old = expect;
      }
      return r;
    }
  }
}

// ---- completions --------------------------------------------------------------------------------

void write_cqe(g::cqe_t *cq, uint32_t ncqe, uint32_t pi, uint16_t index, uint32_t qpn,
               uint8_t opcode, uint32_t byte_cnt, uint8_t syndrome) {
  g::cqe_t *e = &cq[pi & (ncqe - 1)];
  g::cqe_t v;
  memset(&v, 0, sizeof v);
  v.wqe_counter = g::be16(index);
  if (syndrome == 0) {
    v.byte_cnt = g::be32(byte_cnt);
  } else {
    v.syndrome = syndrome;
    v.s_wqe_opcode_qpn = g::be32(static_cast<uint32_t>(opcode) << 24 | (qpn & 0xFFFFFF));
  }
  // Everything but the owner byte first; the owner byte last, released: a poller that sees it
  // sees the rest.
  memcpy(e, &v, offsetof(g::cqe_t, op_own));
  __atomic_store_n(&e->op_own, g::cqe_op_own(syndrome == 0 ? g::kCqeReq : g::kCqeReqErr, pi, ncqe),
                   __ATOMIC_RELEASE);
}

// ---- requester: execution -----------------------------------------------------------------------

namespace {

// Completes the entry at send-queue position `pos`: a CQE when it asks for one or failed. The
// CQE's wqe_counter is the position's (what the poster counts), even where the entry's own index
// field was wrong.
void complete(queue_t &q, uint32_t pos, const op_t &op, uint8_t syndrome) {
  if (syndrome == 0 && !op.signaled()) return;
  write_cqe(q.cq, q.ncqe, q.cq_pi++, static_cast<uint16_t>(pos), q.qpn, op.opcode, op.length,
            syndrome);
}

void enter_error(queue_t &q, uint32_t pos, const op_t &op, const char *field, uint8_t syndrome,
                 const std::string &detail) {
  if (!q.error) q.error_pos = pos;
  q.error = true;
  if (q.error_line.empty())
    q.error_line = format(
        "ibgda NIC model: pe %d, queue qp 0x%x to pe %d, send-queue position %u (entry 0x%x, "
        "%s): %s%s%s (syndrome 0x%02x, %s)",
        q.pe, q.qpn, q.peer, pos, op.index, opcode_name(op.opcode), field, *field ? ": " : "",
        detail.c_str(), syndrome, g::syndrome_name(syndrome));
}

// The in-flight entry i places after the oldest.
inflight_t &at(queue_t &q, size_t i) {
  return q.inflight[(q.head + i) % q.inflight.size()];
}

}  // namespace

thread_local activity_t *t_activity = nullptr;

doing::doing(const char *what, int peer, uint32_t pos) {
  if (activity_t *a = t_activity) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    a->peer.store(peer, std::memory_order_relaxed);
    a->pos.store(pos, std::memory_order_relaxed);
    a->since_ns.store(uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec),
                      std::memory_order_relaxed);
    a->what.store(what, std::memory_order_release);
  }
}
doing::~doing() {
  if (activity_t *a = t_activity) a->what.store(nullptr, std::memory_order_release);
}

uint32_t issue(queue_t &q, const key_table &local, post_fn post, void *ctx, uint32_t max) {
  q.local = &local;
  std::vector<uint8_t> stage;  // a write's source read through the local access
  if (q.inflight.size() != q.nbb && q.count == 0) {
    q.inflight.assign(q.nbb, inflight_t{});
    q.head = 0;
  }
  const uint32_t producer = ibgda::producer(q);
  // At most nbb entries are ever outstanding: a producer count further ahead of the next entry
  // went back (a publisher's late record write landing after a later one's) or was published
  // over entries not consumed. Either way what lies ahead is not entries: stop the queue.
  const uint32_t ahead = (producer - q.consumer) & 0xFFFF;
  if (ahead > q.nbb && !q.error) {
    enter_error(q, q.consumer, op_t{}, "doorbell record", g::kSynLocalQpOp,
                format("producer count 0x%04x is %u positions past the next entry 0x%04x, more "
                       "than the queue's %u WQEBBs (the count went back, or was published over "
                       "entries not consumed)",
                       producer, ahead, q.consumer & 0xFFFF, q.nbb));
  }
  uint32_t taken = 0;
  while (taken < max && ((producer - q.consumer) & 0xFFFF) != 0 && q.count < q.inflight.size()) {
    const uint32_t pos = q.consumer;
    inflight_t &e = at(q, q.count);
    e = inflight_t{};
    e.pos = pos;
    fault_t f;
    if (q.error) {
      // Flushed: the entry's opcode from its control segment, whatever the rest holds.
      g::ctrl_seg_t c;
      memcpy(&c, wqebb(q.sq, q.nbb, pos), sizeof c);
      e.op.opcode = g::ctrl_opcode(c);
      e.syndrome = g::kSynWrFlush;
    } else if (!decode(q.sq, q.nbb, pos, q.qpn, &e.op, &f)) {
      enter_error(q, pos, e.op, f.field, f.syndrome, f.detail);
      e.syndrome = f.syndrome;
    } else if (e.op.opcode != g::kOpNop) {
      const op_t &op = e.op;
      request_t rq{op.opcode, op.raddr, op.rkey, op.length, nullptr, op.swap_add, op.compare};
      // The local side: the source of a write, the landing buffer of a read or an atomic.
      uint8_t syn = 0;
      if (op.opcode == g::kOpRdmaWrite) {
        if (op.is_inline) {
          rq.data = op.inline_data;
        } else {
          syn = local.check(op.lkey, op.laddr, op.length, 0, false, &e.why);
          rq.data = reinterpret_cast<const uint8_t *>(op.laddr);
          if (syn == 0 && local.access() != nullptr) {
            stage.resize(op.length);
            doing mark(
                "reading a write's source through the local memory access (a driver "
                "copy out of GPU memory)",
                q.peer, pos);
            if (local.access()->copy(local.lane(), stage.data(),
                                     reinterpret_cast<const void *>(op.laddr), op.length) != 0) {
              syn = g::kSynLocalProt;
              e.why = format("the local memory access (%s) cannot read 0x%" PRIx64 " (%u bytes)",
                             local.access()->name(), op.laddr, op.length);
            }
            rq.data = stage.data();
          }
        }
      } else {
        syn = local.check(op.lkey, op.laddr, op.length, kAccessLocalWrite, false, &e.why);
      }
      if (syn != 0) {
        enter_error(q, pos, op, "", syn, e.why);
        e.syndrome = syn;
      } else {
        e.remote = true;
        ++q.count;  // in the ring before post: a synchronous post answers at once
        if (!post(ctx, q, rq)) {
          --q.count;  // the wire is full: the entry stays posted, taken again next time
          break;
        }
        ++q.consumer;
        ++taken;
        continue;
      }
    }
    ++q.count;
    ++q.consumer;
    ++taken;
  }
  return taken;
}

void answer(queue_t &q, const reply_t &r) {
  while (q.unanswered < q.count && (!at(q, q.unanswered).remote || at(q, q.unanswered).answered))
    ++q.unanswered;
  if (q.unanswered >= q.count) return;  // nothing waits for an answer (ignored)
  inflight_t &e = at(q, q.unanswered++);
  e.answered = true;
  e.syndrome = r.syndrome;
  if (r.syndrome != 0) {
    if (!r.why.empty()) e.why = format("at pe %d: %s", q.peer, r.why.c_str());
    enter_error(q, e.pos, e.op, "", r.syndrome, e.why);
    return;
  }
  // The landing buffer, through the local access when there is one (GPU memory).
  auto land = [&](const void *src, size_t n) {
    void *dst = reinterpret_cast<void *>(e.op.laddr);
    backend::MemAccess *a = q.local != nullptr ? q.local->access() : nullptr;
    if (a == nullptr) {
      memcpy(dst, src, n);
      return;
    }
    doing mark(
        "landing an answer through the local memory access (a driver copy into GPU "
        "memory)",
        q.peer, e.pos);
    if (a->copy(q.local->lane(), dst, src, n) != 0) {
      e.syndrome = g::kSynLocalProt;
      e.why = format("the local memory access (%s) cannot write 0x%" PRIx64 " (%zu bytes)",
                     a->name(), e.op.laddr, n);
      enter_error(q, e.pos, e.op, "", e.syndrome, e.why);
    }
  };
  if (e.op.opcode == g::kOpRdmaRead && r.data.size() >= e.op.length)
    land(r.data.data(), e.op.length);
  if (e.op.opcode == g::kOpAtomicFa || e.op.opcode == g::kOpAtomicCs) land(&r.old, 8);
}

uint32_t retire(queue_t &q) {
  uint32_t n = 0;
  while (q.count > 0) {
    inflight_t &e = at(q, 0);
    if (e.remote && !e.answered) break;
    uint8_t syn = e.syndrome;
    // After the entry that failed, nothing completes but flushed.
    if (syn == 0 && q.error && static_cast<int32_t>(e.pos - q.error_pos) > 0) syn = g::kSynWrFlush;
    complete(q, e.pos, e.op, syn);
    q.head = (q.head + 1) % q.inflight.size();
    --q.count;
    if (q.unanswered > 0) --q.unanswered;
    ++n;
  }
  if (n != 0 && q.retired_out != nullptr)
    __atomic_store_n(q.retired_out, q.consumer - static_cast<uint32_t>(q.count), __ATOMIC_RELEASE);
  return n;
}

namespace {
struct sync_wire {
  send_fn send;
  void *ctx;
};
bool sync_post(void *ctx, queue_t &q, const request_t &rq) {
  const sync_wire *w = static_cast<const sync_wire *>(ctx);
  answer(q, w->send(w->ctx, q.peer, rq));
  return true;
}
}  // namespace

uint32_t progress(queue_t &q, const key_table &local, send_fn send, void *ctx, uint32_t max) {
  sync_wire w{send, ctx};
  uint32_t done = 0;
  while (done < max) {
    const uint32_t n = issue(q, local, sync_post, &w, max - done);
    retire(q);
    if (n == 0) break;
    done += n;
  }
  return done;
}

}  // namespace xshmem::ibgda
