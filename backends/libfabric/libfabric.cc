// xshmem transport "libfabric": PROXY peers, on other hosts and on this one, through any libfabric
// provider (verbs, efa, cxi, tcp, sockets, ...).
//
// Layout per PE (DESIGN.md "Proxy"):
//   - one domain per NIC (XSHMEM_LIBFABRIC_NICS, else the job's NIC, else the provider's first);
//   - per domain, one *service* endpoint: the target of every peer's RMA and active messages,
//     driven only by this PE's progress thread (so a manual-progress provider such as tcp places
//     incoming writes while the application computes or waits on memory);
//   - per channel (job info num_channels), one *channel* endpoint with its own completion queue,
//     used under the channel's mutex by whichever thread issues on the channel. Channel c uses
//     domain c % domains and the peer's service endpoint c % (its domains).
// Puts and gets are fi_write/fi_read with delivery-complete semantics (or, where the provider
// lacks them, a flushing read per written peer at quiet), split at chunk boundaries and at the
// provider's max_msg_size. Atomics and signals are active messages executed by the target's
// progress thread with the CPU's atomic instructions (docs/semantics.md "Atomicity across
// paths"): atomic with respect to hostshm's CPU atomics on the same location, so the table sets
// XSHMEM_DATA_OPS_AMO_COHERENT. Every wait has a deadline (XSHMEM_LIBFABRIC_TIMEOUT) measured
// from the last completion: a dead or frozen peer is an error naming it, never a hang.
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/plugin/transport_v1.h>

namespace {

constexpr const char *kName = "libfabric";
const xshmem_core_services_v1_t *g_svc = nullptr;

#define FLOG(lvl, ...) XSHMEM_PLOG(g_svc, lvl, kName, __VA_ARGS__)

const xshmem_config_entry_v1_t kConfig[] = {
    {"XSHMEM_LIBFABRIC_PROVIDER", XSHMEM_CONFIG_STRING, "auto", nullptr,
     "libfabric provider to use (tcp, sockets, verbs, efa, cxi, ...); auto prefers "
     "verbs/efa/cxi, then tcp, then sockets among those fi_getinfo offers"},
    {"XSHMEM_LIBFABRIC_DOMAIN", XSHMEM_CONFIG_STRING, "", nullptr,
     "libfabric domain (NIC or interface, such as mlx5_0 or lo) to open; empty: the job's chosen "
     "NIC if the provider has it, else the provider's first"},
    {"XSHMEM_LIBFABRIC_IFACE", XSHMEM_CONFIG_STRING, "", nullptr,
     "network interface the socket providers use (sets FI_TCP_IFACE and FI_SOCKETS_IFACE before "
     "libfabric starts); set it to lo for single-host tests"},
    {"XSHMEM_LIBFABRIC_NICS", XSHMEM_CONFIG_STRING, "", nullptr,
     "comma-separated libfabric domains one PE opens together (one per NIC, at most 8); channel c "
     "uses domain c modulo their number; empty: one domain (XSHMEM_LIBFABRIC_DOMAIN)"},
    {"XSHMEM_LIBFABRIC_TIMEOUT", XSHMEM_CONFIG_DURATION, "5s", nullptr,
     "how long an operation may wait without any completion before the peer is declared dead or "
     "stalled and the job stops; raise it on heavily loaded machines"},
    {"XSHMEM_LIBFABRIC_LATENCY_NS", XSHMEM_CONFIG_INT, "5000", nullptr,
     "cost the selector assumes for a small operation to a libfabric peer, in ns; above hostshm "
     "and nvlink so that they win on a host unless a transport is forced"},
};

constexpr int kMaxDomains = 8;
constexpr size_t kMaxAddr = 64;      // bytes of an endpoint name in the exchange
constexpr int kOpsPerChannel = 256;  // operation contexts per channel (in flight at once)
constexpr int kRepliesPerChannel = 64;
constexpr int kServiceRecvs = 256;  // request buffers per service endpoint
constexpr int kServiceSends = 256;  // reply buffers per service endpoint
constexpr size_t kBounce = 1u << 20;
constexpr uint32_t kMagicReq = 0x78666171;  // "xfaq"
constexpr uint32_t kMagicRep = 0x78666172;

// Active message: an atomic or signal for the target's progress thread.
struct AmReq {
  uint32_t magic;
  uint16_t op;    // xshmem_amo_op_t
  uint16_t type;  // xshmem_amo_type_t
  uint32_t src_pe;
  uint32_t src_chan;
  uint64_t offset;
  uint64_t operand;
  uint64_t compare;
  uint64_t token;  // the initiator's Op
};
struct AmRep {
  uint32_t magic;
  int32_t status;
  uint64_t token;
  uint64_t value;
};

enum Kind : uint32_t { kOp = 1, kReplyBuf = 2, kReqBuf = 3, kSendBuf = 4 };

struct Channel;

// One operation of a channel: an RMA piece or an active message.
struct Op {
  fi_context2 fctx;  // first: providers in FI_CONTEXT/FI_CONTEXT2 mode use it
  uint32_t kind = kOp;
  int pending = 0;           // completions still expected (RMA: 1, AM: send + reply)
  int pe = -1;               // the target
  int *group = nullptr;      // a blocking call's countdown, or NULL (nbi)
  int *group_err = nullptr;  // where the call learns of a failure
  uint64_t value = 0;        // AM reply value
  bool am = false;
  AmReq req;
  Op *next_free = nullptr;
};

struct ReplyBuf {
  fi_context2 fctx;
  uint32_t kind = kReplyBuf;
  AmRep rep;
};

struct ReqBuf {
  fi_context2 fctx;
  uint32_t kind = kReqBuf;
  AmReq req;
};
struct SendBuf {
  fi_context2 fctx;
  uint32_t kind = kSendBuf;
  AmRep rep;
  SendBuf *next_free = nullptr;
};

// A registered piece of this PE's heap (host heaps: the whole heap; device heaps: one chunk).
struct Chunk {
  size_t offset = 0, size = 0;
  fid_mr *mr[kMaxDomains] = {};
};
// Its keys and base at one peer.
struct RemoteChunk {
  uint64_t base = 0;  // the peer's address of the chunk (VIRT_ADDR providers)
  uint64_t key[kMaxDomains] = {};
};
constexpr size_t kMaxChunks = 4096;

// Message buffers of a service endpoint, in one allocation (one registration where the provider
// asks for local registration).
struct ServicePool {
  ReqBuf reqs[kServiceRecvs];
  SendBuf sends[kServiceSends];
};

struct Domain {
  fid_domain *domain = nullptr;
  fid_av *av = nullptr;
  fid_ep *sep = nullptr;  // service endpoint
  fid_cq *scq = nullptr;
  std::unique_ptr<ServicePool> pool;
  SendBuf *free_sends = nullptr;
  fid_mr *pool_mr = nullptr;      // the pool, when the provider asks for local registration
  std::vector<fi_addr_t> addr_s;  // [pe * kMaxDomains + d]: peer's service endpoint d
  std::vector<fi_addr_t> addr_e;  // [pe * nch + c]: peer's channel endpoint c
};

// Operation contexts (which hold active-message requests) and reply buffers of a channel.
struct ChannelPool {
  Op ops[kOpsPerChannel];
  ReplyBuf replies[kRepliesPerChannel];
};

struct Channel {
  std::mutex mu;
  int index = 0;
  int dom = 0;
  fid_ep *ep = nullptr;
  fid_cq *cq = nullptr;
  std::unique_ptr<ChannelPool> pool;
  Op *free_ops = nullptr;
  fid_mr *pool_mr = nullptr, *bounce_mr = nullptr;
  std::vector<char> bounce;
  int outstanding = 0, am_inflight = 0;
  std::vector<int> pe_out;       // [pe]: operations in flight to pe
  std::vector<uint8_t> written;  // [pe]: written since the last flush (no delivery complete)
  int failed_pe = -1;            // a completion error seen, not yet reported
  std::string failed_why;
};

struct Registered {
  char *addr;
  size_t size;
  fid_mr *mr[kMaxDomains];
};

struct Ctx {
  int my_pe = -1, n_pes = 0, nch = 1;
  fi_info *info = nullptr;  // the chosen fi_info (first domain)
  std::vector<fi_info *> dinfo;
  fid_fabric *fabric = nullptr;
  std::vector<std::unique_ptr<Domain>> doms;
  std::vector<std::unique_ptr<Channel>> chans;
  std::vector<int> peer_nd;  // [pe]: domains the peer opened
  std::string prov, dom_names;
  bool mr_local = false, virt_addr = false, prov_key = false, mr_endpoint = false;
  bool delivery_complete = false, hmem = false, heap_ok = false, connected = false;
  bool dormant = false;  // a one-host job that did not ask for libfabric: nothing opened
  xshmem_mem_kind_t heap_kind = XSHMEM_MEM_HOST;
  size_t max_msg = SIZE_MAX;
  size_t inject = 0;  // tx_attr->inject_size: puts this small are copied by the provider at once
  bool raw_order = false;  // reads after writes to one target are ordered (FI_ORDER_RAW)
  char *heap_base = nullptr;
  size_t heap_size = 0;
  int heap_device = -1;
  // Chunks: appended by heap_grow while other threads read (count published with release).
  std::vector<Chunk> chunks;
  std::vector<RemoteChunk> rchunks;  // [chunk * n_pes + pe]
  std::atomic<size_t> n_chunks{0};
  std::mutex reg_mu;
  std::vector<Registered *> regs;
  uint64_t next_key = 1u << 20;
  int64_t timeout_ms = 5000;
  std::thread progress;
  std::atomic<bool> stop{false};
  std::mutex err_mu;
  std::string async_err;  // first asynchronous failure, for error_query
  xshmem_status_t async_st = XSHMEM_SUCCESS;
  uint32_t latency_ns = 5000, bandwidth_mbps = 1000;
};

const char *fi_err(int r) {
  return fi_strerror(r < 0 ? -r : r);
}

void set_async_error(Ctx *c, xshmem_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void set_async_error(Ctx *c, xshmem_status_t st, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> g(c->err_mu);
  if (c->async_st == XSHMEM_SUCCESS) {
    c->async_st = st;
    c->async_err = buf;
  }
}

// ---- selection of the provider -------------------------------------------------------------

// Rank of a provider for "auto": NICs first, then the socket providers; -1: not chosen by auto
// (shm reaches no other host; net, udp and the rest are slower or pick their own interfaces).
int auto_rank(const char *prov) {
  std::string p(prov ? prov : "");
  p = p.substr(0, p.find(';'));
  static const char *nics[] = {"cxi", "efa", "verbs", "psm3", "opx", "psm2"};
  for (const char *n : nics)
    if (p == n) return 0;
  if (p == "tcp") return 1;
  if (p == "sockets") return 2;
  return -1;
}

fi_info *make_hints(const std::string &prov, bool delivery, bool hmem) {
  fi_info *h = fi_allocinfo();
  if (!h) return nullptr;
  h->caps = FI_RMA | FI_MSG | (hmem ? FI_HMEM : 0);
  h->ep_attr->type = FI_EP_RDM;
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                            FI_MR_ENDPOINT | (hmem ? FI_MR_HMEM : 0);
  h->domain_attr->threading = FI_THREAD_SAFE;
  if (delivery) h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  if (!prov.empty()) h->fabric_attr->prov_name = strdup(prov.c_str());
  return h;
}

std::vector<std::string> split_list(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string w = s.substr(i, j - i);
    while (!w.empty() && w.front() == ' ') w.erase(w.begin());
    while (!w.empty() && w.back() == ' ') w.pop_back();
    if (!w.empty()) out.push_back(w);
    i = j + 1;
  }
  return out;
}

// fi_getinfo for the provider (by rank under auto), with delivery complete if offered.
xshmem_status_t choose_info(Ctx *c, const std::string &want_prov, fi_info **all) {
  const bool want_hmem = c->heap_kind == XSHMEM_MEM_DEVICE;
  const std::string pname = want_prov == "auto" ? std::string() : want_prov;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const bool delivery = attempt % 2 == 0, hmem = want_hmem && attempt < 2;
    if (!want_hmem && attempt >= 2) break;
    fi_info *h = make_hints(pname, delivery, hmem);
    fi_info *list = nullptr;
    int r = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, h, &list);
    fi_freeinfo(h);
    if (r != 0 || !list) continue;
    c->delivery_complete = delivery;
    c->hmem = hmem;
    *all = list;
    return XSHMEM_SUCCESS;
  }
  FLOG(XSHMEM_LOG_WARN,
       "fi_getinfo offers no reliable-datagram endpoint with RMA and messages for provider %s; "
       "check XSHMEM_LIBFABRIC_PROVIDER and FI_PROVIDER",
       want_prov.c_str());
  return XSHMEM_ERR_NOT_FOUND;
}

