// xshmem transport "nvlink": PEs of one host whose GPUs can access each other's memory (NVLink or
// PCIe peer-to-peer, or the same GPU) map each other's GPU heaps and become LSA peers: GPU threads
// load, store and run atomics on the peer's heap through the mapping.
//
// The core reserves each PE's heap as one virtual range and commits it in chunks (heap_grow).
// Here each reachable peer gets a virtual range of the heap's size in this process; every chunk a
// peer commits arrives as a POSIX descriptor (node_fd_exchange), is imported and mapped at the
// same offset of that peer's range, and made accessible to this PE's GPU. The plugin links
// neither libxshmem nor libcuda: driver entry points come from the services table.
#include <cuda.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <xshmem/plugin/transport_v1.h>

namespace {

constexpr const char *kName = "nvlink";
const xshmem_core_services_v1_t *g_svc = nullptr;

#define NLOG(lvl, ...) XSHMEM_PLOG(g_svc, lvl, kName, __VA_ARGS__)

const xshmem_config_entry_v1_t kConfig[] = {
    {"XSHMEM_NVLINK_LATENCY_NS", XSHMEM_CONFIG_INT, "50", nullptr,
     "cost the selector assumes for a small operation to an nvlink peer, in ns; raise it above "
     "another transport's to make that one win for peers both reach"},
    {"XSHMEM_NVLINK_BANDWIDTH_MBPS", XSHMEM_CONFIG_INT, "400000", nullptr,
     "bandwidth the selector assumes for large transfers to an nvlink peer, in MB/s"},
};

// Driver entry points (ABI XSHMEM_CUDA_DRIVER_ABI), looked up through the services table.
struct Driver {
#define NV_FN(name) decltype(&::name) name = nullptr;
  NV_FN(cuGetErrorName)
  NV_FN(cuDeviceGet)
  NV_FN(cuDeviceGetPCIBusId)
  NV_FN(cuDeviceGetByPCIBusId)
  NV_FN(cuDeviceCanAccessPeer)
  NV_FN(cuDeviceGetP2PAttribute)
  NV_FN(cuDevicePrimaryCtxRetain)
  NV_FN(cuDevicePrimaryCtxRelease)
  NV_FN(cuCtxPushCurrent)
  NV_FN(cuCtxPopCurrent)
  NV_FN(cuCtxSynchronize)
  NV_FN(cuMemAddressReserve)
  NV_FN(cuMemAddressFree)
  NV_FN(cuMemImportFromShareableHandle)
  NV_FN(cuMemMap)
  NV_FN(cuMemUnmap)
  NV_FN(cuMemRelease)
  NV_FN(cuMemSetAccess)
#undef NV_FN
};

// Fills `d`; returns the first missing symbol, or nullptr when all were found.
const char *load_driver(Driver &d) {
  if (!XSHMEM_SERVICES_HAS(g_svc, cuda_driver_proc)) return "cuda_driver_proc (core too old)";
  const char *missing = nullptr;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(g_svc->cuda_driver_proc(name));
    if (!fn && !missing) missing = name;
  };
#define NV_GET(name) get(d.name, #name)
  NV_GET(cuGetErrorName);
  NV_GET(cuDeviceGet);
  NV_GET(cuDeviceGetPCIBusId);
  NV_GET(cuDeviceGetByPCIBusId);
  NV_GET(cuDeviceCanAccessPeer);
  NV_GET(cuDeviceGetP2PAttribute);
  NV_GET(cuDevicePrimaryCtxRetain);
  NV_GET(cuDevicePrimaryCtxRelease);
  NV_GET(cuCtxPushCurrent);
  NV_GET(cuCtxPopCurrent);
  NV_GET(cuCtxSynchronize);
  NV_GET(cuMemAddressReserve);
  NV_GET(cuMemAddressFree);
  NV_GET(cuMemImportFromShareableHandle);
  NV_GET(cuMemMap);
  NV_GET(cuMemUnmap);
  NV_GET(cuMemRelease);
  NV_GET(cuMemSetAccess);
#undef NV_GET
  return missing;
}

