// xshmem core: the NIC settings (XSHMEM_NICS, XSHMEM_NIC_MAP) and the NIC each PE uses.
//
// The topology module (topology/) knows machines and never reads variables; this file reads the
// two variables from the configuration table, checks them, and hands them to topo's functions.
// xshmem-info uses the same functions, so --plan and init agree on the NIC of every PE.
#ifndef XSHMEM_CORE_NICS_H
#define XSHMEM_CORE_NICS_H

#include <map>
#include <string>
#include <vector>

#include "status.h"
#include "topology.h"

namespace xshmem::nics {

// XSHMEM_NICS and XSHMEM_NIC_MAP, parsed.
struct Settings {
  std::string nics_text;                   // XSHMEM_NICS, blanks around entries removed
  std::string map_text;                    // XSHMEM_NIC_MAP as written (trimmed)
  topo::NicFilter filter;                  // from nics_text
  std::map<int, std::string> by_local_pe;  // local rank on the node -> NIC name
};

// Parses the two texts. Returns false and sets *error to one sentence that names the variable
// and quotes the offending entry when either is malformed:
//   XSHMEM_NICS     [^]<nic>[:<port>][,<nic>[:<port>]...]   (port >= 1)
//   XSHMEM_NIC_MAP  <local pe>:<nic>[,<local pe>:<nic>...]   (each local pe once)
// A NIC name is letters, digits, '_', '-' and '.'.
bool parse(const std::string &nics_text, const std::string &map_text, Settings *out,
           std::string *error);
// parse() of the configuration table's values (environment or default).
bool from_config(Settings *out, std::string *error);

// Whether every NIC the settings name exists on machine `m` (and every port named, when the
// machine knows its ports). Returns false with one sentence naming the variable and the NIC,
// and listing the NICs the machine has.
bool check_names(const Settings &s, const topo::Machine &m, std::string *error);

// The plan's NIC map (by PE) for a layout of `nodes` nodes of `pes_per_node` PEs each, where
// PE = node * pes_per_node + local pe: the settings' local-PE map repeated on every node.
std::map<int, std::string> pe_map(const Settings &s, int pes_per_node, int nodes);

// The NIC of each of the `local_pes` PEs of one node on machine `m` (index = local rank),
// decided exactly as topo::plan decides it for a one-node layout (XSHMEM_NIC_MAP, else the NIC
// nearest to the PE's GPU, else round robin for CPU PEs). nic < 0: none, nic_reason says why.
std::vector<topo::PePlan> pick(const topo::Machine &m, const Settings &s, int local_pes,
                               bool host_heap);

// One line: "host h (live): 2 NUMA nodes, 0 GPUs, 1 NIC (mlx5_0), 2 fabric domains"; without
// `fabric_probed` the domains are left out (init does not ask libfabric).
std::string summary(const topo::Machine &m, bool fabric_probed = true);

// At init, before the transports start. `need_nic`: an allowed transport has
// XSHMEM_TRANSPORT_CAP_NIC (the same on every PE). A NIC is needed when, besides, some PE is on
// another host (host_id) or the user names such a transport (XSHMEM_TRANSPORTS, not as an
// exclusion, or XSHMEM_PAIR_TRANSPORTS); then this call is collective. Discovers the topology
// only when a NIC is needed or PE 0 logs at info level (hwloc I/O discovery costs 100 ms and
// more); with a NIC needed, a bad XSHMEM_NICS or XSHMEM_NIC_MAP fails every PE with
// XSHMEM_ERR_INVALID. PE 0 logs the summary and the NIC per PE at info level.
Status choose_at_init(bool need_nic, int my_pe, int n_pes, const std::vector<uint64_t> &host_id,
                      const std::vector<int> &local_rank, bool host_heap);

// The NIC this PE uses ("" when none, or when no NIC was needed): for NIC transports.
const std::string &my_nic();
// Forgets the choice (finalize).
void reset();

}  // namespace xshmem::nics

#endif  // XSHMEM_CORE_NICS_H