// ---- completions ------------------------------------------------------------------------------

void op_finish(Channel *ch, Op *op, bool failed) {
  if (failed && op->group_err) *op->group_err = 1;
  if (--op->pending > 0) return;
  if (op->group) --*op->group;
  --ch->outstanding;
  if (op->pe >= 0) --ch->pe_out[op->pe];
  if (op->am) --ch->am_inflight;
  op->next_free = ch->free_ops;
  ch->free_ops = op;
}

void repost_reply(Ctx *c, Channel *ch, ReplyBuf *b) {
  void *desc = ch->pool_mr ? fi_mr_desc(ch->pool_mr) : nullptr;
  int r;
  while ((r = static_cast<int>(fi_recv(ch->ep, &b->rep, sizeof b->rep, desc, FI_ADDR_UNSPEC, b))) ==
         -FI_EAGAIN)
    (void)fi_cq_read(ch->cq, nullptr, 0);
  if (r) FLOG(XSHMEM_LOG_ERROR, "channel %d: cannot post a reply buffer: %s", ch->index, fi_err(r));
  (void)c;
}

// Reads the channel's completion queue once; returns the number of completions (errors count).
int progress_channel(Ctx *c, Channel *ch) {
  fi_cq_entry ent[16];
  ssize_t n = fi_cq_read(ch->cq, ent, 16);
  if (n > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      uint32_t kind = *reinterpret_cast<uint32_t *>(static_cast<char *>(ent[i].op_context) +
                                                    sizeof(fi_context2));
      if (kind == kOp) {
        op_finish(ch, static_cast<Op *>(ent[i].op_context), false);
      } else if (kind == kReplyBuf) {
        ReplyBuf *b = static_cast<ReplyBuf *>(ent[i].op_context);
        Op *op = reinterpret_cast<Op *>(static_cast<uintptr_t>(b->rep.token));
        if (b->rep.magic == kMagicRep && op >= ch->pool->ops &&
            op < ch->pool->ops + kOpsPerChannel) {
          op->value = b->rep.value;
          bool bad = b->rep.status != XSHMEM_SUCCESS;
          if (bad && ch->failed_pe < 0) {
            ch->failed_pe = op->pe;
            ch->failed_why =
                "the target refused the atomic (status " + std::to_string(b->rep.status) + ")";
          }
          op_finish(ch, op, bad);
        } else {
          FLOG(XSHMEM_LOG_ERROR, "channel %d: a malformed atomic reply arrived; ignored",
               ch->index);
        }
        repost_reply(c, ch, b);
      }
    }
    return static_cast<int>(n);
  }
  if (n == -FI_EAGAIN) return 0;
  if (n == -FI_EAVAIL) {
    fi_cq_err_entry e{};
    if (fi_cq_readerr(ch->cq, &e, 0) != 1) return 0;
    char pbuf[128] = "";
    const char *pstr = fi_cq_strerror(ch->cq, e.prov_errno, e.err_data, pbuf, sizeof pbuf);
    uint32_t kind =
        e.op_context
            ? *reinterpret_cast<uint32_t *>(static_cast<char *>(e.op_context) + sizeof(fi_context2))
            : 0;
    if (kind == kOp) {
      Op *op = static_cast<Op *>(e.op_context);
      if (ch->failed_pe < 0) {
        ch->failed_pe = op->pe;
        ch->failed_why = std::string(fi_err(e.err)) + " (" + (pstr ? pstr : "") + ")";
      }
      // An active message whose send failed gets no reply either.
      if (op->am && op->pending > 1) --op->pending;
      op_finish(ch, op, true);
    } else if (kind == kReplyBuf && e.err != FI_ECANCELED) {
      repost_reply(c, ch, static_cast<ReplyBuf *>(e.op_context));
    }
    return 1;
  }
  if (ch->failed_pe < 0) {
    ch->failed_pe = -2;
    ch->failed_why = std::string("fi_cq_read failed: ") + fi_err(static_cast<int>(n));
  }
  return 1;
}

using Clock = std::chrono::steady_clock;

// The first peer with operations in flight (for a message naming who does not answer).
int stuck_pe(const Channel *ch, int hint) {
  if (hint >= 0 && ch->pe_out[hint] > 0) return hint;
  for (size_t pe = 0; pe < ch->pe_out.size(); ++pe)
    if (ch->pe_out[pe] > 0) return static_cast<int>(pe);
  return hint;
}

// Reports a channel failure once (log line naming the peer) and returns its status.
xshmem_status_t channel_failure(Ctx *c, Channel *ch, const char *what, int pe_hint) {
  int pe = ch->failed_pe >= 0 ? ch->failed_pe : pe_hint;
  FLOG(XSHMEM_LOG_ERROR,
       "%s to pe %d failed on channel %d (provider %s): %s; pe %d died or closed "
       "its endpoint",
       what, pe, ch->index, c->prov.c_str(), ch->failed_why.c_str(), pe);
  set_async_error(c, XSHMEM_ERR_PEER_FAILED, "libfabric: %s to pe %d failed: %s", what, pe,
                  ch->failed_why.c_str());
  return XSHMEM_ERR_PEER_FAILED;
}

// Progresses `ch` until done() holds, or until no completion came for the timeout.
template <typename Pred>
xshmem_status_t wait_for(Ctx *c, Channel *ch, Pred done, const char *what, int pe_hint) {
  auto deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
  unsigned idle = 0;
  for (;;) {
    if (ch->failed_pe != -1) return channel_failure(c, ch, what, pe_hint);
    if (done()) return XSHMEM_SUCCESS;
    if (progress_channel(c, ch) > 0) {
      deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
      idle = 0;
      continue;
    }
    if (++idle < 128) continue;
    if ((idle & 15) == 0 && Clock::now() > deadline) {
      int pe = stuck_pe(ch, pe_hint);
      FLOG(XSHMEM_LOG_ERROR,
           "%s to pe %d: no completion for %lld ms on channel %d (XSHMEM_LIBFABRIC_TIMEOUT); pe %d "
           "died or stalls; raise XSHMEM_LIBFABRIC_TIMEOUT if it is only slow",
           what, pe, static_cast<long long>(c->timeout_ms), ch->index, pe);
      set_async_error(c, XSHMEM_ERR_TIMEOUT, "libfabric: %s to pe %d timed out", what, pe);
      return XSHMEM_ERR_TIMEOUT;
    }
    // Like the core's waits: spin briefly, then yield (the peer's progress thread may need this
    // core).
    sched_yield();
  }
}