// What each PE tells the others at heap_register.
struct Card {
  int32_t has_gpu;  // a DEVICE heap on a GPU this transport can serve
  char bus_id[32];  // "0000:1b:00.0"
};

struct Mapping {
  size_t offset, size;
  CUmemGenericAllocationHandle handle;
};

struct Peer {
  bool reachable = false;
  std::string reason;  // can_reach's reason (the rule's text for this peer)
  bool native_atomics = false;
  bool same_gpu = false;
  CUdeviceptr range = 0;  // reserved in this process (0 for this PE: its own heap is the base)
  std::vector<Mapping> maps;
  std::string bus_id;
};

struct Ctx {
  int my_pe = -1, n_pes = 0;
  bool active = false;  // this PE has a GPU heap and a driver
  std::string inactive_why = "heap in host memory: nvlink serves GPU heaps";
  Driver drv;
  CUdevice dev = 0;
  CUcontext cuctx = nullptr;  // the device's primary context, retained
  void *my_base = nullptr;
  size_t heap_size = 0, granularity = 0;
  std::vector<Peer> peers;
  int32_t latency_ns = 50, bandwidth_mbps = 400000;
};

std::string cu_err(const Ctx *c, CUresult r) {
  const char *name = nullptr;
  if (c->drv.cuGetErrorName) c->drv.cuGetErrorName(r, &name);
  return name ? name : "CUresult " + std::to_string(static_cast<int>(r));
}

// Makes the device's primary context current for the scope (the core's thread normally has it
// already; a user thread calling xshmem_malloc may not).
class CtxScope {
 public:
  explicit CtxScope(Ctx *c) : c_(c) {
    pushed_ = c->cuctx && c->drv.cuCtxPushCurrent(c->cuctx) == CUDA_SUCCESS;
  }
  ~CtxScope() {
    CUcontext dummy;
    if (pushed_) c_->drv.cuCtxPopCurrent(&dummy);
  }
  CtxScope(const CtxScope &) = delete;
  CtxScope &operator=(const CtxScope &) = delete;

 private:
  Ctx *c_;
  bool pushed_ = false;
};

xshmem_status_t nvlink_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
  // Refuse only a core that cannot give driver entry points; a machine without a GPU is fine
  // (the transport then reaches no one).
  if (!XSHMEM_SERVICES_HAS(svc, cuda_driver_proc)) {
    XSHMEM_PLOG(svc, XSHMEM_LOG_DEBUG, kName, "the core has no cuda_driver_proc service");
    return XSHMEM_ERR_UNSUPPORTED;
  }
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

xshmem_status_t nvlink_init(void **ctx) {
  // Nothing CUDA here: a job with host heaps never touches the driver through this transport.
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  Ctx *c = new (std::nothrow) Ctx();
  if (!c) return XSHMEM_ERR_NOMEM;
  c->my_pe = job->my_pe;
  c->n_pes = job->n_pes;
  c->peers.resize(c->n_pes);
  c->latency_ns = static_cast<int32_t>(g_svc->config_get_int("XSHMEM_NVLINK_LATENCY_NS"));
  c->bandwidth_mbps = static_cast<int32_t>(g_svc->config_get_int("XSHMEM_NVLINK_BANDWIDTH_MBPS"));
  *ctx = c;
  return XSHMEM_SUCCESS;
}

void unmap_all(Ctx *c) {
  if (!c->active) return;
  CtxScope scope(c);
  // Kernels of this process may still be reading peer heaps.
  c->drv.cuCtxSynchronize();
  for (int pe = 0; pe < c->n_pes; ++pe) {
    Peer &p = c->peers[pe];
    for (const Mapping &m : p.maps) {
      c->drv.cuMemUnmap(p.range + m.offset, m.size);
      c->drv.cuMemRelease(m.handle);
    }
    p.maps.clear();
    if (p.range) c->drv.cuMemAddressFree(p.range, c->heap_size);
    p.range = 0;
    p.reachable = false;
  }
}

