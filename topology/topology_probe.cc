// The live probes. Every library is loaded with dlopen and every entry point looked up by name, so
// that libxshmem links none of them and starts on machines that lack them. Struct layouts come
// from the libraries' headers where the build has them (verbs, libfabric); NVML and the CUDA
// driver, whose few types are stable C ABI, are declared here.
#include "topology_probe.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "log.h"

#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
#define XSHMEM_TOPO_HAVE_VERBS 1
#endif
#if __has_include(<rdma/fabric.h>)
#include <rdma/fabric.h>
#define XSHMEM_TOPO_HAVE_FABRIC 1
#endif

namespace xshmem::topo::probe {

namespace {

constexpr const char *kSubsys = "topology";

void *open_lib(const char *name, Machine *m) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) m->notes.push_back(std::string(name) + " not loaded: " + dlerror());
  return h;
}

template <typename Fn>
bool sym(void *h, const char *name, Fn *fn) {
  *fn = reinterpret_cast<Fn>(dlsym(h, name));
  return *fn != nullptr;
}

int gpu_by_bus(const Machine &m, const std::string &bus) {
  for (const Gpu &g : m.gpus)
    if (g.bus_id == bus) return g.index;
  return -1;
}

// ---- NVML (nvml.h, stable since CUDA 11) ----
using nvmlDevice_t = void *;
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlLinkMax = 64;      // NVML_NVLINK_MAX_LINKS is 18 today; stop at the first error
constexpr int kNvmlRemoteSwitch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH

// ---- CUDA driver (cuda.h) ----
using CUdevice = int;
constexpr int kCuP2PAccess = 0x02;   // CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED
constexpr int kCuP2PAtomics = 0x03;  // CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED

}  // namespace