// An operation context; waits for one to free up if all are in flight.
xshmem_status_t get_op(Ctx *c, Channel *ch, int pe, int *group, int *group_err, Op **out) {
  if (!ch->free_ops) {
    xshmem_status_t st = wait_for(
        c, ch, [&] { return ch->free_ops != nullptr; }, "operation", pe);
    if (st) return st;
  }
  Op *op = ch->free_ops;
  ch->free_ops = op->next_free;
  op->pending = 1;
  op->pe = pe;
  op->group = group;
  op->group_err = group_err;
  op->am = false;
  op->value = 0;
  ++ch->outstanding;
  ++ch->pe_out[pe];
  if (group) ++*group;
  *out = op;
  return XSHMEM_SUCCESS;
}

// Posts an operation that has no context (fi_inject_write), retrying on EAGAIN.
template <typename Post>
xshmem_status_t post_plain(Ctx *c, Channel *ch, int pe, Post fn, const char *what);

// Posts with retries on EAGAIN (progressing the channel meanwhile).
template <typename Post>
xshmem_status_t post(Ctx *c, Channel *ch, Op *op, Post fn, const char *what) {
  auto deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
  for (;;) {
    int r = static_cast<int>(fn());
    if (r == 0) return XSHMEM_SUCCESS;
    if (r != -FI_EAGAIN) {
      FLOG(XSHMEM_LOG_ERROR, "%s to pe %d: posting failed on channel %d: %s", what, op->pe,
           ch->index, fi_err(r));
      op->pending = 1;
      op_finish(ch, op, true);
      return XSHMEM_ERR_IO;
    }
    if (progress_channel(c, ch) > 0)
      deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
    if (ch->failed_pe != -1) return channel_failure(c, ch, what, op->pe);
    if (Clock::now() > deadline) {
      FLOG(XSHMEM_LOG_ERROR,
           "%s to pe %d: the send queue stayed full for %lld ms on channel %d "
           "(XSHMEM_LIBFABRIC_TIMEOUT); pe %d died or stalls",
           what, op->pe, static_cast<long long>(c->timeout_ms), ch->index, op->pe);
      set_async_error(c, XSHMEM_ERR_TIMEOUT, "libfabric: %s to pe %d timed out", what, op->pe);
      return XSHMEM_ERR_TIMEOUT;
    }
  }
}

template <typename Post>
xshmem_status_t post_plain(Ctx *c, Channel *ch, int pe, Post fn, const char *what) {
  auto deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
  for (;;) {
    int r = static_cast<int>(fn());
    if (r == 0) return XSHMEM_SUCCESS;
    if (r != -FI_EAGAIN) {
      FLOG(XSHMEM_LOG_ERROR, "%s to pe %d: posting failed on channel %d: %s", what, pe, ch->index,
           fi_err(r));
      return XSHMEM_ERR_IO;
    }
    if (progress_channel(c, ch) > 0)
      deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
    if (ch->failed_pe != -1) return channel_failure(c, ch, what, pe);
    if (Clock::now() > deadline) {
      FLOG(XSHMEM_LOG_ERROR,
           "%s to pe %d: the send queue stayed full for %lld ms on channel %d "
           "(XSHMEM_LIBFABRIC_TIMEOUT); pe %d died or stalls",
           what, pe, static_cast<long long>(c->timeout_ms), ch->index, pe);
      set_async_error(c, XSHMEM_ERR_TIMEOUT, "libfabric: %s to pe %d timed out", what, pe);
      return XSHMEM_ERR_TIMEOUT;
    }
  }
}

// ---- address translation ----------------------------------------------------------------------

// The chunk holding heap offset `off`, or -1.
int find_chunk(const Ctx *c, uint64_t off) {
  size_t n = c->n_chunks.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i)
    if (off >= c->chunks[i].offset && off < c->chunks[i].offset + c->chunks[i].size)
      return static_cast<int>(i);
  return -1;
}

// The local descriptor for [p, p+n) on domain d (heap chunk or registered buffer), or NULL.
void *local_desc(Ctx *c, const void *p, size_t n, int d, bool *found) {
  const char *a = static_cast<const char *>(p);
  *found = false;
  if (a >= c->heap_base && a + n <= c->heap_base + c->heap_size) {
    int k = find_chunk(c, static_cast<uint64_t>(a - c->heap_base));
    if (k >= 0 && a + n <= c->heap_base + c->chunks[k].offset + c->chunks[k].size) {
      *found = true;
      return c->chunks[k].mr[d] ? fi_mr_desc(c->chunks[k].mr[d]) : nullptr;
    }
  }
  std::lock_guard<std::mutex> g(c->reg_mu);
  for (Registered *r : c->regs)
    if (a >= r->addr && a + n <= r->addr + r->size) {
      *found = true;
      return r->mr[d] ? fi_mr_desc(r->mr[d]) : nullptr;
    }
  return nullptr;
}

struct Target {
  fi_addr_t addr;
  uint64_t raddr, key;
  size_t room;  // bytes left in the chunk from raddr
};

xshmem_status_t target_of(Ctx *c, Channel *ch, int pe, uint64_t off, Target *t) {
  int k = find_chunk(c, off);
  if (k < 0) return XSHMEM_ERR_INVALID;
  const Chunk &chunk = c->chunks[k];
  const int rd = ch->index % c->peer_nd[pe];
  const RemoteChunk &rc = c->rchunks[size_t(k) * c->n_pes + pe];
  t->addr = c->doms[ch->dom]->addr_s[size_t(pe) * kMaxDomains + rd];
  t->raddr = (c->virt_addr ? rc.base : 0) + (off - chunk.offset);
  t->key = rc.key[rd];
  t->room = chunk.offset + chunk.size - off;
  return XSHMEM_SUCCESS;
}

Channel *channel_of(Ctx *c, int channel) {
  if (channel < 0) channel = 0;
  return c->chans[static_cast<size_t>(channel) % c->chans.size()].get();
}

// ---- RMA ----------------------------------------------------------------------------------------

// One RMA call: writes (is_put) or reads, split at chunk ends and max_msg_size; blocking unless
// nbi. Local buffers the provider must know but that are not registered go through the bounce.
xshmem_status_t rma(Ctx *c, int channel, int pe, uint64_t off, char *local, size_t n, bool is_put,
                    bool nbi, const char *what) {
  if (pe < 0 || pe >= c->n_pes) return XSHMEM_ERR_INVALID;
  if (n == 0) return XSHMEM_SUCCESS;
  if (off + n > c->heap_size || off + n < off) {
    FLOG(XSHMEM_LOG_ERROR, "%s to pe %d: heap offset %llu + %zu bytes is outside the %zu-byte heap",
         what, pe, static_cast<unsigned long long>(off), n, c->heap_size);
    return XSHMEM_ERR_INVALID;
  }
  Channel *ch = channel_of(c, channel);
  std::lock_guard<std::mutex> g(ch->mu);
  bool registered = true;
  void *desc = nullptr;
  if (c->mr_local || c->hmem) desc = local_desc(c, local, n, ch->dom, &registered);
  const bool stage = c->mr_local && !registered;
  int group = 0, group_err = 0;
  // A put the provider copies at once (FI_INJECT) may return before its completion, as nbi
  // ones do: the source may be reused, and quiet (or fence) waits for the delivery.
  const bool inject = is_put && !stage && n <= c->inject;
  if (inject) nbi = true;
  // nbi: nothing waits for the pieces here (the channel's quiet does), unless staged.
  int *grp = nbi && !stage ? nullptr : &group, *grp_err = nbi && !stage ? nullptr : &group_err;
  size_t done = 0;
  while (done < n) {
    Target t;
    if (target_of(c, ch, pe, off + done, &t)) {
      FLOG(XSHMEM_LOG_ERROR, "%s to pe %d: heap offset %llu is not registered (no committed chunk)",
           what, pe, static_cast<unsigned long long>(off + done));
      return XSHMEM_ERR_INVALID;
    }
    size_t len = std::min({n - done, t.room, c->max_msg, stage ? kBounce : SIZE_MAX});
    char *buf = local + done;
    void *d = desc;
    if (stage) {
      buf = ch->bounce.data();
      d = fi_mr_desc(ch->bounce_mr);
      if (is_put) memcpy(buf, local + done, len);
    }
    Op *op;
    xshmem_status_t st = get_op(c, ch, pe, grp, grp_err, &op);
    if (st) return st;
    fid_ep *ep = ch->ep;
    if (inject && c->raw_order) {
      // No completion at all (fi_inject_write): quiet and fence read one byte back from every
      // peer written since (flush_written), which the provider orders after these writes.
      ch->written[pe] = 1;
      --ch->outstanding;
      --ch->pe_out[pe];
      op->next_free = ch->free_ops;
      ch->free_ops = op;
      st = post_plain(
          c, ch, pe, [&] { return fi_inject_write(ep, buf, len, t.addr, t.raddr, t.key); }, what);
    } else if (inject) {
      iovec iov{buf, len};
      fi_rma_iov riov{t.raddr, len, t.key};
      fi_msg_rma msg{};
      msg.msg_iov = &iov;
      msg.desc = &d;
      msg.iov_count = 1;
      msg.addr = t.addr;
      msg.rma_iov = &riov;
      msg.rma_iov_count = 1;
      msg.context = op;
      const uint64_t fl =
          FI_INJECT | FI_COMPLETION | (c->delivery_complete ? FI_DELIVERY_COMPLETE : 0);
      st = post(
          c, ch, op, [&] { return fi_writemsg(ep, &msg, fl); }, what);
    } else {
      st = is_put ? post(
                        c, ch, op,
                        [&] { return fi_write(ep, buf, len, d, t.addr, t.raddr, t.key, op); }, what)
                  : post(
                        c, ch, op,
                        [&] { return fi_read(ep, buf, len, d, t.addr, t.raddr, t.key, op); }, what);
    }
    if (st) return st;
    if (is_put && !c->delivery_complete) ch->written[pe] = 1;
    if (stage) {
      st = wait_for(
          c, ch, [&] { return group == 0; }, what, pe);
      if (st) return st;
      if (!is_put) memcpy(local + done, buf, len);
    }
    done += len;
  }
  if (!grp) return XSHMEM_SUCCESS;
  xshmem_status_t st = wait_for(
      c, ch, [&] { return group == 0; }, what, pe);
  if (st == XSHMEM_SUCCESS && group_err) return channel_failure(c, ch, what, pe);
  return st;
}