// What the rule knows of a pair: the job (find_peers) and the plan (predict) fill it alike.
struct Facts {
  bool my_gpu_heap = false, peer_gpu_heap = false;  // both heaps in GPU memory
  bool same_host = false;
  bool same_gpu = false;
  bool peer_visible = true;  // the peer's GPU is visible to this process (job only)
  int peer_access = -1;      // 1 yes, 0 no, -1 unknown
  int nvlinks = -1;          // NVLinks between the two GPUs, -1 unknown
  std::string mine, theirs;  // the GPUs, for the reason ("GPU 0 (0000:1b:00.0)")
};

// The one rule of nvlink, shared by can_reach (through find_peers) and predict, so the plan and
// init cannot disagree: both heaps in GPU memory, one host, and the same GPU or two with peer
// access. Returns whether the peer is reached; *why gets the reason either way.
bool rule(const Facts &f, std::string *why) {
  if (!f.my_gpu_heap || !f.peer_gpu_heap) {
    *why = "heap in host memory: nvlink serves GPU heaps";
    return false;
  }
  if (!f.same_host) {
    *why = "peer on another host (host id differs)";
    return false;
  }
  if (f.same_gpu) {
    *why = "same GPU " + f.mine;
    return true;
  }
  if (!f.peer_visible) {
    *why = "GPU " + f.theirs + " is not visible here (CUDA_VISIBLE_DEVICES)";
    return false;
  }
  const bool linked = f.nvlinks > 0;
  if (f.peer_access == 0 || (f.peer_access < 0 && !linked)) {
    *why = "no peer access between GPU " + f.mine + " and GPU " + f.theirs;
    return false;
  }
  *why = "peer access between GPU " + f.mine + " and GPU " + f.theirs +
         (linked ? " (" + std::to_string(f.nvlinks) + " NVLinks)" : std::string());
  return true;
}

void set_reason(xshmem_peer_info_v1_t *info, const std::string &text) {
  if (XSHMEM_PEER_INFO_HAS(info, reason))
    snprintf(info->reason, sizeof(info->reason), "%s", text.c_str());
}

// Decides which peers this PE's GPU can reach: same host, and the same GPU or one it has peer
// access to.
void find_peers(Ctx *c, const std::vector<Card> &cards) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  const uint64_t my_host = job->host_id[c->my_pe];
  for (int pe = 0; pe < c->n_pes; ++pe) {
    Peer &p = c->peers[pe];
    Facts f;
    f.my_gpu_heap = true;  // find_peers runs only on a PE with a GPU heap
    f.peer_gpu_heap = cards[pe].has_gpu != 0;
    f.same_host = job->host_id[pe] == my_host;
    f.mine = cards[c->my_pe].bus_id;
    if (f.peer_gpu_heap)
      p.bus_id.assign(cards[pe].bus_id, strnlen(cards[pe].bus_id, sizeof(cards[pe].bus_id)));
    f.theirs = p.bus_id;
    f.same_gpu = f.peer_gpu_heap && (pe == c->my_pe || p.bus_id == cards[c->my_pe].bus_id);
    CUdevice peer_dev = 0;
    if (f.peer_gpu_heap && f.same_host && !f.same_gpu) {
      CUresult r = c->drv.cuDeviceGetByPCIBusId(&peer_dev, p.bus_id.c_str());
      if (r != CUDA_SUCCESS) {
        // CUDA_VISIBLE_DEVICES hides it from this process: peer access cannot be checked.
        f.peer_visible = false;
        NLOG(XSHMEM_LOG_INFO, "pe %d: its GPU %s is not visible here (%s); not reached by nvlink",
             pe, p.bus_id.c_str(), cu_err(c, r).c_str());
      } else {
        int can = 0;
        c->drv.cuDeviceCanAccessPeer(&can, c->dev, peer_dev);
        f.peer_access = can ? 1 : 0;
      }
    }
    p.reachable = rule(f, &p.reason);
    if (!f.peer_gpu_heap)  // heaps are of one kind in a job: the peer's GPU failed in nvlink
      p.reason = "pe " + std::to_string(pe) + "'s GPU cannot be used by nvlink (see its warning)";
    if (!p.reachable) {
      if (f.peer_gpu_heap && f.same_host && f.peer_visible)
        NLOG(XSHMEM_LOG_INFO, "pe %d: %s; not reached by nvlink", pe, p.reason.c_str());
      continue;
    }
    if (f.same_gpu) {
      // The same GPU: its memory is local, atomics are native.
      p.native_atomics = p.same_gpu = true;
      continue;
    }
    int atomics = 0;
    c->drv.cuDeviceGetP2PAttribute(&atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
                                   c->dev, peer_dev);
    p.native_atomics = atomics != 0;
  }
}

