// NIC per GPU and the plan of a job layout: the PEs (node, GPU, NIC) and their pairs by class.
//
// Which transport takes a pair is the PathModel's answer (xshmem-info: the loaded plugins'
// predict and the core's selection); nothing here knows a transport by name.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <xshmem/plugin/transport_v1.h>

#include "topology.h"

namespace xshmem::topo {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    cur.erase(0, cur.find_first_not_of(" \t"));
    cur.erase(cur.find_last_not_of(" \t") + 1);
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

// The port of a NIC the filter allows and that is up; 0 when ports are unknown (assumed usable),
// -1 with *why when none is usable.
int usable_port(const Nic &n, const NicFilter &f, std::string *why) {
  if (n.ports.empty())
    return f.allows(n.name, 0) ? 0 : (*why = n.name + ": excluded by the NIC list", -1);
  std::string down;
  for (const NicPort &p : n.ports) {
    if (!f.allows(n.name, p.num)) continue;
    if (p.active()) return p.num;
    down += (down.empty() ? "" : ", ") + std::string("port ") + std::to_string(p.num) + " " +
            (p.state.empty() ? "in unknown state" : p.state);
  }
  *why = n.name + (down.empty() ? ": excluded by the NIC list" : ": " + down + ", skipped");
  return -1;
}

const Machine &machine_of(const std::vector<Machine> &machines, int node) {
  return machines.size() == 1 ? machines[0] : machines[node];
}

// 0 = a PE with itself, 1 = two PEs of one node, 2 = PEs of two nodes.
int relation(const Plan &p, int a, int b) {
  return a == b ? 0 : p.pes[a].node == p.pes[b].node ? 1 : 2;
}

}  // namespace

bool NicFilter::allows(const std::string &nic, int port) const {
  if (entries.empty()) return true;
  bool hit = false;
  for (const auto &[name, p] : entries)
    if (name == nic && (p == 0 || port == 0 || p == port)) hit = true;
  return hit != exclude;
}

NicFilter parse_nic_filter(const std::string &spec) {
  NicFilter f;
  std::string s = spec;
  if (!s.empty() && s[0] == '^') {
    f.exclude = true;
    s.erase(0, 1);
  }
  for (const std::string &e : split(s, ',')) {
    const size_t colon = e.find(':');
    if (colon == std::string::npos)
      f.entries.emplace_back(e, 0);
    else
      f.entries.emplace_back(e.substr(0, colon), atoi(e.c_str() + colon + 1));
  }
  return f;
}

std::vector<NicChoice> nic_per_gpu(const Machine &m, const NicFilter &filter,
                                   std::vector<std::string> *skipped) {
  std::vector<int> port(m.nics.size(), -1);
  for (const Nic &n : m.nics) {
    std::string why;
    port[n.index] = usable_port(n, filter, &why);
    if (port[n.index] < 0 && skipped) skipped->push_back(why);
  }
  std::vector<int> load(m.nics.size(), 0);
  std::vector<NicChoice> out(m.gpus.size());
  for (const Gpu &g : m.gpus) {
    NicChoice &c = out[g.index];
    for (const Nic &n : m.nics) {
      if (port[n.index] < 0) continue;
      const PathClass cls = m.gpu_nic[g.index][n.index];
      if (c.nic < 0 || cls < c.cls || (cls == c.cls && load[n.index] < load[c.nic])) {
        c.nic = n.index;
        c.cls = cls;
        c.port = port[n.index];
      }
    }
    if (c.nic < 0) {
      c.reason = m.nics.empty() ? "no NIC on this machine" : "no usable NIC (all skipped)";
      continue;
    }
    ++load[c.nic];
    c.reason = m.nics[c.nic].name + " (" + class_name(c.cls) + ")";
  }
  return out;
}

int Plan::class_of(int from, int to) const {
  const int r = relation(*this, from, to);
  return kind_class[(static_cast<size_t>(pe_kind[from]) * kinds + pe_kind[to]) * 3 + r];
}

