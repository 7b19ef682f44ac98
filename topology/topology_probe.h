// Live probes of the topology module: libraries loaded with dlopen, each optional. Each fills
// what it learns into the machine and adds a note saying what it did or why it could not.
#ifndef XSHMEM_TOPOLOGY_TOPOLOGY_PROBE_H
#define XSHMEM_TOPOLOGY_TOPOLOGY_PROBE_H

#include "topology.h"

namespace xshmem::topo::probe {

// NVLink counts between the machine's GPUs from NVML (libnvidia-ml.so.1). True when NVML answered
// for every GPU (links, or the knowledge that there are none).
bool nvml_links(Machine *m);
// CUDA ordinals by PCI bus id (libcuda.so.1), and peer access and native atomics from
// cuDeviceGetP2PAttribute for every GPU pair no better source described (source "cuda").
void cuda(Machine *m);
// Port state, link layer and speed of every verbs device (libibverbs.so.1); devices hwloc did not
// show are added without a PCI location.
void verbs(Machine *m);
// libfabric domains (libfabric.so.1, fi_getinfo) with their NICs' PCI addresses.
void fabric(Machine *m);

// "0000:06:00.0" from any spelling of domain:bus:device.function ("00000000:06:00.0", upper case).
std::string normalize_bus_id(const char *s);

}  // namespace xshmem::topo::probe

#endif  // XSHMEM_TOPOLOGY_TOPOLOGY_PROBE_H
