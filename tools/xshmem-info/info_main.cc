// xshmem-info: version and build configuration, plugins found/loaded/refused, every XSHMEM_*
// variable, pre-flight checks, the topology, path plans and Graphviz pictures; text or --json.
// See info.h.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <xshmem/xshmem.h>
#include "loader.h"
#include "config.h"
#include "info.h"
#include "runtime.h"
#include "xshmem_info_build.h"

extern char **environ;

namespace xshmem::info {
namespace {

using json = nlohmann::ordered_json;

struct Options {
  bool all = false, build = false, plugins = false, env = false, checks = false, topology = false;
  bool as_json = false;
  bool pairs = false;            // --pairs: every pair of the plan
  std::string plan;              // "N" or "NxM": N PEs per node, M nodes
  std::string dot;               // file for the Graphviz picture, "-" for stdout
  std::vector<std::string> xml;  // recorded topologies (hwloc XML), one per node
  int local_pes = 1;
};

// The folder and file libxshmem was loaded from.
std::string library_path() {
  Dl_info dl{};
  if (dladdr(reinterpret_cast<void *>(&xshmem_info_get_version), &dl) == 0 || !dl.dli_fname)
    return "";
  return dl.dli_fname;
}

// ---- Sections as JSON (the text output renders the same objects) -------------------------------

json build_section() {
  json j;
  int major = 0, minor = 0;
  char vendor[XSHMEM_MAX_NAME_LEN] = {0};
  xshmem_info_get_version(&major, &minor);
  xshmem_info_get_name(vendor);
  j["version"] = XSHMEM_INFO_VERSION;
  j["vendor"] = vendor;
  j["openshmem_version"] = std::to_string(major) + "." + std::to_string(minor);
  j["library"] = library_path();
  j["compiler"] = XSHMEM_INFO_COMPILER;
  j["build_type"] = XSHMEM_INFO_BUILD_TYPE;
  j["cuda"] = XSHMEM_INFO_HAVE_CUDA ? json(XSHMEM_INFO_CUDA_VERSION) : json(false);
  j["plugin_install_dir"] = XSHMEM_INFO_PLUGIN_INSTALL_DIR;
  json deps = json::object();
  for (const auto &d : kDependencies) {
    json e;
    e["found"] = d.found;
    if (d.found && d.version[0] != '\0') e["version"] = d.version;
    e["used_by"] = d.used_by;
    deps[d.name] = e;
  }
  j["dependencies"] = deps;
  // The transports are the transport plugins found and loaded, not the libraries found at build
  // time (a library is no transport until a plugin uses it).
  json transports = json::array();
  for (const auto &t : core::plugin_loader(true).transports()) transports.push_back(t.name);
  j["transports"] = transports;
  j["options"] = json::parse(XSHMEM_INFO_OPTIONS_JSON);
  return j;
}

json plugins_section() {
  const plugins::Loader &l = core::plugin_loader(true);
  json j;
  j["search_path"] = l.search_path();
  json files = json::array();
  for (const plugins::FileRecord &f : l.files()) {
    json e;
    e["file"] = f.path;
    e["kind"] = f.kind;
    e["name"] = f.name;
    e["outcome"] = f.outcome;
    if (!f.reason.empty()) e["reason"] = f.reason;
    if (f.abi_version != 0 || f.struct_size != 0) {
      e["abi_version"] = f.abi_version;
      e["struct_size"] = f.struct_size;
    }
    files.push_back(e);
  }
  j["files"] = files;
  return j;
}

json env_section() {
  core::plugin_loader(true);  // plugins register their variables when loaded
  json vars = json::array();
  std::set<std::string> known;
  for (const config::VarInfo &v : config::list()) {
    json e;
    e["name"] = v.name;
    e["value"] = v.value;
    e["default"] = v.default_value;
    e["source"] = v.source != "env" ? "default"
                  : v.via.empty()   ? "environment"
                                    : "environment (" + v.via + ")";
    e["type"] = v.type;
    if (!v.choices.empty()) e["choices"] = v.choices;
    e["owner"] = v.owner;
    e["doc"] = v.doc;
    if (!v.note.empty()) e["note"] = v.note;
    if ((v.name == "XSHMEM_NICS" || v.name == "XSHMEM_NIC_MAP") && v.source == "env") {
      const std::string problem = nic_setting_problem();
      if (problem.rfind(v.name + "=", 0) == 0)
        e["note"] = "malformed: " + problem + "; init fails when a NIC transport is allowed";
    }
    vars.push_back(e);
    known.insert(v.name);
  }
  // XSHMEM_* variables of the environment that no table lists (a typo, or a plugin not found).
  json unknown = json::array();
  for (char **env = environ; env && *env; ++env) {
    if (strncmp(*env, "XSHMEM_", 7) != 0) continue;
    const char *eq = strchr(*env, '=');
    std::string name = eq ? std::string(*env, static_cast<size_t>(eq - *env)) : std::string(*env);
    if (!known.count(name)) unknown.push_back(name);
  }
  // The NVSHMEM_* variables honoured as aliases, and NVSHMEM_* ones set that mean nothing here.
  json aliases = json::array();
  for (const config::AliasInfo &a : config::aliases()) {
    json e;
    e["alias"] = a.alias;
    e["for"] = a.name;
    e["meaning"] = a.meaning;
    if (a.set) {
      e["text"] = a.text;
      e["outcome"] = a.outcome;
    }
    aliases.push_back(e);
  }
  json ignored = json::array();
  for (char **env = environ; env && *env; ++env) {
    if (strncmp(*env, "NVSHMEM_", 8) != 0) continue;
    const char *eq = strchr(*env, '=');
    std::string name = eq ? std::string(*env, static_cast<size_t>(eq - *env)) : std::string(*env);
    if (!config::is_alias(name)) ignored.push_back(name);
  }
  json j;
  j["variables"] = vars;
  j["unknown"] = unknown;
  j["nvshmem_aliases"] = aliases;
  j["nvshmem_ignored"] = ignored;
  return j;
}

json checks_section(const Options &o) {
  json arr = json::array();
  for (const Check &c : run_checks({o.local_pes}))
    arr.push_back({{"status", c.status}, {"name", c.name}, {"detail", c.detail}});
  return arr;
}

// "8" -> (8, 1), "4x2" -> (4, 2); false when malformed.
bool parse_plan(const std::string &s, int *per_node, int *nodes) {
  char extra = 0;
  *nodes = 1;
  if (sscanf(s.c_str(), "%dx%d%c", per_node, nodes, &extra) == 2 ||
      sscanf(s.c_str(), "%d%c", per_node, &extra) == 1)
    return *per_node > 0 && *nodes > 0;
  return false;
}

// ---- Text rendering ----------------------------------------------------------------------------

void print_build(const json &b) {
  printf("xshmem %s (%s, OpenSHMEM %s)\n", b["version"].get<std::string>().c_str(),
         b["vendor"].get<std::string>().c_str(), b["openshmem_version"].get<std::string>().c_str());
  printf("  library:            %s\n", b["library"].get<std::string>().c_str());
  printf("  compiler:           %s\n", b["compiler"].get<std::string>().c_str());
  printf("  build type:         %s\n", b["build_type"].get<std::string>().c_str());
  printf("  cuda:               %s\n",
         b["cuda"].is_string() ? ("built (CUDA " + b["cuda"].get<std::string>() + ")").c_str()
                               : "not built");
  printf("  plugin install dir: %s\n", b["plugin_install_dir"].get<std::string>().c_str());
  printf("  dependencies (configure time):\n");
  for (auto &[name, d] : b["dependencies"].items()) {
    std::string v = d.contains("version") ? " " + d["version"].get<std::string>() : "";
    printf("    %-12s %-10s %s\n", name.c_str(),
           d["found"].get<bool>() ? ("found" + v).c_str() : "not found",
           ("(" + d["used_by"].get<std::string>() + ")").c_str());
  }
  std::string transports;
  for (auto &t : b["transports"])
    transports += (transports.empty() ? "" : ", ") + t.get<std::string>();
  printf("  transports:         %s (the transport plugins loaded; see the plugins section)\n",
         transports.empty() ? "none" : transports.c_str());
  printf("  options:");
  for (auto &[k, v] : b["options"].items())
    printf(" %s=%s", k.c_str(), v.get<std::string>().c_str());
  printf("\n");
}

void print_plugins(const json &p) {
  printf("plugins (search path:");
  for (auto &d : p["search_path"]) printf(" %s", d.get<std::string>().c_str());
  printf(")\n");
  if (p["files"].empty()) printf("  no plugin file found\n");
  for (auto &f : p["files"]) {
    std::string name = f["name"].get<std::string>();
    printf("  %-8s %-9s %-10s %s\n", f["outcome"].get<std::string>().c_str(),
           f["kind"].get<std::string>().c_str(), name.empty() ? "?" : name.c_str(),
           f["file"].get<std::string>().c_str());
    if (f.contains("reason"))
      printf("           reason: %s\n", f["reason"].get<std::string>().c_str());
  }
}

void print_env(const json &e) {
  printf("variables (%zu; source: environment or default)\n", e["variables"].size());
  for (auto &v : e["variables"]) {
    std::string extra = v["type"].get<std::string>();
    if (v.contains("choices")) extra += " of " + v["choices"].get<std::string>();
    printf("  %s=%s  [%s; default '%s'; %s; from %s]\n", v["name"].get<std::string>().c_str(),
           v["value"].get<std::string>().c_str(), v["source"].get<std::string>().c_str(),
           v["default"].get<std::string>().c_str(), extra.c_str(),
           v["owner"].get<std::string>().c_str());
    printf("      %s\n", v["doc"].get<std::string>().c_str());
    if (v.contains("note")) printf("      note: %s\n", v["note"].get<std::string>().c_str());
  }
  for (auto &u : e["unknown"])
    printf("  unknown: %s is set but no table lists it (a typo, or its plugin was not found)\n",
           u.get<std::string>().c_str());
  printf("NVSHMEM variables honoured as aliases (the XSHMEM variable, when set, comes first)\n");
  for (auto &a : e["nvshmem_aliases"]) {
    const std::string to = a["for"].get<std::string>();
    printf("  %s -> %s: %s\n", a["alias"].get<std::string>().c_str(),
           to.empty() ? "(nothing)" : to.c_str(), a["meaning"].get<std::string>().c_str());
    if (a.contains("outcome"))
      printf("      set to '%s': %s\n", a["text"].get<std::string>().c_str(),
             a["outcome"].get<std::string>().c_str());
  }
  for (auto &u : e["nvshmem_ignored"])
    printf("  ignored: %s is set but has no xshmem equivalent\n", u.get<std::string>().c_str());
}

void print_checks(const json &c) {
  printf("pre-flight checks\n");
  for (auto &k : c)
    printf("  %s %s: %s\n", k["status"].get<std::string>().c_str(),
           k["name"].get<std::string>().c_str(), k["detail"].get<std::string>().c_str());
}

int run(const Options &o) {
  // No section option (or --all): every section; --plan and --dot add theirs.
  const bool any = !o.all && (o.build || o.plugins || o.env || o.checks || o.topology ||
                              !o.plan.empty() || !o.dot.empty());
  int per_node = 0, nodes = 0;
  if (!o.plan.empty() && !parse_plan(o.plan, &per_node, &nodes)) {
    fprintf(stderr, "xshmem-info: --plan %s: expected N or NxM (N PEs per node, M nodes)\n",
            o.plan.c_str());
    return 2;
  }
  // The topology (hwloc I/O discovery: 100 ms and more) only for the sections that show it.
  std::vector<topo::Machine> machines;
  std::string topo_error;
  const bool want_topo = !any || o.topology || !o.plan.empty() || !o.dot.empty();
  const bool have_topo = want_topo && load_machines(o.xml, &machines, &topo_error);
  // A recording that cannot be read (--xml, or HWLOC_XMLFILE) is an error: never this machine
  // instead.
  const char *xmlfile = getenv("HWLOC_XMLFILE");
  if (want_topo && !have_topo && (!o.xml.empty() || (xmlfile && *xmlfile))) {
    fprintf(stderr, "xshmem-info: %s\n", topo_error.c_str());
    return 1;
  }
  if (!o.xml.empty() && nodes > 1 && o.xml.size() != 1 &&
      o.xml.size() != static_cast<size_t>(nodes)) {
    fprintf(stderr,
            "xshmem-info: --plan %s: %zu --xml files given for %d nodes; give one, or "
            "one per node\n",
            o.plan.c_str(), o.xml.size(), nodes);
    return 2;
  }
  json out;
  std::string topo_text, plan_text;
  bool failed = false, stream_pairs = false;
  auto unavailable = [&] { return json{{"available", false}, {"error", topo_error}}; };
  if (!any || o.build) out["build"] = build_section();
  if (!any || o.plugins) out["plugins"] = plugins_section();
  if (!any || o.topology) {
    if (have_topo) {
      Section t = topology_report(machines);
      out["topology"] = json::parse(t.json);
      topo_text = t.text;
      failed = failed || t.failed;
    } else {
      out["topology"] = unavailable();
      topo_text = "topology: unavailable: " + topo_error + "\n";
    }
  }
  if (!o.plan.empty()) {
    if (have_topo) {
      Section p = plan_report(machines, per_node, nodes, o.pairs);
      out["plan"] = json::parse(p.json);
      plan_text = p.text;
      stream_pairs = p.stream_pairs;
      failed = failed || p.failed;
    } else {
      out["plan"] = unavailable();
      plan_text = "plan: unavailable: " + topo_error + "\n";
      failed = true;
    }
  }
  if (!any || o.env) {
    out["env"] = env_section();
    failed = failed || !nic_setting_problem().empty();
  }
  if (!any || o.checks) out["checks"] = checks_section(o);
  if (!o.dot.empty()) {
    std::string error = have_topo ? "" : topo_error;
    const bool wrote = have_topo && write_dot(machines, o.dot, per_node, nodes, &error);
    out["dot"] = {{"file", o.dot}, {"written", wrote}};
    if (!wrote) out["dot"]["error"] = error;
    failed = failed || !wrote;
  }

  if (out.contains("checks"))
    for (auto &k : out["checks"]) failed = failed || k["status"] == "fail";

  if (o.as_json) {
    std::cout << out.dump(2) << std::endl;
  } else {
    bool first = true;
    auto gap = [&] {
      if (!first) printf("\n");
      first = false;
    };
    if (out.contains("build")) gap(), print_build(out["build"]);
    if (out.contains("plugins")) gap(), print_plugins(out["plugins"]);
    if (out.contains("topology")) gap(), fputs(topo_text.c_str(), stdout);
    if (out.contains("plan")) {
      gap();
      fputs(plan_text.c_str(), stdout);
      if (stream_pairs) print_pairs(machines, per_node, nodes, stdout);
    }
    if (out.contains("dot") && o.dot != "-") {
      gap();
      if (out["dot"]["written"].get<bool>())
        printf("graphviz picture written to %s (render: dot -Tsvg %s -o topo.svg)\n", o.dot.c_str(),
               o.dot.c_str());
      else
        printf("--dot %s: %s\n", o.dot.c_str(), out["dot"]["error"].get<std::string>().c_str());
    }
    if (out.contains("env")) gap(), print_env(out["env"]);
    if (out.contains("checks")) gap(), print_checks(out["checks"]);
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace xshmem::info

int main(int argc, char **argv) {
  xshmem::info::Options o;
  CLI::App app{
      "xshmem-info: what this xshmem installation is and whether this machine is ready for a "
      "job. Runs as a single process; it never joins a job. With no section option every "
      "section is shown. Exit status: 0; 1 when a pre-flight check failed, a recorded topology "
      "(--xml, HWLOC_XMLFILE) cannot be loaded, the plan leaves a pair unreachable, XSHMEM_NICS or "
      "XSHMEM_NIC_MAP is malformed or names a NIC the "
      "machine lacks, or the --dot file could not be written; 2 on a usage error."};
  app.add_flag("--all", o.all, "every section (the default when no section option is given)");
  app.add_flag("--build", o.build, "version and build configuration");
  app.add_flag("--plugins", o.plugins,
               "plugin files found in XSHMEM_PLUGIN_PATH and the built-in folder: loaded, "
               "refused (and why) or skipped");
  app.add_flag("--env", o.env,
               "every XSHMEM_* variable (core and loaded plugins): value, default, where it was "
               "set, type, choices and doc");
  app.add_flag("--checks", o.checks,
               "pre-flight checks, one 'pass|fail|skip <name>: <detail>' line each");
  app.add_flag("--topology", o.topology,
               "NUMA nodes, GPUs, NICs, libfabric domains, the GPU/NIC distance matrix and the "
               "NIC per GPU (hwloc)");
  app.add_option("--plan", o.plan,
                 "path plan for N PEs per node x M nodes of this (or the --xml) topology, as N "
                 "or NxM, under XSHMEM_TRANSPORTS, XSHMEM_REMOTE_TRANSPORT, XSHMEM_NICS and "
                 "XSHMEM_NIC_MAP");
  app.add_flag("--pairs", o.pairs,
               "with --plan: every pair's path and reason (by default a plan of more than 64 PEs "
               "shows its pairs by class only; --json lists pairs only with --pairs)");
  app.add_option("--dot", o.dot,
                 "write a Graphviz picture of GPUs, NICs (and with --plan the paths) to FILE "
                 "('-': stdout)");
  app.add_option("--xml", o.xml,
                 "a recorded hwloc XML topology instead of this machine's (HWLOC_XMLFILE works "
                 "too); repeat it for one topology per node of --plan");
  app.add_option("--local-pes", o.local_pes,
                 "PEs per host the shared-memory check budgets XSHMEM_SYMMETRIC_SIZE for")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", o.as_json, "everything shown, as one JSON object");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return xshmem::info::run(o);
}
