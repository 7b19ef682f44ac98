// xshmem core: the transports at init -- start each allowed plugin, register the heap, select
// one transport per peer, connect; and stop them at finalize.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <xshmem/device/coll_reduce.h>  // collectives: reductions
#include <xshmem/device/coll_move.h>    // collectives: data movement
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>
#include "loader.h"
#include "checks.h"
#include "config.h"
#include "cuda/cuda_rt.h"
#include "device_api.h"
#include "heap.h"
#include "log.h"
#include "nics.h"
#include "node_ipc.h"
#include "runtime.h"
#include "selection.h"
#include "team.h"
#include "wait_deadline.h"
#include "runtime_internal.h"

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "core";

// The transports the user named in XSHMEM_REMOTE_TRANSPORT and XSHMEM_PAIR_TRANSPORTS must be
// loaded and allowed; the text must parse. Checked before any transport starts; logs the problem.
bool check_overrides(const config::ListSpec &allowed, const std::string &allowed_text,
                     std::vector<select::PairRule> *rules, std::string *remote) {
  *remote = config::get_string("XSHMEM_REMOTE_TRANSPORT");
  for (char &c : *remote) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string pair_text = config::get_string("XSHMEM_PAIR_TRANSPORTS");
  std::string error;
  if (!select::parse_pair_rules(pair_text, g_rt.job.n_pes, rules, &error)) {
    XLOG_ERROR(kSubsys, "XSHMEM_PAIR_TRANSPORTS=\"%s\": %s", pair_text.c_str(), error.c_str());
    return false;
  }
  auto usable = [&](const std::string &name, const std::string &who) {
    if (!loader().find_transport(name)) {
      std::string have;
      for (auto &t : loader().transports()) have += (have.empty() ? "" : ", ") + t.name;
      XLOG_ERROR(kSubsys,
                 "%s names transport %s, but no such transport plugin is loaded (loaded: %s); "
                 "check the name, XSHMEM_PLUGIN_PATH, or run xshmem-info",
                 who.c_str(), name.c_str(), have.empty() ? "none" : have.c_str());
      return false;
    }
    if (!allowed.selects(name)) {
      XLOG_ERROR(kSubsys,
                 "%s names transport %s, which XSHMEM_TRANSPORTS=\"%s\" does not allow; allow "
                 "it or name another",
                 who.c_str(), name.c_str(), allowed_text.c_str());
      return false;
    }
    return true;
  };
  if (!remote->empty() && !usable(*remote, "XSHMEM_REMOTE_TRANSPORT=" + *remote)) return false;
  for (const select::PairRule &r : *rules)
    if (!usable(r.transport, "XSHMEM_PAIR_TRANSPORTS entry '" + r.text + "'")) return false;
  return true;
}

