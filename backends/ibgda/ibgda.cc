// xshmem transport "ibgda": GDA peers. The caller itself posts mlx5 work-queue entries for its
// operations into a send queue per (peer, context) and the NIC executes them (the path code:
// device/include/xshmem/device/gda_path.h, through the per-peer handle this transport fills).
//
// NICs (XSHMEM_IBGDA_NIC):
//   - model: the software NIC model (backends/ibgda/model_nic.h): one thread per PE is its NIC,
//     the PEs' NICs joined by TCP over XSHMEM_IBGDA_MODEL_IFACE (loopback on one host). Queues,
//     doorbell records and CQs live in host memory; this PE's heap is the target of its peers'
//     requests under one remote key; local buffers are reached through one key over the whole
//     address space (as an mlx5 implicit on-demand registration would give them).
//   - auto (the default): an mlx5 NIC driven through DevX. This version has no DevX path yet:
//     auto reaches no peer, and the reason names what is missing (xshmem-info's pre-flight checks
//     list each piece).
// Like libfabric, the transport stays dormant in a one-host job that names it nowhere
// (XSHMEM_TRANSPORTS, XSHMEM_PAIR_TRANSPORTS, XSHMEM_REMOTE_TRANSPORT): hostshm serves such jobs.
// GPU heaps: GPU threads post into queues of their own (device queues, one set per peer): the
// entries, doorbell records, CQEs and result words in page-locked host memory the GPU writes and
// the model reads, the posters' counters in GPU memory, and the GPU threads' copy of the peer's
// handle in GPU memory (xshmem_peer_info_v1_t::gda_device_handle). The model reaches the GPU heap
// (its peers' requests) and GPU buffers (the local side) through the CUDA heap access
// (common/mem_access.h: driver copies on a non-blocking stream, the core's heap_apply for
// atomics, executed by the GPU's own atomic instructions).
//
// Errors: a queue in error (a refused or failed entry) stops the job at once with the model's
// line (the PE, the queue, the send-queue position, the entry, the field or the syndrome);
// posters waiting on that queue then stop too. A peer that dies breaks its connection: the
// entries waiting on it fail the same way. Every wait has XSHMEM_IBGDA_TIMEOUT.
#include <arpa/inet.h>
#include <glob.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <xshmem/device/gda_path.h>
#include <xshmem/plugin/transport_v1.h>

#include "common/mem_access.h"
#include "model_nic.h"