int Plan::transport(int from, int to) const {
  return classes[class_of(from, to)].transport;
}

std::string Plan::name(int t) const {
  return t >= 0 && static_cast<size_t>(t) < transports.size() ? transports[t] : "none";
}

uint64_t Plan::count(int t) const {
  uint64_t n = 0;
  for (const PairClass &c : classes)
    if (c.transport == t) n += c.count;
  return n;
}

PairPlan plan_pair(const std::vector<Machine> &machines, const PathModel &model, const Plan &p,
                   int from, int to) {
  if (!model.pair) return {-1, "none: no path model", ""};
  return model.pair(machines, p, from, to);
}

void for_each_pair(const std::vector<Machine> &machines, const PathModel &model, const Plan &p,
                   const std::function<void(int from, int to, const PairPlan &)> &fn) {
  const int n = static_cast<int>(p.pes.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) fn(a, b, plan_pair(machines, model, p, a, b));
}

std::vector<PePlan> plan_pes(const std::vector<Machine> &machines, int pes_per_node, int nodes,
                             const PlanOptions &opts, std::vector<std::string> *errors,
                             std::vector<std::string> *notes) {
  std::vector<PePlan> pes;
  if (pes_per_node <= 0 || nodes <= 0) {
    errors->push_back("plan: pes_per_node " + std::to_string(pes_per_node) + " and nodes " +
                      std::to_string(nodes) + " must be positive");
    return pes;
  }
  if (machines.size() != 1 && machines.size() != static_cast<size_t>(nodes)) {
    errors->push_back("plan: " + std::to_string(machines.size()) + " machines given for " +
                      std::to_string(nodes) + " nodes; give one, or one per node");
    return pes;
  }
  if (static_cast<int64_t>(pes_per_node) * nodes > (1 << 24)) {
    errors->push_back("plan: " + std::to_string(static_cast<int64_t>(pes_per_node) * nodes) +
                      " PEs is more than this model plans (16777216)");
    return pes;
  }
  const NicFilter filter = parse_nic_filter(opts.nics);

  // Per distinct machine (one, or one per node): the NIC per GPU and the NICs a CPU PE may use.
  const size_t nm = machines.size();
  std::vector<std::vector<NicChoice>> per_gpu(nm);
  std::vector<std::vector<int>> cpu_nics(nm);
  for (size_t i = 0; i < nm; ++i) {
    std::vector<std::string> skipped;
    per_gpu[i] = nic_per_gpu(machines[i], filter, &skipped);
    const std::string where =
        nm == 1 && nodes > 1 ? "every node" : "node " + std::to_string(static_cast<int>(i));
    for (const auto &s : skipped) notes->push_back(where + ": " + s);
    for (const Nic &c : machines[i].nics) {
      std::string why;
      if (usable_port(c, filter, &why) >= 0) cpu_nics[i].push_back(c.index);
    }
  }

  const int n = pes_per_node * nodes;
  pes.resize(n);
  for (int pe = 0; pe < n; ++pe) {
    PePlan &x = pes[pe];
    x.pe = pe;
    x.node = pe / pes_per_node;
    x.local_rank = pe % pes_per_node;
    const size_t mi = nm == 1 ? 0 : static_cast<size_t>(x.node);
    const Machine &m = machines[mi];
    if (!m.gpus.empty()) x.gpu = x.local_rank % static_cast<int>(m.gpus.size());
    if (auto it = opts.nic_map.find(pe); it != opts.nic_map.end()) {
      auto nic = std::find_if(m.nics.begin(), m.nics.end(),
                              [&](const Nic &c) { return c.name == it->second; });
      if (nic == m.nics.end()) {
        errors->push_back("plan: the NIC map gives pe " + std::to_string(pe) + " NIC \"" +
                          it->second + "\", which node " + std::to_string(x.node) + " lacks");
        x.nic_reason = "mapped NIC " + it->second + " not found";
      } else {
        x.nic = nic->index;
        x.nic_reason = "mapped: " + nic->name;
      }
    } else if (x.gpu >= 0) {
      const NicChoice &c = per_gpu[mi][x.gpu];
      x.nic = c.nic;
      x.nic_reason = c.nic >= 0 ? "nearest: " + c.reason : c.reason;
    } else {
      // A CPU PE: usable NICs in turn by local rank.
      const std::vector<int> &usable = cpu_nics[mi];
      if (usable.empty()) {
        x.nic_reason = m.nics.empty() ? "no NIC on this machine" : "no usable NIC (all skipped)";
      } else {
        x.nic = usable[x.local_rank % usable.size()];
        x.nic_reason = "cpu pe, round robin: " + m.nics[x.nic].name;
      }
    }
    if (x.nic >= 0) x.nic_name = m.nics[x.nic].name;
    if (opts.host_heap) x.gpu = -1;
  }
  for (size_t i = 0; i < nm; ++i) {
    const Machine &m = machines[i];
    if (!m.unplaced_gpus.empty() && m.gpus.empty() && !opts.host_heap)
      errors->push_back(
          "plan: " + (nm == 1 ? std::string("the machine") : "node " + std::to_string(i)) +
          " records " + std::to_string(m.unplaced_gpus.size()) +
          " NVIDIA GPU(s) without a PCI location (" + m.unplaced_gpus[0] +
          (m.unplaced_gpus.size() > 1 ? ", ..." : "") +
          "), so their PEs' GPUs, links and NICs cannot be modelled: record the topology with "
          "its PCI devices (lstopo --of xml), or plan CPU PEs with XSHMEM_HEAP=host");
  }

  return pes;
}