std::string normalize_bus_id(const char *s) {
  unsigned dom = 0, bus = 0, dev = 0, fn = 0;
  if (!s || sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) return s ? s : "";
  char b[32];
  snprintf(b, sizeof(b), "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
  return b;
}

bool nvml_links(Machine *m) {
  void *h = open_lib("libnvidia-ml.so.1", m);
  if (!h) return false;
  int (*init)() = nullptr, (*shutdown)() = nullptr;
  int (*by_bus)(const char *, nvmlDevice_t *) = nullptr;
  int (*state)(nvmlDevice_t, unsigned, int *) = nullptr;
  int (*remote)(nvmlDevice_t, unsigned, nvmlPciInfo_t *) = nullptr;
  int (*remote_type)(nvmlDevice_t, unsigned, int *) = nullptr;
  int (*name)(nvmlDevice_t, char *, unsigned) = nullptr;
  if (!sym(h, "nvmlInit_v2", &init) || !sym(h, "nvmlShutdown", &shutdown) ||
      !sym(h, "nvmlDeviceGetHandleByPciBusId_v2", &by_bus) ||
      !sym(h, "nvmlDeviceGetNvLinkState", &state) ||
      !sym(h, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &remote)) {
    m->notes.push_back("libnvidia-ml.so.1 lacks an NVLink entry point; NVLink counts not probed");
    dlclose(h);
    return false;
  }
  sym(h, "nvmlDeviceGetNvLinkRemoteDeviceType", &remote_type);
  sym(h, "nvmlDeviceGetName", &name);
  if (int r = init(); r != kNvmlSuccess) {
    m->notes.push_back("nvmlInit failed (" + std::to_string(r) + "); NVLink counts not probed");
    dlclose(h);
    return false;
  }
  const size_t ng = m->gpus.size();
  std::vector<std::vector<int>> direct(ng, std::vector<int>(ng, 0));
  std::vector<int> to_switch(ng, 0);
  bool all = true;
  for (Gpu &g : m->gpus) {
    nvmlDevice_t d = nullptr;
    if (by_bus(g.bus_id.c_str(), &d) != kNvmlSuccess) {
      m->notes.push_back("NVML does not know GPU " + g.bus_id);
      all = false;
      continue;
    }
    char nm[96] = {};
    if (name && name(d, nm, sizeof(nm)) == kNvmlSuccess && nm[0]) g.name = nm;
    for (unsigned l = 0; l < kNvmlLinkMax; ++l) {
      int on = 0;
      if (state(d, l, &on) != kNvmlSuccess) break;
      if (!on) continue;
      nvmlPciInfo_t pci{};
      if (remote(d, l, &pci) != kNvmlSuccess) continue;
      char bus[32];
      snprintf(bus, sizeof(bus), "%04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus, pci.device);
      const int peer = gpu_by_bus(*m, bus);
      int type = -1;
      if (remote_type) remote_type(d, l, &type);
      if (peer >= 0 && type != kNvmlRemoteSwitch)
        ++direct[g.index][peer];
      else
        ++to_switch[g.index];  // an NVSwitch, or a peer NVML cannot place: through a switch
    }
  }
  shutdown();
  dlclose(h);
  for (size_t i = 0; i < ng; ++i) {
    for (size_t j = 0; j < ng; ++j) {
      if (i == j) continue;
      const int n = direct[i][j] + std::min(to_switch[i], to_switch[j]);
      if (n == 0) continue;
      GpuLink &l = m->gpu_gpu[i][j];
      l.nvlinks = n;
      l.p2p = l.atomics = true;
      l.source = "nvml";
    }
  }
  m->notes.push_back("NVLink counts from NVML");
  return all;
}

void cuda(Machine *m) {
  void *h = open_lib("libcuda.so.1", m);
  if (!h) return;
  int (*init)(unsigned) = nullptr, (*count)(int *) = nullptr, (*get)(CUdevice *, int) = nullptr;
  int (*busid)(char *, int, CUdevice) = nullptr;
  int (*p2p)(int *, int, CUdevice, CUdevice) = nullptr;
  if (!sym(h, "cuInit", &init) || !sym(h, "cuDeviceGetCount", &count) ||
      !sym(h, "cuDeviceGet", &get) || !sym(h, "cuDeviceGetPCIBusId", &busid) ||
      !sym(h, "cuDeviceGetP2PAttribute", &p2p)) {
    m->notes.push_back("libcuda.so.1 lacks a device entry point; CUDA not probed");
    return;
  }
  int n = 0;
  if (int r = init(0); r != 0 || count(&n) != 0) {
    m->notes.push_back("cuInit failed (" + std::to_string(r) + "); CUDA not probed");
    return;
  }
  // libcuda stays loaded: the runtime uses it too, and unloading a driver library is not safe.
  std::vector<CUdevice> dev(m->gpus.size(), -1);
  for (int i = 0; i < n; ++i) {
    CUdevice d = 0;
    char bus[32] = {};
    if (get(&d, i) != 0 || busid(bus, sizeof(bus), d) != 0) continue;
    const int g = gpu_by_bus(*m, normalize_bus_id(bus));
    if (g < 0) {
      m->notes.push_back("CUDA device " + std::to_string(i) + " (" + bus +
                         ") is not in hwloc's topology");
      continue;
    }
    m->gpus[g].cuda_ordinal = i;
    dev[g] = d;
  }
  for (size_t i = 0; i < dev.size(); ++i) {
    for (size_t j = 0; j < dev.size(); ++j) {
      GpuLink &l = m->gpu_gpu[i][j];
      if (i == j || !l.source.empty() || dev[i] < 0 || dev[j] < 0) continue;
      int access = 0, atomics = 0;
      if (p2p(&access, kCuP2PAccess, dev[i], dev[j]) != 0) continue;
      p2p(&atomics, kCuP2PAtomics, dev[i], dev[j]);
      l.p2p = access != 0;
      l.atomics = l.p2p && atomics != 0;
      l.source = "cuda";
    }
  }
  m->notes.push_back("CUDA: " + std::to_string(n) + " visible devices");
}

void verbs(Machine *m) {
#ifdef XSHMEM_TOPO_HAVE_VERBS
  void *h = open_lib("libibverbs.so.1", m);
  if (!h) return;
  ibv_device **(*list)(int *) = nullptr;
  void (*free_list)(ibv_device **) = nullptr;
  const char *(*dev_name)(ibv_device *) = nullptr;
  ibv_context *(*open)(ibv_device *) = nullptr;
  int (*close)(ibv_context *) = nullptr;
  int (*query_dev)(ibv_context *, ibv_device_attr *) = nullptr;
  // The exported ibv_query_port fills the leading (compat) part of ibv_port_attr, as verbs.h's
  // inline wrapper relies on.
  int (*query_port)(ibv_context *, uint8_t, ibv_port_attr *) = nullptr;
  if (!sym(h, "ibv_get_device_list", &list) || !sym(h, "ibv_free_device_list", &free_list) ||
      !sym(h, "ibv_get_device_name", &dev_name) || !sym(h, "ibv_open_device", &open) ||
      !sym(h, "ibv_close_device", &close) || !sym(h, "ibv_query_device", &query_dev) ||
      !sym(h, "ibv_query_port", &query_port)) {
    m->notes.push_back("libibverbs.so.1 lacks an entry point; verbs devices not probed");
    return;
  }
  int n = 0;
  ibv_device **devs = list(&n);
  if (!devs) {
    m->notes.push_back(std::string("verbs: no devices (ibv_get_device_list: ") + strerror(errno) +
                       ")");
    return;
  }
  static const double kLane[] = {2.5, 5, 10, 10.3125, 14.0625, 25.78125, 53.125, 106.25};
  for (int i = 0; i < n; ++i) {
    const std::string nm = dev_name(devs[i]);
    auto it =
        std::find_if(m->nics.begin(), m->nics.end(), [&](const Nic &x) { return x.name == nm; });
    if (it == m->nics.end()) {
      // hwloc did not show it (no sysfs PCI link, say): keep it, placed nowhere.
      Nic x;
      x.index = static_cast<int>(m->nics.size());
      x.name = nm;
      m->nics.push_back(x);
      for (auto &row : m->gpu_nic) row.push_back(PathClass::kUnknown);
      for (auto &row : m->nic_nic) row.push_back(PathClass::kUnknown);
      m->nic_nic.emplace_back(m->nics.size(), PathClass::kUnknown);
      m->nic_nic.back().back() = PathClass::kSelf;
      it = m->nics.end() - 1;
    }
    ibv_context *ctx = open(devs[i]);
    if (!ctx) {
      m->notes.push_back("cannot open verbs device " + nm + ": " + strerror(errno));
      continue;
    }
    ibv_device_attr da{};
    if (query_dev(ctx, &da) == 0) {
      it->ports.clear();
      for (int p = 1; p <= da.phys_port_cnt; ++p) {
        ibv_port_attr pa{};
        if (query_port(ctx, static_cast<uint8_t>(p), &pa) != 0) continue;
        static const char *const kState[] = {"NOP",   "DOWN",   "INIT",
                                             "ARMED", "ACTIVE", "ACTIVE_DEFER"};
        NicPort port;
        port.num = p;
        port.state = pa.state <= 5 ? kState[pa.state] : "state " + std::to_string(pa.state);
        port.link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? LinkLayer::kEthernet
                                                                   : LinkLayer::kInfiniBand;
        const int lanes = pa.active_width == 1    ? 1
                          : pa.active_width == 2  ? 4
                          : pa.active_width == 4  ? 8
                          : pa.active_width == 8  ? 12
                          : pa.active_width == 16 ? 2
                                                  : 0;
        double lane = 0;
        for (int b = 0; b < 8; ++b)
          if (pa.active_speed == (1 << b)) lane = kLane[b];
        port.speed_gbps = lanes * lane;
        it->ports.push_back(port);
      }
    }
    close(ctx);
  }
  free_list(devs);
  m->notes.push_back("verbs: " + std::to_string(n) + " devices");
#else
  m->notes.push_back("built without verbs headers; verbs ports not probed");
#endif
}

void fabric(Machine *m) {
#ifdef XSHMEM_TOPO_HAVE_FABRIC
  void *h = open_lib("libfabric.so.1", m);
  if (!h) return;
  uint32_t (*version)() = nullptr;
  int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const fi_info *, fi_info **) =
      nullptr;
  void (*freeinfo)(fi_info *) = nullptr;
  if (!sym(h, "fi_version", &version) || !sym(h, "fi_getinfo", &getinfo) ||
      !sym(h, "fi_freeinfo", &freeinfo)) {
    m->notes.push_back("libfabric.so.1 lacks an entry point; fabric domains not probed");
    return;
  }
  fi_info *info = nullptr;
  // Ask with the library's own version: a newer one than it knows gets nothing.
  if (int r = getinfo(version(), nullptr, nullptr, 0, nullptr, &info); r != 0) {
    m->notes.push_back("fi_getinfo found no provider (" + std::to_string(r) + ")");
    return;
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (fi_info *i = info; i; i = i->next) {
    if (!i->fabric_attr || !i->domain_attr || !i->fabric_attr->prov_name || !i->domain_attr->name)
      continue;
    FabricDomain d{i->fabric_attr->prov_name, i->domain_attr->name, ""};
    if (!seen.insert({d.provider, d.domain}).second) continue;
    if (i->nic && i->nic->bus_attr && i->nic->bus_attr->bus_type == FI_BUS_PCI) {
      const fi_pci_attr &p = i->nic->bus_attr->attr.pci;
      char b[32];
      snprintf(b, sizeof(b), "%04x:%02x:%02x.%x", p.domain_id, p.bus_id, p.device_id,
               p.function_id);
      d.bus_id = b;
    }
    m->domains.push_back(d);
  }
  freeinfo(info);
  m->notes.push_back("libfabric: " + std::to_string(m->domains.size()) + " domains");
#else
  m->notes.push_back("built without libfabric headers; fabric domains not probed");
#endif
}

}  // namespace xshmem::topo::probe