namespace {

namespace g = xshmem::dev::gda;
namespace gp = xshmem::dev::gdapath;
namespace m = xshmem::ibgda;

constexpr const char *kName = "ibgda";
const xshmem_core_services_v1_t *g_svc = nullptr;

#define ILOG(lvl, ...) XSHMEM_PLOG(g_svc, lvl, kName, __VA_ARGS__)

// The model's keys: this PE's heap (remote read, write, atomic) and every local buffer.
constexpr uint32_t kHeapKey = 0x1000;
constexpr uint32_t kLocalKey = 0x100;

const xshmem_config_entry_v1_t kConfig[] = {
    {"XSHMEM_IBGDA_NIC", XSHMEM_CONFIG_ENUM, "auto", "auto,model",
     "the NIC that executes the posted work requests: model runs the software NIC model (a host "
     "thread per PE, TCP between PEs) for machines without an mlx5 NIC; auto an mlx5 NIC through "
     "DevX, which this version cannot drive yet (auto reaches no peer)"},
    {"XSHMEM_IBGDA_MODEL_IFACE", XSHMEM_CONFIG_STRING, "", nullptr,
     "network interface whose IPv4 address the NIC model's connections use; empty: lo when every "
     "PE is on one host, else the first interface that is up and not loopback"},
    {"XSHMEM_IBGDA_QUEUE_DEPTH", XSHMEM_CONFIG_INT, "256", nullptr,
     "WQEBBs (64-byte entries) per send queue, a power of two from 16 to 32768: how many "
     "operations a context may have in flight to one peer"},
    {"XSHMEM_IBGDA_QUEUES", XSHMEM_CONFIG_INT, "0", nullptr,
     "send queues per peer; a context uses queue (its entry) modulo their number; 0: the proxy "
     "channel count (XSHMEM_PROXY_CHANNELS)"},
    {"XSHMEM_IBGDA_TIMEOUT", XSHMEM_CONFIG_DURATION, "30s", nullptr,
     "how long a peer may leave requests unanswered before its entries fail and the job stops "
     "with the NIC's line naming the peer and the entry; a poster waiting on a queue gives up on "
     "its own (a stalled NIC) 2 s or half as long again later"},
    {"XSHMEM_IBGDA_TEST_CORRUPT", XSHMEM_CONFIG_STRING, "", nullptr,
     "test hook of the NIC model: opcode, length or key[@N][:PE] corrupts the N-th entry (default "
     "1) that PE's NIC takes (every PE's without :PE) before it decodes it (an unknown opcode, a "
     "zero byte count in the first RDMA write or read from there, a remote key nobody has), as a "
     "broken poster would; the job must stop with the NIC's line"},
    {"XSHMEM_IBGDA_LATENCY_NS", XSHMEM_CONFIG_INT, "4000", nullptr,
     "cost the selector assumes for a small operation to an ibgda peer, in ns; above hostshm and "
     "nvlink so that they win on a host unless a transport is forced"},
};

// One send queue: what the posters and the NIC share, and the model's view of it.
struct Queue {
  void *wqes = nullptr;  // depth WQEBBs, 64-byte aligned
  g::cqe_t cqe{};        // the collapsed CQ
  alignas(8) uint64_t reserved = 0;
  alignas(8) uint64_t ready = 0;
  alignas(8) uint64_t published = 0;
  uint32_t dbr[2] = {0, 0};
  m::queue_t q;
  ~Queue() { free(wqes); }
};

// One GPU threads' queue (GPU heaps): page-locked host memory the GPU writes and the model
// reads (entries, doorbell record, CQE, retired count, result words), counters in GPU memory.
struct DQueue {
  char *host = nullptr;          // [depth WQEBBs][64: CQE][64: dbr[2], retired][depth result words]
  uint64_t *counters = nullptr;  // GPU memory: reserved, ready, published
  m::queue_t q;
};

struct Peer {
  gp::peer_handle_t handle{};
  uint32_t rkey = 0;
  std::vector<g::sq_t> sqs;
  std::vector<std::unique_ptr<Queue>> queues;
  // GPU heaps: the GPU threads' queues, their watch records (the host handle's dq), and the GPU
  // memory of their handle (the handle, then its queues, then its key).
  std::vector<std::unique_ptr<DQueue>> dqueues;
  std::vector<gp::dq_watch_t> watch;
  void *device_handle = nullptr;
};

struct Ctx {
  int my_pe = -1, n_pes = 0;
  bool active = false;  // the NIC model runs
  std::string reason;   // why not (can_reach's reason)
  std::unique_ptr<m::model_nic> nic;
  std::string addr;  // this PE's address on the model's wire
  std::vector<std::string> addrs;
  std::vector<uint16_t> ports;
  bool heap_ok = false;
  char *heap_base = nullptr;
  size_t heap_size = 0;
  std::vector<uint64_t> bases;  // [pe]: its heap in its own address space
  std::vector<std::unique_ptr<Peer>> peers;
  alignas(8) uint64_t discard = 0;
  // GPU heaps: the CUDA access the model reaches GPU memory with, the NIC thread's copy stream,
  // and one for setting up queues.
  std::unique_ptr<xshmem::backend::CudaAccess> cuda;
  void *nic_lane = nullptr, *setup_lane = nullptr;
  uint32_t depth = 256, nqueues = 1, latency_ns = 4000;
  uint64_t timeout_ns = 30ull * 1000 * 1000 * 1000;
  uint32_t next_qpn = 1;
  bool connected = false;
};

std::vector<std::string> split_list(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string w = s.substr(i, j - i);
    w.erase(0, w.find_first_not_of(" \t"));
    w.erase(w.find_last_not_of(" \t") + 1);
    if (!w.empty()) out.push_back(w);
    i = j + 1;
  }
  return out;
}

// Whether some setting names this transport (then it starts on one host too).
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

bool model_mode() {
  return std::string(g_svc->config_get_string("XSHMEM_IBGDA_NIC")) == "model";
}