xshmem_status_t nvlink_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  Ctx *c = static_cast<Ctx *>(ctx);
  Card mine{};
  const bool device_heap = heap->kind == XSHMEM_MEM_DEVICE && heap->device >= 0 &&
                           heap->struct_size >= offsetof(xshmem_mem_region_v1_t, granularity) +
                                                    sizeof(heap->granularity) &&
                           heap->granularity > 0;
  if (device_heap) {
    if (const char *missing = load_driver(c->drv)) {
      NLOG(XSHMEM_LOG_WARN, "no CUDA driver entry point %s; nvlink reaches no peer", missing);
    } else if (CUresult r = c->drv.cuDeviceGet(&c->dev, heap->device); r != CUDA_SUCCESS) {
      NLOG(XSHMEM_LOG_WARN, "cuDeviceGet(%d) failed: %s; nvlink reaches no peer", heap->device,
           cu_err(c, r).c_str());
    } else if (CUresult r2 = c->drv.cuDevicePrimaryCtxRetain(&c->cuctx, c->dev);
               r2 != CUDA_SUCCESS) {
      NLOG(XSHMEM_LOG_WARN, "cuDevicePrimaryCtxRetain failed: %s; nvlink reaches no peer",
           cu_err(c, r2).c_str());
      c->cuctx = nullptr;
    } else if (CUresult r3 = c->drv.cuDeviceGetPCIBusId(mine.bus_id, sizeof(mine.bus_id), c->dev);
               r3 != CUDA_SUCCESS) {
      NLOG(XSHMEM_LOG_WARN, "cuDeviceGetPCIBusId failed: %s; nvlink reaches no peer",
           cu_err(c, r3).c_str());
    } else {
      mine.has_gpu = 1;
    }
  }
  // Collective whatever this PE has: every PE learns every PE's GPU.
  std::vector<Card> cards(c->n_pes);
  xshmem_status_t st = g_svc->allgather(&mine, cards.data(), sizeof(Card));
  if (st != XSHMEM_SUCCESS) return st;
  if (device_heap && !mine.has_gpu)
    c->inactive_why = "this PE's GPU cannot be used by nvlink (see the warning above)";
  if (!mine.has_gpu) {
    if (c->cuctx) c->drv.cuDevicePrimaryCtxRelease(c->dev);
    c->cuctx = nullptr;
    return XSHMEM_SUCCESS;  // reaches no one; still takes part in heap_grow's exchanges
  }
  c->active = true;
  c->my_base = heap->base;
  c->heap_size = heap->size;
  c->granularity = heap->granularity;
  CtxScope scope(c);
  find_peers(c, cards);
  for (int pe = 0; pe < c->n_pes; ++pe) {
    Peer &p = c->peers[pe];
    if (!p.reachable || pe == c->my_pe) continue;
    CUresult r = c->drv.cuMemAddressReserve(&p.range, c->heap_size, c->granularity, 0, 0);
    if (r != CUDA_SUCCESS) {
      NLOG(XSHMEM_LOG_ERROR,
           "cannot reserve %zu bytes of GPU address space for the heap of pe %d: %s; lower "
           "XSHMEM_SYMMETRIC_SIZE",
           c->heap_size, pe, cu_err(c, r).c_str());
      p.range = 0;
      unmap_all(c);
      return XSHMEM_ERR_NOMEM;
    }
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t nvlink_heap_grow(void *ctx, const xshmem_mem_chunk_v1_t *chunk) {
  Ctx *c = static_cast<Ctx *>(ctx);
  std::vector<int> fds(c->n_pes, -1);
  // Collective: every PE offers its chunk (or -1 without a GPU heap) to every PE of its host.
  xshmem_status_t st = g_svc->node_fd_exchange(c->active ? chunk->fd : -1, fds.data());
  if (st != XSHMEM_SUCCESS) {
    NLOG(XSHMEM_LOG_ERROR, "chunk descriptor exchange failed (status %d)", st);
    return st;
  }
  if (!c->active) {
    for (int fd : fds)
      if (fd >= 0) close(fd);
    return XSHMEM_SUCCESS;
  }
  CtxScope scope(c);
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = c->dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  st = XSHMEM_SUCCESS;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    const int fd = fds[pe];
    if (fd < 0) continue;
    Peer &p = c->peers[pe];
    if (st != XSHMEM_SUCCESS || pe == c->my_pe || !p.reachable || !p.range) {
      close(fd);
      continue;
    }
    if (chunk->offset + chunk->size > c->heap_size) {
      NLOG(XSHMEM_LOG_ERROR, "chunk [%zu, +%zu) of pe %d lies past the heap (%zu bytes)",
           chunk->offset, chunk->size, pe, c->heap_size);
      close(fd);
      st = XSHMEM_ERR_INTERNAL;
      continue;
    }
    CUmemGenericAllocationHandle h = 0;
    const char *step = "cuMemImportFromShareableHandle";
    CUresult r = c->drv.cuMemImportFromShareableHandle(
        &h, reinterpret_cast<void *>(static_cast<uintptr_t>(fd)),
        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);  // the imported handle keeps the memory; the descriptor is not needed any more
    const CUdeviceptr at = p.range + chunk->offset;
    if (r == CUDA_SUCCESS) {
      step = "cuMemMap";
      r = c->drv.cuMemMap(at, chunk->size, 0, h, 0);
      if (r == CUDA_SUCCESS) {
        step = "cuMemSetAccess";
        r = c->drv.cuMemSetAccess(at, chunk->size, &access, 1);
        if (r != CUDA_SUCCESS) c->drv.cuMemUnmap(at, chunk->size);
      }
      if (r != CUDA_SUCCESS) c->drv.cuMemRelease(h);
    }
    if (r != CUDA_SUCCESS) {
      NLOG(XSHMEM_LOG_ERROR,
           "cannot map %zu bytes at offset %zu of the heap of pe %d: %s failed: %s", chunk->size,
           chunk->offset, pe, step, cu_err(c, r).c_str());
      st = XSHMEM_ERR_IO;
      continue;
    }
    p.maps.push_back(Mapping{chunk->offset, chunk->size, h});
  }
  if (st == XSHMEM_SUCCESS)
    NLOG(XSHMEM_LOG_DEBUG, "mapped chunk [%zu, +%zu) of every reachable peer", chunk->offset,
         chunk->size);
  return st;
}