xshmem_status_t lf_put(void *ctx, int channel, int pe, uint64_t off, const void *src, size_t n,
                       uint32_t flags) {
  return rma(static_cast<Ctx *>(ctx), channel, pe, off,
             const_cast<char *>(static_cast<const char *>(src)), n, true, flags & XSHMEM_DATA_NBI,
             "put");
}

xshmem_status_t lf_get(void *ctx, int channel, int pe, void *dst, uint64_t off, size_t n,
                       uint32_t flags) {
  return rma(static_cast<Ctx *>(ctx), channel, pe, off, static_cast<char *>(dst), n, false,
             flags & XSHMEM_DATA_NBI, "get");
}

// Reads one byte back from every peer written since the last flush: the puts injected without a
// completion (providers with FI_ORDER_RAW) and, without delivery complete, every put (a write's
// completion then says only that the data left). The read is ordered after those writes.
xshmem_status_t flush_written(Ctx *c, Channel *ch) {
  static thread_local uint64_t sink;
  int group = 0, group_err = 0;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!ch->written[pe]) continue;
    ch->written[pe] = 0;
    Target t;
    if (target_of(c, ch, pe, 0, &t)) continue;
    Op *op;
    xshmem_status_t st = get_op(c, ch, pe, &group, &group_err, &op);
    if (st) return st;
    void *d = ch->bounce_mr ? fi_mr_desc(ch->bounce_mr) : nullptr;
    void *buf = ch->bounce_mr ? static_cast<void *>(ch->bounce.data()) : &sink;
    st = post(
        c, ch, op, [&] { return fi_read(ch->ep, buf, 1, d, t.addr, t.raddr, t.key, op); }, "quiet");
    if (st) return st;
  }
  return wait_for(
      c, ch, [&] { return group == 0; }, "quiet", -1);
}

xshmem_status_t lf_quiet(void *ctx, int channel) {
  Ctx *c = static_cast<Ctx *>(ctx);
  Channel *ch = channel_of(c, channel);
  std::lock_guard<std::mutex> g(ch->mu);
  xshmem_status_t st = wait_for(
      c, ch, [&] { return ch->outstanding == 0; }, "quiet", -1);
  if (st) return st;
  return flush_written(c, ch);
}

// Everything earlier is complete at its target before anything later starts: correct on every
// provider whatever its ordering attributes (a fence that waits).
xshmem_status_t lf_fence(void *ctx, int channel) {
  return lf_quiet(ctx, channel);
}

// ---- atomics: active messages to the target's progress thread
// -------------------------------------

bool fetching(xshmem_amo_op_t op) {
  switch (op) {
    case XSHMEM_AMO_SET:
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_XOR:
      return false;
    default:
      return true;
  }
}

