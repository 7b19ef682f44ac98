// A path model for the topology tests only (tests/topology, tests/fuzz): the rules the plan once
// hard-coded (nvlink over GPU peer access, hostshm between CPU PEs of one node, ibgda and libfabric
// over the PEs' NICs), so the plan's layout, classes and renderings are tested on recorded machines
// without loading plugins. The real plan asks the loaded plugins' predict (xshmem-info,
// tools/xshmem-info/info_predict.cc); nothing in topology/ knows these names.
#ifndef XSHMEM_TESTS_TOPOLOGY_FAKE_MODEL_H
#define XSHMEM_TESTS_TOPOLOGY_FAKE_MODEL_H

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "topology.h"

namespace fake {

using namespace xshmem::topo;

enum Transport : int { kNone = -1, kNvlink = 0, kHostshm = 1, kIbgda = 2, kLibfabric = 3 };
inline const char *transport_name(int t) {
  static const char *names[] = {"nvlink", "hostshm", "ibgda", "libfabric"};
  return t >= 0 && t < 4 ? names[t] : "none";
}

struct Rules {
  std::set<int> allowed = {kNvlink, kHostshm, kIbgda, kLibfabric};
  int remote = kNone;  // the transport asked for between nodes
  NicFilter filter;    // unused by the rules (the plan applies it); kept for the port check
};

struct PeCtx {
  const Machine *m = nullptr;
  const PePlan *pe = nullptr;
};

namespace detail {

// Providers that only reach the same host, never a remote node.
inline bool local_only_provider(const std::string &p) {
  return p == "shm" || p == "sm2" || p.rfind("shm;", 0) == 0 || p == "lpp";
}

// The port of a NIC the filter allows and that is up; 0 when ports are unknown (assumed usable),
// -1 with *why when none is usable.
inline int usable_port(const Nic &n, const NicFilter &f, std::string *why) {
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

inline std::string gpu_side(const Machine &m, const PePlan &pe) {
  if (pe.gpu < 0 || pe.nic < 0) return "cpu";
  return class_name(m.gpu_nic[pe.gpu][pe.nic]);
}

inline LinkLayer nic_layer(const Nic &n) {
  for (const NicPort &p : n.ports)
    if (p.active()) return p.link_layer;
  return LinkLayer::kUnknown;
}

// ibgda between two PEs: both have an mlx5 NIC, of one link layer where known.
inline bool ibgda_can(const PeCtx &a, const PeCtx &b, std::string *why) {
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
inline const FabricDomain *domain_for(const Machine &m, const PePlan &pe,
                                      const std::string &provider) {
  const FabricDomain *first = nullptr;
  for (const FabricDomain &d : m.domains) {
    if (d.provider != provider) continue;
    if (pe.nic >= 0 && !d.bus_id.empty() && d.bus_id == m.nics[pe.nic].bus_id) return &d;
    if (!first) first = &d;
  }
  return first;
}

// libfabric between two PEs: a provider both machines have (NIC-matched domains first).
inline bool libfabric_can(const PeCtx &a, const PeCtx &b, bool same_node, std::string *why) {
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

}  // namespace detail

// The path of one pair: what init's selection would pick, with the reason.
inline PairPlan eval_pair(const Rules &rules, const PeCtx &ca, const PeCtx &cb) {
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
    else if (!rules.allowed.count(kNvlink))
      refused.push_back("nvlink (" + what + ") is not allowed");
    else
      return {kNvlink, "nvlink: " + what, ""};
  } else if (same_node && pa.gpu < 0 && pb.gpu < 0) {
    if (rules.allowed.count(kHostshm))
      return {kHostshm, pa.pe == pb.pe ? "hostshm: itself, CPU PE" : "hostshm: same host, CPU PEs",
              ""};
    refused.push_back("hostshm (same host, CPU PEs) is not allowed");
  } else if (same_node) {
    refused.push_back("nvlink and hostshm: one GPU PE and one CPU PE (heaps of different kinds)");
  }
  // The NIC transports: the requested one only, else the first allowed one that can.
  std::vector<int> order;
  if (rules.remote != kNone && !same_node)
    order.push_back(rules.remote);
  else
    for (int t : {kIbgda, kLibfabric})
      if (rules.allowed.count(t)) order.push_back(t);
  for (int t : order) {
    std::string why;
    const bool can = t == kIbgda ? detail::ibgda_can(ca, cb, &why)
                                 : detail::libfabric_can(ca, cb, same_node, &why);
    if (can) return {t, why + (same_node ? ", same node through the NIC" : ""), ""};
    refused.push_back(
        std::string(transport_name(t)) + ": " + why +
        (t == rules.remote && !same_node ? " (requested as the remote transport)" : ""));
  }
  if (order.empty())
    refused.push_back(same_node ? "no NIC transport allowed"
                                : "no remote transport (ibgda, libfabric) allowed");
  std::string why;
  for (const auto &x : refused) why += (why.empty() ? "" : "; ") + x;
  return {kNone, "none: " + why, ""};
}

// The model over `rules`.
inline PathModel model(Rules rules = {}) {
  PathModel m;
  m.names = {"nvlink", "hostshm", "ibgda", "libfabric"};
  m.pair = [rules](const std::vector<Machine> &ms, const Plan &p, int a, int b) {
    const PePlan &pa = p.pes[a], &pb = p.pes[b];
    const Machine &ma = ms.size() == 1 ? ms[0] : ms[pa.node];
    const Machine &mb = ms.size() == 1 ? ms[0] : ms[pb.node];
    return eval_pair(rules, {&ma, &pa}, {&mb, &pb});
  };
  return m;
}
inline Rules allow(std::set<int> allowed, int remote = kNone) {
  Rules r;
  r.allowed = std::move(allowed);
  r.remote = remote;
  return r;
}

}  // namespace fake

#endif  // XSHMEM_TESTS_TOPOLOGY_FAKE_MODEL_H
