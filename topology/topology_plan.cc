// NIC per GPU and the path plan of a job layout.
//
// The rules mirror the transports' can_reach at init: nvlink reaches PEs of the same host whose
// GPUs are the same or have peer access (backends/nvlink: cuDeviceCanAccessPeer), hostshm reaches
// PEs of the same host with host heaps (backends/hostshm: the memfd exchange among node peers).
// ibgda and libfabric are future transports; they are modelled here by the rules DESIGN.md gives
// them: ibgda needs an mlx5 RDMA NIC with an active port on both sides (same link layer),
// libfabric a provider that both sides have. Both reach peers on the same node too (NIC loopback),
// which is used only when no local transport can.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

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

constexpr Transport kAll[] = {Transport::kNvlink, Transport::kHostshm, Transport::kIbgda,
                              Transport::kLibfabric};

bool parse_transport(const std::string &s, Transport *t) {
  for (Transport x : kAll)
    if (s == transport_name(x)) {
      *t = x;
      return true;
    }
  return false;
}

// Providers that only reach the same host, never a remote node.
bool local_only_provider(const std::string &p) {
  return p == "shm" || p == "sm2" || p.rfind("shm;", 0) == 0 || p == "lpp";
}

struct PeCtx {
  const Machine *m = nullptr;
  const PePlan *pe = nullptr;
};

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

std::string gpu_side(const Machine &m, const PePlan &pe) {
  if (pe.gpu < 0 || pe.nic < 0) return "cpu";
  return class_name(m.gpu_nic[pe.gpu][pe.nic]);
}

LinkLayer nic_layer(const Nic &n) {
  for (const NicPort &p : n.ports)
    if (p.active()) return p.link_layer;
  return LinkLayer::kUnknown;
}

// ibgda between two PEs: both have an mlx5 NIC, of one link layer where known.
bool ibgda_can(const PeCtx &a, const PeCtx &b, std::string *why) {
  for (const PeCtx *x : {&a, &b}) {
    if (x->pe->nic < 0) {
      *why = "pe " + std::to_string(x->pe->pe) + " has no usable NIC";
      return false;
    }
    const Nic &n = x->m->nics[x->pe->nic];
    if (!n.mlx5()) {
      *why = "pe " + std::to_string(x->pe->pe) + "'s NIC " + n.name + " is not an mlx5 RDMA NIC";
      return false;
    }
  }
  const LinkLayer la = nic_layer(a.m->nics[a.pe->nic]), lb = nic_layer(b.m->nics[b.pe->nic]);
  if (la != LinkLayer::kUnknown && lb != LinkLayer::kUnknown && la != lb) {
    *why = std::string("link layers differ (") + link_layer_name(la) + " vs " +
           link_layer_name(lb) + ")";
    return false;
  }
  char b2[160];
  snprintf(b2, sizeof(b2), "ibgda: %s \xe2\x86\x92 %s (%s/%s)", a.m->nics[a.pe->nic].name.c_str(),
           b.m->nics[b.pe->nic].name.c_str(), gpu_side(*a.m, *a.pe).c_str(),
           gpu_side(*b.m, *b.pe).c_str());
  *why = b2;
  return true;
}

// The domain of `provider` a PE would use: the one on its NIC's PCI address, else the first.
const FabricDomain *domain_for(const Machine &m, const PePlan &pe, const std::string &provider) {
  const FabricDomain *first = nullptr;
  for (const FabricDomain &d : m.domains) {
    if (d.provider != provider) continue;
    if (pe.nic >= 0 && !d.bus_id.empty() && d.bus_id == m.nics[pe.nic].bus_id) return &d;
    if (!first) first = &d;
  }
  return first;
}