// Why auto reaches no peer on this machine: what is missing for an mlx5 NIC.
std::string nic_reason() {
  glob_t gl{};
  const bool devices = glob("/dev/infiniband/uverbs*", 0, nullptr, &gl) == 0 && gl.gl_pathc > 0;
  globfree(&gl);
  if (!devices)
    return "no RDMA device here (no /dev/infiniband/uverbs*, so no mlx5 NIC): "
           "XSHMEM_IBGDA_NIC=model runs the software NIC model";
  return "an RDMA device is present, but this version drives only the software NIC model "
         "(XSHMEM_IBGDA_NIC=model); xshmem-info's pre-flight checks say what the device lacks";
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

// The IPv4 address of interface `iface`, or of the first interface that is up and not loopback
// (iface empty). Empty when there is none.
std::string iface_addr(const std::string &iface) {
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string out;
  for (ifaddrs *a = list; a != nullptr && out.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const bool loop = (a->ifa_flags & IFF_LOOPBACK) != 0;
    if (iface.empty() ? (loop || !(a->ifa_flags & IFF_UP)) : iface != a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN];
    const auto *sin = reinterpret_cast<const sockaddr_in *>(a->ifa_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) out = buf;
  }
  freeifaddrs(list);
  return out;
}

// XSHMEM_IBGDA_TEST_CORRUPT: kind[@N][:PE] into o's hook (this PE's, when PE is this one or
// absent). false, with a line, when it does not parse.
bool parse_corrupt(const std::string &v, int my_pe, m::model_nic::options *o) {
  if (v.empty()) return true;
  std::string kind = v;
  long long nth = 1, pe = -1;
  const size_t colon = kind.find(':');
  if (colon != std::string::npos) {
    char *end = nullptr;
    pe = strtoll(kind.c_str() + colon + 1, &end, 10);
    if (end == kind.c_str() + colon + 1 || *end != '\0') pe = -2;
    kind.resize(colon);
  }
  const size_t at = kind.find('@');
  if (at != std::string::npos) {
    char *end = nullptr;
    nth = strtoll(kind.c_str() + at + 1, &end, 10);
    if (end == kind.c_str() + at + 1 || *end != '\0') nth = 0;
    kind.resize(at);
  }
  const int k = kind == "opcode"   ? m::model_nic::kCorruptOpcode
                : kind == "length" ? m::model_nic::kCorruptLength
                : kind == "key"    ? m::model_nic::kCorruptKey
                                   : m::model_nic::kCorruptNone;
  if (k == m::model_nic::kCorruptNone || nth < 1 || pe < -1) {
    ILOG(XSHMEM_LOG_ERROR,
         "pe %d: XSHMEM_IBGDA_TEST_CORRUPT='%s' is not opcode, length or key[@N][:PE]", my_pe,
         v.c_str());
    return false;
  }
  if (pe == -1 || pe == my_pe) {
    o->corrupt = k;
    o->corrupt_at = static_cast<uint64_t>(nth);
  }
  return true;
}

xshmem_status_t ib_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

xshmem_status_t ib_init(void **ctx) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  Ctx *c = new (std::nothrow) Ctx();
  if (!c) return XSHMEM_ERR_NOMEM;
  c->my_pe = job->my_pe;
  c->n_pes = job->n_pes;
  bool one_host = true;
  for (int pe = 0; job->host_id && pe < c->n_pes; ++pe)
    one_host = one_host && job->host_id[pe] == job->host_id[c->my_pe];
  // Decided together (every PE then makes the same collective calls): the model runs when every
  // PE asks for it and the job spans hosts or some PE names the transport.
  struct Want {
    int32_t model, want;
  } mine{model_mode() ? 1 : 0, !one_host || named_by_user() ? 1 : 0};
  std::vector<Want> all(c->n_pes);
  xshmem_status_t st = g_svc->allgather(&mine, all.data(), sizeof(Want));
  if (st) {
    delete c;
    return st;
  }
  bool every_model = true, any_want = false;
  for (const Want &w : all) {
    every_model = every_model && w.model;
    any_want = any_want || w.want;
  }
  *ctx = c;
  if (!every_model) {
    bool some_model = false;
    for (const Want &w : all) some_model = some_model || w.model;
    c->reason = some_model ? "XSHMEM_IBGDA_NIC=model is set on some PEs only" : nic_reason();
    if (some_model && mine.model)
      ILOG(XSHMEM_LOG_ERROR,
           "pe %d: XSHMEM_IBGDA_NIC=model is set on some PEs only; the ibgda "
           "transport reaches no peer",
           c->my_pe);
    return XSHMEM_SUCCESS;
  }
  if (!any_want) {
    c->reason =
        "not started: a one-host job that names ibgda nowhere (name it in XSHMEM_TRANSPORTS "
        "to use it on one host)";
    return XSHMEM_SUCCESS;
  }
  int64_t depth = g_svc->config_get_int("XSHMEM_IBGDA_QUEUE_DEPTH");
  if (depth < 16 || depth > 32768 || (depth & (depth - 1)) != 0) {
    ILOG(XSHMEM_LOG_WARN,
         "XSHMEM_IBGDA_QUEUE_DEPTH=%lld is not a power of two from 16 to 32768; using 256",
         static_cast<long long>(depth));
    depth = 256;
  }
  c->depth = static_cast<uint32_t>(depth);
  int64_t nq = g_svc->config_get_int("XSHMEM_IBGDA_QUEUES");
  if (nq <= 0) nq = XSHMEM_JOB_INFO_HAS(job, num_channels) ? job->num_channels : 1;
  c->nqueues = static_cast<uint32_t>(std::clamp<int64_t>(nq, 1, 64));
  const int64_t tmo = g_svc->config_get_int("XSHMEM_IBGDA_TIMEOUT");
  c->timeout_ns = static_cast<uint64_t>(tmo > 0 ? tmo : 30000) * 1000000ull;
  c->latency_ns = static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_IBGDA_LATENCY_NS"));

  // The wire: this PE's address, then everyone's.
  const std::string iface = g_svc->config_get_string("XSHMEM_IBGDA_MODEL_IFACE");
  c->addr = iface_addr(iface.empty() && one_host ? std::string("lo") : iface);
  m::model_nic::options o;
  o.my_pe = c->my_pe;
  o.n_pes = c->n_pes;
  o.token = job->job_token ? job->job_token : "";
  o.timeout_ms = static_cast<int>(std::min<uint64_t>(c->timeout_ns / 1000000ull, 30000));
  o.on_error = [](const std::string &line) { g_svc->fatal(1, kName, line.c_str()); };
  o.answer_timeout_ms = static_cast<int>(c->timeout_ns / 1000000ull);
  // Named before the posters' deadline stops the job (a third of it, at most 3 s).
  o.stall_warn_ms = std::max(1, std::min(3000, o.answer_timeout_ms / 3));
  if (!parse_corrupt(g_svc->config_get_string("XSHMEM_IBGDA_TEST_CORRUPT"), c->my_pe, &o)) {
    delete c;
    *ctx = nullptr;
    return XSHMEM_ERR_INVALID;
  }
  o.log = [](bool warning, const std::string &line) {
    XSHMEM_PLOG(g_svc, warning ? XSHMEM_LOG_WARN : XSHMEM_LOG_DEBUG, kName, "%s", line.c_str());
  };
  c->nic = std::make_unique<m::model_nic>(std::move(o));
  std::string why;
  bool ok = !c->addr.empty() && c->nic->listen(c->addr, &why);
  if (!ok)
    ILOG(XSHMEM_LOG_ERROR, "pe %d: the NIC model cannot listen: %s", c->my_pe,
         c->addr.empty() ? ("interface " +
                            (iface.empty() ? std::string("(first up, not "
                                                         "loopback)")
                                           : iface) +
                            " has no IPv4 address; set XSHMEM_IBGDA_MODEL_IFACE")
                               .c_str()
                         : why.c_str());
  struct Addr {
    uint32_t ok, ip;
    uint16_t port, reserved;
  } me{ok ? 1u : 0u, 0, ok ? c->nic->port() : uint16_t{0}, 0};
  if (ok) inet_pton(AF_INET, c->addr.c_str(), &me.ip);
  std::vector<Addr> addrs(c->n_pes);
  st = g_svc->allgather(&me, addrs.data(), sizeof(Addr));
  if (st) return st;
  c->addrs.resize(c->n_pes);
  c->ports.resize(c->n_pes);
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!addrs[pe].ok) {
      c->reason = "pe " + std::to_string(pe) + "'s NIC model could not listen";
      c->nic.reset();
      return XSHMEM_SUCCESS;  // every PE saw the same: none goes on
    }
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addrs[pe].ip, buf, sizeof buf);
    c->addrs[pe] = buf;
    c->ports[pe] = addrs[pe].port;
  }
  // Local buffers: every address (an implicit on-demand registration).
  c->nic->local_keys().add({kLocalKey, 0, UINT64_MAX, m::kAccessLocalWrite});
  c->active = true;
  ILOG(XSHMEM_LOG_INFO,
       "pe %d: software NIC model (XSHMEM_IBGDA_NIC=model) on %s:%u, %u queue%s per peer of %u "
       "WQEBBs",
       c->my_pe, c->addr.c_str(), c->nic->port(), c->nqueues, c->nqueues > 1 ? "s" : "", c->depth);
  return XSHMEM_SUCCESS;
}

