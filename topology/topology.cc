// Discovery: hwloc with every I/O object kept, then the live probes (CUDA, NVML, verbs, libfabric)
// through dlopen, each optional.
#include "topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "log.h"
#include "topology_probe.h"

namespace xshmem::topo {

namespace {

constexpr const char *kSubsys = "topology";

std::string bitmap_list(hwloc_const_bitmap_t b) {
  if (!b) return "";
  char *s = nullptr;
  if (hwloc_bitmap_list_asprintf(&s, b) < 0 || !s) return "";
  std::string out(s);
  free(s);
  return out;
}

std::string pci_busid(const hwloc_obj_t o) {
  char b[32];
  snprintf(b, sizeof(b), "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus,
           o->attr->pcidev.dev, o->attr->pcidev.func);
  return b;
}

bool is_pci_bridge(const hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}
bool is_host_bridge(const hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

// The PCIe switch a device hangs under, counting a switch (upstream port plus its downstream
// ports) as one bridge as nvidia-smi does: the parent bridge, or the parent's parent when the
// parent is a downstream port (a PCI-PCI bridge below another PCI-PCI bridge). Null when the
// device sits right under a host bridge.
hwloc_obj_t pci_switch(hwloc_obj_t dev) {
  hwloc_obj_t p = dev->parent;
  if (!is_pci_bridge(p)) return nullptr;
  return is_pci_bridge(p->parent) ? p->parent : p;
}

// The NUMA node an object is local to: its non-I/O ancestor's node when that is exactly one.
int numa_of(hwloc_obj_t o) {
  while (o && !o->cpuset) o = o->parent;
  if (!o || !o->nodeset || hwloc_bitmap_weight(o->nodeset) != 1) return -1;
  return hwloc_bitmap_first(o->nodeset);
}
std::string cpuset_of(hwloc_obj_t o) {
  while (o && !o->cpuset) o = o->parent;
  return o ? bitmap_list(o->cpuset) : "";
}

PathClass pci_class(hwloc_obj_t a, hwloc_obj_t b) {
  if (!a || !b) return PathClass::kUnknown;
  if (a == b) return PathClass::kSelf;
  hwloc_obj_t sa = pci_switch(a), sb = pci_switch(b);
  if (sa && sa == sb) return PathClass::kPIX;
  std::vector<hwloc_obj_t> up;
  for (hwloc_obj_t o = a->parent; o; o = o->parent) up.push_back(o);
  hwloc_obj_t lca = nullptr;
  for (hwloc_obj_t o = b->parent; o && !lca; o = o->parent)
    if (std::find(up.begin(), up.end(), o) != up.end()) lca = o;
  if (is_pci_bridge(lca)) return PathClass::kPXB;
  if (is_host_bridge(lca)) return PathClass::kPHB;
  const int na = numa_of(a), nb = numa_of(b);
  return na >= 0 && na == nb ? PathClass::kNODE : PathClass::kSYS;
}

std::string pci_path(hwloc_obj_t o) {
  std::string s;
  for (hwloc_obj_t p = o->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent) {
    char b[48];
    if (is_host_bridge(p))
      snprintf(b, sizeof(b), "host bridge %04x:[%02x-%02x]", p->attr->bridge.downstream.pci.domain,
               p->attr->bridge.downstream.pci.secondary_bus,
               p->attr->bridge.downstream.pci.subordinate_bus);
    else
      snprintf(b, sizeof(b), "bridge %s", pci_busid(p).c_str());
    s = s.empty() ? std::string(b) : std::string(b) + " > " + s;
  }
  return s;
}

const char *info(hwloc_obj_t o, const char *name) {
  const char *v = hwloc_obj_get_info_by_name(o, name);
  return v ? v : "";
}

// hwloc records "Port1State" as the number sysfs shows ("4" or "4: ACTIVE").
std::string port_state_name(const std::string &v) {
  static const char *const kNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  if (v.empty()) return "";
  char *end = nullptr;
  const long n = strtol(v.c_str(), &end, 10);
  if (end == v.c_str()) return v;  // already a name
  return n >= 0 && n <= 5 ? kNames[n] : "state " + std::to_string(n);
}

std::string gpu_name(hwloc_obj_t pci) {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
    const char *m = hwloc_obj_get_info_by_name(c, "GPUModel");
    if (m && *m) return m;
  }
  const char *d = hwloc_obj_get_info_by_name(pci, "PCIDevice");
  if (d && *d) return d;
  char b[48];
  snprintf(b, sizeof(b), "NVIDIA [10de:%04x]", pci->attr->pcidev.device_id);
  return b;
}

struct Objs {
  std::vector<hwloc_obj_t> gpu, nic;
};

// NVLink counts from hwloc's "NVLinkBandwidth" distances (hwloc's NVML backend, or a recorded
// topology). Objects are the GPUs' NVML OS devices (or their PCI objects), and NVSwitch ports; a
// pair of GPUs behind switches gets the smaller of their switch bandwidths. hwloc stores 50000
// MB/s per link for NVLink 3 and 4 (20000 and 25000 for 1 and 2), which gives the link count.
bool nvlinks_from_distances(hwloc_topology_t t, const Objs &objs, Machine *m) {
  unsigned nr = 1;
  hwloc_distances_s *d = nullptr;
  if (hwloc_distances_get_by_name(t, "NVLinkBandwidth", &nr, &d, 0) < 0 || nr == 0) return false;
  const size_t ng = objs.gpu.size();
  std::vector<int> gpu_of(d->nbobjs, -1);
  std::vector<bool> sw(d->nbobjs, false);
  for (unsigned i = 0; i < d->nbobjs; ++i) {
    hwloc_obj_t o = d->objs[i];
    hwloc_obj_t pci = o && o->type == HWLOC_OBJ_OS_DEVICE ? o->parent : o;
    for (size_t g = 0; g < ng; ++g)
      if (objs.gpu[g] == pci) gpu_of[i] = static_cast<int>(g);
    if (gpu_of[i] < 0 && o && o->subtype && !strcmp(o->subtype, "NVSwitch")) sw[i] = true;
  }
  auto links = [](uint64_t bw) -> int {
    if (bw == 0) return 0;
    for (uint64_t per : {50000ull, 25000ull, 20000ull})
      if (bw % per == 0) return static_cast<int>(bw / per);
    return static_cast<int>((bw + 25000) / 50000);
  };
  const unsigned n = d->nbobjs;
  bool any = false;
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned j = 0; j < n; ++j) {
      const int gi = gpu_of[i], gj = gpu_of[j];
      if (gi < 0 || gj < 0 || gi == gj) continue;
      uint64_t bw = d->values[i * n + j];
      for (unsigned s = 0; s < n; ++s)
        if (sw[s]) bw += std::min(d->values[i * n + s], d->values[j * n + s]);
      GpuLink &l = m->gpu_gpu[gi][gj];
      l.nvlinks = links(bw);
      if (l.nvlinks > 0) {
        l.p2p = l.atomics = true;
        l.source = "hwloc";
        any = true;
      }
    }
  }
  hwloc_distances_release(t, d);
  return any;
}

}  // namespace

