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
// provider's max_msg_size. Puts of at most the inject size are injected: the first few after a
// flush with a completion, the rest without one and a flushing read at quiet (FI_ORDER_RAW).
// Atomics and signals are active messages executed by the target's progress thread, in batches of
// what has arrived, with the CPU's atomic instructions on host heaps and the GPU's (the core's
// heap_apply: one kernel per batch) on GPU heaps (docs/semantics.md "Atomicity across paths"):
// atomic with respect to hostshm's CPU atomics or the GPU's atomics on the same location, so the
// table sets XSHMEM_DATA_OPS_AMO_COHERENT. Every
// wait has a deadline (XSHMEM_LIBFABRIC_TIMEOUT) measured from the last completion: a dead or
// frozen peer is an error naming it, never a hang. Staged path (a GPU heap the provider cannot
// register, or XSHMEM_LIBFABRIC_STAGED): puts and gets are chunk-sized messages to the target's
// progress thread, which copies between its heap and the message through the heap access
// (MemAccess: memcpy, or CUDA driver copies); see staged_rma.
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <xshmem/plugin/transport_v1.h>

#include "common/mem_access.h"

namespace {

using xshmem::backend::CudaAccess;
using xshmem::backend::HostAccess;
using xshmem::backend::MemAccess;

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
    {"XSHMEM_LIBFABRIC_STAGED", XSHMEM_CONFIG_BOOL, "0", nullptr,
     "move puts and gets through pinned host bounce buffers and the target's progress thread even "
     "where the provider could register the heap (the path GPU heaps take on providers without "
     "FI_HMEM); set it to test that path on host heaps"},
    {"XSHMEM_LIBFABRIC_STAGED_CHUNK", XSHMEM_CONFIG_SIZE, "64K", nullptr,
     "largest piece of a staged put or get carried by one message (the size of every bounce and "
     "receive buffer of the staged path); larger pieces cost memory, smaller ones messages"},
};

constexpr int kMaxDomains = 8;
constexpr size_t kMaxAddr = 64;      // bytes of an endpoint name in the exchange
constexpr int kOpsPerChannel = 256;  // operation contexts per channel (in flight at once)
constexpr int kRepliesPerChannel = 64;
constexpr int kServiceRecvs = 256;  // request buffers per service endpoint
constexpr int kServiceSends = 256;  // reply buffers per service endpoint
constexpr size_t kBounce = 1u << 20;
// Small puts after a flush that carry a delivery-complete completion before the rest go out
// without one (rma): a put + quiet then costs one round trip, as a raw fi_write does, and a
// stream of small puts still costs one completion per flush, not one per put.
constexpr int kTrackedInjects = 4;
constexpr uint32_t kMagicReq = 0x78666171;  // "xfaq"
constexpr uint32_t kMagicRep = 0x78666172;
// Staged path (heaps the provider cannot register): request codes beyond the atomic ones.
constexpr uint16_t kOpStagedPut = 0x100;    // header + data; the target copies it into its heap
constexpr uint16_t kOpStagedGet = 0x101;    // header; the reply carries the data
constexpr uint16_t kOpStagedFlush = 0x102;  // reply once every earlier request is applied
constexpr int kStagedSlots = 64;            // put bounce buffers per channel (in flight at once)
constexpr int kStagedServiceBufs = 64;      // receive and reply buffers per service endpoint

// Active message: an atomic or signal for the target's progress thread.
struct AmReq {
  uint32_t magic;
  uint16_t op;    // xshmem_amo_op_t
  uint16_t type;  // xshmem_amo_type_t
  uint32_t src_pe;
  uint32_t src_chan;
  uint64_t offset;
  uint64_t operand;  // staged put/get: the length
  uint64_t compare;
  uint64_t token;  // the initiator's Op
  // Position among the requests of (src_pe, src_chan) to this PE (Channel::seq): the target
  // applies them in this order whatever order their receives complete in (a provider may finish
  // a large message's receive, rendezvous or segmented, after a later small one's).
  uint64_t seq;
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
  int slot = -1;            // staged put: the bounce buffer it holds until its reply
  char *get_dst = nullptr;  // staged get: where the reply's data goes
  size_t get_len = 0;
  AmReq req;
  Op *next_free = nullptr;
};

// Receive and send buffers: `buf` is the struct's own message (atomics only) or, on the staged
// path, a chunk-sized buffer of the endpoint's arena; `desc` its registration (FI_MR_LOCAL).
struct ReplyBuf {
  fi_context2 fctx;
  uint32_t kind = kReplyBuf;
  char *buf = nullptr;
  void *desc = nullptr;
  AmRep rep;
};