xshmem_status_t nvlink_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (pe < 0 || pe >= c->n_pes) {
    set_reason(info, "no such pe");
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (!c->active) {
    set_reason(info, c->inactive_why);
    return XSHMEM_ERR_UNREACHABLE;
  }
  const Peer &p = c->peers[pe];
  set_reason(info, p.reason);
  if (!p.reachable) return XSHMEM_ERR_UNREACHABLE;
  info->path = XSHMEM_PATH_LSA;
  // Stores through NVLink mappings are not delivered in issue order without a fence.
  info->flags = p.native_atomics ? XSHMEM_PEER_ATOMICS_NATIVE : 0;
  info->latency_ns = static_cast<uint32_t>(c->latency_ns);
  info->bandwidth_mbps = static_cast<uint32_t>(c->bandwidth_mbps);
  info->lsa_base = pe == c->my_pe ? c->my_base : reinterpret_cast<void *>(p.range);
  return XSHMEM_SUCCESS;
}

// Plan without a job (xshmem-info --plan): the same rule on the PEs as the topology describes
// them. Costs are the configured ones (predict runs after load, without init).
xshmem_status_t nvlink_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                               xshmem_peer_info_v1_t *info) {
  Facts f;
  f.my_gpu_heap = self->gpu >= 0 && self->heap == XSHMEM_MEM_DEVICE;
  f.peer_gpu_heap = peer->gpu >= 0 && peer->heap == XSHMEM_MEM_DEVICE;
  f.same_host = self->host_id == peer->host_id;
  auto name = [](const xshmem_plan_pe_v1_t *p) {
    std::string n = std::to_string(p->gpu);
    if (p->gpu_pci) n += std::string(" (") + p->gpu_pci + ")";
    return n;
  };
  f.mine = name(self);
  f.theirs = name(peer);
  f.same_gpu = f.same_host && self->gpu == peer->gpu;
  f.peer_access = peer->gpu_p2p_with_peer;
  f.nvlinks = peer->nvlinks_with_peer;
  std::string why;
  const bool yes = rule(f, &why);
  set_reason(info, why);
  if (!yes) return XSHMEM_ERR_UNREACHABLE;
  info->path = XSHMEM_PATH_LSA;
  info->flags = XSHMEM_PEER_ATOMICS_NATIVE;  // the job asks the driver; the plan assumes native
  // Read once: a plan asks for up to millions of pairs, and the configuration does not change.
  static const uint32_t latency =
      static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_NVLINK_LATENCY_NS"));
  static const uint32_t bandwidth =
      static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_NVLINK_BANDWIDTH_MBPS"));
  info->latency_ns = latency;
  info->bandwidth_mbps = bandwidth;
  return XSHMEM_SUCCESS;
}

