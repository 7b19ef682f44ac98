// xshmem-info: the plan as the loaded transport plugins predict it. Each PE of the plan is
// described as xshmem_plan_pe_v1_t (host, GPU, GPU PCI id, NIC, peer access and NVLinks between
// the two GPUs from the topology, heap kind); every loaded transport's predict answers for every
// pair, and the core's selection function (core/src/selection.h, the one init runs on can_reach's
// answers) picks the transport per pair. A transport without predict shows as "not predicted".
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config.h"
#include "info.h"
#include "loader.h"
#include "runtime.h"
#include "selection.h"

namespace xshmem::info {

namespace {

using json = nlohmann::ordered_json;

const topo::Machine &machine_of(const std::vector<topo::Machine> &ms, int node) {
  return ms.size() == 1 ? ms[0] : ms[static_cast<size_t>(node)];
}

}  // namespace

Predicted predict_plan(const std::vector<topo::Machine> &machines, const topo::Plan &p) {
  Predicted out;
  const int n = static_cast<int>(p.pes.size());
  out.n = n;
  if (n == 0) return out;
  if (n > kPredictMaxPes) {
    out.skipped = std::to_string(n) + " PEs: more than the " + std::to_string(kPredictMaxPes) +
                  " whose pairs the plugins are asked for";
    return out;
  }
  // The allowed, loaded transports, in name order (as init tries them).
  const config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  std::vector<const plugins::Transport *> ts;
  for (const auto &t : core::plugin_loader(true).transports()) {
    if (!spec.selects(t.name)) continue;
    if (XSHMEM_TRANSPORT_HAS_OP(t.ops, predict))
      ts.push_back(&t);
    else
      out.not_predicted.push_back(t.name);
  }
  std::sort(ts.begin(), ts.end(), [](auto *a, auto *b) { return a->name < b->name; });
  std::sort(out.not_predicted.begin(), out.not_predicted.end());
  for (auto *t : ts) out.names.push_back(t->name);
  const size_t nt = ts.size();

  // The PEs as the plugins see them. The heap is in GPU memory when every PE has a GPU
  // (XSHMEM_HEAP=auto; the plan already made every PE a CPU PE for XSHMEM_HEAP=host).
  bool all_gpu = true;
  for (const topo::PePlan &x : p.pes) all_gpu = all_gpu && x.gpu >= 0;
  std::vector<uint64_t> host(n);
  std::vector<xshmem_plan_pe_v1_t> desc(n);
  std::vector<std::string> pci(n);
  for (int pe = 0; pe < n; ++pe) {
    const topo::PePlan &x = p.pes[pe];
    const topo::Machine &m = machine_of(machines, x.node);
    host[pe] = static_cast<uint64_t>(x.node) + 1;
    if (x.gpu >= 0 && static_cast<size_t>(x.gpu) < m.gpus.size()) pci[pe] = m.gpus[x.gpu].bus_id;
  }
  for (int pe = 0; pe < n; ++pe) {
    const topo::PePlan &x = p.pes[pe];
    xshmem_plan_pe_v1_t &d = desc[pe];
    d.struct_size = sizeof(d);
    d.pe = pe;
    d.host_id = host[pe];
    d.gpu = x.gpu;
    d.gpu_pci = pci[pe].empty() ? nullptr : pci[pe].c_str();
    d.nic = x.nic_name.empty() ? nullptr : x.nic_name.c_str();
    d.heap = all_gpu ? XSHMEM_MEM_DEVICE : XSHMEM_MEM_HOST;
  }
  // Pair rules and the remote transport apply as at init.
  select::Rules rules;
  rules.absent = "is not loaded (or has no predict)";
  rules.remote = config::get_string("XSHMEM_REMOTE_TRANSPORT");
  for (char &c : rules.remote) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  std::string error;
  if (!select::parse_pair_rules(config::get_string("XSHMEM_PAIR_TRANSPORTS"), n, &rules.pairs,
                                &error))
    out.errors.push_back("XSHMEM_PAIR_TRANSPORTS: " + error);

  out.answers.assign(static_cast<size_t>(n) * n * nt, select::Answer{});
  out.choice.assign(static_cast<size_t>(n) * n, -1);
  std::vector<std::vector<select::Choice>> picked(n);
  for (int me = 0; me < n; ++me) {
    const topo::PePlan &a = p.pes[me];
    const topo::Machine &m = machine_of(machines, a.node);
    std::vector<select::Answer> row(static_cast<size_t>(n) * nt);
    for (int pe = 0; pe < n; ++pe) {
      // The pair's GPU facts, from this PE's side.
      xshmem_plan_pe_v1_t self = desc[me], peer = desc[pe];
      const topo::PePlan &b = p.pes[pe];
      self.gpu_p2p_with_peer = peer.gpu_p2p_with_peer = -1;
      self.nvlinks_with_peer = peer.nvlinks_with_peer = -1;
      if (a.node == b.node && a.gpu >= 0 && b.gpu >= 0 &&
          static_cast<size_t>(a.gpu) < m.gpu_gpu.size() &&
          static_cast<size_t>(b.gpu) < m.gpu_gpu[a.gpu].size()) {
        const topo::GpuLink &l = m.gpu_gpu[a.gpu][b.gpu];
        // NVLinks give peer access (as the model counts them); else the PCIe P2P finding.
        self.gpu_p2p_with_peer = peer.gpu_p2p_with_peer =
            a.gpu == b.gpu || l.p2p || l.nvlinks > 0 ? 1 : 0;
        self.nvlinks_with_peer = peer.nvlinks_with_peer = l.nvlinks;
      }
      for (size_t t = 0; t < nt; ++t) {
        xshmem_peer_info_v1_t info{};
        info.struct_size = sizeof(info);
        const bool ok = ts[t]->ops->predict(&self, &peer, &info) == XSHMEM_SUCCESS;
        info.reason[sizeof(info.reason) - 1] = '\0';
        select::Answer &ans = row[static_cast<size_t>(pe) * nt + t];
        ans.reached = ok;
        ans.path = static_cast<int>(info.path);
        ans.latency_ns = info.latency_ns;
        ans.bandwidth_mbps = info.bandwidth_mbps;
        ans.reason = info.reason;
      }
    }
    picked[me] = select::choose(me, n, out.names, row, rules, host);
    std::copy(row.begin(), row.end(), out.answers.begin() + static_cast<size_t>(me) * n * nt);
  }
  // The two ends of each pair agree as at init: the lower PE's choice, where the other end
  // reaches the peer with it too.
  size_t named = 0, unreached = 0;
  for (int me = 0; me < n; ++me) {
    std::vector<int> mine(n), lower(n);
    for (int pe = 0; pe < n; ++pe) {
      mine[pe] = picked[me][pe].transport;
      lower[pe] = picked[std::min(me, pe)][std::max(me, pe)].transport;
    }
    const std::vector<select::Answer> row(
        out.answers.begin() + static_cast<size_t>(me) * n * nt,
        out.answers.begin() + static_cast<size_t>(me + 1) * n * nt);
    const std::vector<select::Choice> settled = select::agree(me, n, out.names, mine, lower, row);
    for (int pe = 0; pe < n; ++pe) {
      const select::Choice &c = picked[me][pe].transport < 0 ? picked[me][pe] : settled[pe];
      out.choice[static_cast<size_t>(me) * n + pe] = c.transport;
      if (c.transport >= 0) continue;
      ++unreached;
      if (named++ < 4) out.errors.push_back(c.error);
    }
  }
  if (unreached > 4)
    out.errors.push_back("... and " + std::to_string(unreached - 4) + " more unreached pairs");
  return out;
}

std::string predicted_text(const Predicted &d, bool pairs) {
  std::string t = "predicted by the loaded plugins (their predict, and init's selection):";
  if (!d.skipped.empty()) return t + " skipped: " + d.skipped + "\n";
  std::string names;
  for (const std::string &s : d.names) names += (names.empty() ? "" : ", ") + s;
  std::string np;
  for (const std::string &s : d.not_predicted) np += (np.empty() ? "" : ", ") + s;
  t += " " + (names.empty() ? std::string("no transport predicts") : names) +
       (np.empty() ? "" : "; not predicted: " + np) + "\n";
  std::vector<int8_t> m(d.choice.size());
  for (size_t i = 0; i < d.choice.size(); ++i) m[i] = static_cast<int8_t>(d.choice[i]);
  for (const std::string &l : select::format_matrix(m, d.n, d.names)) t += "  " + l + "\n";
  for (const std::string &e : d.errors) t += "  error: " + e + "\n";
  if (!pairs) return t;
  const size_t nt = d.names.size();
  t += "  pairs (each transport's reason):\n";
  for (int a = 0; a < d.n; ++a)
    for (int b = 0; b < d.n; ++b) {
      const int c = d.choice[static_cast<size_t>(a) * d.n + b];
      std::string line = "    " + std::to_string(a) + " -> " + std::to_string(b) + ": " +
                         (c >= 0 ? d.names[c] : std::string("none"));
      std::string why;
      for (size_t k = 0; k < nt; ++k) {
        const select::Answer &ans = d.answers[(static_cast<size_t>(a) * d.n + b) * nt + k];
        why += (why.empty() ? "" : "; ") + d.names[k] + (ans.reached ? " yes" : " no") +
               (ans.reason.empty() ? "" : ": " + ans.reason);
      }
      t += line + (why.empty() ? "" : " (" + why + ")") + "\n";
    }
  return t;
}

std::string predicted_json(const Predicted &d, bool pairs) {
  json j;
  j["transports"] = d.names;
  j["not_predicted"] = d.not_predicted;
  if (!d.skipped.empty()) {
    j["skipped"] = d.skipped;
    return j.dump();
  }
  json matrix = json::array();
  for (int a = 0; a < d.n; ++a) {
    json row = json::array();
    for (int b = 0; b < d.n; ++b) {
      const int c = d.choice[static_cast<size_t>(a) * d.n + b];
      row.push_back(c >= 0 ? d.names[c] : "none");
    }
    matrix.push_back(row);
  }
  j["matrix"] = matrix;
  j["errors"] = d.errors;
  if (pairs) {
    const size_t nt = d.names.size();
    json list = json::array();
    for (int a = 0; a < d.n; ++a)
      for (int b = 0; b < d.n; ++b) {
        const int c = d.choice[static_cast<size_t>(a) * d.n + b];
        json reasons = json::object();
        for (size_t k = 0; k < nt; ++k) {
          const select::Answer &ans = d.answers[(static_cast<size_t>(a) * d.n + b) * nt + k];
          reasons[d.names[k]] = {{"reached", ans.reached}, {"reason", ans.reason}};
        }
        list.push_back({{"from", a},
                        {"to", b},
                        {"transport", c >= 0 ? d.names[c] : "none"},
                        {"reasons", reasons}});
      }
    j["pairs"] = list;
  }
  return j.dump();
}

}  // namespace xshmem::info
