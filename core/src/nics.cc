// xshmem core: the NIC settings and the NIC each PE uses. See nics.h.
#include "nics.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "config.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "runtime_internal.h"
#include "selection.h"

namespace xshmem::nics {
namespace {

constexpr const char *kSubsys = "topology";

std::string g_my_nic;

std::string nic_list(const topo::Machine &m) {
  std::string have;
  for (const topo::Nic &n : m.nics) have += (have.empty() ? "" : ", ") + n.name;
  return have.empty() ? "none" : have;
}

bool all_ok(bool ok, int n_pes) {
  std::vector<uint8_t> v(n_pes);
  uint8_t mine = ok;
  if (!core::oob_allgather(&mine, v.data(), 1).ok()) return false;
  return std::all_of(v.begin(), v.end(), [](uint8_t x) { return x != 0; });
}

// Whether the user names a loaded NIC transport (XSHMEM_TRANSPORT_CAP_NIC) for this job: in
// XSHMEM_TRANSPORTS (not as an exclusion) or as the transport of an XSHMEM_PAIR_TRANSPORTS
// entry. Such a transport may carry pairs on one host too (libfabric starts there only when
// named), so its NIC matters. A malformed pair text counts as no name (init reports it).
bool nic_transport_named(int n_pes) {
  const config::ListSpec allowed = config::get_list_spec("XSHMEM_TRANSPORTS");
  std::vector<select::PairRule> rules;
  std::string ignored;
  if (!select::parse_pair_rules(config::get_string("XSHMEM_PAIR_TRANSPORTS"), n_pes, &rules,
                                &ignored))
    rules.clear();
  for (const plugins::Transport &t : core::loader().transports()) {
    if (!(t.ops->caps & XSHMEM_TRANSPORT_CAP_NIC)) continue;
    if (!allowed.exclude && !allowed.words.empty() && allowed.selects(t.name)) return true;
    for (const select::PairRule &r : rules)
      if (r.transport == t.name) return true;
  }
  return false;
}

}  // namespace

bool from_config(Settings *out, std::string *error) {
  return parse(config::get_string("XSHMEM_NICS"), config::get_string("XSHMEM_NIC_MAP"), out, error);
}

bool check_names(const Settings &s, const topo::Machine &m, std::string *error) {
  auto find = [&](const std::string &name) -> const topo::Nic * {
    for (const topo::Nic &n : m.nics)
      if (n.name == name) return &n;
    return nullptr;
  };
  const std::string host = m.host.empty() ? "this machine" : "host " + m.host;
  for (const auto &[name, port] : s.filter.entries) {
    const topo::Nic *n = find(name);
    if (!n) {
      *error = "XSHMEM_NICS=\"" + s.nics_text + "\" names NIC " + name + ", which " + host +
               " lacks (NICs: " + nic_list(m) + ")";
      return false;
    }
    if (port > 0 && !n->ports.empty() &&
        std::none_of(n->ports.begin(), n->ports.end(),
                     [&](const topo::NicPort &p) { return p.num == port; })) {
      *error = "XSHMEM_NICS=\"" + s.nics_text + "\" names port " + std::to_string(port) + " of " +
               name + ", which has " + std::to_string(n->ports.size()) + " port(s)";
      return false;
    }
  }
  for (const auto &[local, name] : s.by_local_pe)
    if (!find(name)) {
      *error = "XSHMEM_NIC_MAP=\"" + s.map_text + "\" gives local pe " + std::to_string(local) +
               " NIC " + name + ", which " + host + " lacks (NICs: " + nic_list(m) + ")";
      return false;
    }
  return true;
}

std::map<int, std::string> pe_map(const Settings &s, int pes_per_node, int nodes) {
  std::map<int, std::string> out;
  for (int node = 0; node < nodes; ++node)
    for (const auto &[local, name] : s.by_local_pe)
      if (local < pes_per_node) out[node * pes_per_node + local] = name;
  return out;
}

std::vector<topo::PePlan> pick(const topo::Machine &m, const Settings &s, int local_pes,
                               bool host_heap) {
  topo::PlanOptions o;
  o.nics = s.nics_text;
  o.nic_map = pe_map(s, local_pes, 1);
  o.host_heap = host_heap;
  // Only the plan's per-PE NIC choice is used here, not its pairs.
  std::vector<std::string> errors, notes;
  return topo::plan_pes({m}, local_pes, 1, o, &errors, &notes);
}

std::string summary(const topo::Machine &m, bool fabric_probed) {
  std::string nics;
  for (const topo::Nic &n : m.nics) nics += (nics.empty() ? "" : ", ") + n.name;
  auto count = [](size_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return "host " + (m.host.empty() ? std::string("?") : m.host) + " (" + m.origin +
         "): " + count(m.numa.size(), "NUMA node", "NUMA nodes") + ", " +
         count(m.gpus.size(), "GPU", "GPUs") + ", " + count(m.nics.size(), "NIC", "NICs") +
         (nics.empty() ? "" : " (" + nics + ")") +
         (fabric_probed ? ", " + count(m.domains.size(), "fabric domain", "fabric domains") : "");
}

Status choose_at_init(bool need_nic, int my_pe, int n_pes, const std::vector<uint64_t> &host_id,
                      const std::vector<int> &local_rank, bool host_heap) {
  g_my_nic.clear();
  // An allowed NIC transport needs a NIC only where it will carry traffic: a peer on another
  // host, or a user who names it (then it may serve pairs on this host). On one host the
  // default list's NIC transports stay dormant, so init neither discovers the topology (hwloc
  // I/O discovery: 100 ms and more) nor reads the NIC settings. host_id is the same on every
  // PE, and so is the settings' text (the transports' selection relies on that too): every PE
  // decides alike and the collectives below match.
  bool other_host = false;
  for (int pe = 0; pe < n_pes; ++pe) other_host = other_host || host_id[pe] != host_id[my_pe];
  const bool dormant = need_nic && !other_host && !nic_transport_named(n_pes);
  if (dormant) need_nic = false;
  const bool log_here = my_pe == 0 && log::enabled(XSHMEM_LOG_INFO, kSubsys);
  if (!need_nic && !log_here) {
    // Logged as core: this is the init step, and "topology" at info is what would discover.
    if (dormant)
      XLOG_DEBUG("core",
                 "topology not discovered: every pe is on this host and no NIC transport is named "
                 "(XSHMEM_TRANSPORTS or XSHMEM_PAIR_TRANSPORTS would use one here), no topology "
                 "info log");
    else
      XLOG_DEBUG("core", "topology not discovered: no NIC transport allowed, no topology info log");
    return XSHMEM_SUCCESS;
  }
  const char *unused_why = dormant ? "every pe is on this host and no NIC transport is named"
                                   : "no NIC transport is allowed";
  // Without a NIC transport only PE 0 gets here, for its log: no collective then, and a bad
  // setting is a warning (nothing uses it).
  std::string error;
  Settings s;
  topo::Machine m;
  bool ok = from_config(&s, &error);
  if (ok) {
    const auto t0 = std::chrono::steady_clock::now();
    topo::DiscoverOptions d;
    d.probe_cuda = !host_heap;  // CUDA ordinals and peer access matter to GPU PEs only
    d.probe_nvml = false;       // NVLink counts do not change the NIC choice
    d.probe_fabric = false;     // fi_getinfo is slow, and the libfabric transport asks itself
    ok = topo::discover(d, &m, &error);
    XLOG_DEBUG(
        kSubsys, "topology discovered in %.0f ms",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (ok) ok = check_names(s, m, &error);
  if (!ok) {
    if (need_nic)
      XLOG_ERROR(kSubsys, "pe %d: %s; fix the variable (xshmem-info --topology lists the NICs)",
                 my_pe, error.c_str());
    else
      XLOG_WARN(kSubsys, "%s; ignored: %s", error.c_str(), unused_why);
  }
  if (need_nic && !all_ok(ok, n_pes)) {
    if (ok)
      XLOG_ERROR(kSubsys, "another PE found an error in XSHMEM_NICS or XSHMEM_NIC_MAP; stopping");
    return XSHMEM_ERR_INVALID;
  }
  if (!ok) return XSHMEM_SUCCESS;

  int local_pes = 0;
  for (int pe = 0; pe < n_pes; ++pe) local_pes += host_id[pe] == host_id[my_pe];
  const std::vector<topo::PePlan> local = pick(m, s, local_pes, host_heap);
  topo::PePlan mine;
  if (local_rank[my_pe] < static_cast<int>(local.size())) mine = local[local_rank[my_pe]];
  g_my_nic = mine.nic_name;

  // PE 0 logs every PE's NIC: gathered when every PE chose one, else those of its own host.
  constexpr size_t kLen = 96;
  std::vector<char> all;
  if (need_nic) {
    char row[kLen] = {0};
    snprintf(row, sizeof(row), "%s", mine.nic < 0 ? "" : mine.nic_name.c_str());
    all.assign(kLen * n_pes, 0);
    XSHMEM_CHECK(core::oob_allgather(row, all.data(), kLen));
  }
  if (!log_here) return XSHMEM_SUCCESS;
  XLOG_INFO(kSubsys, "topology: %s", summary(m, false).c_str());
  if (!s.nics_text.empty() || !s.map_text.empty())
    XLOG_INFO(kSubsys, "nic settings: XSHMEM_NICS=\"%s\" XSHMEM_NIC_MAP=\"%s\"",
              s.nics_text.c_str(), s.map_text.c_str());
  if (m.nics.empty()) {
    XLOG_INFO(kSubsys, "nic per pe: no RDMA NIC on this host");
    return XSHMEM_SUCCESS;
  }
  XLOG_INFO(kSubsys, "nic per pe%s%s%s:", need_nic ? "" : " (this host's pes; ",
            need_nic ? "" : unused_why, need_nic ? "" : ", so none uses it)");
  for (int pe = 0; pe < n_pes; ++pe) {
    if (need_nic && host_id[pe] != host_id[0]) {
      const char *name = &all[kLen * pe];
      XLOG_INFO(kSubsys, "  pe %d: %s (chosen on its host)", pe, name[0] ? name : "none");
      continue;
    }
    if (host_id[pe] != host_id[0] || local_rank[pe] >= static_cast<int>(local.size())) continue;
    const topo::PePlan &p = local[local_rank[pe]];
    XLOG_INFO(kSubsys, "  pe %d: %s (%s)", pe, p.nic < 0 ? "none" : p.nic_name.c_str(),
              p.nic_reason.c_str());
  }
  return XSHMEM_SUCCESS;
}

const std::string &my_nic() {
  return g_my_nic;
}

void reset() {
  g_my_nic.clear();
}

}  // namespace xshmem::nics