xshmem_status_t ib_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (!c->active) return XSHMEM_SUCCESS;
  c->heap_base = static_cast<char *>(heap->base);
  c->heap_size = heap->size;
  int32_t ok = 1;
  if (heap->kind == XSHMEM_MEM_DEVICE) {
    // The model reaches the GPU heap (its peers' requests) and GPU buffers (the local side)
    // through the CUDA access; GPU threads get queues of their own at connect.
    c->cuda =
        xshmem::backend::CudaAccess::open(g_svc, kName, heap->device, c->heap_base, c->heap_size);
    if (c->cuda) {
      c->nic_lane = c->cuda->lane_open();
      c->setup_lane = c->cuda->lane_open();
    }
    ok = c->cuda && c->nic_lane && c->setup_lane ? 1 : 0;
    if (ok) {
      c->nic->target_keys().set_access(c->cuda.get(), c->nic_lane);
      c->nic->local_keys().set_access(c->cuda.get(), c->nic_lane);
    }
  }
  // Collective: a PE whose GPU heap the model cannot reach makes every PE go without ibgda.
  std::vector<int32_t> oks(c->n_pes);
  xshmem_status_t st0 = g_svc->allgather(&ok, oks.data(), sizeof ok);
  if (st0) return st0;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!oks[pe]) {
      c->reason = "pe " + std::to_string(pe) +
                  "'s NIC model cannot reach its GPU heap (no usable CUDA driver: its log says "
                  "which entry point is missing)";
      return XSHMEM_SUCCESS;
    }
  }
  c->nic->target_keys().add(
      {kHeapKey, reinterpret_cast<uint64_t>(heap->base), heap->size,
       m::kAccessRemoteRead | m::kAccessRemoteWrite | m::kAccessRemoteAtomic});
  const uint64_t mine = reinterpret_cast<uint64_t>(heap->base);
  c->bases.resize(c->n_pes);
  const xshmem_status_t st = g_svc->allgather(&mine, c->bases.data(), sizeof mine);
  if (st) return st;
  c->nic->start();  // the responder serves from here on
  c->heap_ok = true;
  return XSHMEM_SUCCESS;
}

