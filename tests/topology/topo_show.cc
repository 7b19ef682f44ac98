// topo_show <file.xml | -> [pes_per_node nodes]: prints a machine (a recorded topology, or the
// live one for "-") as a GPU/NIC matrix, its notes, and the plan of a layout of that machine.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fake_model.h"
#include "topology.h"

using namespace xshmem::topo;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: topo_show <file.xml | -> [pes_per_node nodes]\n");
    return 2;
  }
  DiscoverOptions o;
  if (std::string(argv[1]) != "-") o.xml_path = argv[1];
  Machine m;
  std::string err;
  if (!discover(o, &m, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  printf("host %s (%s): %zu NUMA nodes, %zu GPUs, %zu NICs, %zu fabric domains\n", m.host.c_str(),
         m.origin.c_str(), m.numa.size(), m.gpus.size(), m.nics.size(), m.domains.size());
  for (const Gpu &g : m.gpus)
    printf("GPU%d %s %s numa %d cuda %d\n", g.index, g.bus_id.c_str(), g.name.c_str(), g.numa_node,
           g.cuda_ordinal);
  for (const Nic &n : m.nics)
    printf("NIC%d %s %s numa %d\n", n.index, n.name.c_str(), n.bus_id.c_str(), n.numa_node);
  for (const FabricDomain &d : m.domains)
    printf("fabric %s %s %s\n", d.provider.c_str(), d.domain.c_str(), d.bus_id.c_str());
  printf("\n%s\n", matrix_text(m).c_str());
  for (const auto &n : m.notes) printf("note: %s\n", n.c_str());
  const int ppn = argc > 2 ? atoi(argv[2]) : 2, nodes = argc > 3 ? atoi(argv[3]) : 1;
  const Plan p = plan({m}, ppn, nodes, PlanOptions{}, fake::model());
  printf("\n%s", plan_text(p).c_str());
  return p.ok() ? 0 : 1;
}