// libfabric between two PEs: a provider both machines have (NIC-matched domains first).
bool libfabric_can(const PeCtx &a, const PeCtx &b, bool same_node, std::string *why) {
  if (a.m->domains.empty() || b.m->domains.empty()) {
    *why =
        "no libfabric provider on node " + std::to_string((a.m->domains.empty() ? a : b).pe->node);
    return false;
  }
  std::string best;
  int best_score = -1;
  for (const FabricDomain &d : a.m->domains) {
    if (!same_node && local_only_provider(d.provider)) continue;
    const FabricDomain *db = domain_for(*b.m, *b.pe, d.provider);
    if (!db) continue;
    const FabricDomain *da = domain_for(*a.m, *a.pe, d.provider);
    const int score = (!da->bus_id.empty()) + (!db->bus_id.empty());
    if (score > best_score) {
      best_score = score;
      best = "libfabric: " + d.provider + " " + da->domain + " \xe2\x86\x92 " + db->domain;
    }
  }
  if (best_score < 0) {
    *why = "no libfabric provider common to both nodes";
    return false;
  }
  *why = best;
  return true;
}

// The transport rules of a plan's options, parsed once.
struct Rules {
  std::set<Transport> allowed;
  Transport remote = Transport::kNone;
  NicFilter filter;
};

bool parse_rules(const PlanOptions &opts, Rules *r, std::vector<std::string> *errors) {
  // The allowed set: "a,b" allows, "^a,b" excludes.
  r->allowed = std::set<Transport>(std::begin(kAll), std::end(kAll));
  std::string s = opts.transports;
  const bool exclude = !s.empty() && s[0] == '^';
  if (exclude) s.erase(0, 1);
  std::set<Transport> named;
  const size_t before = errors->size();
  for (const std::string &n : split(s, ',')) {
    Transport t;
    if (!parse_transport(n, &t))
      errors->push_back("plan: unknown transport \"" + n + "\" in the transport list \"" +
                        opts.transports + "\" (known: nvlink, hostshm, ibgda, libfabric)");
    else
      named.insert(t);
  }
  if (!named.empty() || exclude) {
    if (exclude)
      for (Transport t : named) r->allowed.erase(t);
    else
      r->allowed = named;
  }
  r->remote = Transport::kNone;
  if (!opts.remote_transport.empty()) {
    if (!parse_transport(opts.remote_transport, &r->remote) ||
        (r->remote != Transport::kIbgda && r->remote != Transport::kLibfabric))
      errors->push_back("plan: remote transport \"" + opts.remote_transport +
                        "\" is not one of ibgda, libfabric");
    else if (!r->allowed.count(r->remote))
      errors->push_back(std::string("plan: remote transport ") + opts.remote_transport +
                        " is excluded by the transport list \"" + opts.transports + "\"");
  }
  r->filter = parse_nic_filter(opts.nics);
  return errors->size() == before;
}

// The path of one pair: what init's selection would pick, with the reason.
PairPlan eval_pair(const Rules &rules, const PeCtx &ca, const PeCtx &cb) {
  const PePlan &pa = *ca.pe, &pb = *cb.pe;
  const bool same_node = pa.node == pb.node;
  std::vector<std::string> refused;
  if (same_node && pa.gpu >= 0 && pb.gpu >= 0) {
    const GpuLink &l = ca.m->gpu_gpu[pa.gpu][pb.gpu];
    std::string what;
    if (pa.gpu == pb.gpu)
      what = "same GPU " + std::to_string(pa.gpu);
    else if (l.nvlinks > 0)
      what = "GPUs " + std::to_string(pa.gpu) + "," + std::to_string(pb.gpu) + " NV" +
             std::to_string(l.nvlinks);
    else if (l.p2p)
      what = "GPUs " + std::to_string(pa.gpu) + "," + std::to_string(pb.gpu) + " PCIe P2P (" +
             class_name(l.pci) + ")";
    if (what.empty())
      refused.push_back("nvlink: GPUs " + std::to_string(pa.gpu) + "," + std::to_string(pb.gpu) +
                        " have no peer access (" + class_name(l.pci) + ", " + l.source + ")");
    else if (!rules.allowed.count(Transport::kNvlink))
      refused.push_back("nvlink (" + what + ") is not allowed");
    else
      return {Transport::kNvlink, "nvlink: " + what};
  } else if (same_node && pa.gpu < 0 && pb.gpu < 0) {
    if (rules.allowed.count(Transport::kHostshm))
      return {Transport::kHostshm,
              pa.pe == pb.pe ? "hostshm: itself, CPU PE" : "hostshm: same host, CPU PEs"};
    refused.push_back("hostshm (same host, CPU PEs) is not allowed");
  } else if (same_node) {
    refused.push_back("nvlink and hostshm: one GPU PE and one CPU PE (heaps of different kinds)");
  }
  // The NIC transports: the requested one only, else the first allowed one that can.
  std::vector<Transport> order;
  if (rules.remote != Transport::kNone && !same_node)
    order.push_back(rules.remote);
  else
    for (Transport t : {Transport::kIbgda, Transport::kLibfabric})
      if (rules.allowed.count(t)) order.push_back(t);
  for (Transport t : order) {
    std::string why;
    const bool can =
        t == Transport::kIbgda ? ibgda_can(ca, cb, &why) : libfabric_can(ca, cb, same_node, &why);
    if (can) return {t, why + (same_node ? ", same node through the NIC" : "")};
    refused.push_back(
        std::string(transport_name(t)) + ": " + why +
        (t == rules.remote && !same_node ? " (requested as the remote transport)" : ""));
  }
  if (order.empty())
    refused.push_back(same_node ? "no NIC transport allowed"
                                : "no remote transport (ibgda, libfabric) allowed");
  std::string why;
  for (const auto &x : refused) why += (why.empty() ? "" : "; ") + x;
  return {Transport::kNone, "none: " + why};
}