struct ReqBuf {
  fi_context2 fctx;
  uint32_t kind = kReqBuf;
  char *buf = nullptr;
  void *desc = nullptr;
  AmReq req;
};
struct SendBuf {
  fi_context2 fctx;
  uint32_t kind = kSendBuf;
  char *buf = nullptr;
  void *desc = nullptr;
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
  fid_mr *pool_mr = nullptr;  // the pool, when the provider asks for local registration
  std::vector<char> arena;    // staged: kStagedServiceBufs receive + reply buffers
  fid_mr *arena_mr = nullptr;
  size_t req_size = sizeof(AmReq);  // bytes a request buffer takes
  std::vector<fi_addr_t> addr_s;    // [pe * kMaxDomains + d]: peer's service endpoint d
  std::vector<fi_addr_t> addr_e;    // [pe * nch + c]: peer's channel endpoint c
  // Requests received, in arrival order, not yet served (the progress thread's, serve()).
  std::deque<ReqBuf *> received;
  // [src_pe * nch + src_chan]: the AmReq::seq served next; held: requests that overtook it.
  std::vector<uint64_t> expect;
  std::map<std::pair<size_t, uint64_t>, ReqBuf *> held;
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
  std::vector<char> arena;  // staged: reply buffers, then kStagedSlots put bounce buffers
  fid_mr *arena_mr = nullptr;
  std::vector<int> free_slots;
  void *lane = nullptr;  // the heap access's copy stream for this channel (CUDA), lazily
  size_t rep_size = sizeof(AmRep);
  int outstanding = 0, am_inflight = 0;
  std::vector<int> pe_out;       // [pe]: operations in flight to pe
  std::vector<uint8_t> written;  // [pe]: written since the last flush (no delivery complete)
  std::vector<uint64_t> seq;     // [pe]: the next request's AmReq::seq
  int tracked_injects = 0;       // small puts posted with a completion since the last flush
  int failed_pe = -1;            // a completion error seen, not yet reported
  std::string failed_why;
  bool failure_logged = false;  // channel_failure's line was printed (once per channel)
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
  bool raw_order = false;      // reads after writes to one target are ordered (FI_ORDER_RAW)
  bool poll_channels = false;  // the progress thread reads idle channels' queues (manual progress)
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
  // Staged path: RMA to every PE's heap goes through messages and the target's progress thread
  // (some PE's heap is on a GPU its provider cannot register, or XSHMEM_LIBFABRIC_STAGED).
  bool staged = false;
  size_t chunk = 64 * 1024;  // XSHMEM_LIBFABRIC_STAGED_CHUNK, at most max_msg less a header
  std::unique_ptr<MemAccess> access{new HostAccess()};  // the heap's; CUDA for GPU heaps
  void *serve_lane = nullptr;                           // the progress thread's copy stream
  bool pinned = false;                                  // the staged arenas are page-locked
  std::vector<int32_t>
      staged_err;  // [source pe]: first failed unacknowledged put (progress thread)
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
  if (op->slot >= 0) ch->free_slots.push_back(op->slot);
  op->slot = -1;
  op->get_dst = nullptr;
  op->next_free = ch->free_ops;
  ch->free_ops = op;
}

void repost_reply(Ctx *c, Channel *ch, ReplyBuf *b) {
  int r;
  while ((r = static_cast<int>(
              fi_recv(ch->ep, b->buf, ch->rep_size, b->desc, FI_ADDR_UNSPEC, b))) == -FI_EAGAIN)
    (void)fi_cq_read(ch->cq, nullptr, 0);
  if (r) FLOG(XSHMEM_LOG_ERROR, "channel %d: cannot post a reply buffer: %s", ch->index, fi_err(r));
  (void)c;
}