xshmem_status_t ib_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (pe < 0 || pe >= c->n_pes) return XSHMEM_ERR_UNREACHABLE;
  if (!c->active || !c->heap_ok) {
    fill_reason(info, "%s", c->reason.empty() ? "the heap is not registered" : c->reason.c_str());
    return XSHMEM_ERR_UNREACHABLE;
  }
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  info->path = XSHMEM_PATH_GDA;
  info->flags = XSHMEM_PEER_ATOMICS_NATIVE | XSHMEM_PEER_ORDERED;
  info->latency_ns = c->latency_ns;
  info->bandwidth_mbps = 1000;
  info->lsa_base = nullptr;
  const bool same = job->host_id && job->host_id[pe] == job->host_id[c->my_pe];
  fill_reason(info, "%s, software NIC model over TCP (%s)",
              pe == c->my_pe ? "this pe, looped back"
              : same         ? "same host"
                             : "another host",
              c->addrs[pe].c_str());
  return XSHMEM_SUCCESS;
}

// The poster's own deadline is the backstop behind the NIC's: a peer that stops answering
// fails its entries after timeout_ns (the NIC's line names the entry), and the poster reports a
// stall only if even that never comes (a dead NIC thread): 2 s or a half later.
uint64_t poster_deadline(const Ctx *c) {
  return c->timeout_ns + std::max<uint64_t>(2000000000ull, c->timeout_ns / 2);
}

// Where one send queue's pieces live (the posters' and the NIC's views are made from it).
struct queue_mem {
  void *wqes;
  uint32_t nbb;
  uint32_t *dbr;  // the doorbell record pair (send counter at kSendDbr)
  g::cqe_t *cqe;  // the collapsed CQ
  uint64_t *reserved, *ready, *published;
  uint64_t *results;  // the result words (GPU threads' queues), or NULL
  uint32_t *retired;  // where the NIC publishes its retired count, or NULL
  uint64_t *mirror;   // (GPU threads' queues) g::kMirrorWords words of GPU memory, or NULL
};

