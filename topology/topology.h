// xshmem topology: what the machine is (GPUs, NICs, NUMA nodes, links, distances), discovered with
// hwloc, and the plan of a job layout (its PEs, their pairs by class, the path a PathModel gives
// each pair).
//
// Internal C++ header (namespace xshmem::topo), used by libxshmem and the tools; never installed.
// The model is plain structs without hwloc types, so tests build machines by hand and the tools
// print them. Discovery links nothing but hwloc: CUDA, NVML, libibverbs and libfabric are loaded
// with dlopen when present, and only for the live machine (never for a recorded XML topology).
#ifndef XSHMEM_TOPOLOGY_TOPOLOGY_H
#define XSHMEM_TOPOLOGY_TOPOLOGY_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

struct xshmem_plan_pe_v1;  // <xshmem/plugin/transport_v1.h>

namespace xshmem::topo {

// The PCIe distance between two devices, in nvidia-smi topo -m terms, nearest first.
enum class PathClass : uint8_t {
  kSelf,     // X: the same device
  kPIX,      // both under the same PCIe switch (or root port)
  kPXB,      // several PCIe bridges, no host bridge crossed
  kPHB,      // through one PCIe host bridge
  kNODE,     // different host bridges of one NUMA node
  kSYS,      // across NUMA nodes (the SMP interconnect)
  kUnknown,  // one side has no PCI location
};
// "X", "PIX", "PXB", "PHB", "NODE", "SYS" or "?".
const char *class_name(PathClass c);

struct NumaNode {
  int os_index = -1;
  std::string cpuset;         // hwloc list syntax, "0-55,112-167"; "" for a node without CPUs
  uint64_t memory_bytes = 0;  // local memory, 0 when unknown
  std::string subtype;        // hwloc's subtype: "GPUMemory" (GPU memory as a NUMA node), "" none
};

struct Package {
  int os_index = -1;
  std::string cpuset;
  std::string model;  // CPUModel, "" when unknown
};

struct Gpu {
  int index = -1;           // position in Machine::gpus (PCI bus id order)
  std::string bus_id;       // "0000:06:00.0", lower case
  std::string name;         // "NVIDIA H100 80GB HBM3", or "NVIDIA [10de:2330]" from PCI ids alone
  uint16_t pci_device = 0;  // PCI device id
  int numa_node = -1;       // os index of the NUMA node it hangs under, -1 when not one node
  std::string cpuset;       // CPUs near it (its non-I/O ancestor's cpuset)
  int cuda_ordinal = -1;    // CUDA device ordinal when libcuda loaded and matched it
  std::string pci_path;  // bridges from the host bridge down, "0000:[00-ff] > 0000:01:00.0 > ..."
};

enum class LinkLayer : uint8_t { kUnknown, kInfiniBand, kEthernet };
const char *link_layer_name(LinkLayer l);  // "IB", "Ethernet", "?"

struct NicPort {
  int num = 0;        // 1-based port number
  std::string state;  // "ACTIVE", "DOWN", "INIT", "ARMED", ... or "" when unknown
  LinkLayer link_layer = LinkLayer::kUnknown;
  double speed_gbps = 0;  // data rate, 0 when unknown
  bool active() const { return state == "ACTIVE" || state == "ACTIVE_DEFER"; }
};

struct Nic {
  int index = -1;      // position in Machine::nics (name order)
  std::string name;    // verbs device name, "mlx5_0"
  std::string bus_id;  // "" when hwloc placed it nowhere on PCI
  int numa_node = -1;
  std::string cpuset;
  std::string node_guid;       // "" when unknown
  std::vector<NicPort> ports;  // empty when nothing told us about ports
  std::string pci_path;
  bool mlx5() const { return name.rfind("mlx5_", 0) == 0; }
};

// One libfabric domain (fi_getinfo), deduplicated by (provider, domain).
struct FabricDomain {
  std::string provider;  // "verbs;ofi_rxm", "tcp", "efa", ...
  std::string domain;    // "mlx5_0", "lo", ...
  std::string bus_id;    // PCI address of its NIC, "" when it has none
};

// How two GPUs of one machine reach each other.
struct GpuLink {
  int nvlinks = 0;                      // NVLink count (through NVSwitch: the smaller side)
  bool p2p = false;                     // load/store peer access (NVLink or PCIe P2P)
  bool atomics = false;                 // native atomics over the peer mapping
  PathClass pci = PathClass::kUnknown;  // their PCIe distance
  std::string source;                   // "self", "nvml", "hwloc", "cuda" or "pci" (modelled)
};

struct Machine {
  std::string host;    // HostName of the topology
  std::string origin;  // "live" or the XML file it came from
  std::vector<NumaNode> numa;
  std::vector<Package> packages;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  std::vector<FabricDomain> domains;
  std::vector<std::vector<GpuLink>> gpu_gpu;    // [gpu][gpu]
  std::vector<std::vector<PathClass>> gpu_nic;  // [gpu][nic]
  std::vector<std::vector<PathClass>> nic_nic;  // [nic][nic]
  std::vector<std::string> notes;               // what was probed and what was not, and why
  // NVIDIA GPUs hwloc shows only as OS devices without a PCI device ("nvml0 (NVIDIA H100)"): not
  // in gpus (no bus id, no PCIe distance), named here so that nothing plans them as CPUs silently.
  std::vector<std::string> unplaced_gpus;
  std::string hwloc_version;  // of the recording (its hwlocVersion info), "" when unknown
};

struct DiscoverOptions {
  std::string xml_path;  // load this recorded topology; "" = live (or hwloc's own HWLOC_XMLFILE)
  // Live probes; each is skipped for a recorded topology, where it would describe another machine.
  bool probe_cuda = true;    // libcuda.so.1: CUDA ordinals, P2P access and atomics
  bool probe_nvml = true;    // libnvidia-ml.so.1: NVLink counts
  bool probe_verbs = true;   // libibverbs.so.1: port state, link layer, speed
  bool probe_fabric = true;  // libfabric.so.1: provider domains
  // Load a recorded topology once in a child process first, so that a file which crashes hwloc
  // itself (hwloc 2.9 dereferences NULL on some malformed recordings) is an error line instead of
  // a crash of the caller. For tools only: a library must not fork behind its caller's back.
  bool isolate_xml = false;
};

// Discovers the machine. Returns false (with *error set, one line) only when hwloc cannot load a
// topology; a machine without GPUs or NICs is a success with empty lists.
bool discover(const DiscoverOptions &opts, Machine *out, std::string *error);
// discover() of a recorded hwloc XML topology, with no live probe.
bool load_xml(const std::string &path, Machine *out, std::string *error);

// ---- NIC per GPU --------------------------------------------------------------------------------

// A NIC list as NCCL_IB_HCA spells it: "mlx5_0,mlx5_1" allows only those, "^mlx5_2" excludes;
// "name:port" names one port. Empty = every NIC.
struct NicFilter {
  bool exclude = false;
  std::vector<std::pair<std::string, int>> entries;  // (device, port or 0 = any port)
  bool allows(const std::string &nic, int port) const;
};
NicFilter parse_nic_filter(const std::string &spec);

struct NicChoice {
  int nic = -1;  // index into Machine::nics, -1 = none usable
  int port = 0;  // the port used (first active allowed one), 0 = unknown
  PathClass cls = PathClass::kUnknown;
  std::string reason;  // "mlx5_0 (PIX)", or why there is none
};

// For each GPU the nearest usable NIC (PIX < PXB < PHB < NODE < SYS); a tie goes to the NIC that
// has fewer GPUs so far, then to the lower index, so the result is deterministic. NICs the filter
// removes, and NICs without an active allowed port (when ports are known), are skipped; `skipped`
// (optional) gets one line per skipped NIC or port with the reason.
std::vector<NicChoice> nic_per_gpu(const Machine &m, const NicFilter &filter,
                                   std::vector<std::string> *skipped = nullptr);

// ---- Path plan ----------------------------------------------------------------------------------
//
// The plan lays a job out on the machines (PE -> node, GPU, NIC) and groups its pairs into classes;
// which transport takes a pair, and why, is not modelled here: a PathModel answers it (xshmem-info
// asks the loaded transport plugins' predict and the core's selection, core/src/selection.h), so
// a new plugin shows up in the plan without an edit of this module.

struct PlanOptions {
  std::string nics;                    // NIC filter, parse_nic_filter syntax
  std::map<int, std::string> nic_map;  // PE -> NIC name, overrides the nearest-NIC choice
  bool host_heap = false;              // XSHMEM_HEAP=host: every PE is a CPU PE
  // Fill Plan::pairs (n * n reasons): -1 = when the plan has at most kFullPairsMax PEs, 0 = never,
  // 1 = always (memory grows with n * n: for a full list of a large plan, call plan_pair instead).
  int full_pairs = -1;
};

struct PePlan {
  int pe = -1, node = -1, local_rank = -1;
  int gpu = -1;  // index into its node's Machine::gpus; -1 = CPU PE
  int nic = -1;  // index into its node's Machine::nics; -1 = none
  std::string nic_name;
  std::string nic_reason;  // "nearest: mlx5_0 (PIX)", "mapped by nic_map", why none
};

struct PairPlan {
  int transport = -1;  // index into PathModel::names (Plan::transports), -1 = none
  std::string why;     // "<transport>: <its reason>", or "none: ..." with every refusal
  std::string error;   // for a pair no transport takes: the sentence the plan's errors get
};

// Pairs that take one transport for one reason: every ordered PE pair (a PE with itself too) is in
// exactly one class, so the counts add up to n * n. A model's answer depends only on both PEs'
// machines, GPUs and NICs and on whether they share a node (unless PathModel::by_pe), so a plan of
// 10^4 PEs has a handful of classes; `why` is the reason of the class's first pair (from -> to).
struct PairClass {
  int transport = -1;
  std::string why;
  int from = -1, to = -1;  // the first pair of the class (lowest from, then to)
  uint64_t count = 0;
  bool same_node = false;
};

struct Plan;

// Which transport takes a pair of a plan, and why. `pair` is called with the plan's PEs laid out
// (Plan::pes, Plan::gpu_heap filled) and must be a pure function of them.
struct PathModel {
  std::vector<std::string> names;  // the transports it may answer, in its order
  std::function<PairPlan(const std::vector<Machine> &machines, const Plan &p, int from, int to)>
      pair;
  // The answer depends on the PE numbers themselves (pair rules): every PE is a kind of its own,
  // so the classes are the pairs.
  bool by_pe = false;
};

struct Plan {
  int pes_per_node = 0, nodes = 0;
  bool gpu_heap = false;  // every PE has a GPU: the heap lives in GPU memory (XSHMEM_HEAP=auto)
  std::vector<std::string> transports;  // the model's names (PairPlan::transport indexes them)
  std::vector<PePlan> pes;
  std::vector<PairClass> classes;            // by first pair
  std::vector<std::vector<PairPlan>> pairs;  // [from][to]: filled only when full_pairs() is true
  std::vector<std::string> errors;           // bad options, unreachable pairs (one line each)
  std::vector<std::string> notes;            // skipped NICs and the like
  bool ok() const { return errors.empty(); }
  bool full_pairs() const { return !pairs.empty(); }
  // The transport of one pair, from the classes (no pair list needed).
  int transport(int from, int to) const;
  // "nvlink", ..., or "none" for -1.
  std::string name(int transport) const;
  // The class one pair belongs to (an index into classes).
  int class_of(int from, int to) const;
  uint64_t count(int transport) const;  // ordered pairs (self pairs included) that take it