const Machine &machine_of(const std::vector<Machine> &machines, int node) {
  return machines.size() == 1 ? machines[0] : machines[node];
}

// 0 = a PE with itself, 1 = two PEs of one node, 2 = PEs of two nodes.
int relation(const Plan &p, int a, int b) {
  return a == b ? 0 : p.pes[a].node == p.pes[b].node ? 1 : 2;
}

}  // namespace

const char *transport_name(Transport t) {
  switch (t) {
    case Transport::kNvlink:
      return "nvlink";
    case Transport::kHostshm:
      return "hostshm";
    case Transport::kIbgda:
      return "ibgda";
    case Transport::kLibfabric:
      return "libfabric";
    case Transport::kNone:
      break;
  }
  return "none";
}

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

Transport Plan::transport(int from, int to) const {
  return classes[class_of(from, to)].transport;
}

uint64_t Plan::count(Transport t) const {
  uint64_t n = 0;
  for (const PairClass &c : classes)
    if (c.transport == t) n += c.count;
  return n;
}

PairPlan plan_pair(const std::vector<Machine> &machines, const PlanOptions &opts, const Plan &p,
                   int from, int to) {
  Rules rules;
  std::vector<std::string> errors;
  if (!parse_rules(opts, &rules, &errors)) return {Transport::kNone, "none: " + errors[0]};
  const PePlan &pa = p.pes[from], &pb = p.pes[to];
  return eval_pair(rules, {&machine_of(machines, pa.node), &pa},
                   {&machine_of(machines, pb.node), &pb});
}

void for_each_pair(const std::vector<Machine> &machines, const PlanOptions &opts, const Plan &p,
                   const std::function<void(int from, int to, const PairPlan &)> &fn) {
  Rules rules;
  std::vector<std::string> errors;
  if (!parse_rules(opts, &rules, &errors)) return;
  const int n = static_cast<int>(p.pes.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const PePlan &pa = p.pes[a], &pb = p.pes[b];
      fn(a, b,
         eval_pair(rules, {&machine_of(machines, pa.node), &pa},
                   {&machine_of(machines, pb.node), &pb}));
    }
}