// The channel's copy stream (CUDA heap access), opened on first use under the channel's mutex.
void *channel_lane(Ctx *c, Channel *ch) {
  if (!ch->lane) ch->lane = c->access->lane_open();
  return ch->lane;
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
        memcpy(&b->rep, b->buf, sizeof b->rep);
        Op *op = reinterpret_cast<Op *>(static_cast<uintptr_t>(b->rep.token));
        if (b->rep.magic == kMagicRep && op >= ch->pool->ops &&
            op < ch->pool->ops + kOpsPerChannel) {
          op->value = b->rep.value;
          bool bad = b->rep.status != XSHMEM_SUCCESS;
          if (bad && ch->failed_pe < 0) {
            ch->failed_pe = op->pe;
            ch->failed_why = std::string("the target refused the ") +
                             (op->req.op == kOpStagedPut     ? "staged put"
                              : op->req.op == kOpStagedGet   ? "staged get"
                              : op->req.op == kOpStagedFlush ? "staged puts before this quiet"
                                                             : "atomic") +
                             " (status " + std::to_string(b->rep.status) + ")";
          }
          // A staged get's data: from the reply buffer to the caller's (host or GPU) memory.
          if (!bad && op->get_dst &&
              c->access->copy(channel_lane(c, ch), op->get_dst, b->buf + sizeof(AmRep),
                              op->get_len) != XSHMEM_SUCCESS) {
            bad = true;
            if (ch->failed_pe < 0) {
              ch->failed_pe = op->pe;
              ch->failed_why =
                  std::string("copying a staged get's data into local memory failed (") +
                  c->access->name() + ")";
            }
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
  if (!ch->failure_logged) {  // every later operation on the channel fails the same way
    ch->failure_logged = true;
    FLOG(XSHMEM_LOG_ERROR,
         "%s to pe %d failed on channel %d (provider %s): %s; pe %d died or closed "
         "its endpoint",
         what, pe, ch->index, c->prov.c_str(), ch->failed_why.c_str(), pe);
  }
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

// A send whose completion says only that the buffer may be reused (FI_TRANSMIT_COMPLETE), not the
// endpoint's default delivery complete: the staged protocol's replies say when the target has
// the data, and a delivery-complete send would cost the provider an acknowledgement of its own.
ssize_t send_transmit(fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t to, void *ctx) {
  iovec iov{buf, len};
  fi_msg msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = to;
  msg.context = ctx;
  return fi_sendmsg(ep, &msg, FI_COMPLETION | FI_TRANSMIT_COMPLETE);
}

// The staged path: one message per chunk to the target's service endpoint. A put copies its piece
// (host memcpy or a device-to-host copy) into one of the channel's bounce buffers and sends it as
// header + data; the target's progress thread copies it into the heap. A get sends a header; the
// reply carries the data, copied out when the channel reads it. The target applies the requests
// of a channel in the order they were sent (AmReq::seq), so a put needs no reply of its own:
// quiet, fence and put_signal's flush (flush_written) are requests answered after every earlier
// one of the channel is applied, and put_signal's signal request follows its data.
xshmem_status_t staged_rma(Ctx *c, Channel *ch, int pe, uint64_t off, char *local, size_t n,
                           bool is_put, bool nbi, const char *what) {
  // A put's source is free once copied into the bounce buffers, and the target applies every
  // later request of this channel after it: a blocking put returns once posted and completes,
  // like an nbi one, by quiet or fence.
  if (is_put) nbi = true;
  int group = 0, group_err = 0;
  int *grp = nbi ? nullptr : &group, *grp_err = nbi ? nullptr : &group_err;
  fi_addr_t dest = c->doms[ch->dom]->addr_s[size_t(pe) * kMaxDomains + ch->index % c->peer_nd[pe]];
  size_t done = 0;
  while (done < n) {
    const size_t len = std::min(n - done, c->chunk);
    // A put gets no reply of its own; quiet, fence and put_signal send a flush request after it
    // (flush_written) whose reply carries any failure.
    const bool acked = !is_put;
    xshmem_status_t st = XSHMEM_SUCCESS;
    if (acked && ch->am_inflight >= kRepliesPerChannel)
      st = wait_for(
          c, ch, [&] { return ch->am_inflight < kRepliesPerChannel; }, what, pe);
    if (!st && is_put && ch->free_slots.empty())
      st = wait_for(
          c, ch, [&] { return !ch->free_slots.empty(); }, what, pe);
    if (st) return st;
    Op *op;
    st = get_op(c, ch, pe, grp, grp_err, &op);
    if (st) return st;
    if (acked) {
      op->am = true;
      op->pending = 2;  // the send's completion and the reply
      ++ch->am_inflight;
    } else {
      ch->written[pe] = 1;
    }
    op->req = AmReq{kMagicReq,
                    is_put ? kOpStagedPut : kOpStagedGet,
                    static_cast<uint16_t>(acked ? 1 : 0),
                    uint32_t(c->my_pe),
                    uint32_t(ch->index),
                    off + done,
                    len,
                    0,
                    reinterpret_cast<uintptr_t>(op),
                    ch->seq[pe]++};
    char *msg = reinterpret_cast<char *>(&op->req);
    size_t msg_len = sizeof(AmReq);
    void *desc = ch->pool_mr ? fi_mr_desc(ch->pool_mr) : nullptr;
    if (is_put) {
      op->slot = ch->free_slots.back();
      ch->free_slots.pop_back();
      msg = ch->arena.data() + (size_t(kRepliesPerChannel) * ch->rep_size) +
            size_t(op->slot) * (sizeof(AmReq) + c->chunk);
      memcpy(msg, &op->req, sizeof(AmReq));
      msg_len += len;
      desc = ch->arena_mr ? fi_mr_desc(ch->arena_mr) : nullptr;
      if (c->access->copy(channel_lane(c, ch), msg + sizeof(AmReq), local + done, len)) {
        FLOG(XSHMEM_LOG_ERROR,
             "%s to pe %d: copying %zu bytes at %p into a bounce buffer failed (%s memory access)",
             what, pe, len, static_cast<void *>(local + done), c->access->name());
        op->pending = 1;
        op_finish(ch, op, true);
        return XSHMEM_ERR_IO;
      }
    } else {
      op->get_dst = local + done;
      op->get_len = len;
    }
    st = post(
        c, ch, op, [&] { return send_transmit(ch->ep, msg, msg_len, desc, dest, op); }, what);
    if (st) return st;
    done += len;
  }
  if (nbi) return XSHMEM_SUCCESS;
  xshmem_status_t st = wait_for(
      c, ch, [&] { return group == 0; }, what, pe);
  if (st == XSHMEM_SUCCESS && group_err) return channel_failure(c, ch, what, pe);
  return st;
}

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
  if (c->staged) return staged_rma(c, ch, pe, off, local, n, is_put, nbi, what);
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
    // With delivery complete, the first kTrackedInjects small puts after a flush carry a
    // completion (quiet waits for it); the rest, on providers with FI_ORDER_RAW, none.
    const bool tracked = c->delivery_complete && ch->tracked_injects < kTrackedInjects;
    if (inject && c->raw_order && !tracked) {
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
      if (tracked) ++ch->tracked_injects;
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
xshmem_status_t flush_staged(Ctx *c, Channel *ch);

xshmem_status_t flush_written(Ctx *c, Channel *ch) {
  if (c->staged) return flush_staged(c, ch);
  ch->tracked_injects = 0;
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

// The staged path's flush: one request to every peer with unacknowledged puts since the last
// flush; the target's progress thread answers after applying every earlier request of this
// channel (in-order delivery), with the first failure of those puts if there was one.
xshmem_status_t flush_staged(Ctx *c, Channel *ch) {
  int group = 0, group_err = 0;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!ch->written[pe]) continue;
    ch->written[pe] = 0;
    xshmem_status_t st = XSHMEM_SUCCESS;
    if (ch->am_inflight >= kRepliesPerChannel)
      st = wait_for(
          c, ch, [&] { return ch->am_inflight < kRepliesPerChannel; }, "quiet", pe);
    if (st) return st;
    Op *op;
    st = get_op(c, ch, pe, &group, &group_err, &op);
    if (st) return st;
    op->am = true;
    op->pending = 2;
    ++ch->am_inflight;
    op->req = AmReq{kMagicReq,
                    kOpStagedFlush,
                    0,
                    uint32_t(c->my_pe),
                    uint32_t(ch->index),
                    0,
                    0,
                    0,
                    reinterpret_cast<uintptr_t>(op),
                    ch->seq[pe]++};
    fi_addr_t dest =
        c->doms[ch->dom]->addr_s[size_t(pe) * kMaxDomains + ch->index % c->peer_nd[pe]];
    void *desc = ch->pool_mr ? fi_mr_desc(ch->pool_mr) : nullptr;
    st = post(
        c, ch, op, [&] { return send_transmit(ch->ep, &op->req, sizeof op->req, desc, dest, op); },
        "quiet");
    if (st) return st;
  }
  xshmem_status_t st = wait_for(
      c, ch, [&] { return group == 0; }, "quiet", -1);
  if (st == XSHMEM_SUCCESS && group_err) return channel_failure(c, ch, "put", -1);
  return st;
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
// provider whatever its ordering attributes (a fence that waits). On the staged path every put,
// atomic and signal of a channel is a request that its target applies in the order they were
// sent (AmReq::seq): a later one already follows an earlier one to the same PE, and the fence
// waits for nothing (a GPU thread's small put_signal is a put, a fence and a signal request).
xshmem_status_t lf_fence(void *ctx, int channel) {
  if (static_cast<Ctx *>(ctx)->staged) return XSHMEM_SUCCESS;
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

// Whether [off, off+n) of this PE's heap lies in committed (registered or recorded) chunks.
bool committed(const Ctx *c, uint64_t off, uint64_t n) {
  if (off > c->heap_size || n > c->heap_size - off) return false;
  while (n > 0) {
    int k = find_chunk(c, off);
    if (k < 0) return false;
    const uint64_t room = c->chunks[k].offset + c->chunks[k].size - off;
    if (room >= n) return true;
    off += room;
    n -= room;
  }
  return true;
}

// Checks an atomic request for this PE's heap and makes its entry for the heap access (applied
// by the progress thread in batches, MemAccess::apply). Floating-point types take only FETCH, SET
// and SWAP, which act on the bits.
xshmem_status_t amo_entry(const Ctx *c, const AmReq &q, xshmem_heap_op_v1_t *a) {
  const bool wide =
      q.type == XSHMEM_AMO_U64 || q.type == XSHMEM_AMO_I64 || q.type == XSHMEM_AMO_F64;
  const size_t w = wide ? 8 : 4;
  if (q.type > XSHMEM_AMO_F64 || q.op > XSHMEM_AMO_FETCH_XOR) return XSHMEM_ERR_INVALID;
  if ((q.type == XSHMEM_AMO_F32 || q.type == XSHMEM_AMO_F64) && q.op != XSHMEM_AMO_FETCH &&
      q.op != XSHMEM_AMO_SET && q.op != XSHMEM_AMO_SWAP)
    return XSHMEM_ERR_UNSUPPORTED;
  if (!committed(c, q.offset, w) || q.offset % w) return XSHMEM_ERR_INVALID;
  *a = xshmem_heap_op_v1_t{};
  a->kind = XSHMEM_HEAP_OP_AMO;
  a->width = static_cast<uint32_t>(w);
  a->op = static_cast<int32_t>(q.op);
  a->src_pe = static_cast<int32_t>(q.src_pe);
  a->addr = c->heap_base + q.offset;
  a->operand = q.operand;
  a->compare = q.compare;
  return XSHMEM_SUCCESS;
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
                 reinterpret_cast<uintptr_t>(o),
                 ch->seq[pe]++};
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
  // Staged path: the data's pieces and the signal are requests of this channel to pe, which its
  // progress thread applies in the order they were sent (the copies before the signal), so
  // nothing is waited for here; a failure of the data is reported by the next flush (quiet,
  // fence). Otherwise the data (and any earlier operation to pe) is delivered before the signal
  // leaves.
  if (!c->staged) {
    st = wait_for(
        c, ch, [&] { return ch->pe_out[pe] == 0; }, "put_signal", pe);
    if (st) return st;
    st = flush_written(c, ch);  // injected puts, and every put without delivery complete
    if (st) return st;
  }
  const xshmem_amo_op_t op = sig_op == 1 ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET;
  return amo_locked(c, ch, pe, sig_off, op, XSHMEM_AMO_U64, signal, 0, nullptr,
                    flags & XSHMEM_DATA_NBI, "put_signal");
}

xshmem_status_t lf_progress(void *) {
  return XSHMEM_SUCCESS;  // the progress thread serves the target side; channels progress in waits
}

// fi_mr_regattr of [addr, addr+n) on domain d, as memory of CUDA device `cuda` when kind is
// XSHMEM_MEM_DEVICE; the provider's return code.
int regattr(Ctx *c, int d, void *addr, size_t n, xshmem_mem_kind_t kind, int cuda, uint64_t access,
            uint64_t key, fid_mr **mr) {
  fi_mr_attr attr{};
  iovec iov{addr, n};
  attr.mr_iov = &iov;
  attr.iov_count = 1;
  attr.access = access;
  attr.requested_key = key;
  if (kind == XSHMEM_MEM_DEVICE) {
    attr.iface = FI_HMEM_CUDA;
    attr.device.cuda = cuda;
  }
  return fi_mr_regattr(c->doms[d]->domain, &attr, 0, mr);
}

xshmem_status_t reg_one(Ctx *c, int d, void *addr, size_t n, xshmem_mem_kind_t kind,
                        uint64_t access, uint64_t key, fid_mr **mr) {
  int r = regattr(c, d, addr, n, kind, c->heap_device, access, key, mr);
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
  int r;
  while ((r = static_cast<int>(fi_recv(d->sep, b->buf, d->req_size, b->desc, FI_ADDR_UNSPEC, b))) ==
         -FI_EAGAIN)
    (void)fi_cq_read(d->scq, nullptr, 0);
  if (r)
    FLOG(XSHMEM_LOG_ERROR, "cannot post a request buffer on the service endpoint: %s", fi_err(r));
}

// Service completions read at once, and requests served as one batch: the most atomics and
// staged puts applied by one heap access call (on a GPU heap: one wait, and where processes share
// the GPU one time slice, per batch).
constexpr int kServeBatch = 64;

// Reads the service endpoint's completion queue once: a reply sent frees its buffer, a request
// received joins d->received (in arrival order; only serve() takes them off). Returns the number
// of completions read.
int read_service_cq(Domain *d) {
  fi_cq_entry ent[kServeBatch];
  const ssize_t n = fi_cq_read(d->scq, ent, kServeBatch);
  for (ssize_t i = 0; i < n; ++i) {
    const uint32_t kind =
        *reinterpret_cast<uint32_t *>(static_cast<char *>(ent[i].op_context) + sizeof(fi_context2));
    if (kind == kSendBuf) {
      SendBuf *s = static_cast<SendBuf *>(ent[i].op_context);
      s->next_free = d->free_sends;
      d->free_sends = s;
    } else if (kind == kReqBuf) {
      d->received.push_back(static_cast<ReqBuf *>(ent[i].op_context));
    }
  }
  if (n > 0) return static_cast<int>(n);
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

// Answers request q of a peer: status st, value, and for a staged get the data. Waits for a free
// reply buffer by reading the completion queue, which only queues the requests it finds: they
// are served later, in order.
void reply(Ctx *c, Domain *d, const AmReq &q, xshmem_status_t st, uint64_t value) {
  while (!d->free_sends && !c->stop.load(std::memory_order_relaxed)) (void)read_service_cq(d);
  SendBuf *s = d->free_sends;
  if (!s) return;  // stopping
  d->free_sends = s->next_free;
  size_t rep_len = sizeof(AmRep);
  if (q.op == kOpStagedGet && st == XSHMEM_SUCCESS) {
    st = c->access->copy(c->serve_lane, s->buf + sizeof(AmRep), c->heap_base + q.offset, q.operand);
    if (st == XSHMEM_SUCCESS) rep_len += q.operand;
  }
  s->rep = AmRep{kMagicRep, st, q.token, value};
  memcpy(s->buf, &s->rep, sizeof s->rep);
  fi_addr_t to = d->addr_e[size_t(q.src_pe) * c->nch + q.src_chan];
  auto deadline = Clock::now() + std::chrono::milliseconds(c->timeout_ms);
  int r;
  while ((r = static_cast<int>(send_transmit(d->sep, s->buf, rep_len, s->desc, to, s))) ==
             -FI_EAGAIN &&
         Clock::now() < deadline)
    (void)fi_cq_read(d->scq, nullptr, 0);
  if (r) {
    s->next_free = d->free_sends;
    d->free_sends = s;
    set_async_error(c, XSHMEM_ERR_PEER_FAILED,
                    "libfabric: the reply to a request from pe %u could not be sent: %s", q.src_pe,
                    fi_err(r));
  }
}

// Requests received and checked, not yet applied: atomics and staged puts, whose receive buffers
// (the puts' data) are posted again once the batch is applied.
struct Batch {
  AmReq req[kServeBatch];
  ReqBuf *buf[kServeBatch];
  xshmem_heap_op_v1_t op[kServeBatch];
  int n = 0;
};

// Applies the batch in arrival order (one heap access call: on a GPU heap, one wait), posts its
// receive buffers again and answers each request (unacknowledged staged puts: their failure
// goes to that PE's next flush).
void apply_batch(Ctx *c, Domain *d, Batch &b) {
  if (b.n == 0) return;
  // The staged puts go ahead of the atomics received before them in the batch, unless they
  // overlap one: requests between two flushes (fence, quiet) are unordered in OpenSHMEM but for
  // the same bytes, and put_signal's signal still follows its data. On a GPU heap that makes a
  // batch of put_signals one run of copies and one kernel, not a copy and a kernel per request
  // (where processes share the GPU each switch between copy and kernel waits for a time slice).
  xshmem_heap_op_v1_t ops[kServeBatch];
  int order[kServeBatch], n_ops = 0;  // ops[k] is b.op[order[k]]
  int amos[kServeBatch], n_amo = 0, amo_first = 0;
  for (int i = 0; i < b.n; ++i) {
    const xshmem_heap_op_v1_t &o = b.op[i];
    if (o.kind != XSHMEM_HEAP_OP_COPY) {
      amos[n_amo++] = i;
      continue;
    }
    const char *lo = static_cast<const char *>(o.addr), *hi = lo + o.operand;
    bool overlap = false;
    for (int k = amo_first; k < n_amo && !overlap; ++k) {
      const char *w = static_cast<const char *>(b.op[amos[k]].addr);
      overlap = w < hi && w + b.op[amos[k]].width > lo;
    }
    if (overlap)  // the atomics so far first
      for (; amo_first < n_amo; ++amo_first) order[n_ops++] = amos[amo_first];
    order[n_ops++] = i;
  }
  for (; amo_first < n_amo; ++amo_first) order[n_ops++] = amos[amo_first];
  for (int k = 0; k < n_ops; ++k) ops[k] = b.op[order[k]];
  c->access->apply(c->serve_lane, ops, static_cast<size_t>(n_ops));
  for (int k = 0; k < n_ops; ++k) b.op[order[k]] = ops[k];
  const int n = b.n;
  b.n = 0;
  for (int i = 0; i < n; ++i) post_req(d, b.buf[i]);
  for (int i = 0; i < n; ++i) {
    const AmReq &q = b.req[i];
    const auto st = static_cast<xshmem_status_t>(b.op[i].status);
    if (q.op == kOpStagedPut && q.type == 0) {
      if (st && !c->staged_err[q.src_pe]) c->staged_err[q.src_pe] = st;
      continue;
    }
    reply(c, d, q, st, b.op[i].old);
  }
}

// Serves request q (in receive buffer b): atomics and staged puts join the batch, anything else
// (a get, a flush, a refusal) is answered after the batch before it is applied: a flush answers
// once every earlier request of its channel is applied.
void serve_one(Ctx *c, Domain *d, ReqBuf *b, const AmReq &q, Batch &batch) {
  if (batch.n == kServeBatch) apply_batch(c, d, batch);
  const bool sput = q.op == kOpStagedPut, sget = q.op == kOpStagedGet;
  if (!c->serve_lane && c->access) c->serve_lane = c->access->lane_open();
  xshmem_status_t st = XSHMEM_SUCCESS;
  if ((sput || sget) && (!c->staged || q.operand > c->chunk)) {
    st = XSHMEM_ERR_INVALID;
  } else if ((sput || sget) && !committed(c, q.offset, q.operand)) {
    FLOG(XSHMEM_LOG_ERROR,
         "staged %s from pe %u: heap offset %llu + %llu bytes is outside this pe's (%d) "
         "committed heap; refused",
         sput ? "put" : "get", q.src_pe, static_cast<unsigned long long>(q.offset),
         static_cast<unsigned long long>(q.operand), c->my_pe);
    st = XSHMEM_ERR_INVALID;
  } else if (sput) {  // the data into the heap, then the acknowledgement (remote completion)
    xshmem_heap_op_v1_t &op = batch.op[batch.n];
    op = xshmem_heap_op_v1_t{};
    op.kind = XSHMEM_HEAP_OP_COPY;
    op.src_pe = static_cast<int32_t>(q.src_pe);
    op.addr = c->heap_base + q.offset;
    op.src = b->buf + sizeof(AmReq);
    op.operand = q.operand;
    batch.req[batch.n] = q;
    batch.buf[batch.n++] = b;
    return;
  } else if (!sget && q.op != kOpStagedFlush) {  // an atomic
    st = amo_entry(c, q, &batch.op[batch.n]);
    if (st == XSHMEM_SUCCESS) {
      batch.req[batch.n] = q;
      batch.buf[batch.n++] = b;
      return;
    }
  }
  apply_batch(c, d, batch);
  if (q.op == kOpStagedFlush) {
    st = static_cast<xshmem_status_t>(c->staged_err[q.src_pe]);
    c->staged_err[q.src_pe] = XSHMEM_SUCCESS;
  }
  post_req(d, b);
  if (sput && q.type == 0) {  // unacknowledged: the next flush from that pe reports it
    if (st && !c->staged_err[q.src_pe]) c->staged_err[q.src_pe] = st;
    return;
  }
  reply(c, d, q, st, 0);
}

// Serves up to kServeBatch received requests (and the held ones they release) in the order
// their initiators sent them (AmReq::seq per source channel: a request that overtook an earlier
// one of its channel is held until that one is served); returns how many completions were read
// or requests served. Atomics and staged puts are applied together (Batch) before any later
// request of another kind, so every request takes effect in that order.
int serve(Ctx *c, Domain *d) {
  const int got = read_service_cq(d);
  if (d->received.empty()) return got;
  Batch batch;
  int served = 0;
  while (served < kServeBatch && !d->received.empty()) {
    ReqBuf *b = d->received.front();
    d->received.pop_front();
    AmReq q;
    memcpy(&q, b->buf, sizeof q);
    const size_t src = size_t(q.src_pe) * size_t(c->nch) + q.src_chan;
    if (q.magic != kMagicReq || q.src_pe >= uint32_t(c->n_pes) || q.src_chan >= uint32_t(c->nch) ||
        q.seq < d->expect[src] || !d->held.emplace(std::make_pair(src, q.seq), b).second) {
      post_req(d, b);
      FLOG(XSHMEM_LOG_ERROR, "a malformed request arrived on the service endpoint; ignored");
      continue;
    }
    if (q.seq != d->expect[src])
      FLOG(XSHMEM_LOG_DEBUG,
           "request %llu of pe %u channel %u overtook %llu: held until that one is served",
           static_cast<unsigned long long>(q.seq), q.src_pe, q.src_chan,
           static_cast<unsigned long long>(d->expect[src]));
    // Serve what is next for this source channel, as long as it is here.
    for (auto it = d->held.find({src, d->expect[src]}); it != d->held.end();
         it = d->held.find({src, d->expect[src]})) {
      ReqBuf *next = it->second;
      d->held.erase(it);
      ++d->expect[src];
      AmReq r;
      memcpy(&r, next->buf, sizeof r);
      serve_one(c, d, next, r, batch);
      ++served;
    }
  }
  apply_batch(c, d, batch);
  return got + served;
}

// Spins while there is traffic, then yields, then sleeps in short naps: incoming RMA on
// manual-progress providers lands only while this thread reads the completion queue, so the nap
// bounds the added latency after a quiet spell (fi_cq_sread on tcp;ofi_rxm waits out its
// timeout instead of waking on arriving data).
void progress_main(Ctx *c) {
  // Naps of 10 us, not 60: the default timer slack (50 us) would stretch every one of them, and
  // a nap bounds what a peer's blocking put waits for its delivery.
  (void)prctl(PR_SET_TIMERSLACK, 1000UL);
  unsigned idle = 0;
  while (!c->stop.load(std::memory_order_acquire)) {
    int got = 0;
    for (auto &d : c->doms) got += serve(c, d.get());
    if (c->poll_channels)
      for (auto &ch : c->chans)
        if (ch->mu.try_lock()) {
          got += progress_channel(c, ch.get());
          ch->mu.unlock();
        }
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
    if (ch->arena_mr) fi_close(&ch->arena_mr->fid);
    c->access->lane_close(ch->lane);
    ch->lane = nullptr;
  }
  c->access->lane_close(c->serve_lane);
  c->serve_lane = nullptr;
  if (c->pinned) {
    for (auto &ch : c->chans) c->access->unpin(ch->arena.data());
    for (auto &d : c->doms) c->access->unpin(d->arena.data());
    c->pinned = false;
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
    if (d->arena_mr) fi_close(&d->arena_mr->fid);
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
  uint32_t nd, nch, addrlen, staged;  // staged: this PE needs (or is told to use) the staged path
  uint64_t chunk;                     // its staged chunk size
  // then (kMaxDomains + nch) * kMaxAddr bytes of names
};

// The staged path's buffers: per service endpoint kStagedServiceBufs request buffers (header +
// chunk) and as many reply buffers; per channel kRepliesPerChannel reply buffers and kStagedSlots
// put bounce buffers. Each set is one allocation, registered where the provider asks for local
// registration, and pinned for device copies once the heap's access is known (heap_register).
xshmem_status_t setup_staged(Ctx *c) {
  const size_t req = sizeof(AmReq) + c->chunk, rep = sizeof(AmRep) + c->chunk;
  for (size_t k = 0; k < c->doms.size(); ++k) {
    Domain *d = c->doms[k].get();
    d->req_size = req;
    d->arena.assign(size_t(kStagedServiceBufs) * (req + rep), 0);
    if (c->mr_local && reg_one(c, static_cast<int>(k), d->arena.data(), d->arena.size(),
                               XSHMEM_MEM_HOST, FI_SEND | FI_RECV, c->next_key++, &d->arena_mr))
      return XSHMEM_ERR_IO;
    void *desc = d->arena_mr ? fi_mr_desc(d->arena_mr) : nullptr;
    // Only the first kStagedServiceBufs of each kind are used on the staged path.
    d->free_sends = nullptr;
    for (int i = 0; i < kStagedServiceBufs; ++i) {
      ReqBuf &b = d->pool->reqs[i];
      b.buf = d->arena.data() + size_t(i) * req;
      b.desc = desc;
      SendBuf &s = d->pool->sends[i];
      s.buf = d->arena.data() + size_t(kStagedServiceBufs) * req + size_t(i) * rep;
      s.desc = desc;
      s.next_free = d->free_sends;
      d->free_sends = &s;
    }
  }
  for (auto &chp : c->chans) {
    Channel *ch = chp.get();
    ch->rep_size = rep;
    ch->arena.assign(size_t(kRepliesPerChannel) * rep + size_t(kStagedSlots) * req, 0);
    if (c->mr_local && reg_one(c, ch->dom, ch->arena.data(), ch->arena.size(), XSHMEM_MEM_HOST,
                               FI_SEND | FI_RECV, c->next_key++, &ch->arena_mr))
      return XSHMEM_ERR_IO;
    void *desc = ch->arena_mr ? fi_mr_desc(ch->arena_mr) : nullptr;
    for (int i = 0; i < kRepliesPerChannel; ++i) {
      ch->pool->replies[i].buf = ch->arena.data() + size_t(i) * rep;
      ch->pool->replies[i].desc = desc;
    }
    for (int i = kStagedSlots - 1; i >= 0; --i) ch->free_slots.push_back(i);
  }
  return XSHMEM_SUCCESS;
}

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
    // The socket providers name their domains after interfaces and also offer lo: the interface
    // pinned for them (XSHMEM_LIBFABRIC_IFACE, FI_TCP_IFACE, FI_SOCKETS_IFACE) is the domain,
    // whatever order fi_getinfo lists them in. Not offered (down, no address): said, and the
    // provider's first is used.
    if (dn.empty()) {
      const char *pin = !iface.empty() ? iface.c_str() : getenv("FI_TCP_IFACE");
      if (pin == nullptr || *pin == '\0') pin = getenv("FI_SOCKETS_IFACE");
      if (pin != nullptr && *pin != '\0') {
        bool offered = false, socket_prov = false;
        for (fi_info *i = all; i; i = i->next) {
          const std::string pn = i->fabric_attr->prov_name;
          if (pn.rfind("tcp", 0) != 0 && pn.rfind("sockets", 0) != 0) continue;
          socket_prov = true;
          if (i->domain_attr->name && std::string(pin) == i->domain_attr->name) offered = true;
        }
        if (offered)
          dn = pin;
        else if (socket_prov)
          FLOG(XSHMEM_LOG_WARN,
               "pe %d: interface %s (pinned for the socket providers) is not offered by "
               "fi_getinfo (down, or without an address); using the provider's first domain",
               job->my_pe, pin);
      }
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
  // sockets' automatic progress thread sleeps up to FI_SOCKETS_PE_WAITTIME (10 ms) between
  // polls, which every round trip then waits out (a conformance group took minutes). Its manual
  // progress runs inside fi_cq_read of the queue an endpoint is bound to, so the progress
  // thread also reads the channels' queues (progress_main) while no caller holds them.
  if (c->prov == "sockets" && info->domain_attr->data_progress == FI_PROGRESS_AUTO) {
    for (fi_info *i : c->dinfo) i->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  }
  // Manual progress (tcp, sockets as set above): a message a channel sent moves only while its
  // queue is read, and a caller that returned without waiting (a staged put, put_signal, an nbi
  // operation) may next wait on something else entirely (its peer's signal); rxm's rendezvous
  // of a large message then stalls until that caller's next quiet. So the progress thread also
  // reads the queues of the channels no caller holds.
  c->poll_channels = info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
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
    void *pdesc = d->pool_mr ? fi_mr_desc(d->pool_mr) : nullptr;
    for (ReqBuf &b : d->pool->reqs) {
      b.buf = reinterpret_cast<char *>(&b.req);
      b.desc = pdesc;
    }
    for (SendBuf &s : d->pool->sends) {
      s.buf = reinterpret_cast<char *>(&s.rep);
      s.desc = pdesc;
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
    ch->seq.assign(c->n_pes, 0);
    if (c->mr_local) {
      ch->bounce.resize(kBounce);
      if (reg_one(c, ch->dom, ch->pool.get(), sizeof(ChannelPool), XSHMEM_MEM_HOST,
                  FI_SEND | FI_RECV, c->next_key++, &ch->pool_mr) ||
          reg_one(c, ch->dom, ch->bounce.data(), kBounce, XSHMEM_MEM_HOST, FI_READ | FI_WRITE,
                  c->next_key++, &ch->bounce_mr))
        return XSHMEM_ERR_IO;
    }
    for (ReplyBuf &b : ch->pool->replies) {
      b.buf = reinterpret_cast<char *>(&b.rep);
      b.desc = ch->pool_mr ? fi_mr_desc(ch->pool_mr) : nullptr;
    }
  }
  // Exchange the endpoint names.
  const size_t rec = sizeof(AddrRecord) + size_t(kMaxDomains + c->nch) * kMaxAddr;
  std::vector<char> mine(rec, 0), every(rec * c->n_pes);
  AddrRecord *ar = reinterpret_cast<AddrRecord *>(mine.data());
  snprintf(ar->prov, sizeof ar->prov, "%s", c->prov.c_str());
  ar->nd = static_cast<uint32_t>(c->doms.size());
  ar->nch = static_cast<uint32_t>(c->nch);
  // A provider may offer FI_HMEM and still not register CUDA memory: libfabric built without
  // CUDA support answers every FI_HMEM_CUDA registration with -FI_ENOSYS (seen with shm 1.17).
  // That answer does not depend on the memory, so a host buffer asks the question before the
  // heap exists; then the GPU heap takes the staged path as without FI_HMEM.
  if (c->hmem && c->heap_kind == XSHMEM_MEM_DEVICE) {
    static char probe[64];
    fid_mr *mr = nullptr;
    const int pr =
        regattr(c, 0, probe, sizeof probe, XSHMEM_MEM_DEVICE, 0,
                FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, c->next_key++, &mr);
    if (mr) fi_close(&mr->fid);
    if (pr == -FI_ENOSYS || pr == -FI_EOPNOTSUPP) {
      FLOG(XSHMEM_LOG_INFO,
           "provider %s offers FI_HMEM but cannot register CUDA memory (fi_mr_regattr: %s): "
           "the GPU heap takes the staged path",
           c->prov.c_str(), fi_err(pr));
      c->hmem = false;
    }
  }
  // The staged path: for a GPU heap the provider cannot register (no FI_HMEM), or when forced.
  const bool force_staged = g_svc->config_get_int("XSHMEM_LIBFABRIC_STAGED") != 0;
  ar->staged = force_staged || (c->heap_kind == XSHMEM_MEM_DEVICE && !c->hmem) ? 1 : 0;
  {
    int64_t want_chunk = g_svc->config_get_int("XSHMEM_LIBFABRIC_STAGED_CHUNK");
    const size_t hdr = std::max(sizeof(AmReq), sizeof(AmRep));
    size_t ck = want_chunk < 256 ? 256 : static_cast<size_t>(want_chunk);
    if (c->max_msg != SIZE_MAX && ck > c->max_msg - hdr) ck = c->max_msg - hdr;
    if (want_chunk < 256 || ck != static_cast<size_t>(want_chunk))
      FLOG(XSHMEM_LOG_WARN,
           "XSHMEM_LIBFABRIC_STAGED_CHUNK=%lld is outside [256, provider %s's max message %zu "
           "less a %zu-byte header]; using %zu",
           static_cast<long long>(want_chunk), c->prov.c_str(), c->max_msg, hdr, ck);
    ar->chunk = ck;
  }
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
    if (pr->staged) c->staged = true;
    if (pe == 0 || pr->chunk < c->chunk) c->chunk = static_cast<size_t>(pr->chunk);
  }
  if (c->staged && (st = setup_staged(c)) != XSHMEM_SUCCESS) return st;
  for (auto &dp : c->doms) {
    Domain *d = dp.get();
    d->addr_s.assign(size_t(c->n_pes) * kMaxDomains, FI_ADDR_NOTAVAIL);
    d->addr_e.assign(size_t(c->n_pes) * c->nch, FI_ADDR_NOTAVAIL);
    d->expect.assign(size_t(c->n_pes) * c->nch, 0);
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
    for (int i = 0; i < (c->staged ? kStagedServiceBufs : kServiceRecvs); ++i)
      post_req(d.get(), &d->pool->reqs[i]);
  for (auto &ch : c->chans)
    for (ReplyBuf &b : ch->pool->replies) repost_reply(c, ch.get(), &b);
  FLOG(XSHMEM_LOG_INFO,
       "pe %d: provider %s, domain%s %s, %d channel%s, %s, max message %zu bytes, inject %zu "
       "bytes%s%s%s%s",
       c->my_pe, c->prov.c_str(), c->doms.size() > 1 ? "s" : "", c->dom_names.c_str(), c->nch,
       c->nch > 1 ? "s" : "", c->delivery_complete ? "delivery complete" : "flushing reads",
       c->max_msg, c->inject, c->raw_order ? ", FI_ORDER_RAW" : "",
       c->mr_local ? ", FI_MR_LOCAL" : "", c->hmem ? ", FI_HMEM" : "",
       c->staged ? (", staged path (" + std::to_string(c->chunk) + "-byte chunks)").c_str() : "");
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
  c->staged_err.assign(c->n_pes, XSHMEM_SUCCESS);
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
  // The staged path moves no data by RMA: the chunk is recorded (the target's progress thread
  // checks requests against it), not registered (a GPU chunk could not be without FI_HMEM).
  for (size_t d = 0; d < c->doms.size() && mine.ok && !c->staged; ++d) {
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
  // GPU heaps: chunks come through heap_grow, registered with FI_HMEM, or (no FI_HMEM) only
  // recorded for the staged path. Either way the progress thread reaches the heap (atomics,
  // staged data) through the CUDA heap access. It replaces the host one while the progress
  // thread runs; that thread touches it only to serve a peer's request, and no peer sends one
  // before the allgather below, which this PE enters after the swap.
  c->access = CudaAccess::open(g_svc, kName, heap->device, c->heap_base, c->heap_size);
  if (c->access && c->staged) {
    for (auto &ch : c->chans) c->access->pin(ch->arena.data(), ch->arena.size());
    for (auto &d : c->doms) c->access->pin(d->arena.data(), d->arena.size());
    c->pinned = true;
  }
  if (c->access && c->staged && !c->hmem)
    FLOG(XSHMEM_LOG_INFO,
         "provider %s has no FI_HMEM: the GPU heap is reached through the staged path (pinned "
         "host buffers, %zu-byte chunks, copied by the target's progress thread)",
         c->prov.c_str(), c->chunk);
  int ok = c->access ? 1 : 0;
  if (!c->access) c->access.reset(new HostAccess());  // destroy() still calls it
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
  fill_reason(info, "%s, through provider %s (domain %s)%s",
              pe == c->my_pe ? "this pe, looped back"
              : same         ? "same host"
                             : "another host",
              c->prov.c_str(), c->dom_names.c_str(),
              c->staged ? ", staged through pinned host buffers" : "");
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
