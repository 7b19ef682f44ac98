// xshmem-info: what this installation is, which plugins it finds, every variable, and whether
// the machine is ready for a job. A single process that never joins a job (no bootstrap, no
// xshmem_init): it reads the core's plugin loader and configuration table directly.
#ifndef XSHMEM_TOOLS_INFO_H
#define XSHMEM_TOOLS_INFO_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "selection.h"
#include "topology.h"

namespace xshmem::info {

// One pre-flight check: "pass|fail|skip <name>: <detail>".
struct Check {
  std::string status;  // "pass", "fail" or "skip"
  std::string name;    // "gpu-driver", "gpu-peer-access 0-1", "shm-space", ...
  std::string detail;  // what was found, or why it was skipped
};

struct CheckOptions {
  // Local PEs the /dev/shm check budgets XSHMEM_SYMMETRIC_SIZE for (--local-pes).
  int local_pes = 1;
};

// Runs every check, in a fixed order. Never fails itself: a check that cannot run is a skip.
std::vector<Check> run_checks(const CheckOptions &opts);

// One section of the topology model: its JSON (dumped) and its text rendering.
struct Section {
  std::string json;
  std::string text;
  bool failed = false;        // a bad NIC setting, or (plan) a pair no transport reaches
  bool stream_pairs = false;  // (plan) the pair list is too long to hold: print_pairs writes it
};

// The machines the topology sections describe: this one (or the recorded topology hwloc loads
// when HWLOC_XMLFILE is set) when `xml` is empty, else one recorded topology per file, one per
// node. False with *error (one line) when hwloc cannot load one.
bool load_machines(const std::vector<std::string> &xml, std::vector<topo::Machine> *out,
                   std::string *error);
// Summary, NUMA nodes with CPU sets, GPUs, NICs with ports, libfabric domains, the GPU/NIC
// matrix and the NIC per GPU under XSHMEM_NICS (whose names are checked against each machine).
Section topology_report(const std::vector<topo::Machine> &machines);
// The path plan of `per_node` PEs on each of `nodes` nodes: the PEs laid out by the topology under
// XSHMEM_NICS, XSHMEM_NIC_MAP and XSHMEM_HEAP=host, each pair's path from plugin_model (the loaded
// plugins under XSHMEM_TRANSPORTS, XSHMEM_PAIR_TRANSPORTS, XSHMEM_REMOTE_TRANSPORT).
// `pairs`: every pair's reason in the text and the JSON (--pairs); without it a plan of more than
// topo::kFullPairsMax PEs shows its pairs by class only. The text of a large plan's pairs is not
// held in the section: print_pairs writes it.
Section plan_report(const std::vector<topo::Machine> &machines, int per_node, int nodes,
                    bool pairs = false);
// The plan's path model (info_predict.cc): every allowed loaded transport's predict for a pair of
// the plan's PEs, then init's selection (select::choose_one, select::agree_one) under
// XSHMEM_PAIR_TRANSPORTS and XSHMEM_REMOTE_TRANSPORT. With `detail`, a pair's reason lists every
// other transport's answer too (--pairs).
struct PluginModel {
  topo::PathModel model;
  std::vector<std::string> not_predicted;  // loaded and allowed, without predict
  std::vector<std::string> errors;         // malformed pair rules (then none apply)
};
PluginModel plugin_model(int n_pes, bool detail);
// Writes "  a -> b: why" for every pair a < b of the plan to `out`, one pair at a time.
void print_pairs(const std::vector<topo::Machine> &machines, int per_node, int nodes, FILE *out);
// Writes the Graphviz picture (with the plan's paths when per_node > 0) to `file` ("-": stdout).
bool write_dot(const std::vector<topo::Machine> &machines, const std::string &file, int per_node,
               int nodes, std::string *error);
// The parse error of XSHMEM_NICS or XSHMEM_NIC_MAP, "" when both are well formed.
std::string nic_setting_problem();

// "1.0 GiB", "512 MiB", "4096 B".
std::string human_bytes(uint64_t bytes);

}  // namespace xshmem::info

#endif  // XSHMEM_TOOLS_INFO_H