void plan_pe_records(const std::vector<Machine> &machines, const Plan &p, int from, int to,
                     xshmem_plan_pe_v1 *self, xshmem_plan_pe_v1 *peer) {
  auto fill = [&](int pe, xshmem_plan_pe_v1_t *d) {
    const PePlan &x = p.pes[pe];
    const Machine &m = machine_of(machines, x.node);
    *d = xshmem_plan_pe_v1_t{};
    d->struct_size = sizeof(*d);
    d->pe = pe;
    d->host_id = static_cast<uint64_t>(x.node) + 1;
    d->gpu = x.gpu;
    d->gpu_pci =
        x.gpu >= 0 && static_cast<size_t>(x.gpu) < m.gpus.size() && !m.gpus[x.gpu].bus_id.empty()
            ? m.gpus[x.gpu].bus_id.c_str()
            : nullptr;
    d->nic = x.nic_name.empty() ? nullptr : x.nic_name.c_str();
    d->heap = p.gpu_heap ? XSHMEM_MEM_DEVICE : XSHMEM_MEM_HOST;
    d->gpu_p2p_with_peer = -1;
    d->nvlinks_with_peer = -1;
    d->hosts = p.nodes;
  };
  fill(from, self);
  fill(to, peer);
  const PePlan &a = p.pes[from], &b = p.pes[to];
  const Machine &m = machine_of(machines, a.node);
  if (a.node == b.node && a.gpu >= 0 && b.gpu >= 0 &&
      static_cast<size_t>(a.gpu) < m.gpu_gpu.size() &&
      static_cast<size_t>(b.gpu) < m.gpu_gpu[a.gpu].size()) {
    const GpuLink &l = m.gpu_gpu[a.gpu][b.gpu];
    // NVLinks give peer access (as the topology counts them); else the PCIe P2P finding.
    self->gpu_p2p_with_peer = peer->gpu_p2p_with_peer =
        a.gpu == b.gpu || l.p2p || l.nvlinks > 0 ? 1 : 0;
    self->nvlinks_with_peer = peer->nvlinks_with_peer = a.gpu == b.gpu ? 0 : l.nvlinks;
  }
}

