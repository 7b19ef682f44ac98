// xshmem transport "hostshm": CPU PEs of one host reach each other's heaps through shared memory.
//
// The core creates each host heap as a memfd; heap_register passes the descriptors between the
// PEs of a host (node_fd_exchange) and maps every local peer's heap here. Peers are then LSA
// peers: the header-only path code copies with memcpy and updates with system-scope atomics.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include <xshmem/plugin/transport_v1.h>

namespace {

constexpr const char *kName = "hostshm";
const xshmem_core_services_v1_t *g_svc = nullptr;

#define HLOG(lvl, ...) XSHMEM_PLOG(g_svc, lvl, kName, __VA_ARGS__)

const xshmem_config_entry_v1_t kConfig[] = {
    {"XSHMEM_HOSTSHM_LATENCY_NS", XSHMEM_CONFIG_INT, "200", nullptr,
     "cost the selector assumes for a small operation to a hostshm peer, in ns; lower it to make "
     "hostshm win over other transports that reach the same peer"},
};

struct Ctx {
  int my_pe = -1, n_pes = 0;
  std::vector<uint64_t> host_id;  // [n_pes]
  xshmem_mem_kind_t heap_kind = XSHMEM_MEM_HOST;
  size_t heap_size = 0;
  void *my_base = nullptr;
  std::vector<void *> peer_base;  // [n_pes]: mapped heaps (my own base for me), or nullptr
};

xshmem_status_t hostshm_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

xshmem_status_t hostshm_init(void **ctx) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  Ctx *c = new (std::nothrow) Ctx();
  if (!c) return XSHMEM_ERR_NOMEM;
  c->my_pe = job->my_pe;
  c->n_pes = job->n_pes;
  c->peer_base.assign(c->n_pes, nullptr);
  c->host_id.assign(job->host_id, job->host_id + job->n_pes);
  *ctx = c;
  return XSHMEM_SUCCESS;
}

void unmap_peers(Ctx *c) {
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (c->peer_base[pe] && pe != c->my_pe) munmap(c->peer_base[pe], c->heap_size);
    c->peer_base[pe] = nullptr;
  }
}

xshmem_status_t hostshm_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  Ctx *c = static_cast<Ctx *>(ctx);
  // Only host heaps with a shareable descriptor can be mapped by peers; still take part in the
  // exchange (it is collective) offering nothing.
  bool usable = heap->kind == XSHMEM_MEM_HOST && heap->fd >= 0;
  std::vector<int> fds(c->n_pes, -1);
  xshmem_status_t st = g_svc->node_fd_exchange(usable ? heap->fd : -1, fds.data());
  if (st != XSHMEM_SUCCESS) {
    HLOG(XSHMEM_LOG_ERROR, "heap descriptor exchange failed (status %d)", st);
    return st;
  }
  c->heap_size = heap->size;
  c->heap_kind = heap->kind;
  c->my_base = heap->base;
  if (usable) c->peer_base[c->my_pe] = heap->base;
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (fds[pe] < 0) continue;
    void *p = usable ? mmap(nullptr, heap->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                            fds[pe], 0)
                     : MAP_FAILED;
    int err = errno;
    close(fds[pe]);
    if (!usable) continue;
    if (p == MAP_FAILED) {
      HLOG(XSHMEM_LOG_ERROR, "cannot map the heap of pe %d (%zu bytes): %s", pe, heap->size,
           strerror(err));
      unmap_peers(c);
      for (int q = pe + 1; q < c->n_pes; ++q)
        if (fds[q] >= 0) close(fds[q]);
      return XSHMEM_ERR_NOMEM;
    }
    c->peer_base[pe] = p;
  }
  return XSHMEM_SUCCESS;
}

void set_reason(xshmem_peer_info_v1_t *info, const char *text) {
  if (XSHMEM_PEER_INFO_HAS(info, reason)) snprintf(info->reason, sizeof(info->reason), "%s", text);
}

