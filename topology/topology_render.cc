// Text, JSON and Graphviz renderings of the model and of a plan, for xshmem-info and the logs.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "topology.h"

namespace xshmem::topo {

namespace {

using nlohmann::json;

std::string gpu_cell(const Machine &m, size_t i, size_t j) {
  const GpuLink &l = m.gpu_gpu[i][j];
  if (i == j) return "X";
  if (l.nvlinks > 0) return "NV" + std::to_string(l.nvlinks);
  return class_name(l.pci);
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

// Above this many GPUs and NICs the matrix is summarised by class (a 1024-GPU matrix is 8 MB).
constexpr size_t kMatrixMax = 64;

std::string matrix_text(const Machine &m) {
  const size_t ng = m.gpus.size(), nn = m.nics.size();
  std::string out;
  if (ng == 0 && nn == 0) {
    out = "no GPU and no RDMA NIC";
    if (!m.host.empty()) out += " on " + m.host;
    out += "\n";
  } else if (ng + nn > kMatrixMax) {
    // Counts per class instead of the matrix; then each GPU's affinity.
    std::map<std::string, uint64_t> gg, gn;
    for (size_t i = 0; i < ng; ++i) {
      for (size_t j = 0; j < ng; ++j)
        if (i != j) ++gg[gpu_cell(m, i, j)];
      for (size_t k = 0; k < nn; ++k) ++gn[class_name(m.gpu_nic[i][k])];
    }
    out += std::to_string(ng) + " GPUs and " + std::to_string(nn) + " NICs: more than " +
           std::to_string(kMatrixMax) +
           ", so pairs by class instead of the matrix (--json has every GPU's classes)\n";
    out += "  GPU-GPU pairs (ordered):";
    for (const auto &[c, k] : gg) out += " " + c + " " + std::to_string(k);
    out += "\n  GPU-NIC pairs:";
    for (const auto &[c, k] : gn) out += " " + c + " " + std::to_string(k);
    out += "\n";
    // GPUs with the same affinity in runs: "GPU0-7  cpus 0-55  NUMA 0".
    for (size_t i = 0; i < ng;) {
      size_t j = i + 1;
      while (j < ng && m.gpus[j].cpuset == m.gpus[i].cpuset &&
             m.gpus[j].numa_node == m.gpus[i].numa_node)
        ++j;
      out += "  GPU" + std::to_string(i) + (j - i > 1 ? "-" + std::to_string(j - 1) : "") +
             ": CPU affinity " + (m.gpus[i].cpuset.empty() ? "N/A" : m.gpus[i].cpuset) +
             ", NUMA affinity " +
             (m.gpus[i].numa_node >= 0 ? std::to_string(m.gpus[i].numa_node) : "N/A") + "\n";
      i = j;
    }
  } else {
    std::vector<std::string> head;
    for (size_t i = 0; i < ng; ++i) head.push_back("GPU" + std::to_string(i));
    for (size_t k = 0; k < nn; ++k) head.push_back("NIC" + std::to_string(k));
    size_t w = 6;
    for (const auto &h : head) w = std::max(w, h.size() + 2);
    // The CPU affinity column is as wide as its longest entry (plus two spaces).
    size_t cpu_w = std::string("CPU Affinity").size() + 2;
    for (const Gpu &g : m.gpus)
      cpu_w = std::max(cpu_w, (g.cpuset.empty() ? 3 : g.cpuset.size()) + 2);
    out += pad("", w);
    for (const auto &h : head) out += pad(h, w);
    if (ng) out += pad("CPU Affinity", cpu_w) + "NUMA Affinity";
    out += "\n";
    for (size_t r = 0; r < ng + nn; ++r) {
      out += pad(head[r], w);
      for (size_t c = 0; c < ng + nn; ++c) {
        std::string cell;
        if (r < ng && c < ng)
          cell = gpu_cell(m, r, c);
        else if (r < ng)
          cell = class_name(m.gpu_nic[r][c - ng]);
        else if (c < ng)
          cell = class_name(m.gpu_nic[c][r - ng]);
        else
          cell = class_name(m.nic_nic[r - ng][c - ng]);
        out += pad(cell, w);
      }
      if (r < ng) {
        out += pad(m.gpus[r].cpuset.empty() ? "N/A" : m.gpus[r].cpuset, cpu_w);
        out += m.gpus[r].numa_node >= 0 ? std::to_string(m.gpus[r].numa_node) : "N/A";
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n";
    }
  }
  if (ng || nn) {
    out +=
        "\nLegend:\n\n"
        "  X    = Self\n"
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes\n"
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
        "Bridges within a NUMA node\n"
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
        "Bridge)\n"
        "  PIX  = Connection traversing at most a single PCIe bridge\n"
        "  NV#  = Connection traversing a bonded set of # NVLinks\n";
    if (nn) {
      out += "\nNIC Legend:\n\n";
      for (const Nic &n : m.nics) out += "  NIC" + std::to_string(n.index) + ": " + n.name + "\n";
    }
  }
  return out;
}

std::string to_json(const Machine &m) {
  json j;
  j["host"] = m.host;
  j["origin"] = m.origin;
  j["hwloc_version"] = m.hwloc_version;
  j["numa_nodes"] = json::array();
  for (const NumaNode &n : m.numa)
    j["numa_nodes"].push_back({{"os_index", n.os_index},
                               {"cpuset", n.cpuset},
                               {"memory_bytes", n.memory_bytes},
                               {"subtype", n.subtype}});
  j["packages"] = json::array();
  for (const Package &p : m.packages)
    j["packages"].push_back({{"os_index", p.os_index}, {"cpuset", p.cpuset}, {"model", p.model}});
  j["gpus"] = json::array();
  for (const Gpu &g : m.gpus) {
    json gpu = {{"index", g.index},         {"bus_id", g.bus_id}, {"name", g.name},
                {"numa_node", g.numa_node}, {"cpuset", g.cpuset}, {"cuda_ordinal", g.cuda_ordinal},
                {"pci_path", g.pci_path}};
    if (m.gpus.size() > kMatrixMax) {
      // Compact for large machines: one string of classes, peer by peer ("X NV18 NV18 ...").
      std::string classes;
      for (size_t k = 0; k < m.gpus.size(); ++k)
        classes += (k ? " " : "") + gpu_cell(m, g.index, k);
      gpu["classes"] = classes;
      j["gpus"].push_back(std::move(gpu));
      continue;
    }
    json links = json::array();
    for (size_t k = 0; k < m.gpus.size(); ++k) {
      const GpuLink &l = m.gpu_gpu[g.index][k];
      links.push_back({{"gpu", k},
                       {"class", gpu_cell(m, g.index, k)},
                       {"nvlinks", l.nvlinks},
                       {"p2p", l.p2p},
                       {"atomics", l.atomics},
                       {"pci", class_name(l.pci)},
                       {"source", l.source}});
    }
    json nics = json::array();
    for (size_t k = 0; k < m.nics.size(); ++k) nics.push_back(class_name(m.gpu_nic[g.index][k]));
    gpu["links"] = links;
    gpu["nic_classes"] = nics;
    j["gpus"].push_back(std::move(gpu));
  }
  j["nics"] = json::array();
  for (const Nic &n : m.nics) {
    json ports = json::array();
    for (const NicPort &p : n.ports)
      ports.push_back({{"port", p.num},
                       {"state", p.state},
                       {"link_layer", link_layer_name(p.link_layer)},
                       {"speed_gbps", p.speed_gbps}});
    j["nics"].push_back({{"index", n.index},
                         {"name", n.name},
                         {"bus_id", n.bus_id},
                         {"numa_node", n.numa_node},
                         {"cpuset", n.cpuset},
                         {"node_guid", n.node_guid},
                         {"pci_path", n.pci_path},
                         {"ports", ports}});
  }
  j["fabric_domains"] = json::array();
  for (const FabricDomain &d : m.domains)
    j["fabric_domains"].push_back(
        {{"provider", d.provider}, {"domain", d.domain}, {"bus_id", d.bus_id}});
  j["matrix"] = matrix_text(m);
  j["unplaced_gpus"] = m.unplaced_gpus;
  j["notes"] = m.notes;
  return j.dump(2);
}

std::string plan_text(const Plan &p) {
  std::string out;
  char line[512];
  snprintf(line, sizeof(line), "plan: %d node(s) x %d PE(s) per node\n", p.nodes, p.pes_per_node);
  out += line;
  for (const PePlan &x : p.pes) {
    snprintf(line, sizeof(line), "  pe %-3d node %-2d local %-2d gpu %-4s nic %-10s %s\n", x.pe,
             x.node, x.local_rank, x.gpu >= 0 ? std::to_string(x.gpu).c_str() : "cpu",
             x.nic_name.empty() ? "-" : x.nic_name.c_str(), x.nic_reason.c_str());
    out += line;
  }
  const size_t n = p.pes.size();
  if (!p.classes.empty()) {
    // Pairs by transport, then each class (at most 8 per transport shown).
    snprintf(line, sizeof(line),
             "\npairs by transport (%zu PEs, %llu ordered pairs, self pairs too):\n", n,
             static_cast<unsigned long long>(n) * n);
    out += line;
    std::vector<int> order;  // the model's transports in its order, "none" last
    for (int t = 0; t < static_cast<int>(p.transports.size()); ++t) order.push_back(t);
    order.push_back(-1);
    for (int t : order) {
      const uint64_t c = p.count(t);
      const std::string name = p.name(t);
      if (c == 0) continue;
      size_t nc = 0;
      for (const PairClass &k : p.classes) nc += k.transport == t;
      snprintf(line, sizeof(line), "  %-9s %llu pairs in %zu class(es)\n", name.c_str(),
               static_cast<unsigned long long>(c), nc);
      out += line;
      size_t shown = 0;
      for (const PairClass &k : p.classes) {
        if (k.transport != t) continue;
        if (shown++ == 8) {
          snprintf(line, sizeof(line), "    ... and %zu more %s classes\n", nc - 8, name.c_str());
          out += line;
          break;
        }
        snprintf(line, sizeof(line),
                 "    %llu x, first %d -> %d: ", static_cast<unsigned long long>(k.count), k.from,
                 k.to);
        out += line + k.why + "\n";
      }
    }
  }
  if (p.full_pairs()) {
    size_t w = 4;
    for (const std::string &t : p.transports) w = std::max(w, t.size() + 1);
    out += "\ntransport matrix (- none):\n";
    out += "      ";
    for (size_t b = 0; b < n; ++b) out += pad(std::to_string(b), w);
    while (out.back() == ' ') out.pop_back();
    out += "\n";
    for (size_t a = 0; a < n; ++a) {
      out += pad(std::to_string(a), 6);
      for (size_t b = 0; b < n; ++b) {
        const int t = p.pairs[a][b].transport;
        out += pad(t < 0 ? "-" : p.name(t), w);
      }
      while (out.back() == ' ') out.pop_back();
      out += "\n";
    }
    out += "\npairs:\n";
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        snprintf(line, sizeof(line), "  %zu -> %zu: ", a, b);
        out += line + p.pairs[a][b].why + "\n";
      }
  } else if (!p.classes.empty()) {
    snprintf(line, sizeof(line),
             "\n(%zu PEs: more than %d, so no transport matrix and no per-pair list; "
             "xshmem-info --pairs prints every pair)\n",
             n, kFullPairsMax);
    out += line;
  }
  for (const auto &s : p.notes) out += "note: " + s + "\n";
  for (const auto &s : p.errors) out += "error: " + s + "\n";
  return out;
}

std::string plan_json(const Plan &p, bool with_pairs) {
  json j;
  j["nodes"] = p.nodes;
  j["pes_per_node"] = p.pes_per_node;
  j["pes"] = json::array();
  for (const PePlan &x : p.pes)
    j["pes"].push_back({{"pe", x.pe},
                        {"node", x.node},
                        {"local_rank", x.local_rank},
                        {"gpu", x.gpu},
                        {"nic", x.nic_name},
                        {"nic_reason", x.nic_reason}});
  json counts = json::object();
  for (int t = -1; t < static_cast<int>(p.transports.size()); ++t)
    if (const uint64_t c = p.count(t)) counts[p.name(t)] = c;
  j["pair_counts"] = counts;
  // The classes, at most 256 per transport (a 1024-GPU plan has a million).
  j["pair_classes"] = json::array();
  std::map<int, size_t> listed;
  size_t omitted = 0;
  for (const PairClass &k : p.classes)
    if (listed[k.transport]++ >= 256)
      ++omitted;
    else
      j["pair_classes"].push_back({{"transport", p.name(k.transport)},
                                   {"count", k.count},
                                   {"same_node", k.same_node},
                                   {"first_from", k.from},
                                   {"first_to", k.to},
                                   {"why", k.why}});
  if (omitted) j["pair_classes_omitted"] = omitted;
  if (with_pairs && p.full_pairs()) {
    j["pairs"] = json::array();
    for (size_t a = 0; a < p.pairs.size(); ++a)
      for (size_t b = 0; b < p.pairs[a].size(); ++b)
        j["pairs"].push_back({{"from", a},
                              {"to", b},
                              {"transport", p.name(p.pairs[a][b].transport)},
                              {"why", p.pairs[a][b].why}});
  }
  j["notes"] = p.notes;
  j["errors"] = p.errors;
  j["ok"] = p.ok();
  return j.dump(2);
}

std::string to_dot(const std::vector<Machine> &machines, const Plan *p) {
  std::string out = "graph xshmem {\n  compound=true;\n  node [fontname=\"Helvetica\"];\n";
  auto id = [](size_t node, const char *kind, int i) {
    return "n" + std::to_string(node) + "_" + kind + std::to_string(i);
  };
  const size_t nodes = p && p->nodes > 0 ? static_cast<size_t>(p->nodes) : machines.size();
  for (size_t nd = 0; nd < nodes && !machines.empty(); ++nd) {
    const Machine &m = machines.size() == 1 ? machines[0] : machines[nd];
    out += "  subgraph cluster_node" + std::to_string(nd) + " {\n    label=\"node " +
           std::to_string(nd) + (m.host.empty() ? "" : ": " + m.host) + "\";\n";
    for (const NumaNode &n : m.numa)
      out += "    " + id(nd, "numa", n.os_index) + " [shape=box, label=\"NUMA " +
             std::to_string(n.os_index) + "\\ncpus " + n.cpuset + "\"];\n";
    for (const Gpu &g : m.gpus) {
      out += "    " + id(nd, "gpu", g.index) +
             " [shape=box, style=filled, fillcolor=palegreen, label=\"GPU" +
             std::to_string(g.index) + "\\n" + g.bus_id + "\"];\n";
      if (g.numa_node >= 0)
        out += "    " + id(nd, "gpu", g.index) + " -- " + id(nd, "numa", g.numa_node) +
               " [color=gray];\n";
    }
    for (const Nic &n : m.nics) {
      out += "    " + id(nd, "nic", n.index) +
             " [shape=ellipse, style=filled, fillcolor=lightblue, label=\"" + n.name + "\\n" +
             n.bus_id + "\"];\n";
      if (n.numa_node >= 0)
        out += "    " + id(nd, "nic", n.index) + " -- " + id(nd, "numa", n.numa_node) +
               " [color=gray];\n";
    }
    for (size_t i = 0; i < m.gpus.size(); ++i)
      for (size_t j = i + 1; j < m.gpus.size(); ++j)
        if (m.gpu_gpu[i][j].nvlinks > 0)
          out += "    " + id(nd, "gpu", i) + " -- " + id(nd, "gpu", j) +
                 " [color=green, label=\"NV" + std::to_string(m.gpu_gpu[i][j].nvlinks) + "\"];\n";
    for (size_t i = 0; i < m.gpus.size(); ++i)
      for (size_t k = 0; k < m.nics.size(); ++k)
        if (m.gpu_nic[i][k] == PathClass::kPIX)
          out += "    " + id(nd, "gpu", i) + " -- " + id(nd, "nic", k) +
                 " [color=blue, label=\"PIX\"];\n";
    out += "  }\n";
  }
  if (p && !p->pes.empty() && !p->kind_class.empty()) {
    // One edge per node pair and NIC pair the plan uses between nodes (up to 4096 PEs).
    const size_t n = p->pes.size();
    if (n > 4096) {
      out += "  // " + std::to_string(n) + " PEs: the paths between nodes are not drawn\n";
    } else {
      std::set<std::string> edges;
      for (size_t a = 0; a < n; ++a)
        for (size_t b = a + 1; b < n; ++b) {
          const PePlan &pa = p->pes[a], &pb = p->pes[b];
          if (pa.node == pb.node || pa.nic < 0 || pb.nic < 0) continue;
          const int t = p->transport(static_cast<int>(a), static_cast<int>(b));
          if (t < 0) continue;
          edges.insert("  " + id(pa.node, "nic", pa.nic) + " -- " + id(pb.node, "nic", pb.nic) +
                       " [style=dashed, color=red, label=\"" + p->name(t) + "\"];\n");
        }
      for (const auto &e : edges) out += e;
    }
  }
  out += "}\n";
  return out;
}

}  // namespace xshmem::topo