Plan plan(const std::vector<Machine> &machines, int pes_per_node, int nodes,
          const PlanOptions &opts) {
  Plan p;
  p.pes_per_node = pes_per_node;
  p.nodes = nodes;
  if (pes_per_node <= 0 || nodes <= 0) {
    p.errors.push_back("plan: pes_per_node " + std::to_string(pes_per_node) + " and nodes " +
                       std::to_string(nodes) + " must be positive");
    return p;
  }
  if (machines.size() != 1 && machines.size() != static_cast<size_t>(nodes)) {
    p.errors.push_back("plan: " + std::to_string(machines.size()) + " machines given for " +
                       std::to_string(nodes) + " nodes; give one, or one per node");
    return p;
  }
  if (static_cast<int64_t>(pes_per_node) * nodes > (1 << 24)) {
    p.errors.push_back("plan: " + std::to_string(static_cast<int64_t>(pes_per_node) * nodes) +
                       " PEs is more than this model plans (16777216)");
    return p;
  }
  Rules rules;
  if (!parse_rules(opts, &rules, &p.errors)) return p;
  auto machine = [&](int node) -> const Machine & { return machine_of(machines, node); };

  // Per distinct machine (one, or one per node): the NIC per GPU and the NICs a CPU PE may use.
  const size_t nm = machines.size();
  std::vector<std::vector<NicChoice>> per_gpu(nm);
  std::vector<std::vector<int>> cpu_nics(nm);
  for (size_t i = 0; i < nm; ++i) {
    std::vector<std::string> skipped;
    per_gpu[i] = nic_per_gpu(machines[i], rules.filter, &skipped);
    const std::string where =
        nm == 1 && nodes > 1 ? "every node" : "node " + std::to_string(static_cast<int>(i));
    for (const auto &s : skipped) p.notes.push_back(where + ": " + s);
    for (const Nic &c : machines[i].nics) {
      std::string why;
      if (usable_port(c, rules.filter, &why) >= 0) cpu_nics[i].push_back(c.index);
    }
  }

  const int n = pes_per_node * nodes;
  p.pes.resize(n);
  for (int pe = 0; pe < n; ++pe) {
    PePlan &x = p.pes[pe];
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
        p.errors.push_back("plan: the NIC map gives pe " + std::to_string(pe) + " NIC \"" +
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
      p.errors.push_back(
          "plan: " + (nm == 1 ? std::string("the machine") : "node " + std::to_string(i)) +
          " records " + std::to_string(m.unplaced_gpus.size()) +
          " NVIDIA GPU(s) without a PCI location (" + m.unplaced_gpus[0] +
          (m.unplaced_gpus.size() > 1 ? ", ..." : "") +
          "), so their PEs' GPUs, links and NICs cannot be modelled: record the topology with "
          "its PCI devices (lstopo --of xml), or plan CPU PEs with XSHMEM_HEAP=host");
  }

  // PE kinds: what a pair's path depends on (machine, GPU, NIC), numbered in PE order.
  std::map<std::tuple<size_t, int, int>, int> kind_ids;
  p.pe_kind.resize(n);
  for (int pe = 0; pe < n; ++pe) {
    const PePlan &x = p.pes[pe];
    const auto key = std::make_tuple(nm == 1 ? 0 : static_cast<size_t>(x.node), x.gpu, x.nic);
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
                       " distinct PE kinds (machine, GPU, NIC) are more than this model plans");
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
    const PePlan &pa = p.pes[pair.first], &pb = p.pes[pair.second];
    const PairPlan r = eval_pair(rules, {&machine(pa.node), &pa}, {&machine(pb.node), &pb});
    p.kind_class[c] = static_cast<int>(p.classes.size());
    p.classes.push_back({r.transport, r.why, pair.first, pair.second, count[c], c % 3 != 2});
  }

  const bool full = opts.full_pairs > 0 || (opts.full_pairs < 0 && n <= kFullPairsMax);
  if (full) {
    p.pairs.assign(n, std::vector<PairPlan>(n));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        p.pairs[a][b] = eval_pair(rules, {&machine(p.pes[a].node), &p.pes[a]},
                                  {&machine(p.pes[b].node), &p.pes[b]});
  }
  // The first four unreachable pairs by (from, to), with their own reasons, then a count.
  uint64_t unreachable = p.count(Transport::kNone);
  int named = 0;
  for (int a = 0; a < n && unreachable > 0 && named < 4; ++a)
    for (int b = 0; b < n && named < 4; ++b)
      if (p.transport(a, b) == Transport::kNone) {
        const PePlan &pa = p.pes[a], &pb = p.pes[b];
        const PairPlan r = eval_pair(rules, {&machine(pa.node), &pa}, {&machine(pb.node), &pb});
        p.errors.push_back("no transport reaches pe " + std::to_string(b) + " from pe " +
                           std::to_string(a) + ": " + r.why.substr(6));
        ++named;
      }
  if (unreachable > 4)
    p.errors.push_back("... and " + std::to_string(unreachable - 4) + " more unreachable pairs");
  return p;
}

}  // namespace xshmem::topo
