// xshmem core: where the proxy threads go (the CPUs near this PE's NIC or GPU).
#include <strings.h>

#include <string>

#include "engine.h"
#include "topology.h"

namespace xshmem::proxy {

std::string near_cpuset(const topo::Machine &m, const std::string &nic, const std::string &gpu_pci,
                        std::string *what) {
  if (!nic.empty()) {
    for (const topo::Nic &n : m.nics) {
      if (n.name == nic && !n.cpuset.empty()) {
        *what = "nic " + nic;
        return n.cpuset;
      }
    }
  }
  if (!gpu_pci.empty()) {
    for (const topo::Gpu &g : m.gpus) {
      if (g.bus_id.size() == gpu_pci.size() && !g.cpuset.empty() &&
          strncasecmp(g.bus_id.c_str(), gpu_pci.c_str(), g.bus_id.size()) == 0) {
        *what = "gpu " + g.bus_id;
        return g.cpuset;
      }
    }
  }
  what->clear();
  return "";
}

}  // namespace xshmem::proxy