// Stand-ins for the data operations a plugin leaves out: "not supported", typed per operation.
xshmem_status_t stub_put(void *, int, int, uint64_t, const void *, size_t, uint32_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_get(void *, int, int, void *, uint64_t, size_t, uint32_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_amo(void *, int, int, uint64_t, xshmem_amo_op_t, xshmem_amo_type_t, uint64_t,
                         uint64_t, uint64_t *, uint32_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_put_signal(void *, int, int, uint64_t, const void *, size_t, uint64_t,
                                uint64_t, int, uint32_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_channel(void *, int) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_progress(void *) {
  return XSHMEM_SUCCESS;  // nothing to progress
}
xshmem_status_t stub_mem_register(void *, void *, size_t, xshmem_mem_kind_t, void **) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_mem_deregister(void *, void *) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t stub_error_query(void *, char *buf, size_t len) {
  if (buf && len) buf[0] = '\0';
  return XSHMEM_SUCCESS;  // no asynchronous errors to report
}

// Asynchronous errors (error_query) are polled once per quiet, on the host: the adopted quiet of a
// transport with an error_query is this wrapper, so the PROXY path's quiet (proxy.h) stops
// the job with the transport's own line. The LSA path never goes through it.
struct Watched {
  void *ctx;
  xshmem_status_t (*quiet)(void *, int);
  xshmem_status_t (*error_query)(void *, char *, size_t);
  std::string name;
};
std::mutex g_watch_mutex;  // written at init and finalize only; read by quiet
std::vector<Watched> g_watched;

xshmem_status_t quiet_and_poll(void *ctx, int channel) {
  const Watched *w = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    for (const Watched &x : g_watched)
      if (x.ctx == ctx) w = &x;
  }
  if (w == nullptr) return XSHMEM_ERR_INTERNAL;
  xshmem_status_t st = w->quiet(ctx, channel);
  char line[256] = {0};
  xshmem_status_t err = w->error_query(ctx, line, sizeof(line));
  if (err != XSHMEM_SUCCESS) {
    line[sizeof(line) - 1] = '\0';
    XLOG_ERROR(kSubsys, "transport %s reports an asynchronous error (status %d, %s): %s; stopping",
               w->name.c_str(), err, Status::status_str(err), line[0] ? line : "no details given");
    return err;
  }
  return st;
}

// Starts the proxy engine of a GPU PE (rings in mapped host memory; a CPU PE's with
// XSHMEM_PROXY_HOST: in plain memory) over the PROXY peers'
// transports, its threads near this PE's NIC, else its GPU (hwloc), unless XSHMEM_PROXY_CPUS
// places them.
Status start_proxy(proxy::Options o) {
  o.my_pe = g_rt.job.my_pe;
  o.local_rank = g_rt.job.my_local_pe;
  o.mapped = heap_on_device();  // GPU threads read the rings: pinned host memory mapped
  if (o.cpus.empty()) {
    topo::DiscoverOptions d;
    d.probe_cuda = false;
    d.probe_nvml = false;
    d.probe_fabric = false;
    topo::Machine m;
    std::string error;
    if (topo::discover(d, &m, &error))
      o.near_cpuset = proxy::near_cpuset(m, nics::my_nic(), g_rt.gpu_pci, &o.near_what);
    else
      XLOG_WARN(kSubsys, "pe %d: no topology for the proxy threads' placement (%s); unpinned",
                g_rt.job.my_pe, error.c_str());
  }
  XSHMEM_CHECK(proxy::Engine::create(o, g_rt.peer_remote, &g_rt.proxy));
  XLOG_DEBUG(kSubsys, "pe %d: proxy engine: %u channels, %u threads, %u slots per channel",
             g_rt.job.my_pe, o.channels, o.threads, o.slots);
  return XSHMEM_SUCCESS;
}

}  // namespace

void adopt_data_ops(ActiveTransport &at) {
  const xshmem_transport_v1_t *t = at.plugin->ops;
  at.has_data_ops = XSHMEM_TRANSPORT_HAS_OP(t, data_ops);
  xshmem_transport_data_ops_v1_t &d = at.data;
  d = xshmem_transport_data_ops_v1_t{};
  d.struct_size = sizeof(d);
  d.put = stub_put;
  d.get = stub_get;
  d.amo = stub_amo;
  d.put_signal = stub_put_signal;
  d.fence = stub_channel;
  d.quiet = stub_channel;
  d.progress = stub_progress;
  d.mem_register = stub_mem_register;
  d.mem_deregister = stub_mem_deregister;
  d.error_query = stub_error_query;
  if (!at.has_data_ops) return;
  // The loader refused every table smaller than XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE.
  const xshmem_transport_data_ops_v1_t *p = t->data_ops;
  d.flags = p->flags;
#define XSHMEM_ADOPT(op) \
  if (XSHMEM_DATA_OPS_HAS_OP(p, op)) d.op = p->op
  XSHMEM_ADOPT(put);
  XSHMEM_ADOPT(get);
  XSHMEM_ADOPT(amo);
  XSHMEM_ADOPT(put_signal);
  XSHMEM_ADOPT(fence);
  XSHMEM_ADOPT(quiet);
  XSHMEM_ADOPT(progress);
  XSHMEM_ADOPT(mem_register);
  XSHMEM_ADOPT(mem_deregister);
  XSHMEM_ADOPT(error_query);
#undef XSHMEM_ADOPT
}

void watch_async_errors(ActiveTransport &at) {
  if (!at.has_data_ops || !XSHMEM_DATA_OPS_HAS_OP(at.plugin->ops->data_ops, error_query)) return;
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_watched.push_back({at.ctx, at.data.quiet, at.data.error_query, at.plugin->name});
  at.data.quiet = quiet_and_poll;
}

Status start_transports() {
  const config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  const std::string allowed_text = config::get_string("XSHMEM_TRANSPORTS");
  auto wanted = [&](const std::string &name) { return spec.selects(name); };
  if (!spec.exclude)
    for (auto &w : spec.words)
      if (!loader().find_transport(w)) {
        XLOG_ERROR(kSubsys, "XSHMEM_TRANSPORTS names %s, but no such transport plugin is loaded",
                   w.c_str());
        return XSHMEM_ERR_NOT_FOUND;
      }
  std::vector<select::PairRule> rules;
  std::string remote;
  const bool overrides_ok = check_overrides(spec, allowed_text, &rules, &remote);
  if (!all_ok(overrides_ok)) {
    if (overrides_ok)
      XLOG_ERROR(kSubsys, "another PE found an error in the transport overrides; stopping");
    return XSHMEM_ERR_INVALID;
  }
  // The topology is discovered only when something uses it: a NIC transport, or PE 0's info log.
  bool need_nic = false;
  for (auto &t : loader().transports())
    need_nic = need_nic || (wanted(t.name) && (t.ops->caps & XSHMEM_TRANSPORT_CAP_NIC));
  XSHMEM_CHECK(nics::choose_at_init(need_nic, g_rt.job.my_pe, g_rt.job.n_pes, g_rt.host_id,
                                    g_rt.local_rank, !heap_on_device()));
  // Job info 1.2: this PE's NIC, before any transport's init reads it (NULL when none).
  g_rt.job.nic = nics::my_nic().empty() ? nullptr : nics::my_nic().c_str();
  // Channels: on a GPU PE (or a CPU PE with XSHMEM_PROXY_HOST) every proxy ring channel
  // (XSHMEM_PROXY_CHANNELS) gets its own transport channel, and host contexts spread over them too;
  // a CPU PE's threads call the transports directly and share one channel per transport.
  proxy::Options popts;
  g_rt.job.num_channels = 1;
  const bool want_proxy = heap_on_device() || config::get_bool("XSHMEM_PROXY_HOST");
  if (want_proxy) {
    std::string error;
    const bool ok = proxy::options_from_config(&popts, &error);
    if (!ok) XLOG_ERROR(kSubsys, "pe %d: %s", g_rt.job.my_pe, error.c_str());
    if (!all_ok(ok)) return XSHMEM_ERR_INVALID;
    g_rt.job.num_channels = static_cast<int>(popts.channels);
  }
  // Plugins are tried in name order so every PE makes the same collective calls.
  std::vector<const plugins::Transport *> cands;
  for (auto &t : loader().transports())
    if (wanted(t.name)) cands.push_back(&t);
  std::sort(cands.begin(), cands.end(), [](auto *a, auto *b) { return a->name < b->name; });
  xshmem_mem_region_v1_t region = g_rt.heap.region();
  for (auto *t : cands) {
    ActiveTransport at{t};
    adopt_data_ops(at);
    xshmem_status_t st;
    {
      config::OwnerScope owner(t->name.c_str());
      st = t->ops->init(&at.ctx);
    }
    if (st != XSHMEM_SUCCESS)
      XLOG_WARN(kSubsys, "transport %s: init failed (%s); not used", t->name.c_str(),
                Status::status_str(st));
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      if (st == XSHMEM_SUCCESS) t->ops->finalize(at.ctx);
      continue;
    }
    st = t->ops->heap_register(at.ctx, &region);
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_WARN(kSubsys, "transport %s: heap registration failed on some PE; not used",
                t->name.c_str());
      if (st == XSHMEM_SUCCESS) t->ops->heap_deregister(at.ctx);
      t->ops->finalize(at.ctx);
      continue;
    }
    // The chunks committed so far (device heaps), as if the heap had grown right now.
    st = grow_transport(at, 0);
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_WARN(kSubsys, "transport %s: mapping the heap's chunks failed on some PE; not used",
                t->name.c_str());
      t->ops->heap_deregister(at.ctx);
      t->ops->finalize(at.ctx);
      continue;
    }
    at.heap_registered = true;
    watch_async_errors(at);
    g_rt.transports.push_back(at);
  }
  g_rt.heap.close_chunk_fds();  // every transport has imported (or dup'ed) what it needs

  // Selection, per peer (selection.h, the same function as xshmem-info --plan): a pair
  // override, else XSHMEM_REMOTE_TRANSPORT for a peer on another host, else the cheapest
  // transport that reaches it. A named transport that cannot serve the pair is an error, never a
  // fallback to another one.
  const int n = g_rt.job.n_pes, me = g_rt.job.my_pe;
  const size_t nt = g_rt.transports.size();
  if (nt > 127) {
    XLOG_ERROR(kSubsys, "%zu transports started; at most 127 are supported", nt);
    return XSHMEM_ERR_INTERNAL;
  }
  std::vector<std::string> names;
  for (auto &at : g_rt.transports) names.push_back(at.plugin->name);
  // can_reach's answer per (peer, transport); reach_info keeps what connect gets.
  std::vector<select::Answer> answers(size_t(n) * nt);
  std::vector<xshmem_peer_info_v1_t> reach_info(size_t(n) * nt);
  for (int pe = 0; pe < n; ++pe)
    for (size_t ti = 0; ti < nt; ++ti) {
      auto &at = g_rt.transports[ti];
      xshmem_peer_info_v1_t info{};
      info.struct_size = sizeof(info);
      const bool ok = at.plugin->ops->can_reach(at.ctx, pe, &info) == XSHMEM_SUCCESS;
      info.reason[sizeof(info.reason) - 1] = '\0';
      select::Answer &a = answers[size_t(pe) * nt + ti];
      a.reached = ok;
      a.path = static_cast<int>(info.path);
      a.latency_ns = info.latency_ns;
      a.bandwidth_mbps = info.bandwidth_mbps;
      a.reason = info.reason;
      if (ok) reach_info[size_t(pe) * nt + ti] = info;
    }
  // A plugin that gives no reason (1.0/1.1, or none written): what its caps say, where they say
  // something (the heap's kind, another host).
  auto caps_reason = [&](size_t ti, int pe) -> std::string {
    const uint64_t caps = g_rt.transports[ti].plugin->ops->caps;
    const uint64_t heap_cap =
        heap_on_device() ? XSHMEM_TRANSPORT_CAP_DEVICE_HEAP : XSHMEM_TRANSPORT_CAP_HOST_HEAP;
    if (!(caps & heap_cap))
      return std::string("serves ") + (heap_on_device() ? "host" : "GPU") +
             " heaps only, and the heap is in " + g_heap_why;
    if (g_rt.host_id[pe] != g_rt.host_id[me] && !(caps & XSHMEM_TRANSPORT_CAP_NIC))
      return "reaches no other host";
    return "";
  };
  select::Rules sel;
  sel.pairs = rules;
  sel.remote = remote;
  const std::vector<select::Choice> picked =
      select::choose(me, n, names, answers, sel, g_rt.host_id, caps_reason);
  std::vector<int> choice(n, -1);
  bool chose = true;
  std::string others;
  for (auto &t : loader().transports())
    if (!wanted(t.name)) others += (others.empty() ? "" : ", ") + t.name;
  for (int pe = 0; pe < n && chose; ++pe) {
    choice[pe] = picked[pe].transport;
    if (picked[pe].transport >= 0) continue;
    chose = false;
    if (picked[pe].error.rfind("no transport reaches", 0) == 0)
      // Each started transport's own reason (can_reach), else what its caps say.
      XLOG_ERROR(
          kSubsys,
          "no transport reaches pe %d from pe %d (XSHMEM_TRANSPORTS=\"%s\"; started: %s%s%s); "
          "allow a transport that reaches it",
          pe, me, allowed_text.c_str(),
          nt == 0 ? "none (see the warnings above)" : picked[pe].tried.c_str(),
          others.empty() ? "" : "; not allowed: ", others.c_str());
    else
      XLOG_ERROR(kSubsys, "%s", picked[pe].error.c_str());
  }
  if (!all_ok(chose)) {
    if (chose)
      XLOG_ERROR(kSubsys, "another PE could not select a transport for one of its peers; stopping");
    return XSHMEM_ERR_UNREACHABLE;
  }

  // Both ends of a pair use one transport (their connect calls pair up): select::agree. The
  // gathered matrix is also what PE 0 logs.
  std::vector<int8_t> row(n), matrix(size_t(n) * n);
  for (int pe = 0; pe < n; ++pe) row[pe] = static_cast<int8_t>(choice[pe]);
  XSHMEM_CHECK(oob_allgather(row.data(), matrix.data(), n));
  std::vector<int> lower(n);
  for (int pe = 0; pe < n; ++pe)
    lower[pe] = matrix[size_t(std::min(me, pe)) * n + std::max(me, pe)];
  const std::vector<select::Choice> settled = select::agree(me, n, names, choice, lower, answers);
  bool agreed = true;
  for (int pe = 0; pe < n; ++pe) {
    if (settled[pe].transport < 0) {
      XLOG_ERROR(kSubsys, "%s", settled[pe].error.c_str());
      agreed = false;
      continue;
    }
    if (settled[pe].transport != choice[pe])
      XLOG_DEBUG(kSubsys, "pair (pe %d, pe %d): taking pe %d's choice %s over %s", me, pe,
                 std::min(me, pe), names[settled[pe].transport].c_str(), names[choice[pe]].c_str());
    choice[pe] = settled[pe].transport;
  }
  if (!all_ok(agreed)) {
    if (agreed)
      XLOG_ERROR(kSubsys, "another PE could not agree on a transport with a peer; stopping");
    return XSHMEM_ERR_UNREACHABLE;
  }
  std::vector<xshmem_peer_info_v1_t> best(n);
  for (int pe = 0; pe < n; ++pe) best[pe] = reach_info[size_t(pe) * nt + choice[pe]];
  if (me == 0 && log::enabled(XSHMEM_LOG_INFO, kSubsys)) {
    std::vector<int8_t> agreed_matrix(size_t(n) * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        agreed_matrix[size_t(i) * n + j] = matrix[size_t(std::min(i, j)) * n + std::max(i, j)];
    XLOG_INFO(kSubsys, "transport per pe pair (row: from pe, column: to pe), %d pes:", n);
    for (const std::string &line : select::format_matrix(agreed_matrix, n, names))
      XLOG_INFO(kSubsys, "  %s", line.c_str());
  }

  // Connect: every transport, collectively, learns which peers chose it.
  g_rt.peers.assign(n, dev::peer_t{});
  g_rt.peer_transport.assign(n, nullptr);
  g_rt.peer_transport_index.assign(n, -1);
  g_rt.peer_remote.assign(n, dev::host_remote_t{});
  g_rt.remote_transports.clear();
  g_rt.gda_peers.clear();
  g_rt.peer_device_base.assign(n, 0);
  for (size_t ti = 0; ti < g_rt.transports.size(); ++ti) {
    auto &at = g_rt.transports[ti];
    std::vector<uint8_t> selected(n);
    std::vector<xshmem_peer_info_v1_t> infos(n);
    for (int pe = 0; pe < n; ++pe) {
      selected[pe] = choice[pe] == static_cast<int>(ti);
      infos[pe] = best[pe];
    }
    xshmem_status_t st = at.plugin->ops->connect(at.ctx, selected.data(), infos.data());
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_ERROR(kSubsys, "transport %s: connect failed (%s here)", at.plugin->name.c_str(),
                 Status::status_str(st));
      return XSHMEM_ERR_UNREACHABLE;
    }
    for (int pe = 0; pe < n; ++pe) {
      if (!selected[pe]) continue;
      dev::peer_t &p = g_rt.peers[pe];
      p.path = static_cast<uint8_t>(infos[pe].path);
      p.flags = static_cast<uint8_t>(infos[pe].flags);
      // The tagged descriptor (1.2); a plugin that leaves it NONE gives lsa_base (1.0/1.1).
      const xshmem_peer_desc_v1_t &desc = infos[pe].desc;
      p.base = reinterpret_cast<uintptr_t>(desc.kind == XSHMEM_DESC_LSA   ? desc.u.lsa.base
                                           : desc.kind == XSHMEM_DESC_GDA ? desc.u.gda.handle
                                                                          : infos[pe].lsa_base);
      g_rt.peer_transport[pe] = at.plugin->name.c_str();
      g_rt.peer_transport_index[pe] = static_cast<int>(ti);
      if (p.path == XSHMEM_PATH_LSA && p.base == 0) {
        XLOG_ERROR(kSubsys, "transport %s chose the LSA path to pe %d but gave no mapping",
                   at.plugin->name.c_str(), pe);
        return XSHMEM_ERR_INTERNAL;
      }
      if (p.path == XSHMEM_PATH_PROXY) {
        if (!at.has_data_ops) {
          XLOG_ERROR(kSubsys,
                     "transport %s chose the PROXY path to pe %d but has no data operations "
                     "(data_ops is NULL)",
                     at.plugin->name.c_str(), pe);
          return XSHMEM_ERR_INTERNAL;
        }
        g_rt.peer_remote[pe] = dev::host_remote_t{&at.data, at.ctx};
      } else if (p.path == XSHMEM_PATH_GDA) {
        // The handle is read by this build's GDA path code: its format and revision must be
        // the ones that code reads (gda_path.h). GPU threads read the device handle when the
        // transport gives one.
        const char *why = desc.kind != XSHMEM_DESC_GDA || p.base == 0   ? "no GDA descriptor"
                          : desc.u.gda.format != XSHMEM_GDA_FORMAT_MLX5 ? "an unknown handle format"
                          : desc.u.gda.version != XSHMEM_GDA_MLX5_VERSION ||
                                  desc.u.gda.handle_size < sizeof(dev::gdapath::peer_handle_t)
                              ? "another revision of the mlx5 handle"
                              : nullptr;
        if (why != nullptr) {
          XLOG_ERROR(kSubsys,
                     "transport %s chose the GDA path to pe %d with %s (format %u revision %u, "
                     "%zu bytes; this build reads mlx5 revision %d, %zu bytes)",
                     at.plugin->name.c_str(), pe, why, desc.u.gda.format, desc.u.gda.version,
                     desc.u.gda.handle_size, XSHMEM_GDA_MLX5_VERSION,
                     sizeof(dev::gdapath::peer_handle_t));
          return XSHMEM_ERR_UNSUPPORTED;
        }
        g_rt.gda_peers.push_back(pe);
        if (XSHMEM_PEER_INFO_HAS(&infos[pe], gda_device_handle))
          g_rt.peer_device_base[pe] = reinterpret_cast<uintptr_t>(infos[pe].gda_device_handle);
      } else if (p.path != XSHMEM_PATH_LSA) {
        XLOG_ERROR(kSubsys, "transport %s chose path %d to pe %d, which this build cannot serve",
                   at.plugin->name.c_str(), static_cast<int>(p.path), pe);
        return XSHMEM_ERR_UNSUPPORTED;
      }
    }
  }
  // A PE always reaches its own heap by load/store, whichever transport was chosen for it (a job
  // of only a NIC transport selects it for this PE too): xshmem_ptr to oneself is the local
  // address, the SHARED team holds this PE, and local operations never take a network round trip.
  if (dev::peer_t &self = g_rt.peers[me]; self.path != XSHMEM_PATH_LSA) {
    XLOG_DEBUG(kSubsys, "pe %d: its own heap by load/store instead of %s's path %d", me,
               g_rt.peer_transport[me], static_cast<int>(self.path));
    self.path = XSHMEM_PATH_LSA;
    self.base = reinterpret_cast<uintptr_t>(g_rt.heap.base());
    g_rt.peer_remote[me] = dev::host_remote_t{};
    g_rt.gda_peers.erase(std::remove(g_rt.gda_peers.begin(), g_rt.gda_peers.end(), me),
                         g_rt.gda_peers.end());
    g_rt.peer_device_base[me] = 0;
  }
  for (size_t ti = 0; ti < g_rt.transports.size(); ++ti) {
    auto &at = g_rt.transports[ti];
    bool serves = false;
    for (int pe = 0; pe < n; ++pe) serves = serves || g_rt.peer_remote[pe].ops == &at.data;
    if (serves) g_rt.remote_transports.push_back(dev::host_remote_t{&at.data, at.ctx});
  }
  // GPU threads reach PROXY peers through the proxy engine's rings.
  bool proxy_peers = false;
  for (int pe = 0; pe < n; ++pe) proxy_peers = proxy_peers || g_rt.peer_remote[pe].ops != nullptr;
  if (want_proxy && proxy_peers) {
    const bool ok = start_proxy(popts).ok();
    if (!all_ok(ok)) {
      if (ok) XLOG_ERROR(kSubsys, "another PE could not start its proxy engine; stopping");
      g_rt.proxy.reset();
      return XSHMEM_ERR_INTERNAL;
    }
  }
  if (log::enabled(XSHMEM_LOG_DEBUG, kSubsys)) {
    std::string plan;
    for (int pe = 0; pe < n; ++pe)
      plan += (pe ? " " : "") + std::to_string(pe) + ":" + g_rt.peer_transport[pe];
    XLOG_DEBUG(kSubsys, "paths from pe %d: %s", g_rt.job.my_pe, plan.c_str());
  }
  return XSHMEM_SUCCESS;
}

void stop_transports() {
  g_rt.proxy.reset();      // drains the rings into the transports, then quiets them
  g_rt.job.nic = nullptr;  // nics::reset frees the name
  nics::reset();
  {
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    g_watched.clear();
  }
  for (auto it = g_rt.transports.rbegin(); it != g_rt.transports.rend(); ++it) {
    if (it->heap_registered) (void)it->plugin->ops->heap_deregister(it->ctx);
    (void)it->plugin->ops->finalize(it->ctx);
  }
  g_rt.transports.clear();
}
}  // namespace xshmem::core
