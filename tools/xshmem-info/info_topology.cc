// xshmem-info: the topology, --plan and --dot sections, from the topology model (topology/) and
// the NIC settings as the core parses them (core/src/nics.h). See info.h.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "loader.h"
#include "config.h"
#include "info.h"
#include "nics.h"
#include "runtime.h"
#include "selection.h"

namespace xshmem::info {
namespace {

using json = nlohmann::ordered_json;

std::string gib(uint64_t bytes) {
  char b[32];
  snprintf(b, sizeof(b), "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return b;
}

std::string ports_text(const topo::Nic &n) {
  if (n.ports.empty()) return "ports unknown";
  std::string out;
  for (const topo::NicPort &p : n.ports) {
    char b[128];
    snprintf(b, sizeof(b), "%sport %d %s %s", out.empty() ? "" : ", ", p.num,
             p.state.empty() ? "?" : p.state.c_str(), topo::link_layer_name(p.link_layer));
    out += b;
    if (p.speed_gbps > 0) {
      snprintf(b, sizeof(b), " %g Gb/s", p.speed_gbps);
      out += b;
    }
  }
  return out;
}

// The NIC settings of the environment, checked against machine `m` (names) when given.
json nic_settings(const nics::Settings *s, const std::string &parse_error, const topo::Machine *m) {
  json j;
  j["XSHMEM_NICS"] = config::get_string("XSHMEM_NICS");
  j["XSHMEM_NIC_MAP"] = config::get_string("XSHMEM_NIC_MAP");
  std::string error = parse_error;
  if (error.empty() && s && m) nics::check_names(*s, *m, &error);
  j["ok"] = error.empty();
  if (!error.empty()) j["error"] = error;
  return j;
}

std::string machine_text(const topo::Machine &m, const nics::Settings &s, bool settings_ok) {
  std::string out = "topology: " + nics::summary(m) + "\n";
  for (const topo::NumaNode &n : m.numa)
    out += "  NUMA " + std::to_string(n.os_index) + ": " +
           (n.cpuset.empty() ? std::string("no cpus") : "cpus " + n.cpuset) +
           (n.memory_bytes ? ", " + gib(n.memory_bytes) : "") +
           (n.subtype == "GPUMemory" ? " (GPU memory)"
            : n.subtype.empty()      ? ""
                                     : " (" + n.subtype + ")") +
           "\n";
  for (const topo::Gpu &g : m.gpus)
    out += "  GPU" + std::to_string(g.index) + " " + g.bus_id + " " + g.name + " (NUMA " +
           std::to_string(g.numa_node) + ", cpus " + (g.cpuset.empty() ? "?" : g.cpuset) +
           (g.cuda_ordinal >= 0 ? ", cuda " + std::to_string(g.cuda_ordinal) : "") + ")\n";
  for (const topo::Nic &n : m.nics)
    out += "  NIC" + std::to_string(n.index) + " " + n.name + " " +
           (n.bus_id.empty() ? "(no PCI)" : n.bus_id) + " (NUMA " + std::to_string(n.numa_node) +
           "): " + ports_text(n) + "\n";
  for (const topo::FabricDomain &d : m.domains)
    out += "  libfabric " + d.provider + " domain " + d.domain +
           (d.bus_id.empty() ? "" : " (" + d.bus_id + ")") + "\n";
  out += "\n" + topo::matrix_text(m);
  if (!m.gpus.empty()) {
    std::vector<std::string> skipped;
    const auto choice = topo::nic_per_gpu(m, settings_ok ? s.filter : topo::NicFilter{}, &skipped);
    out += "\nNIC per GPU" +
           (!settings_ok || s.nics_text.empty() ? std::string()
                                                : " (XSHMEM_NICS=\"" + s.nics_text + "\")") +
           ":\n";
    for (size_t g = 0; g < choice.size(); ++g)
      out += "  GPU" + std::to_string(g) + " -> " +
             (choice[g].nic >= 0
                  ? m.nics[choice[g].nic].name + " port " + std::to_string(choice[g].port) + " (" +
                        topo::class_name(choice[g].cls) + ")"
                  : "none: " + choice[g].reason) +
             "\n";
    for (const auto &k : skipped) out += "  skipped: " + k + "\n";
  }
  for (const auto &n : m.notes) out += "  note: " + n + "\n";
  return out;
}

// The plan's layout options from the configuration table; *parse_error set when the NIC settings
// are malformed (they are then left out).
topo::PlanOptions plan_options(int per_node, int nodes, nics::Settings *s,
                               std::string *parse_error) {
  topo::PlanOptions o;
  if (nics::from_config(s, parse_error)) {
    o.nics = s->nics_text;
    o.nic_map = nics::pe_map(*s, per_node, nodes);
    parse_error->clear();
  }
  o.host_heap = config::get_enum("XSHMEM_HEAP") == "host";
  return o;
}

std::string list_text(const std::vector<std::string> &v) {
  std::string t;
  for (const std::string &s : v) t += (t.empty() ? "" : ", ") + s;
  return t;
}

}  // namespace

bool load_machines(const std::vector<std::string> &xml, std::vector<topo::Machine> *out,
                   std::string *error) {
  out->clear();
  if (xml.empty()) {
    // This machine, or the recorded one hwloc itself loads when HWLOC_XMLFILE is set.
    topo::Machine m;
    topo::DiscoverOptions o;
    o.isolate_xml = true;  // HWLOC_XMLFILE: a file that crashes hwloc is an error line
    if (!topo::discover(o, &m, error)) return false;
    out->push_back(std::move(m));
    return true;
  }
  for (const std::string &f : xml) {
    topo::Machine m;
    topo::DiscoverOptions o;
    o.xml_path = f;
    o.isolate_xml = true;  // a file that crashes hwloc is an error line, not a crash
    if (!topo::discover(o, &m, error)) return false;
    out->push_back(std::move(m));
  }
  return true;
}

Section topology_report(const std::vector<topo::Machine> &machines) {
  Section r;
  nics::Settings s;
  std::string parse_error;
  const bool parsed = nics::from_config(&s, &parse_error);
  json j;
  j["available"] = true;
  json arr = json::array();
  for (const topo::Machine &m : machines) {
    json e = json::parse(topo::to_json(m));
    e["summary"] = nics::summary(m);
    json per_gpu = json::array();
    for (const topo::NicChoice &c : topo::nic_per_gpu(m, parsed ? s.filter : topo::NicFilter{}))
      per_gpu.push_back({{"nic", c.nic >= 0 ? m.nics[c.nic].name : ""},
                         {"port", c.port},
                         {"class", topo::class_name(c.cls)},
                         {"reason", c.reason}});
    e["nic_per_gpu"] = per_gpu;
    e["nic_settings"] = nic_settings(parsed ? &s : nullptr, parse_error, &m);
    if (!e["nic_settings"]["ok"].get<bool>()) r.failed = true;
    arr.push_back(e);
    if (!r.text.empty()) r.text += "\n";
    r.text += machine_text(m, s, parsed);
    if (e["nic_settings"].contains("error"))
      r.text += "  error: " + e["nic_settings"]["error"].get<std::string>() + "\n";
  }
  j["machines"] = arr;
  r.json = j.dump();
  return r;
}

Section plan_report(const std::vector<topo::Machine> &machines, int per_node, int nodes,
                    bool pairs) {
  Section r;
  nics::Settings s;
  std::string parse_error;
  topo::PlanOptions o = plan_options(per_node, nodes, &s, &parse_error);
  const bool parsed = parse_error.empty();
  // --pairs: the full list (held for the JSON up to 1024 PEs; the text streams it: print_pairs).
  const int64_t n = static_cast<int64_t>(per_node) * nodes;
  o.full_pairs = pairs && n <= 16 * topo::kFullPairsMax ? 1 : -1;
  const PluginModel pm = plugin_model(static_cast<int>(n), pairs);
  topo::Plan p = topo::plan(machines, per_node, nodes, o, pm.model);
  if (!parsed) p.errors.push_back(parse_error);
  for (const std::string &e : pm.errors) p.errors.push_back(e);
  for (size_t i = 0; parsed && i < machines.size(); ++i) {
    std::string error;
    if (!nics::check_names(s, machines[i], &error))
      p.errors.push_back(machines.size() > 1 ? "node " + std::to_string(i) + ": " + error : error);
  }
  json j = json::parse(topo::plan_json(p, pairs));
  if (pairs && !p.full_pairs())
    j["pairs_omitted"] = std::to_string(n) + " PEs: more than " +
                         std::to_string(16 * topo::kFullPairsMax) +
                         " for a JSON pair list; the text output (--pairs) streams every pair";
  j["origin"] = machines.size() == 1 ? machines[0].origin : "one recorded topology per node";
  j["transports"] = pm.model.names;
  j["not_predicted"] = pm.not_predicted;
  j["options"] = {{"XSHMEM_TRANSPORTS", config::get_string("XSHMEM_TRANSPORTS")},
                  {"XSHMEM_REMOTE_TRANSPORT", config::get_string("XSHMEM_REMOTE_TRANSPORT")},
                  {"XSHMEM_PAIR_TRANSPORTS", config::get_string("XSHMEM_PAIR_TRANSPORTS")},
                  {"XSHMEM_NICS", config::get_string("XSHMEM_NICS")},
                  {"XSHMEM_NIC_MAP", config::get_string("XSHMEM_NIC_MAP")},
                  {"XSHMEM_HEAP", config::get_enum("XSHMEM_HEAP")}};
  r.json = j.dump();
  r.failed = !p.ok();
  std::string head;
  for (size_t i = 0; i < machines.size(); ++i)
    head += (i ? ", " : "") + (machines[i].host.empty() ? std::string("?") : machines[i].host) +
            " (" + machines[i].origin + ")";
  r.text =
      "plan of " + head +
      "; each pair as the loaded plugins predict it, chosen by init's selection (transports: " +
      (pm.model.names.empty() ? std::string("none predicts") : list_text(pm.model.names)) +
      (pm.not_predicted.empty() ? "" : "; not predicted: " + list_text(pm.not_predicted)) + ")\n" +
      topo::plan_text(p);
  r.stream_pairs = pairs && !p.full_pairs();
  return r;
}

void print_pairs(const std::vector<topo::Machine> &machines, int per_node, int nodes, FILE *out) {
  nics::Settings s;
  std::string parse_error;
  topo::PlanOptions o = plan_options(per_node, nodes, &s, &parse_error);
  o.full_pairs = 0;
  const PluginModel pm = plugin_model(per_node * nodes, true);
  const topo::Plan p = topo::plan(machines, per_node, nodes, o, pm.model);
  fprintf(out, "pairs:\n");
  topo::for_each_pair(machines, pm.model, p, [&](int a, int b, const topo::PairPlan &r) {
    if (a < b) fprintf(out, "  %d -> %d: %s\n", a, b, r.why.c_str());
  });
}

bool write_dot(const std::vector<topo::Machine> &machines, const std::string &file, int per_node,
               int nodes, std::string *error) {
  topo::Plan p;
  const bool with_plan = per_node > 0;
  if (with_plan) {
    nics::Settings s;
    std::string ignored;  // flagged by the topology and plan sections
    p = topo::plan(machines, per_node, nodes, plan_options(per_node, nodes, &s, &ignored),
                   plugin_model(per_node * nodes, false).model);
  }
  const std::string dot = topo::to_dot(machines, with_plan ? &p : nullptr);
  if (file == "-") {
    fputs(dot.c_str(), stdout);
    return true;
  }
  std::ofstream f(file);
  f << dot;
  f.close();
  if (!f) {
    *error = "cannot write " + file;
    return false;
  }
  return true;
}

std::string nic_setting_problem() {
  nics::Settings s;
  std::string error;
  return nics::from_config(&s, &error) ? "" : error;
}

}  // namespace xshmem::info