xshmem_status_t nvlink_connect(void *ctx, const uint8_t *selected, xshmem_peer_info_v1_t *infos) {
  Ctx *c = static_cast<Ctx *>(ctx);
  std::string mapped;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!selected[pe]) continue;
    xshmem_peer_info_v1_t info{};
    info.struct_size = sizeof(info);
    if (nvlink_can_reach(ctx, pe, &info) != XSHMEM_SUCCESS) return XSHMEM_ERR_UNREACHABLE;
    infos[pe].path = info.path;
    infos[pe].flags = info.flags;
    infos[pe].lsa_base = info.lsa_base;
    if (pe == c->my_pe) continue;
    const Peer &p = c->peers[pe];
    char one[96];
    snprintf(one, sizeof(one), "%s%d (gpu %s%s, atomics %s)", mapped.empty() ? "" : ", ", pe,
             p.bus_id.c_str(), p.same_gpu ? ", same gpu" : "",
             p.native_atomics ? "native" : "not native");
    mapped += one;
  }
  if (c->active)
    NLOG(XSHMEM_LOG_INFO, "pe %d (gpu %s) maps the heaps of pe %s", c->my_pe,
         c->peers[c->my_pe].bus_id.c_str(), mapped.empty() ? "none" : mapped.c_str());
  return XSHMEM_SUCCESS;
}

xshmem_status_t nvlink_heap_deregister(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  unmap_all(c);
  c->active = false;
  return XSHMEM_SUCCESS;
}

xshmem_status_t nvlink_finalize(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  unmap_all(c);
  if (c->cuctx) c->drv.cuDevicePrimaryCtxRelease(c->dev);
  delete c;
  return XSHMEM_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default")))
const xshmem_transport_v1_t xshmem_transport_plugin_v1 = {
    .abi_version = XSHMEM_TRANSPORT_ABI_VERSION,
    .struct_size = sizeof(xshmem_transport_v1_t),
    .name = kName,
    .caps = XSHMEM_TRANSPORT_CAP_DEVICE_HEAP,
    .load = nvlink_load,
    .init = nvlink_init,
    .heap_register = nvlink_heap_register,
    .can_reach = nvlink_can_reach,
    .connect = nvlink_connect,
    .heap_deregister = nvlink_heap_deregister,
    .finalize = nvlink_finalize,
    .heap_grow = nvlink_heap_grow,
    .data_ops = nullptr,  // LSA only: the path code loads and stores
    .predict = nvlink_predict,
};