// Makes one queue to pe: a fresh QP number, the collapsed CQE never written (owner 1), the NIC
// model's view *q and the posters' view *s of the same memory.
void bind_queue(Ctx *c, int pe, const queue_mem &mem, m::queue_t *q, g::sq_t *s) {
  memset(mem.cqe, 0, sizeof *mem.cqe);
  mem.cqe->op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 1);
  const uint32_t qpn = c->next_qpn++;
  q->sq = mem.wqes;
  q->nbb = mem.nbb;
  q->dbr = &mem.dbr[g::kSendDbr];
  q->cq = mem.cqe;
  q->ncqe = 1;
  q->qpn = qpn;
  q->pe = c->my_pe;
  q->peer = pe;
  q->retired_out = mem.retired;
  s->wqes = mem.wqes;
  s->nbb = mem.nbb;
  s->qpn = qpn;
  s->reserved = mem.reserved;
  s->ready = mem.ready;
  s->published = mem.published;
  s->dbr = &mem.dbr[g::kSendDbr];
  s->doorbell = nullptr;  // the model polls the doorbell record
  s->cq = mem.cqe;
  s->deadline_ns = poster_deadline(c);
  s->results = mem.results;
  s->mirror = mem.mirror;
}

// GPU heaps: the GPU threads' queues to pe and their handle (a copy of the host's, in GPU
// memory, whose queues are these). A warp claims up to 32 positions at once (gda_path.h), so a
// device queue has at least 64 WQEBBs. false when memory cannot be had (a line says so).
bool make_device_queues(Ctx *c, int pe, Peer &p) {
  const uint32_t depth = std::max<uint32_t>(c->depth, 64);
  const size_t ring = size_t(depth) * g::kWqeBB;
  const size_t bytes = ring + 128 + size_t(depth) * sizeof(uint64_t);
  std::vector<g::sq_t> dsqs(c->nqueues);
  for (uint32_t i = 0; i < c->nqueues; ++i) {
    auto d = std::make_unique<DQueue>();
    d->host = static_cast<char *>(c->cuda->host_alloc(bytes));
    // reserved, ready, published, then the CQ's mirror (gda.h poll_cq), zeroed.
    constexpr size_t kCounterWords = 3 + g::kMirrorWords;
    d->counters = static_cast<uint64_t *>(
        c->cuda->device_alloc(kCounterWords * sizeof(uint64_t), nullptr, c->setup_lane));
    if (!d->host || !d->counters) {
      ILOG(XSHMEM_LOG_ERROR,
           "pe %d: cannot allocate the GPU threads' queue to pe %d (%zu bytes of page-locked "
           "host memory mapped for the GPU, %zu bytes of GPU memory)",
           c->my_pe, pe, bytes, kCounterWords * sizeof(uint64_t));
      if (d->host) c->cuda->host_free(d->host);
      if (d->counters) c->cuda->device_free(d->counters);
      return false;
    }
    auto *cqe = reinterpret_cast<g::cqe_t *>(d->host + ring);
    auto *dbr = reinterpret_cast<uint32_t *>(d->host + ring + 64);
    uint32_t *retired = dbr + 2;
    bind_queue(
        c, pe,
        queue_mem{d->host, depth, dbr, cqe, d->counters, d->counters + 1, d->counters + 2,
                  reinterpret_cast<uint64_t *>(d->host + ring + 128), retired, d->counters + 3},
        &d->q, &dsqs[i]);
    p.watch.push_back(gp::dq_watch_t{&dbr[g::kSendDbr], retired});
    p.dqueues.push_back(std::move(d));
  }
  // The GPU's handle, its queues and its key in one piece of GPU memory.
  const size_t qoff = (sizeof(gp::peer_handle_t) + 63) / 64 * 64;
  const size_t koff = qoff + dsqs.size() * sizeof(g::sq_t);
  std::vector<char> image(koff + sizeof(uint32_t));
  char *dev = static_cast<char *>(c->cuda->device_alloc(image.size(), nullptr, c->setup_lane));
  if (!dev) {
    ILOG(XSHMEM_LOG_ERROR, "pe %d: cannot allocate %zu bytes of GPU memory for the handle of pe %d",
         c->my_pe, image.size(), pe);
    return false;
  }
  gp::peer_handle_t dh = p.handle;
  dh.queues = reinterpret_cast<g::sq_t *>(dev + qoff);
  dh.rkeys = reinterpret_cast<const uint32_t *>(dev + koff);
  dh.ndq = 0;
  dh.dq = nullptr;
  memcpy(image.data(), &dh, sizeof dh);
  memcpy(image.data() + qoff, dsqs.data(), dsqs.size() * sizeof(g::sq_t));
  memcpy(image.data() + koff, &p.rkey, sizeof(uint32_t));
  if (c->cuda->copy(c->setup_lane, dev, image.data(), image.size()) != XSHMEM_SUCCESS) {
    c->cuda->device_free(dev);
    ILOG(XSHMEM_LOG_ERROR, "pe %d: cannot copy the GPU threads' handle of pe %d to the GPU",
         c->my_pe, pe);
    return false;
  }
  p.device_handle = dev;
  p.handle.ndq = static_cast<uint32_t>(p.watch.size());
  p.handle.dq = p.watch.data();
  return true;
}