  // Internal: each PE's kind (its machine, GPU and NIC) and the class of each pair of kinds.
  std::vector<int> pe_kind;
  int kinds = 0;
  std::vector<int> kind_class;  // [(kind_a * kinds + kind_b) * 3 + 0 self, 1 same node, 2 other]
};

// At most this many PEs get the full pair list by default (PlanOptions::full_pairs).
constexpr int kFullPairsMax = 64;

// The PEs of a plan of `nodes` nodes of `pes_per_node` PEs each (PE = node * pes_per_node + local
// rank), without their pairs. `machines` holds one machine per node, or one machine that every
// node is a copy of. A PE's GPU is local rank mod GPU count (none: CPU PE); its NIC the nearest
// usable one (nic_per_gpu), the mapped one, or for a CPU PE the usable ones in turn. Errors (bad
// layout, a mapped NIC the node lacks, GPUs without a PCI location) go to *errors, skipped NICs
// to *notes.
std::vector<PePlan> plan_pes(const std::vector<Machine> &machines, int pes_per_node, int nodes,
                             const PlanOptions &opts, std::vector<std::string> *errors,
                             std::vector<std::string> *notes);
// The plan: plan_pes, then every pair class answered by `model` on its first pair. A pair the
// model leaves without a transport is an error of the plan (the first four named). Work and
// memory grow with the PEs and the pair classes, not with the pairs.
Plan plan(const std::vector<Machine> &machines, int pes_per_node, int nodes,
          const PlanOptions &opts, const PathModel &model);
// One pair of a plan with its own reason, from the same machines and model: lists every pair of a
// plan of any size without holding them.
PairPlan plan_pair(const std::vector<Machine> &machines, const PathModel &model, const Plan &p,
                   int from, int to);
// Every pair of a plan in (from, to) order, one at a time.
void for_each_pair(const std::vector<Machine> &machines, const PathModel &model, const Plan &p,
                   const std::function<void(int from, int to, const PairPlan &)> &fn);

// The two PEs of a pair as a transport's predict sees them (xshmem_plan_pe_v1_t of the plugin
// ABI): host (node + 1), GPU and its PCI id, NIC, heap kind, and for two GPUs of one node their
// peer access and NVLink count from the topology. The strings point into `machines` and `p`.
void plan_pe_records(const std::vector<Machine> &machines, const Plan &p, int from, int to,
                     xshmem_plan_pe_v1 *self, xshmem_plan_pe_v1 *peer);

// ---- Rendering ----------------------------------------------------------------------------------

// A GPU/NIC matrix like nvidia-smi topo -m (NV18, PIX, PXB, PHB, NODE, SYS, X), with CPU and
// NUMA affinity and a legend.
std::string matrix_text(const Machine &m);
// The whole model as JSON text (two-space indent).
std::string to_json(const Machine &m);
// The plan: one line per PE, the pairs by class (transport, count, first pair and its reason), and
// when the plan holds the full pair list (Plan::full_pairs) the transport matrix and every pair's
// reason.
std::string plan_text(const Plan &p);
// As JSON; "pairs" (every pair) only when `with_pairs` and the plan holds them.
std::string plan_json(const Plan &p, bool with_pairs = true);
// Graphviz: NUMA nodes, GPUs, NICs and their links; with a plan, the chosen paths between nodes'
// PEs too (plan may be null). `machines` as for plan().
std::string to_dot(const std::vector<Machine> &machines, const Plan *p);

}  // namespace xshmem::topo

#endif  // XSHMEM_TOPOLOGY_TOPOLOGY_H