// The one rule of hostshm, shared by can_reach (the job) and predict (the plan), so the two cannot
// disagree: both heaps in host memory, on one host. Fills info and returns SUCCESS, or writes the
// reason and returns UNREACHABLE.
xshmem_status_t rule(bool same_host, xshmem_mem_kind_t mine, xshmem_mem_kind_t theirs,
                     xshmem_peer_info_v1_t *info) {
  if (mine != XSHMEM_MEM_HOST || theirs != XSHMEM_MEM_HOST) {
    set_reason(info, "heap in GPU memory: hostshm serves host heaps");
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (!same_host) {
    set_reason(info, "peer on another host (host id differs)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  info->path = XSHMEM_PATH_LSA;
  // CPU atomics on shared pages are native; memcpy may use non-temporal stores, so puts are not
  // delivered in issue order without a fence.
  info->flags = XSHMEM_PEER_ATOMICS_NATIVE;
  info->latency_ns = static_cast<uint32_t>(g_svc->config_get_int("XSHMEM_HOSTSHM_LATENCY_NS"));
  info->bandwidth_mbps = 10000;
  info->lsa_base = nullptr;
  set_reason(info, "same host: the heaps are shared memory");
  return XSHMEM_SUCCESS;
}

xshmem_status_t hostshm_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  Ctx *c = static_cast<Ctx *>(ctx);
  if (pe < 0 || pe >= c->n_pes) {
    set_reason(info, "no such pe");
    return XSHMEM_ERR_UNREACHABLE;
  }
  // Heaps are all of one kind in a job.
  xshmem_status_t st =
      rule(c->host_id[pe] == c->host_id[c->my_pe], c->heap_kind, c->heap_kind, info);
  if (st == XSHMEM_SUCCESS && !c->peer_base[pe]) {
    set_reason(info, "the peer's heap could not be mapped here (no shareable descriptor)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  return st;
}

// Plan without a job (xshmem-info --plan): the same rule on the PEs as the topology describes them.
xshmem_status_t hostshm_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                                xshmem_peer_info_v1_t *info) {
  return rule(self->host_id == peer->host_id, self->heap, peer->heap, info);
}

xshmem_status_t hostshm_connect(void *ctx, const uint8_t *selected, xshmem_peer_info_v1_t *infos) {
  Ctx *c = static_cast<Ctx *>(ctx);
  for (int pe = 0; pe < c->n_pes; ++pe) {
    if (!selected[pe]) continue;
    if (!c->peer_base[pe]) return XSHMEM_ERR_UNREACHABLE;
    infos[pe].path = XSHMEM_PATH_LSA;
    infos[pe].lsa_base = c->peer_base[pe];
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t hostshm_heap_deregister(void *ctx) {
  unmap_peers(static_cast<Ctx *>(ctx));
  return XSHMEM_SUCCESS;
}

xshmem_status_t hostshm_finalize(void *ctx) {
  Ctx *c = static_cast<Ctx *>(ctx);
  unmap_peers(c);
  delete c;
  return XSHMEM_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default")))
const xshmem_transport_v1_t xshmem_transport_plugin_v1 = {
    .abi_version = XSHMEM_TRANSPORT_ABI_VERSION,
    .struct_size = sizeof(xshmem_transport_v1_t),
    .name = kName,
    .caps = XSHMEM_TRANSPORT_CAP_HOST_HEAP,
    .load = hostshm_load,
    .init = hostshm_init,
    .heap_register = hostshm_heap_register,
    .can_reach = hostshm_can_reach,
    .connect = hostshm_connect,
    .heap_deregister = hostshm_heap_deregister,
    .finalize = hostshm_finalize,
    .heap_grow = nullptr,  // host heaps are whole from the start
    .data_ops = nullptr,   // LSA only: the path code loads and stores
    .predict = hostshm_predict,
};