// The queues and the handle of a selected peer (its connection made).
Peer *make_peer(Ctx *c, int pe) {
  auto p = std::make_unique<Peer>();
  p->rkey = kHeapKey;
  p->queues.reserve(c->nqueues);
  p->sqs.resize(c->nqueues);
  for (uint32_t i = 0; i < c->nqueues; ++i) {
    auto q = std::make_unique<Queue>();
    if (posix_memalign(&q->wqes, 64, size_t(c->depth) * g::kWqeBB) != 0) return nullptr;
    memset(q->wqes, 0, size_t(c->depth) * g::kWqeBB);
    // Host threads give their own variables for fetched values (no result words).
    bind_queue(c, pe,
               queue_mem{q->wqes, c->depth, q->dbr, &q->cqe, &q->reserved, &q->ready, &q->published,
                         nullptr, nullptr, nullptr},
               &q->q, &p->sqs[i]);
    p->queues.push_back(std::move(q));
  }
  gp::peer_handle_t &h = p->handle;
  h.format = XSHMEM_GDA_FORMAT_MLX5;
  h.version = XSHMEM_GDA_MLX5_VERSION;
  h.nqueues = c->nqueues;
  h.key_shift = 63;  // one key over the whole heap
  h.remote_base = c->bases[pe];
  h.heap_size = c->heap_size;
  h.rkeys = &p->rkey;
  h.nrkeys = 1;
  h.lkey = kLocalKey;
  h.discard = &c->discard;
  h.queues = p->sqs.data();
  if (c->cuda && !make_device_queues(c, pe, *p)) return nullptr;
  c->peers[pe] = std::move(p);
  return c->peers[pe].get();
}

xshmem_status_t ib_connect(void *ctx, const uint8_t *selected, xshmem_peer_info_v1_t *infos) {
  Ctx *c = static_cast<Ctx *>(ctx);
  c->peers.resize(c->n_pes);
  xshmem_status_t result = XSHMEM_SUCCESS;
  for (int pe = 0; pe < c->n_pes && result == XSHMEM_SUCCESS; ++pe) {
    if (!selected[pe]) continue;
    if (!c->active || !c->heap_ok) {
      result = XSHMEM_ERR_UNREACHABLE;
      break;
    }
    std::string why;
    if (!c->nic->connect(pe, c->addrs[pe], c->ports[pe], &why)) {
      ILOG(XSHMEM_LOG_ERROR, "pe %d: the NIC model cannot reach pe %d: %s", c->my_pe, pe,
           why.c_str());
      result = XSHMEM_ERR_PEER_FAILED;
      break;
    }
    Peer *p = make_peer(c, pe);
    if (p == nullptr) {
      result = XSHMEM_ERR_NOMEM;
      break;
    }
    for (auto &q : p->queues) c->nic->add_queue(&q->q);
    for (auto &d : p->dqueues) c->nic->add_queue(&d->q);
    infos[pe].path = XSHMEM_PATH_GDA;
    infos[pe].lsa_base = nullptr;
    if (XSHMEM_PEER_INFO_HAS(&infos[pe], desc)) {
      infos[pe].desc = xshmem_peer_desc_v1_t{};
      infos[pe].desc.kind = XSHMEM_DESC_GDA;
      infos[pe].desc.u.gda.format = XSHMEM_GDA_FORMAT_MLX5;
      infos[pe].desc.u.gda.version = XSHMEM_GDA_MLX5_VERSION;
      infos[pe].desc.u.gda.handle = &p->handle;
      infos[pe].desc.u.gda.handle_size = sizeof p->handle;
    }
    if (p->device_handle != nullptr) {
      if (!XSHMEM_PEER_INFO_HAS(&infos[pe], gda_device_handle)) {
        ILOG(XSHMEM_LOG_ERROR,
             "pe %d: the core is older than the GPU threads' GDA handle (peer info of %u bytes): "
             "a GPU heap cannot use ibgda",
             c->my_pe, infos[pe].struct_size);
        result = XSHMEM_ERR_UNSUPPORTED;
        break;
      }
      infos[pe].gda_device_handle = p->device_handle;
    }
  }
  c->connected = c->connected || result == XSHMEM_SUCCESS;
  return result;
}