template <typename T>
T apply_one(T *p, xshmem_amo_op_t op, T v, T cmp, bool *ok) {
  switch (op) {
    case XSHMEM_AMO_FETCH:
      return __atomic_load_n(p, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_SET:
      __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
      return 0;
    case XSHMEM_AMO_SWAP:
      return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_COMPARE_SWAP:
      __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return cmp;
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_FETCH_ADD:
      return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_FETCH_AND:
      return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_FETCH_OR:
      return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_XOR:
    case XSHMEM_AMO_FETCH_XOR:
      return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
  }
  *ok = false;
  return 0;
}

// Executes one request on this PE's heap (the progress thread). Floating-point types take only
// FETCH, SET and SWAP, which act on the bits.
xshmem_status_t apply_amo(Ctx *c, const AmReq &q, uint64_t *out) {
  const bool wide =
      q.type == XSHMEM_AMO_U64 || q.type == XSHMEM_AMO_I64 || q.type == XSHMEM_AMO_F64;
  const size_t w = wide ? 8 : 4;
  if (q.type > XSHMEM_AMO_F64 || q.op > XSHMEM_AMO_FETCH_XOR) return XSHMEM_ERR_INVALID;
  if ((q.type == XSHMEM_AMO_F32 || q.type == XSHMEM_AMO_F64) && q.op != XSHMEM_AMO_FETCH &&
      q.op != XSHMEM_AMO_SET && q.op != XSHMEM_AMO_SWAP)
    return XSHMEM_ERR_UNSUPPORTED;
  if (q.offset + w > c->heap_size || q.offset % w) return XSHMEM_ERR_INVALID;
  if (c->heap_kind != XSHMEM_MEM_HOST) return XSHMEM_ERR_UNSUPPORTED;
  bool ok = true;
  const xshmem_amo_op_t op = static_cast<xshmem_amo_op_t>(q.op);
  if (wide) {
    *out = apply_one(reinterpret_cast<uint64_t *>(c->heap_base + q.offset), op, q.operand,
                     q.compare, &ok);
  } else {
    *out = apply_one(reinterpret_cast<uint32_t *>(c->heap_base + q.offset), op,
                     static_cast<uint32_t>(q.operand), static_cast<uint32_t>(q.compare), &ok);
  }
  return ok ? XSHMEM_SUCCESS : XSHMEM_ERR_INVALID;
}

xshmem_status_t amo_locked(Ctx *c, Channel *ch, int pe, uint64_t off, xshmem_amo_op_t op,
                           xshmem_amo_type_t type, uint64_t operand, uint64_t compare,
                           uint64_t *fetched, bool nbi, const char *what) {
  if (pe < 0 || pe >= c->n_pes) return XSHMEM_ERR_INVALID;
  if (ch->am_inflight >= kRepliesPerChannel) {
    xshmem_status_t st = wait_for(
        c, ch, [&] { return ch->am_inflight < kRepliesPerChannel; }, what, pe);
    if (st) return st;
  }
  // A non-fetching atomic has no local buffer: it returns once posted (as the ABI allows) and
  // completes, like nbi operations, by the channel's quiet or fence. Active messages of one
  // channel reach the target's progress thread in order (one endpoint pair), so a later fetch
  // from this channel sees it.
  (void)nbi;
  const bool wait = fetching(op);
  int group = 0, group_err = 0;
  Op *o;
  xshmem_status_t st = get_op(c, ch, pe, wait ? &group : nullptr, wait ? &group_err : nullptr, &o);
  if (st) return st;
  o->am = true;
  o->pending = 2;  // the send's completion and the reply
  ++ch->am_inflight;
  o->req = AmReq{kMagicReq,
                 static_cast<uint16_t>(op),
                 static_cast<uint16_t>(type),
                 uint32_t(c->my_pe),
                 uint32_t(ch->index),
                 off,
                 operand,
                 compare,
                 reinterpret_cast<uintptr_t>(o)};
  fi_addr_t dest = c->doms[ch->dom]->addr_s[size_t(pe) * kMaxDomains + ch->index % c->peer_nd[pe]];
  void *desc = ch->pool_mr ? fi_mr_desc(ch->pool_mr) : nullptr;
  st = post(
      c, ch, o, [&] { return fi_send(ch->ep, &o->req, sizeof o->req, desc, dest, o); }, what);
  if (st) return st;
  if (!wait) return XSHMEM_SUCCESS;
  st = wait_for(
      c, ch, [&] { return group == 0; }, what, pe);
  if (st) return st;
  if (group_err) return channel_failure(c, ch, what, pe);
  if (fetched) *fetched = o->value;  // o is back in the free list but not reused yet (mutex held)
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_amo(void *ctx, int channel, int pe, uint64_t off, xshmem_amo_op_t op,
                       xshmem_amo_type_t type, uint64_t operand, uint64_t compare,
                       uint64_t *fetched, uint32_t flags) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (c->heap_kind != XSHMEM_MEM_HOST) return XSHMEM_ERR_UNSUPPORTED;
  Channel *ch = channel_of(c, channel);
  std::lock_guard<std::mutex> g(ch->mu);
  return amo_locked(c, ch, pe, off, op, type, operand, compare, fetched,
                    (flags & XSHMEM_DATA_NBI) && !fetched, "atomic");
}

// The data, complete at the target (delivery complete, or the flushing read), then the signal as
// an active message: a peer that sees the signal sees the data on every provider.
xshmem_status_t lf_put_signal(void *ctx, int channel, int pe, uint64_t off, const void *src,
                              size_t n, uint64_t sig_off, uint64_t signal, int sig_op,
                              uint32_t flags) {
  Ctx *c = static_cast<Ctx *>(ctx);
  xshmem_status_t st = rma(c, channel, pe, off, const_cast<char *>(static_cast<const char *>(src)),
                           n, true, false, "put_signal");
  if (st) return st;
  Channel *ch = channel_of(c, channel);
  std::lock_guard<std::mutex> g(ch->mu);
  // The data (and any earlier operation to pe) delivered before the signal leaves.
  st = wait_for(
      c, ch, [&] { return ch->pe_out[pe] == 0; }, "put_signal", pe);
  if (st) return st;
  st = flush_written(c, ch);  // injected puts, and every put without delivery complete
  if (st) return st;
  const xshmem_amo_op_t op = sig_op == 1 ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET;
  return amo_locked(c, ch, pe, sig_off, op, XSHMEM_AMO_U64, signal, 0, nullptr,
                    flags & XSHMEM_DATA_NBI, "put_signal");
}

xshmem_status_t lf_progress(void *) {
  return XSHMEM_SUCCESS;  // the progress thread serves the target side; channels progress in waits
}

xshmem_status_t reg_one(Ctx *c, int d, void *addr, size_t n, xshmem_mem_kind_t kind,
                        uint64_t access, uint64_t key, fid_mr **mr) {
  fi_mr_attr attr{};
  iovec iov{addr, n};
  attr.mr_iov = &iov;
  attr.iov_count = 1;
  attr.access = access;
  attr.requested_key = key;
  if (kind == XSHMEM_MEM_DEVICE) {
    attr.iface = FI_HMEM_CUDA;
    attr.device.cuda = c->heap_device;
  }
  int r = fi_mr_regattr(c->doms[d]->domain, &attr, 0, mr);
  if (r) {
    FLOG(XSHMEM_LOG_ERROR, "fi_mr_regattr of %zu bytes at %p (%s memory) failed on domain %d: %s",
         n, addr, kind == XSHMEM_MEM_DEVICE ? "GPU" : "host", d, fi_err(r));
    return XSHMEM_ERR_IO;
  }
  if (c->mr_endpoint && (access & (FI_REMOTE_READ | FI_REMOTE_WRITE))) {
    r = fi_mr_bind(*mr, &c->doms[d]->sep->fid, 0);
    if (!r) r = fi_mr_enable(*mr);
    if (r) {
      FLOG(XSHMEM_LOG_ERROR, "binding a memory region to the service endpoint failed: %s",
           fi_err(r));
      fi_close(&(*mr)->fid);
      *mr = nullptr;
      return XSHMEM_ERR_IO;
    }
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_mem_register(void *ctx, void *addr, size_t n, xshmem_mem_kind_t kind,
                                void **handle) {
  Ctx *c = static_cast<Ctx *>(ctx);
  auto *r = new (std::nothrow) Registered{static_cast<char *>(addr), n, {}};
  if (!r) return XSHMEM_ERR_NOMEM;
  if (c->mr_local || kind == XSHMEM_MEM_DEVICE) {
    if (kind == XSHMEM_MEM_DEVICE && !c->hmem) {
      delete r;
      return XSHMEM_ERR_UNSUPPORTED;
    }
    for (size_t d = 0; d < c->doms.size(); ++d) {
      uint64_t key;
      {
        std::lock_guard<std::mutex> g(c->reg_mu);
        key = c->next_key++;
      }
      if (reg_one(c, static_cast<int>(d), addr, n, kind, FI_READ | FI_WRITE | FI_SEND | FI_RECV,
                  key, &r->mr[d])) {
        for (size_t e = 0; e < d; ++e) fi_close(&r->mr[e]->fid);
        delete r;
        return XSHMEM_ERR_IO;
      }
    }
  }
  std::lock_guard<std::mutex> g(c->reg_mu);
  c->regs.push_back(r);
  *handle = r;
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_mem_deregister(void *ctx, void *handle) {
  Ctx *c = static_cast<Ctx *>(ctx);
  auto *r = static_cast<Registered *>(handle);
  {
    std::lock_guard<std::mutex> g(c->reg_mu);
    auto it = std::find(c->regs.begin(), c->regs.end(), r);
    if (it == c->regs.end()) return XSHMEM_ERR_INVALID;
    c->regs.erase(it);
  }
  for (fid_mr *mr : r->mr)
    if (mr) fi_close(&mr->fid);
  delete r;
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_error_query(void *ctx, char *buf, size_t len) {
  Ctx *c = static_cast<Ctx *>(ctx);
  std::lock_guard<std::mutex> g(c->err_mu);
  if (buf && len) snprintf(buf, len, "%s", c->async_err.c_str());
  return c->async_st;
}

// ---- the progress thread: the target side
// ---------------------------------------------------------

void post_req(Domain *d, ReqBuf *b) {
  void *desc = d->pool_mr ? fi_mr_desc(d->pool_mr) : nullptr;
  int r;
  while ((r = static_cast<int>(fi_recv(d->sep, &b->req, sizeof b->req, desc, FI_ADDR_UNSPEC, b))) ==
         -FI_EAGAIN)
    (void)fi_cq_read(d->scq, nullptr, 0);
  if (r)
    FLOG(XSHMEM_LOG_ERROR, "cannot post a request buffer on the service endpoint: %s", fi_err(r));
}

// Handles the service endpoint's completions; returns how many there were.
int serve(Ctx *c, Domain *d) {
  fi_cq_entry ent[16];
  ssize_t n = fi_cq_read(d->scq, ent, 16);
  if (n > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      uint32_t kind = *reinterpret_cast<uint32_t *>(static_cast<char *>(ent[i].op_context) +
                                                    sizeof(fi_context2));
      if (kind == kSendBuf) {
        SendBuf *s = static_cast<SendBuf *>(ent[i].op_context);
        s->next_free = d->free_sends;
        d->free_sends = s;
        continue;
      }
      if (kind != kReqBuf) continue;
      ReqBuf *b = static_cast<ReqBuf *>(ent[i].op_context);
      AmReq q = b->req;
      post_req(d, b);
      if (q.magic != kMagicReq || q.src_pe >= uint32_t(c->n_pes) ||
          q.src_chan >= uint32_t(c->nch)) {
        FLOG(XSHMEM_LOG_ERROR, "a malformed request arrived on the service endpoint; ignored");
        continue;
      }
      uint64_t value = 0;
      xshmem_status_t st = apply_amo(c, q, &value);
      while (!d->free_sends && !c->stop.load(std::memory_order_relaxed)) serve(c, d);
      SendBuf *s = d->free_sends;
      if (!s) return static_cast<int>(n);
      d->free_sends = s->next_free;
      s->rep = AmRep{kMagicRep, st, q.token, value};
      fi_addr_t to = d->addr_e[size_t(q.src_pe) * c->nch + q.src_chan];
      void *desc = d->pool_mr ? fi_mr_desc(d->pool_mr) : nullptr;
      auto deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
      int r;
      while ((r = static_cast<int>(fi_send(d->sep, &s->rep, sizeof s->rep, desc, to, s))) ==
                 -FI_EAGAIN &&
             Clock::now() < deadline)
        (void)fi_cq_read(d->scq, nullptr, 0);
      if (r) {
        s->next_free = d->free_sends;
        d->free_sends = s;
        set_async_error(c, XSHMEM_ERR_PEER_FAILED,
                        "libfabric: the reply to an atomic from pe %u could not be sent: %s",
                        q.src_pe, fi_err(r));
      }
    }
    return static_cast<int>(n);
  }
  if (n == -FI_EAVAIL) {
    fi_cq_err_entry e{};
    if (fi_cq_readerr(d->scq, &e, 0) == 1 && e.op_context) {
      uint32_t kind =
          *reinterpret_cast<uint32_t *>(static_cast<char *>(e.op_context) + sizeof(fi_context2));
      if (kind == kSendBuf) {
        SendBuf *s = static_cast<SendBuf *>(e.op_context);
        s->next_free = d->free_sends;
        d->free_sends = s;
        FLOG(XSHMEM_LOG_DEBUG, "a reply could not be delivered: %s", fi_err(e.err));
      } else if (kind == kReqBuf && e.err != FI_ECANCELED) {
        post_req(d, static_cast<ReqBuf *>(e.op_context));
      }
    }
    return 1;
  }
  return 0;
}

// Spins while there is traffic, then yields, then sleeps in short naps: incoming RMA on
// manual-progress providers lands only while this thread reads the completion queue, so the nap
// bounds the added latency after a quiet spell (fi_cq_sread on tcp;ofi_rxm waits out its
// timeout instead of waking on arriving data).
void progress_main(Ctx *c) {
  unsigned idle = 0;
  while (!c->stop.load(std::memory_order_acquire)) {
    int got = 0;
    for (auto &d : c->doms) got += serve(c, d.get());
    if (got) {
      idle = 0;
    } else if (++idle > 256) {
      std::this_thread::sleep_for(std::chrono::microseconds(idle > 100000 ? 200 : 10));
    } else if (idle > 32) {
      sched_yield();
    }
  }
}

// ---- lifecycle
// --------------------------------------------------------------------------------------

xshmem_status_t lf_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

void destroy(Ctx *c) {
  if (c->progress.joinable()) {
    c->stop.store(true, std::memory_order_release);
    c->progress.join();
  }
  for (auto &ch : c->chans) {
    if (ch->ep) fi_close(&ch->ep->fid);
    if (ch->cq) fi_close(&ch->cq->fid);
    if (ch->pool_mr) fi_close(&ch->pool_mr->fid);
    if (ch->bounce_mr) fi_close(&ch->bounce_mr->fid);
  }
  c->chans.clear();
  for (Registered *r : c->regs) {
    for (fid_mr *mr : r->mr)
      if (mr) fi_close(&mr->fid);
    delete r;
  }
  c->regs.clear();
  for (size_t i = 0; i < c->n_chunks.load(); ++i)
    for (fid_mr *&mr : c->chunks[i].mr)
      if (mr) {
        fi_close(&mr->fid);
        mr = nullptr;
      }
  c->n_chunks.store(0);
  for (auto &d : c->doms) {
    if (d->sep) fi_close(&d->sep->fid);
    if (d->scq) fi_close(&d->scq->fid);
    if (d->av) fi_close(&d->av->fid);
    if (d->pool_mr) fi_close(&d->pool_mr->fid);
    if (d->domain) fi_close(&d->domain->fid);
  }
  c->doms.clear();
  if (c->fabric) fi_close(&c->fabric->fid);
  c->fabric = nullptr;
  if (c->info) fi_freeinfo(c->info);
  c->info = nullptr;
}

xshmem_status_t open_ep(Ctx *c, Domain *d, fi_info *info, fid_ep **ep, fid_cq **cq, bool wait) {
  fi_cq_attr cqa{};
  cqa.format = FI_CQ_FORMAT_CONTEXT;
  cqa.size = 1024;
  cqa.wait_obj = wait ? FI_WAIT_UNSPEC : FI_WAIT_NONE;
  int r = fi_cq_open(d->domain, &cqa, cq, nullptr);
  if (r && wait) {
    cqa.wait_obj = FI_WAIT_NONE;
    r = fi_cq_open(d->domain, &cqa, cq, nullptr);
  }
  if (r) {
    FLOG(XSHMEM_LOG_ERROR, "fi_cq_open failed: %s", fi_err(r));
    return XSHMEM_ERR_IO;
  }
  r = fi_endpoint(d->domain, info, ep, nullptr);
  if (!r) r = fi_ep_bind(*ep, &d->av->fid, 0);
  if (!r) r = fi_ep_bind(*ep, &(*cq)->fid, FI_TRANSMIT | FI_RECV);
  if (!r) r = fi_enable(*ep);
  if (r) {
    FLOG(XSHMEM_LOG_ERROR, "opening an endpoint on provider %s failed: %s", c->prov.c_str(),
         fi_err(r));
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

struct AddrRecord {
  char prov[48];
  uint32_t nd, nch, addrlen, pad;
  // then (kMaxDomains + nch) * kMaxAddr bytes of names
};

xshmem_status_t setup(Ctx *c) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  std::string iface = g_svc->config_get_string("XSHMEM_LIBFABRIC_IFACE");
  if (!iface.empty()) {
    setenv("FI_TCP_IFACE", iface.c_str(), 1);
    setenv("FI_SOCKETS_IFACE", iface.c_str(), 1);
  }
  std::string want = g_svc->config_get_string("XSHMEM_LIBFABRIC_PROVIDER");
  if (want.empty()) want = "auto";
  fi_info *all = nullptr;
  xshmem_status_t st = choose_info(c, want, &all);
  if (st) return st;
  // Domains wanted: XSHMEM_LIBFABRIC_NICS, else XSHMEM_LIBFABRIC_DOMAIN, else the job's NIC (if the
  // provider has a domain of that name), else the first entry.
  std::vector<std::string> names = split_list(g_svc->config_get_string("XSHMEM_LIBFABRIC_NICS"));
  if (names.empty()) {
    std::string dn = g_svc->config_get_string("XSHMEM_LIBFABRIC_DOMAIN");
    if (dn.empty() && XSHMEM_JOB_INFO_HAS(job, nic) && job->nic) {
      for (fi_info *i = all; i; i = i->next)
        if (i->domain_attr->name && job->nic == std::string(i->domain_attr->name)) dn = job->nic;
    }
    names.push_back(dn);
  }
  if (names.size() > size_t(kMaxDomains)) {
    FLOG(XSHMEM_LOG_ERROR, "XSHMEM_LIBFABRIC_NICS names %zu domains; at most %d are supported",
         names.size(), kMaxDomains);
    fi_freeinfo(all);
    return XSHMEM_ERR_INVALID;
  }
  for (const std::string &dn : names) {
    fi_info *pick = nullptr;
    int best = 1 << 30;
    for (fi_info *i = all; i; i = i->next) {
      if (!dn.empty() && (!i->domain_attr->name || dn != i->domain_attr->name)) continue;
      int rank = want == "auto" ? auto_rank(i->fabric_attr->prov_name) : 0;
      if (rank < 0 || rank >= best) continue;
      if (!c->dinfo.empty() &&
          strcmp(i->fabric_attr->prov_name, c->dinfo[0]->fabric_attr->prov_name) != 0)
        continue;
      best = rank;
      pick = i;
    }
    if (!pick) {
      std::string have;
      for (fi_info *i = all; i; i = i->next)
        have += std::string(have.empty() ? "" : ", ") + i->fabric_attr->prov_name + "/" +
                (i->domain_attr->name ? i->domain_attr->name : "?");
      FLOG(XSHMEM_LOG_WARN,
           "no libfabric domain %s%s for provider %s (offered: %s); set XSHMEM_LIBFABRIC_PROVIDER, "
           "XSHMEM_LIBFABRIC_DOMAIN or XSHMEM_LIBFABRIC_NICS to one of those",
           dn.empty() ? "at all" : "named ", dn.c_str(), want.c_str(),
           have.empty() ? "none" : have.c_str());
      fi_freeinfo(all);
      c->dinfo.clear();
      return XSHMEM_ERR_NOT_FOUND;
    }
    c->dinfo.push_back(pick);
  }
  c->info = fi_dupinfo(c->dinfo[0]);
  for (fi_info *&i : c->dinfo) i = fi_dupinfo(i);
  fi_freeinfo(all);
  fi_info *info = c->info;
  c->prov = info->fabric_attr->prov_name;
  const uint64_t mm = info->domain_attr->mr_mode;
  c->mr_local = mm & FI_MR_LOCAL;
  c->virt_addr = mm & FI_MR_VIRT_ADDR;
  c->prov_key = mm & FI_MR_PROV_KEY;
  c->mr_endpoint = mm & FI_MR_ENDPOINT;
  c->max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
  c->inject = info->tx_attr->inject_size;
  c->raw_order = (info->tx_attr->msg_order & FI_ORDER_RAW) != 0;
  if (c->prov.rfind("verbs", 0) == 0 || c->prov.rfind("efa", 0) == 0 ||
      c->prov.rfind("cxi", 0) == 0) {
    c->bandwidth_mbps = 10000;
  } else if (c->prov.rfind("sockets", 0) == 0) {
    c->bandwidth_mbps = 500;
  }
  int r = fi_fabric(info->fabric_attr, &c->fabric, nullptr);
  if (r) {
    FLOG(XSHMEM_LOG_ERROR, "fi_fabric for provider %s failed: %s", c->prov.c_str(), fi_err(r));
    return XSHMEM_ERR_IO;
  }
  for (size_t k = 0; k < c->dinfo.size(); ++k) {
    c->doms.push_back(std::make_unique<Domain>());
    Domain *d = c->doms.back().get();
    c->dom_names += (k ? "," : "") + std::string(c->dinfo[k]->domain_attr->name);
    r = fi_domain(c->fabric, c->dinfo[k], &d->domain, nullptr);
    if (r) {
      FLOG(XSHMEM_LOG_ERROR, "fi_domain %s failed: %s", c->dinfo[k]->domain_attr->name, fi_err(r));
      return XSHMEM_ERR_IO;
    }
    fi_av_attr ava{};
    ava.type = FI_AV_TABLE;
    r = fi_av_open(d->domain, &ava, &d->av, nullptr);
    if (r) {
      FLOG(XSHMEM_LOG_ERROR, "fi_av_open failed: %s", fi_err(r));
      return XSHMEM_ERR_IO;
    }
    if (open_ep(c, d, c->dinfo[k], &d->sep, &d->scq, false)) return XSHMEM_ERR_IO;
    d->pool = std::make_unique<ServicePool>();
    if (c->mr_local && reg_one(c, static_cast<int>(k), d->pool.get(), sizeof(ServicePool),
                               XSHMEM_MEM_HOST, FI_SEND | FI_RECV, c->next_key++, &d->pool_mr))
      return XSHMEM_ERR_IO;
    for (SendBuf &s : d->pool->sends) {
      s.next_free = d->free_sends;
      d->free_sends = &s;
    }
  }
  // Channels.
  c->nch = XSHMEM_JOB_INFO_HAS(job, num_channels) && job->num_channels > 0 ? job->num_channels : 1;
  for (int i = 0; i < c->nch; ++i) {
    c->chans.push_back(std::make_unique<Channel>());
    Channel *ch = c->chans.back().get();
    ch->index = i;
    ch->dom = i % static_cast<int>(c->doms.size());
    Domain *d = c->doms[ch->dom].get();
    if (open_ep(c, d, c->dinfo[ch->dom], &ch->ep, &ch->cq, false)) return XSHMEM_ERR_IO;
    ch->pool = std::make_unique<ChannelPool>();
    for (Op &op : ch->pool->ops) {
      op.next_free = ch->free_ops;
      ch->free_ops = &op;
    }
    ch->pe_out.assign(c->n_pes, 0);
    ch->written.assign(c->n_pes, 0);
    if (c->mr_local) {
      ch->bounce.resize(kBounce);
      if (reg_one(c, ch->dom, ch->pool.get(), sizeof(ChannelPool), XSHMEM_MEM_HOST,
                  FI_SEND | FI_RECV, c->next_key++, &ch->pool_mr) ||
          reg_one(c, ch->dom, ch->bounce.data(), kBounce, XSHMEM_MEM_HOST, FI_READ | FI_WRITE,
                  c->next_key++, &ch->bounce_mr))
        return XSHMEM_ERR_IO;
    }
  }
  // Exchange the endpoint names.
  const size_t rec = sizeof(AddrRecord) + size_t(kMaxDomains + c->nch) * kMaxAddr;
  std::vector<char> mine(rec, 0), every(rec * c->n_pes);
  AddrRecord *ar = reinterpret_cast<AddrRecord *>(mine.data());
  snprintf(ar->prov, sizeof ar->prov, "%s", c->prov.c_str());
  ar->nd = static_cast<uint32_t>(c->doms.size());
  ar->nch = static_cast<uint32_t>(c->nch);
  char *names_out = mine.data() + sizeof(AddrRecord);
  auto getname = [&](fid_ep *ep, char *out) {
    size_t len = kMaxAddr;
    int rr = fi_getname(&ep->fid, out, &len);
    if (rr) FLOG(XSHMEM_LOG_ERROR, "fi_getname failed: %s (%zu bytes needed)", fi_err(rr), len);
    ar->addrlen = std::max<uint32_t>(ar->addrlen, static_cast<uint32_t>(len));
    return rr;
  };
  bool ok = true;
  for (size_t k = 0; k < c->doms.size(); ++k)
    ok = ok && getname(c->doms[k]->sep, names_out + k * kMaxAddr) == 0;
  for (int i = 0; i < c->nch; ++i)
    ok = ok && getname(c->chans[i]->ep, names_out + (kMaxDomains + i) * kMaxAddr) == 0;
  if (!ok) ar->addrlen = 0;  // tells the others
  st = g_svc->allgather(mine.data(), every.data(), rec);
  if (st) {
    FLOG(XSHMEM_LOG_ERROR, "the endpoint-name exchange failed (status %d)", st);
    return st;
  }
  c->peer_nd.assign(c->n_pes, 1);
  for (int pe = 0; pe < c->n_pes; ++pe) {
    const AddrRecord *pr = reinterpret_cast<const AddrRecord *>(every.data() + rec * pe);
    if (strncmp(pr->prov, c->prov.c_str(), sizeof pr->prov) != 0 || pr->addrlen == 0 ||
        pr->nch != uint32_t(c->nch) || pr->nd == 0 || pr->nd > uint32_t(kMaxDomains)) {
      FLOG(XSHMEM_LOG_WARN,
           "pe %d uses provider %.48s with %u channels, this pe (%d) %s with %d; set "
           "XSHMEM_LIBFABRIC_PROVIDER to one provider on every PE",
           pe, pr->prov, pr->nch, c->my_pe, c->prov.c_str(), c->nch);
      return XSHMEM_ERR_UNREACHABLE;
    }
    c->peer_nd[pe] = static_cast<int>(pr->nd);
  }
  for (auto &dp : c->doms) {
    Domain *d = dp.get();
    d->addr_s.assign(size_t(c->n_pes) * kMaxDomains, FI_ADDR_NOTAVAIL);
    d->addr_e.assign(size_t(c->n_pes) * c->nch, FI_ADDR_NOTAVAIL);
    for (int pe = 0; pe < c->n_pes; ++pe) {
      const char *pn = every.data() + rec * pe + sizeof(AddrRecord);
      for (int k = 0; k < c->peer_nd[pe]; ++k) {
        r = fi_av_insert(d->av, pn + k * kMaxAddr, 1, &d->addr_s[size_t(pe) * kMaxDomains + k], 0,
                         nullptr);
        if (r != 1) {
          FLOG(XSHMEM_LOG_ERROR, "fi_av_insert of pe %d's service endpoint %d failed (%d)", pe, k,
               r);
          return XSHMEM_ERR_IO;
        }
      }
      for (int i = 0; i < c->nch; ++i) {
        r = fi_av_insert(d->av, pn + (kMaxDomains + i) * kMaxAddr, 1,
                         &d->addr_e[size_t(pe) * c->nch + i], 0, nullptr);
        if (r != 1) {
          FLOG(XSHMEM_LOG_ERROR, "fi_av_insert of pe %d's channel endpoint %d failed (%d)", pe, i,
               r);
          return XSHMEM_ERR_IO;
        }
      }
    }
  }
  // Receive buffers: requests on the service endpoints, replies on the channels.
  for (auto &d : c->doms)
    for (ReqBuf &b : d->pool->reqs) post_req(d.get(), &b);
  for (auto &ch : c->chans)
    for (ReplyBuf &b : ch->pool->replies) repost_reply(c, ch.get(), &b);
  FLOG(XSHMEM_LOG_INFO,
       "pe %d: provider %s, domain%s %s, %d channel%s, %s, max message %zu bytes%s", c->my_pe,
       c->prov.c_str(), c->doms.size() > 1 ? "s" : "", c->dom_names.c_str(), c->nch,
       c->nch > 1 ? "s" : "", c->delivery_complete ? "delivery complete" : "flushing reads",
       c->max_msg, c->hmem ? ", FI_HMEM" : "");
  return XSHMEM_SUCCESS;
}

// Whether this PE's settings name libfabric: XSHMEM_TRANSPORTS (not as an exclusion),
// XSHMEM_PAIR_TRANSPORTS or XSHMEM_REMOTE_TRANSPORT.
bool named_by_user() {
  const std::string allowed = g_svc->config_get_string("XSHMEM_TRANSPORTS");
  if (!allowed.empty() && allowed[0] != '^') {
    for (const std::string &w : split_list(allowed))
      if (w == kName) return true;
  }
  if (std::string(g_svc->config_get_string("XSHMEM_PAIR_TRANSPORTS")).find(kName) !=
      std::string::npos)
    return true;
  return std::string(g_svc->config_get_string("XSHMEM_REMOTE_TRANSPORT")) == kName;
}

xshmem_status_t lf_init(void **ctx) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  Ctx *c = new (std::nothrow) Ctx();
  if (!c) return XSHMEM_ERR_NOMEM;
  c->my_pe = job->my_pe;
  c->n_pes = job->n_pes;
  // On one host, hostshm and nvlink serve every pair at a lower cost: open nothing (no endpoint,
  // no interface, no progress thread) unless some PE's settings name libfabric. Decided together
  // (one small allgather) so every PE makes the same collective calls afterwards.
  bool one_host = true;
  for (int pe = 0; job->host_id && pe < c->n_pes; ++pe)
    one_host = one_host && job->host_id[pe] == job->host_id[c->my_pe];
  int want = !one_host || named_by_user() ? 1 : 0;
  std::vector<int> wants(c->n_pes);
  xshmem_status_t ast = g_svc->allgather(&want, wants.data(), sizeof(int));
  if (ast) {
    delete c;
    return ast;
  }
  if (std::find(wants.begin(), wants.end(), 1) == wants.end()) {
    c->dormant = true;
    FLOG(XSHMEM_LOG_DEBUG,
         "one-host job that names libfabric nowhere: not started (XSHMEM_TRANSPORTS=libfabric "
         "uses it here)");
    *ctx = c;
    return XSHMEM_SUCCESS;
  }
  c->heap_kind = XSHMEM_JOB_INFO_HAS(job, heap_kind) ? job->heap_kind : XSHMEM_MEM_HOST;
  c->timeout_ms = g_svc->config_get_int("XSHMEM_LIBFABRIC_TIMEOUT");
  if (c->timeout_ms <= 0) c->timeout_ms = 5000;
  c->latency_ns = static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_LIBFABRIC_LATENCY_NS"));
  c->chunks.resize(kMaxChunks);
  xshmem_status_t st = setup(c);
  if (st) {
    destroy(c);
    delete c;
    return st;
  }
  c->progress = std::thread(progress_main, c);
  *ctx = c;
  return XSHMEM_SUCCESS;
}

// Registers [offset, offset+size) of the heap on every domain and exchanges keys and bases.
xshmem_status_t add_chunk(Ctx *c, size_t offset, size_t size, xshmem_mem_kind_t kind) {
  size_t k = c->n_chunks.load();
  if (k >= kMaxChunks) {
    FLOG(XSHMEM_LOG_ERROR, "the heap has more than %zu chunks; not registered", kMaxChunks);
    return XSHMEM_ERR_NOMEM;
  }
  Chunk &ch = c->chunks[k];
  ch.offset = offset;
  ch.size = size;
  struct Rec {
    uint64_t base, ok;
    uint64_t key[kMaxDomains];
  } mine{}, *all = new (std::nothrow) Rec[c->n_pes];
  if (!all) return XSHMEM_ERR_NOMEM;
  mine.ok = 1;
  mine.base = reinterpret_cast<uintptr_t>(c->heap_base + offset);
  for (size_t d = 0; d < c->doms.size() && mine.ok; ++d) {
    if (reg_one(c, static_cast<int>(d), c->heap_base + offset, size, kind,
                FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 1 + k, &ch.mr[d])) {
      mine.ok = 0;
      break;
    }
    mine.key[d] = fi_mr_key(ch.mr[d]);
  }
  xshmem_status_t st = g_svc->allgather(&mine, all, sizeof(Rec));
  bool every = st == XSHMEM_SUCCESS;
  for (int pe = 0; every && pe < c->n_pes; ++pe) every = all[pe].ok;
  if (!every) {
    if (st == XSHMEM_SUCCESS && mine.ok)
      FLOG(XSHMEM_LOG_ERROR, "another PE could not register its heap with libfabric");
    for (fid_mr *&mr : ch.mr)
      if (mr) {
        fi_close(&mr->fid);
        mr = nullptr;
      }
    delete[] all;
    return st ? st : XSHMEM_ERR_IO;
  }
  for (int pe = 0; pe < c->n_pes; ++pe) {
    RemoteChunk &rc = c->rchunks[k * c->n_pes + pe];
    rc.base = all[pe].base;
    memcpy(rc.key, all[pe].key, sizeof rc.key);
  }
  delete[] all;
  c->n_chunks.store(k + 1, std::memory_order_release);
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (c->dormant) return XSHMEM_SUCCESS;
  c->heap_base = static_cast<char *>(heap->base);
  c->heap_size = heap->size;
  c->heap_kind = heap->kind;
  c->heap_device = heap->device;
  // rchunks is read by other threads once published: size it once for every chunk there can be.
  c->rchunks.resize((heap->kind == XSHMEM_MEM_HOST ? 1 : kMaxChunks) * size_t(c->n_pes));
  if (heap->kind == XSHMEM_MEM_HOST) {
    xshmem_status_t st = add_chunk(c, 0, heap->size, XSHMEM_MEM_HOST);
    c->heap_ok = st == XSHMEM_SUCCESS;
    return st;
  }
  // GPU heaps: chunks come through heap_grow, registered with FI_HMEM. Without FI_HMEM the data
  // would have to be staged through pinned host buffers by the target: not implemented yet.
  if (!c->hmem) {
    FLOG(XSHMEM_LOG_WARN,
         "provider %s has no FI_HMEM: GPU heaps cannot be registered (the staged path through "
         "pinned host buffers is not implemented); use another transport or XSHMEM_HEAP=host",
         c->prov.c_str());
  }
  int ok = c->hmem ? 1 : 0;
  std::vector<int> all(c->n_pes);
  xshmem_status_t st = g_svc->allgather(&ok, all.data(), sizeof(int));
  if (st) return st;
  for (int v : all)
    if (!v) return XSHMEM_ERR_UNSUPPORTED;
  c->heap_ok = true;
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_heap_grow(void *ctx, const xshmem_mem_chunk_v1_t *chunk) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (c->dormant || c->heap_kind == XSHMEM_MEM_HOST) return XSHMEM_SUCCESS;
  return add_chunk(c, chunk->offset, chunk->size, XSHMEM_MEM_DEVICE);
}

void fill_reason(xshmem_peer_info_v1_t *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fill_reason(xshmem_peer_info_v1_t *info, const char *fmt, ...) {
  if (!XSHMEM_PEER_INFO_HAS(info, reason)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(info->reason, sizeof info->reason, fmt, ap);
  va_end(ap);
}

xshmem_status_t lf_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (pe < 0 || pe >= c->n_pes) return XSHMEM_ERR_UNREACHABLE;
  if (c->dormant) {
    fill_reason(info,
                "not started: a one-host job that names libfabric nowhere (name it in "
                "XSHMEM_TRANSPORTS to use it on one host)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (!c->heap_ok) {
    fill_reason(info, "the heap is not registered with provider %s", c->prov.c_str());
    return XSHMEM_ERR_UNREACHABLE;
  }
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  info->path = XSHMEM_PATH_PROXY;
  info->flags = 0;
  info->latency_ns = c->latency_ns;
  info->bandwidth_mbps = c->bandwidth_mbps;
  info->lsa_base = nullptr;
  const bool same = job->host_id && job->host_id[pe] == job->host_id[c->my_pe];
  fill_reason(info, "%s, through provider %s (domain %s)",
              pe == c->my_pe ? "this pe, looped back"
              : same         ? "same host"
                             : "another host",
              c->prov.c_str(), c->dom_names.c_str());
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_connect(void *ctx, const uint8_t *selected, xshmem_peer_info_v1_t *infos) {
  Ctx *c = static_cast<Ctx *>(ctx);
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!selected[pe]) continue;
    if (!c->heap_ok) return XSHMEM_ERR_UNREACHABLE;
    infos[pe].path = XSHMEM_PATH_PROXY;
    infos[pe].lsa_base = nullptr;
    if (XSHMEM_PEER_INFO_HAS(&infos[pe], desc)) {
      infos[pe].desc = xshmem_peer_desc_v1_t{};
      infos[pe].desc.kind = XSHMEM_DESC_PROXY;
    }
  }
  c->connected = true;
  return XSHMEM_SUCCESS;  // connections are made by the provider on first use
}

xshmem_status_t lf_heap_deregister(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (c->dormant) return XSHMEM_SUCCESS;
  // After connect (collective, like this call from then on): complete this PE's operations, then
  // wait for every PE to have done so, so that no peer still waits for a reply from this one.
  if (c->connected) {
    for (int i = 0; i < c->nch; ++i) (void)lf_quiet(c, i);
    (void)g_svc->barrier();
  }
  if (c->progress.joinable()) {
    c->stop.store(true, std::memory_order_release);
    c->progress.join();
  }
  for (size_t i = 0; i < c->n_chunks.load(); ++i)
    for (fid_mr *&mr : c->chunks[i].mr)
      if (mr) {
        fi_close(&mr->fid);
        mr = nullptr;
      }
  c->n_chunks.store(0);
  c->heap_ok = false;
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_finalize(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  destroy(c);
  for (fi_info *i : c->dinfo) fi_freeinfo(i);
  delete c;
  return XSHMEM_SUCCESS;
}

xshmem_status_t lf_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                           xshmem_peer_info_v1_t *info) {
  // Read once: a plan asks for up to millions of pairs, and the configuration does not change.
  static const bool named = named_by_user();
  static const uint32_t latency =
      static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_LIBFABRIC_LATENCY_NS"));
  // As lf_init: a one-host job that names libfabric nowhere leaves it dormant.
  if (XSHMEM_PLAN_PE_HAS(self, hosts) && self->hosts == 1 && !named) {
    fill_reason(info,
                "not started: a one-host job that names libfabric nowhere (name it in "
                "XSHMEM_TRANSPORTS to use it on one host)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  info->path = XSHMEM_PATH_PROXY;
  info->flags = 0;
  info->latency_ns = latency;
  info->bandwidth_mbps = 1000;
  info->lsa_base = nullptr;
  const bool gpu = self->heap == XSHMEM_MEM_DEVICE || peer->heap == XSHMEM_MEM_DEVICE;
  fill_reason(info, "%s%s%s, through a libfabric provider%s",
              self->pe == peer->pe             ? "this pe, looped back"
              : self->host_id == peer->host_id ? "same host"
                                               : "another host",
              self->nic ? " via " : "", self->nic ? self->nic : "",
              gpu ? " with FI_HMEM (GPU heap)" : "");
  return XSHMEM_SUCCESS;
}

const xshmem_transport_data_ops_v1_t kDataOps = {
    .struct_size = sizeof(xshmem_transport_data_ops_v1_t),
    .flags = XSHMEM_DATA_OPS_AMO_COHERENT,
    .put = lf_put,
    .get = lf_get,
    .amo = lf_amo,
    .put_signal = lf_put_signal,
    .fence = lf_fence,
    .quiet = lf_quiet,
    .progress = lf_progress,
    .mem_register = lf_mem_register,
    .mem_deregister = lf_mem_deregister,
    .error_query = lf_error_query,
};

}  // namespace

extern "C" __attribute__((visibility("default")))
const xshmem_transport_v1_t xshmem_transport_plugin_v1 = {
    .abi_version = XSHMEM_TRANSPORT_ABI_VERSION,
    .struct_size = sizeof(xshmem_transport_v1_t),
    .name = kName,
    .caps = XSHMEM_TRANSPORT_CAP_HOST_HEAP | XSHMEM_TRANSPORT_CAP_DEVICE_HEAP |
            XSHMEM_TRANSPORT_CAP_NIC,
    .load = lf_load,
    .init = lf_init,
    .heap_register = lf_heap_register,
    .can_reach = lf_can_reach,
    .connect = lf_connect,
    .heap_deregister = lf_heap_deregister,
    .finalize = lf_finalize,
    .heap_grow = lf_heap_grow,
    .data_ops = &kDataOps,
    .predict = lf_predict,
};