const char *class_name(PathClass c) {
  switch (c) {
    case PathClass::kSelf:
      return "X";
    case PathClass::kPIX:
      return "PIX";
    case PathClass::kPXB:
      return "PXB";
    case PathClass::kPHB:
      return "PHB";
    case PathClass::kNODE:
      return "NODE";
    case PathClass::kSYS:
      return "SYS";
    case PathClass::kUnknown:
      break;
  }
  return "?";
}

const char *link_layer_name(LinkLayer l) {
  switch (l) {
    case LinkLayer::kInfiniBand:
      return "IB";
    case LinkLayer::kEthernet:
      return "Ethernet";
    case LinkLayer::kUnknown:
      break;
  }
  return "?";
}

bool discover(const DiscoverOptions &opts, Machine *out, std::string *error) {
  *out = Machine{};
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) < 0) {
    *error = "topology: hwloc_topology_init failed";
    return false;
  }
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (!opts.xml_path.empty() && hwloc_topology_set_xml(t, opts.xml_path.c_str()) < 0) {
    *error = "topology: cannot use hwloc XML file \"" + opts.xml_path + "\": " + strerror(errno);
    hwloc_topology_destroy(t);
    return false;
  }
  if (hwloc_topology_load(t) < 0) {
    *error = "topology: hwloc cannot load the topology" +
             (opts.xml_path.empty() ? std::string() : " from \"" + opts.xml_path + "\"") + ": " +
             strerror(errno);
    hwloc_topology_destroy(t);
    return false;
  }
  Machine &m = *out;
  // A recorded topology (set_xml, or hwloc's own HWLOC_XMLFILE) describes another machine: the
  // live probes would mix in this one's devices.
  const bool live = hwloc_topology_is_thissystem(t);
  m.origin = !opts.xml_path.empty() ? opts.xml_path : live ? "live" : "recorded (HWLOC_XMLFILE)";
  hwloc_obj_t root = hwloc_get_root_obj(t);
  m.host = info(root, "HostName");

  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, o));)
    m.numa.push_back({static_cast<int>(o->os_index), bitmap_list(o->cpuset),
                      o->attr ? o->attr->numanode.local_memory : 0});
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, o));)
    m.packages.push_back(
        {static_cast<int>(o->os_index), bitmap_list(o->cpuset), info(o, "CPUModel")});

  Objs objs;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(t, o));) {
    const unsigned cls = o->attr->pcidev.class_id;
    if (o->attr->pcidev.vendor_id == 0x10de && (cls == 0x0300 || cls == 0x0302))
      objs.gpu.push_back(o);
  }
  std::sort(objs.gpu.begin(), objs.gpu.end(),
            [](hwloc_obj_t a, hwloc_obj_t b) { return pci_busid(a) < pci_busid(b); });
  for (size_t i = 0; i < objs.gpu.size(); ++i) {
    hwloc_obj_t o = objs.gpu[i];
    Gpu g;
    g.index = static_cast<int>(i);
    g.bus_id = pci_busid(o);
    g.name = gpu_name(o);
    g.pci_device = o->attr->pcidev.device_id;
    g.numa_node = numa_of(o);
    g.cpuset = cpuset_of(o);
    g.pci_path = pci_path(o);
    m.gpus.push_back(g);
  }

  std::vector<std::pair<std::string, hwloc_obj_t>> ofed;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(t, o));)
    if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && o->name)
      ofed.emplace_back(o->name, o);
  std::sort(ofed.begin(), ofed.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &[name, o] : ofed) {
    Nic n;
    n.index = static_cast<int>(m.nics.size());
    n.name = name;
    hwloc_obj_t pci = o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE ? o->parent : nullptr;
    if (pci) {
      n.bus_id = pci_busid(pci);
      n.pci_path = pci_path(pci);
    }
    n.numa_node = numa_of(o);
    n.cpuset = cpuset_of(o);
    n.node_guid = info(o, "NodeGUID");
    for (int p = 1; p <= 64; ++p) {
      const std::string key = "Port" + std::to_string(p);
      const char *st = hwloc_obj_get_info_by_name(o, (key + "State").c_str());
      if (!st) break;
      NicPort port;
      port.num = p;
      port.state = port_state_name(st);
      const std::string ll = info(o, (key + "LinkLayer").c_str());
      port.link_layer = ll == "InfiniBand" ? LinkLayer::kInfiniBand
                        : ll == "Ethernet" ? LinkLayer::kEthernet
                                           : LinkLayer::kUnknown;
      // Not hwloc's: recorded fixtures may carry the rate as "Port1Rate" (Gb/s, as sysfs).
      port.speed_gbps = atof(info(o, (key + "Rate").c_str()));
      n.ports.push_back(port);
    }
    m.nics.push_back(n);
    objs.nic.push_back(pci);
  }

  const size_t ng = m.gpus.size(), nn = m.nics.size();
  m.gpu_gpu.assign(ng, std::vector<GpuLink>(ng));
  m.gpu_nic.assign(ng, std::vector<PathClass>(nn, PathClass::kUnknown));
  m.nic_nic.assign(nn, std::vector<PathClass>(nn, PathClass::kUnknown));
  for (size_t i = 0; i < ng; ++i) {
    for (size_t j = 0; j < ng; ++j) m.gpu_gpu[i][j].pci = pci_class(objs.gpu[i], objs.gpu[j]);
    for (size_t k = 0; k < nn; ++k) m.gpu_nic[i][k] = pci_class(objs.gpu[i], objs.nic[k]);
  }
  for (size_t k = 0; k < nn; ++k)
    for (size_t l = 0; l < nn; ++l)
      m.nic_nic[k][l] = k == l ? PathClass::kSelf : pci_class(objs.nic[k], objs.nic[l]);

  // GPU links, best source first: NVML (live), hwloc's NVLinkBandwidth, CUDA P2P (live), PCI.
  const bool nvml = live && opts.probe_nvml && ng > 0 && probe::nvml_links(&m);
  if (!nvml) nvlinks_from_distances(t, objs, &m);
  if (live && opts.probe_cuda && ng > 0) probe::cuda(&m);
  for (size_t i = 0; i < ng; ++i) {
    for (size_t j = 0; j < ng; ++j) {
      GpuLink &l = m.gpu_gpu[i][j];
      if (i == j) {
        l.p2p = l.atomics = true;
        l.source = "self";
      } else if (l.source.empty()) {
        // Modelled, with nothing better to ask: PCIe peer access within one host bridge, none
        // across host bridges or sockets (where most platforms refuse or cripple it).
        l.p2p = l.pci == PathClass::kPIX || l.pci == PathClass::kPXB || l.pci == PathClass::kPHB;
        l.atomics = false;
        l.source = "pci";
      }
    }
  }
  if (live && opts.probe_verbs) probe::verbs(&m);
  if (live && opts.probe_fabric) probe::fabric(&m);
  if (!live) m.notes.push_back("recorded topology: no live CUDA, NVML, verbs or libfabric probe");

  XLOG_DEBUG(kSubsys, "%s topology of %s: %zu NUMA nodes, %zu GPUs, %zu NICs, %zu fabric domains",
             m.origin.c_str(), m.host.empty() ? "?" : m.host.c_str(), m.numa.size(), ng, nn,
             m.domains.size());
  for (const auto &note : m.notes) XLOG_DEBUG(kSubsys, "%s", note.c_str());
  hwloc_topology_destroy(t);
  return true;
}

bool load_xml(const std::string &path, Machine *out, std::string *error) {
  DiscoverOptions o;
  o.xml_path = path;
  return discover(o, out, error);
}

}  // namespace xshmem::topo