xshmem_status_t ib_heap_deregister(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (!c->active || !c->heap_ok) return XSHMEM_SUCCESS;
  // Collective, after the job's last operation: once every PE is here nothing is in flight, and
  // a connection that closes from then on is no error.
  c->nic->quiescing();
  (void)g_svc->barrier();
  c->nic->stop();
  c->heap_ok = false;
  return XSHMEM_SUCCESS;
}

xshmem_status_t ib_finalize(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (c->nic) c->nic->stop();
  c->nic.reset();  // before the queues it reads
  if (c->cuda) {
    for (auto &p : c->peers) {
      if (!p) continue;
      for (auto &d : p->dqueues) {
        c->cuda->host_free(d->host);
        c->cuda->device_free(d->counters);
      }
      c->cuda->device_free(p->device_handle);
    }
    c->peers.clear();
    c->cuda->lane_close(c->nic_lane);
    c->cuda->lane_close(c->setup_lane);
  }
  delete c;
  return XSHMEM_SUCCESS;
}

xshmem_status_t ib_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                           xshmem_peer_info_v1_t *info) {
  static const bool named = named_by_user();
  static const bool model = model_mode();
  static const uint32_t latency =
      static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_IBGDA_LATENCY_NS"));
  // The plan's topology may be a recording of another machine: the reasons come from the plan's
  // PEs (their heaps, their NICs), never from this machine's devices.
  if (!model) {
    if (self->nic != nullptr)
      fill_reason(info,
                  "%s: this version drives only the software NIC model "
                  "(XSHMEM_IBGDA_NIC=model)",
                  self->nic);
    else
      fill_reason(info, "no RDMA NIC for pe %d (XSHMEM_IBGDA_NIC=model runs the software model)",
                  self->pe);
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (XSHMEM_PLAN_PE_HAS(self, hosts) && self->hosts == 1 && !named) {
    fill_reason(info,
                "not started: a one-host job that names ibgda nowhere (name it in "
                "XSHMEM_TRANSPORTS to use it on one host)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  info->path = XSHMEM_PATH_GDA;
  info->flags = XSHMEM_PEER_ATOMICS_NATIVE | XSHMEM_PEER_ORDERED;
  info->latency_ns = latency;
  info->bandwidth_mbps = 1000;
  info->lsa_base = nullptr;
  fill_reason(info, "%s, software NIC model over TCP",
              self->pe == peer->pe             ? "this pe, looped back"
              : self->host_id == peer->host_id ? "same host"
                                               : "another host");
  return XSHMEM_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default")))
const xshmem_transport_v1_t xshmem_transport_plugin_v1 = {
    .abi_version = XSHMEM_TRANSPORT_ABI_VERSION,
    .struct_size = sizeof(xshmem_transport_v1_t),
    .name = kName,
    .caps = XSHMEM_TRANSPORT_CAP_HOST_HEAP | XSHMEM_TRANSPORT_CAP_DEVICE_HEAP |
            XSHMEM_TRANSPORT_CAP_NIC,
    .load = ib_load,
    .init = ib_init,
    .heap_register = ib_heap_register,
    .can_reach = ib_can_reach,
    .connect = ib_connect,
    .heap_deregister = ib_heap_deregister,
    .finalize = ib_finalize,
    .heap_grow = nullptr,
    .data_ops = nullptr,
    .predict = ib_predict,
};
