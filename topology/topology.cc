// Discovery: hwloc with every I/O object kept, then the live probes (CUDA, NVML, verbs, libfabric)
// through dlopen, each optional.
#include "topology.h"

#include <hwloc.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <strings.h>
#include <type_traits>

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

// hwloc stores what a (recorded, maybe malformed) XML file says in its enum fields unchecked, and
// loading an enum that holds no enumerator is undefined behaviour: read such fields as numbers.
template <typename E>
std::underlying_type_t<E> enum_number(const E &e) {
  std::underlying_type_t<E> v;
  memcpy(&v, &e, sizeof(v));
  return v;
}

bool is_pci_bridge(const hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE &&
         enum_number(o->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_PCI;
}
bool is_host_bridge(const hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE &&
         enum_number(o->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_HOST;
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

// The NUMA node an object is local to: its non-I/O ancestor's node when that is exactly one. GPU
// memory exposed as NUMA nodes (Grace Hopper, POWER9 with NVLink to the CPU: subtype "GPUMemory",
// no CPUs of its own) hangs under the same package as the CPUs' node; it is not where a device
// is, so it does not count (else every device of that package would have no NUMA node, and every
// distance would be SYS). hwloc gives such a node its parent's cpuset, so the subtype tells.
bool gpu_memory_node(hwloc_obj_t n) {
  return n && n->subtype && !strcasecmp(n->subtype, "GPUMemory");
}

int numa_of(hwloc_topology_t t, hwloc_obj_t o) {
  while (o && !o->cpuset) o = o->parent;
  if (!o || !o->nodeset) return -1;
  if (hwloc_bitmap_weight(o->nodeset) == 1) return hwloc_bitmap_first(o->nodeset);
  int found = -1, count = 0;
  for (int i = hwloc_bitmap_first(o->nodeset); i >= 0; i = hwloc_bitmap_next(o->nodeset, i)) {
    if (gpu_memory_node(hwloc_get_numanode_obj_by_os_index(t, static_cast<unsigned>(i)))) continue;
    found = i;
    ++count;
  }
  return count == 1 ? found : -1;
}
std::string cpuset_of(hwloc_obj_t o) {
  while (o && !o->cpuset) o = o->parent;
  return o ? bitmap_list(o->cpuset) : "";
}

PathClass pci_class(hwloc_topology_t t, hwloc_obj_t a, hwloc_obj_t b) {
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
  const int na = numa_of(t, a), nb = numa_of(t, b);
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

// ---- NVLink counts from hwloc's "NVLinkBandwidth" distances ----
//
// What hwloc records (hwloc/topology-nvml.c, read in the hwloc 2.10 release and on the master
// branch that becomes hwloc 3): for every active NVLink of a GPU, nvmlDeviceGetNvLinkVersion, then
// 20000 MB/s for NVLink version 1 (P100) and 25000 MB/s for versions 2, 3 and 4 (V100, A100,
// H100/H200: "the actual unidirectional bandwidth we want is 20GB/s for v1, and 25GB/s for v2+");
// links to one peer add up, the diagonal is an artificial 1000000, and a link of version 5 or later
// (Blackwell) is "not recognized" and recorded nowhere. An NVSwitch (PCI class 0680, vendor 10de)
// is a PCI object of subtype "NVSwitch" in the matrix; hwloc records GPU-to-switch bandwidth only,
// never switch to switch. So an H100 NV18 reads 450000 from hwloc 2.10: 18 links of 25000, not 9 of
// 50000. A per-link figure that gives more links than the GPU generation has (a hand-written
// recording, or one of an hwloc whose unit is not known here, such as one that records NVLink 5)
// means another unit: the first of 25000, 20000, 50000 that divides the figure and stays within the
// generation's links.
struct NvlinkGen {
  int version = 0;     // NVLink version: 1 P100, 2 V100, 3 A100, 4 H100/H200, 5 B200; 0 unknown
  int max_links = 18;  // links per GPU of that generation
};

NvlinkGen nvlink_gen(const Gpu &g) {
  const std::string &n = g.name;
  const uint16_t d = g.pci_device;
  auto has = [&](const char *s) { return n.find(s) != std::string::npos; };
  if (has("P100") || (d >= 0x15f0 && d <= 0x15ff)) return {1, 4};
  if (has("V100") || has("GV100") || (d >= 0x1db0 && d <= 0x1dbf)) return {2, 6};
  if (has("A100") || has("A800") || (d >= 0x20b0 && d <= 0x20bf)) return {3, 12};
  if (has("H100") || has("H200") || has("H800") || has("GH200") || (d >= 0x2330 && d <= 0x233f))
    return {4, 18};
  if (has("B100") || has("B200") || has("B300") || (d >= 0x2900 && d <= 0x29ff)) return {5, 18};
  return {};
}

// The per-link MB/s the recording's hwloc writes for a generation; 0 when that hwloc records no
// such link or the figure is not known. Every hwloc 2.x release read writes 20000 / 25000; an
// unknown version (no hwlocVersion info) is taken as the same.
uint64_t nvlink_unit(const std::string &hwloc_version, int nvlink_version) {
  (void)hwloc_version;  // one figure for every version read so far; the version picks the table
  if (nvlink_version == 1) return 20000;
  if (nvlink_version >= 2 && nvlink_version <= 4) return 25000;
  return 0;
}

int nvlink_count(uint64_t bw, const NvlinkGen &gen, const std::string &hwloc_version) {
  if (bw == 0) return 0;
  const uint64_t unit = nvlink_unit(hwloc_version, gen.version);
  if (unit && bw % unit == 0 && bw / unit <= static_cast<uint64_t>(gen.max_links))
    return static_cast<int>(bw / unit);
  for (uint64_t per : {25000ull, 20000ull, 50000ull})
    if (bw % per == 0 && bw / per <= static_cast<uint64_t>(gen.max_links))
      return static_cast<int>(bw / per);
  const uint64_t per = unit ? unit : 25000;
  return static_cast<int>(std::max<uint64_t>(1, (bw + per / 2) / per));
}

// Objects are the GPUs' NVML OS devices (or their PCI objects), NVSwitch ports and CPU-side NVLink
// ports. Every GPU with bandwidth to some NVSwitch reaches every other such GPU through the switch
// fabric, on one baseboard or several (hwloc records no switch-to-switch link): their count is the
// smaller of their total switch bandwidths, plus direct links. Linear in the matrix (the GPU pairs
// times one addition), not cubic.
bool nvlinks_from_distances(hwloc_topology_t t, const Objs &objs, Machine *m) {
  unsigned nr = 1;
  hwloc_distances_s *d = nullptr;
  if (hwloc_distances_get_by_name(t, "NVLinkBandwidth", &nr, &d, 0) < 0 || nr == 0) return false;
  const size_t ng = objs.gpu.size();
  std::map<hwloc_obj_t, int> gpu_index;
  for (size_t g = 0; g < ng; ++g) gpu_index[objs.gpu[g]] = static_cast<int>(g);
  const unsigned n = d->nbobjs;
  std::vector<int> gpu_of(n, -1);
  std::vector<unsigned> gpus_at, switches;
  for (unsigned i = 0; i < n; ++i) {
    hwloc_obj_t o = d->objs[i];
    hwloc_obj_t pci = o && o->type == HWLOC_OBJ_OS_DEVICE ? o->parent : o;
    if (auto it = gpu_index.find(pci); it != gpu_index.end()) {
      gpu_of[i] = it->second;
      gpus_at.push_back(i);
    } else if (o && o->subtype && !strcmp(o->subtype, "NVSwitch")) {
      switches.push_back(i);
    }
  }
  std::vector<uint64_t> to_switch(n, 0);
  for (unsigned i : gpus_at)
    for (unsigned s : switches) to_switch[i] += d->values[static_cast<size_t>(i) * n + s];
  std::vector<NvlinkGen> gen(ng);
  for (size_t g = 0; g < ng; ++g) gen[g] = nvlink_gen(m->gpus[g]);
  bool any = false;
  for (unsigned i : gpus_at) {
    for (unsigned j : gpus_at) {
      const int gi = gpu_of[i], gj = gpu_of[j];
      if (gi == gj) continue;
      const uint64_t bw =
          d->values[static_cast<size_t>(i) * n + j] + std::min(to_switch[i], to_switch[j]);
      GpuLink &l = m->gpu_gpu[gi][gj];
      // The pair's generation: the older GPU's (a mixed pair runs at the lower version).
      const NvlinkGen &g =
          gen[gi].version && gen[gi].version <= gen[gj].version ? gen[gi] : gen[gj];
      l.nvlinks = nvlink_count(bw, g, m->hwloc_version);
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

// ---- Recorded topologies ----

// The hwloc this library runs with: "2.9.0".
std::string hwloc_runtime_version() {
#ifdef HWLOC_VERSION
  return HWLOC_VERSION;
#else
  const unsigned v = hwloc_get_api_version();
  return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff);
#endif
}

// What is wrong with a recorded topology before hwloc reads it: unreadable, empty, not hwloc XML,
// or of a format version newer than this hwloc reads (hwloc 2.x reads 1.0 and 2.0; hwloc 3 writes
// 3.0, and hwloc's own answer is only EINVAL). "" when it looks loadable; *recorded_by gets the
// hwlocVersion info of the recording ("2.10.0"), when there is one.
std::string check_xml_file(const std::string &path, std::string *recorded_by) {
  FILE *f = fopen(path.c_str(), "r");
  if (!f) return std::string("cannot open it: ") + strerror(errno);
  std::string head(65536, '\0');
  const size_t got = fread(&head[0], 1, head.size(), f);
  const int read_errno = errno;
  const bool failed = ferror(f);
  fclose(f);
  if (failed) return std::string("cannot read it: ") + strerror(read_errno);
  head.resize(got);
  if (got == 0) return "it is empty";
  const size_t top = head.find("<topology");
  if (top == std::string::npos)
    return "it is not an hwloc XML topology (no <topology> element in its first 64 KiB)";
  const size_t end = head.find('>', top);
  const std::string tag = head.substr(top, end == std::string::npos ? 200 : end - top);
  const size_t v = tag.find("version=\"");
  if (v != std::string::npos) {
    const std::string format = tag.substr(v + 9, tag.find('"', v + 9) - v - 9);
    if (atoi(format.c_str()) > static_cast<int>(HWLOC_API_VERSION >> 16))
      return "its XML format version is " + format + ", newer than hwloc " +
             hwloc_runtime_version() + " reads (1.0 and 2.0): record it again with an hwloc " +
             std::to_string(HWLOC_API_VERSION >> 16) +
             ".x lstopo (lstopo --of xml), or build xshmem against a newer hwloc";
  }
  const size_t info = head.find("name=\"hwlocVersion\" value=\"");
  if (info != std::string::npos) {
    const size_t b = info + 27;
    *recorded_by = head.substr(b, head.find('"', b) - b);
  }
  return "";
}

// hwloc_topology_set_xml and hwloc_topology_load of an XML file with hwloc's own messages caught:
// hwloc prints why an XML import failed only to stderr and only with HWLOC_XML_VERBOSE set (read
// once per process), and returns EINVAL. Returns 0 or -1 (errno set); *said gets what hwloc
// printed, on one line.
int load_xml_catching(hwloc_topology_t t, const std::string &path, std::string *said) {
  setenv("HWLOC_XML_VERBOSE", "1", 0);
  fflush(stderr);
  FILE *tmp = tmpfile();
  const int saved = tmp ? dup(2) : -1;
  if (saved >= 0) dup2(fileno(tmp), 2);
  int rc = hwloc_topology_set_xml(t, path.c_str());
  if (rc == 0) rc = hwloc_topology_load(t);
  const int load_errno = errno;
  if (saved >= 0) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    char line[512];
    while (fgets(line, sizeof(line), tmp) && said->size() < 400) {
      std::string l(line);
      l.erase(0, l.find_first_not_of(" \t"));
      while (!l.empty() && (l.back() == '\n' || l.back() == '\r' || l.back() == ' ')) l.pop_back();
      // libxml2 follows its message with the line of the file and a caret under the column.
      if (l.empty() || l.find_first_not_of(" ^") == std::string::npos || l[0] == '<') continue;
      *said += (said->empty() ? "" : "; ") + l;
    }
  }
  if (tmp) fclose(tmp);
  errno = load_errno;
  return rc;
}

// DiscoverOptions::isolate_xml: loads `path` with hwloc in a child process. Returns "" when the
// child survived (whether or not hwloc accepted the file: the caller's own load says why not),
// else why the child did not.
std::string xml_crashes_hwloc(const std::string &path) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return "";  // cannot isolate: load in this process as before
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, 2);
    hwloc_topology_t t = nullptr;
    int rc = hwloc_topology_init(&t);
    if (rc == 0) hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (rc == 0) rc = hwloc_topology_set_xml(t, path.c_str());
    if (rc == 0) rc = hwloc_topology_load(t);
    _exit(rc == 0 ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFSIGNALED(status)) return "";
  const int sig = WTERMSIG(status);
  return "hwloc " + hwloc_runtime_version() + " crashed reading it (signal " + std::to_string(sig) +
         ", " + strsignal(sig) +
         "): the recording is malformed in a way this hwloc does not survive; record it again "
         "with lstopo --of xml";
}

// NVIDIA GPUs that hwloc shows only as OS devices (NVML, CUDA or OpenCL) without their PCI device:
// per backend, the devices beyond the PCI GPUs found are unplaced.
std::vector<std::string> unplaced_gpus(hwloc_topology_t t, const Objs &objs) {
  std::map<std::string, std::pair<size_t, std::vector<std::string>>> by_backend;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(t, o));) {
    if (enum_number(o->attr->osdev.type) != HWLOC_OBJ_OSDEV_GPU &&
        enum_number(o->attr->osdev.type) != HWLOC_OBJ_OSDEV_COPROC)
      continue;
    const std::string sub = o->subtype ? o->subtype : "";
    const std::string name = o->name ? o->name : "?";
    const std::string vendor = info(o, "GPUVendor");
    const bool nvidia = vendor.find("NVIDIA") != std::string::npos || sub == "NVML" ||
                        sub == "CUDA" || name.rfind("nvml", 0) == 0 || name.rfind("cuda", 0) == 0;
    if (!nvidia) continue;
    const std::string backend = !sub.empty() ? sub : name.substr(0, 4);
    auto &e = by_backend[backend];
    ++e.first;
    const bool placed =
        o->parent && std::find(objs.gpu.begin(), objs.gpu.end(), o->parent) != objs.gpu.end();
    if (!placed) {
      const std::string model = info(o, "GPUModel");
      e.second.push_back(name + (model.empty() ? "" : " (" + model + ")"));
    }
  }
  std::vector<std::string> best;
  size_t extra = 0;
  for (auto &[backend, e] : by_backend) {
    if (e.first <= objs.gpu.size() || e.first - objs.gpu.size() <= extra) continue;
    extra = e.first - objs.gpu.size();
    best.assign(e.second.begin(), e.second.begin() + std::min(extra, e.second.size()));
  }
  return best;
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
  // hwloc reads HWLOC_XMLFILE by itself, and when that file cannot be loaded it quietly shows this
  // machine instead: the file is loaded here explicitly, so that a bad one is an error.
  std::string xml = opts.xml_path;
  const char *env = getenv("HWLOC_XMLFILE");
  const bool from_env = xml.empty() && env && *env;
  if (from_env) xml = env;
  const std::string what = from_env ? "HWLOC_XMLFILE=" + xml : "hwloc XML file \"" + xml + "\"";
  std::string recorded_by;
  if (!xml.empty()) {
    const std::string wrong = check_xml_file(xml, &recorded_by);
    if (!wrong.empty()) {
      *error = "topology: cannot load the " + what + ": " + wrong;
      return false;
    }
  }
  if (!xml.empty() && opts.isolate_xml) {
    const std::string crash = xml_crashes_hwloc(xml);
    if (!crash.empty()) {
      *error = "topology: cannot load the " + what + ": " + crash;
      return false;
    }
  }
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) < 0) {
    *error = "topology: hwloc_topology_init failed";
    return false;
  }
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  std::string said;
  if ((xml.empty() ? hwloc_topology_load(t) : load_xml_catching(t, xml, &said)) < 0) {
    const std::string why = strerror(errno);
    *error = "topology: hwloc " + hwloc_runtime_version() + " cannot load the " +
             (xml.empty() ? std::string("topology") : what) + ": " +
             (said.empty() ? why : said + " (" + why + ")");
    hwloc_topology_destroy(t);
    return false;
  }
  Machine &m = *out;
  // A recorded topology describes another machine: the live probes would mix in this one's
  // devices.
  const bool live = xml.empty() && hwloc_topology_is_thissystem(t);
  m.origin = from_env       ? "recorded (HWLOC_XMLFILE)"
             : !xml.empty() ? xml
             : live         ? "live"
                            : "recorded";
  hwloc_obj_t root = hwloc_get_root_obj(t);
  m.host = info(root, "HostName");
  m.hwloc_version = xml.empty() ? hwloc_runtime_version() : recorded_by;

  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, o));)
    m.numa.push_back({static_cast<int>(o->os_index), bitmap_list(o->cpuset),
                      o->attr ? o->attr->numanode.local_memory : 0, o->subtype ? o->subtype : ""});
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
    g.numa_node = numa_of(t, o);
    g.cpuset = cpuset_of(o);
    g.pci_path = pci_path(o);
    m.gpus.push_back(g);
  }

  std::vector<std::pair<std::string, hwloc_obj_t>> ofed;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(t, o));)
    if (enum_number(o->attr->osdev.type) == HWLOC_OBJ_OSDEV_OPENFABRICS && o->name)
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
    n.numa_node = numa_of(t, o);
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
    for (size_t j = 0; j < ng; ++j) m.gpu_gpu[i][j].pci = pci_class(t, objs.gpu[i], objs.gpu[j]);
    for (size_t k = 0; k < nn; ++k) m.gpu_nic[i][k] = pci_class(t, objs.gpu[i], objs.nic[k]);
  }
  for (size_t k = 0; k < nn; ++k)
    for (size_t l = 0; l < nn; ++l)
      m.nic_nic[k][l] = k == l ? PathClass::kSelf : pci_class(t, objs.nic[k], objs.nic[l]);

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
  m.unplaced_gpus = unplaced_gpus(t, objs);
  if (!m.unplaced_gpus.empty()) {
    std::string names;
    for (const auto &g : m.unplaced_gpus) names += (names.empty() ? "" : ", ") + g;
    m.notes.push_back(std::to_string(m.unplaced_gpus.size()) +
                      " NVIDIA GPU(s) appear only as OS devices, without a PCI device: " + names +
                      "; they have no bus id and no PCIe distances, and are left out of the GPU "
                      "list (plans of this machine are refused unless XSHMEM_HEAP=host)");
  }

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