Plan plan(const std::vector<Machine> &machines, int pes_per_node, int nodes,
          const PlanOptions &opts, const PathModel &model) {
  Plan p;
  p.pes_per_node = pes_per_node;
  p.nodes = nodes;
  p.transports = model.names;
  p.pes = plan_pes(machines, pes_per_node, nodes, opts, &p.errors, &p.notes);
  if (p.pes.empty()) return p;
  if (!model.pair) {
    p.errors.push_back("plan: no path model to answer the pairs");
    return p;
  }
  const int n = static_cast<int>(p.pes.size());
  p.gpu_heap = true;
  for (const PePlan &x : p.pes) p.gpu_heap = p.gpu_heap && x.gpu >= 0;
  const size_t nm = machines.size();

  // PE kinds: what a pair's path depends on (machine, GPU, NIC), numbered in PE order.
  std::map<std::tuple<size_t, int, int>, int> kind_ids;
  p.pe_kind.resize(n);
  for (int pe = 0; pe < n; ++pe) {
    const PePlan &x = p.pes[pe];
    const auto key = model.by_pe
                         ? std::make_tuple(static_cast<size_t>(pe), -1, -1)
                         : std::make_tuple(nm == 1 ? 0 : static_cast<size_t>(x.node), x.gpu, x.nic);
    auto it = kind_ids.emplace(key, static_cast<int>(kind_ids.size())).first;
    p.pe_kind[pe] = it->second;
  }
  const int k = static_cast<int>(kind_ids.size());
  p.kinds = k;
  // PEs per kind: in all, and per node (a node holds at most pes_per_node kinds).
  std::vector<uint64_t> total(k, 0);
  std::vector<int> first(k, -1), first_elsewhere(k, -1);  // lowest PE; lowest on another node
  for (int pe = 0; pe < n; ++pe) {
    const int kd = p.pe_kind[pe];
    ++total[kd];
    if (first[kd] < 0)
      first[kd] = pe;
    else if (first_elsewhere[kd] < 0 && p.pes[pe].node != p.pes[first[kd]].node)
      first_elsewhere[kd] = pe;
  }
  if (static_cast<uint64_t>(k) * k * 3 > (1ull << 26)) {
    p.errors.push_back("plan: " + std::to_string(k) +
                       (model.by_pe ? " PEs with pair rules (every PE a kind of its own)"
                                    : " distinct PE kinds (machine, GPU, NIC)") +
                       " are more than this model plans");
    return p;
  }
  p.kind_class.assign(static_cast<size_t>(k) * k * 3, -1);
  // Dense tables over (kind a, kind b, relation): first pair and count of each class.
  const size_t cells = static_cast<size_t>(k) * k * 3;
  std::vector<int> rep_from(cells, -1), rep_to(cells, -1);
  std::vector<uint64_t> count(cells, 0), same_count(static_cast<size_t>(k) * k, 0);
  auto cell = [&](int ka, int kb, int r) { return (static_cast<size_t>(ka) * k + kb) * 3 + r; };
  // Same node (and self): the pairs of each node's kinds, nodes in order, so the first node that
  // holds a pair of kinds holds its lowest pair.
  std::vector<int> here_count(k, 0), here_first(k, -1), here_second(k, -1), here_kinds;
  for (int node = 0; node < nodes; ++node) {
    here_kinds.clear();
    for (int pe = node * pes_per_node; pe < (node + 1) * pes_per_node; ++pe) {
      const int kd = p.pe_kind[pe];
      if (here_count[kd]++ == 0) {
        here_kinds.push_back(kd);
        here_first[kd] = pe;
      } else if (here_second[kd] < 0) {
        here_second[kd] = pe;
      }
    }
    for (int ka : here_kinds) {
      for (int kb : here_kinds) {
        same_count[static_cast<size_t>(ka) * k + kb] +=
            static_cast<uint64_t>(here_count[ka]) * here_count[kb];
        if (ka == kb && here_count[ka] < 2) continue;
        const size_t c = cell(ka, kb, 1);
        if (rep_from[c] >= 0) continue;
        rep_from[c] = here_first[ka];
        rep_to[c] = ka == kb ? here_second[ka] : here_first[kb];
      }
    }
    for (int kd : here_kinds) here_count[kd] = 0, here_first[kd] = here_second[kd] = -1;
  }
  for (int ka = 0; ka < k; ++ka) {
    const size_t c = cell(ka, ka, 0);
    rep_from[c] = rep_to[c] = first[ka];
    count[c] = total[ka];
    for (int kb = 0; kb < k; ++kb) {
      const uint64_t same = same_count[static_cast<size_t>(ka) * k + kb];
      count[cell(ka, kb, 1)] = same - (ka == kb ? total[ka] : 0);
      // Other nodes: every pair of kinds whose PEs are not all on one node together.
      const uint64_t other = total[ka] * total[kb] - same;
      if (other == 0) continue;
      int a = first[ka], b = -1;
      const int na = p.pes[a].node;
      if (p.pes[first[kb]].node != na) {
        b = first[kb];
      } else if (first_elsewhere[kb] >= 0) {
        b = first_elsewhere[kb];
      } else {
        a = first_elsewhere[ka];
        b = first[kb];
      }
      const size_t o = cell(ka, kb, 2);
      rep_from[o] = a;
      rep_to[o] = b;
      count[o] = other;
    }
  }
  // One class per (kinds, relation), evaluated once on its first pair; ordered by that pair.
  std::vector<std::pair<std::pair<int, int>, size_t>> order;
  for (size_t c = 0; c < cells; ++c)
    if (count[c] > 0) order.push_back({{rep_from[c], rep_to[c]}, c});
  std::sort(order.begin(), order.end());
  p.classes.reserve(order.size());
  for (const auto &[pair, c] : order) {
    const PairPlan r = model.pair(machines, p, pair.first, pair.second);
    p.kind_class[c] = static_cast<int>(p.classes.size());
    p.classes.push_back({r.transport, r.why, pair.first, pair.second, count[c], c % 3 != 2});
  }

  const bool full = opts.full_pairs > 0 || (opts.full_pairs < 0 && n <= kFullPairsMax);
  if (full) {
    p.pairs.assign(n, std::vector<PairPlan>(n));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) p.pairs[a][b] = model.pair(machines, p, a, b);
    // A model whose answer depends on the PE numbers (a plugin may look at them) breaks the
    // classes; with every pair at hand that shows, and the plan groups by PE instead.
    if (!model.by_pe)
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
          const PairClass &c = p.classes[p.class_of(a, b)];
          if (c.transport == p.pairs[a][b].transport && c.why == p.pairs[a][b].why) continue;
          PathModel per_pe = model;
          per_pe.by_pe = true;
          return plan(machines, pes_per_node, nodes, opts, per_pe);
        }
  }
  // The first four unreachable pairs by (from, to), with their own reasons, then a count.
  uint64_t unreachable = p.count(-1);
  int named = 0;
  for (int a = 0; a < n && unreachable > 0 && named < 4; ++a)
    for (int b = 0; b < n && named < 4; ++b)
      if (p.transport(a, b) < 0) {
        const PairPlan r = model.pair(machines, p, a, b);
        p.errors.push_back(!r.error.empty()
                               ? r.error
                               : "no transport reaches pe " + std::to_string(b) + " from pe " +
                                     std::to_string(a) + ": " +
                                     (r.why.rfind("none: ", 0) == 0 ? r.why.substr(6) : r.why));
        ++named;
      }
  if (unreachable > 4)
    p.errors.push_back("... and " + std::to_string(unreachable - 4) + " more unreachable pairs");
  return p;
}

}  // namespace xshmem::topo
