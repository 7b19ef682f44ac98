// xshmem core: the path state (dev::state_t) the host API and GPU kernels run on, built from the
// transports' per-peer choices.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <xshmem/device/coll_move.h>
#include <xshmem/device/coll_reduce.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>
#include "loader.h"
#include "checks.h"
#include "config.h"
#include "cuda/cuda_rt.h"
#include "cuda/device_ops.h"
#include "device_api.h"
#include "heap.h"
#include "log.h"
#include "nics.h"
#include "node_ipc.h"
#include "path_state.h"
#include "runtime.h"
#include "selection.h"
#include "team.h"
#include "wait_deadline.h"
#include "runtime_internal.h"

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "core";

void on_bad_path(int pe) {
  char msg[160];
  snprintf(msg, sizeof(msg), "no data path to pe %d is implemented (path %d)", pe,
           pe >= 0 && pe < static_cast<int>(g_rt.peers.size()) ? g_rt.peers[pe].path : -1);
  fatal(1, kSubsys, msg);
}

// A transport's data operation failed: stop the job naming the operation and the peer.
void on_remote_error(int pe, const char *op, int status) {
  char msg[192];
  if (pe >= 0)
    snprintf(msg, sizeof(msg), "%s from pe %d to pe %d failed in transport %s: %s", op,
             g_rt.job.my_pe, pe, g_rt.peer_transport[pe] ? g_rt.peer_transport[pe] : "?",
             Status::status_str(status));
  else
    snprintf(msg, sizeof(msg), "%s on pe %d failed in a transport: %s", op, g_rt.job.my_pe,
             Status::status_str(status));
  fatal(1, kSubsys, msg);
}

// The host's peer table (state().peers), when it differs from the chosen one (g_rt.peers), and
// the state the device's copy is made from.
std::vector<dev::peer_t> g_host_peers;
// The device's peer table when it differs from the chosen one (GDA peers' device handles).
std::vector<dev::peer_t> g_device_peers;
dev::state_t g_device_view;

// Makes the device's copy of `host` (its source kept in g_device_view) and tells every kernel
// module.
Status publish(const dev::state_t &host) {
  g_device_view = device_source(host, g_rt.peers.data());
  XSHMEM_CHECK(cuda::publish_state(g_device_view));
  XSHMEM_CHECK(notify_device_state_sinks());
  return XSHMEM_SUCCESS;
}

}  // namespace

std::vector<dev::peer_t> host_peer_table(const std::vector<dev::peer_t> &chosen, bool heap_in_gpu) {
  std::vector<dev::peer_t> host = chosen;
  if (heap_in_gpu) {
    for (dev::peer_t &p : host)
      if (p.path == XSHMEM_PATH_LSA) p.path = XSHMEM_PATH_HOST_CE;
  }
  return host;
}

dev::state_t device_source(const dev::state_t &host, const dev::peer_t *chosen) {
  dev::state_t d = host;
  d.peers = const_cast<dev::peer_t *>(chosen);
  // GDA peers whose transport gave GPU threads their own handle (gda_device_handle).
  bool own = false;
  for (uintptr_t b : g_rt.peer_device_base) own = own || b != 0;
  if (own && host.n_pes > 0) {
    g_device_peers.assign(chosen, chosen + host.n_pes);
    for (size_t pe = 0; pe < g_device_peers.size() && pe < g_rt.peer_device_base.size(); ++pe)
      if (g_device_peers[pe].path == XSHMEM_PATH_GDA && g_rt.peer_device_base[pe] != 0)
        g_device_peers[pe].base = g_rt.peer_device_base[pe];
    d.peers = g_device_peers.data();
  }
  d.host_ce = nullptr;
  d.proxy = host.proxy_device;  // the GPU's address of the mapped rings
  d.host_rings = 0;
  // gda_peers stays the host's list: publish_state copies it to the GPU with the peers.
  return d;
}

const dev::state_t &device_view() {
  return g_device_view;
}

Status build_state() {
  dev::state_t &s = g_rt.state;
  s = dev::state_t{};
  s.layout = XSHMEM_DEVICE_STATE_LAYOUT;
  s.my_pe = g_rt.job.my_pe;
  s.n_pes = g_rt.job.n_pes;
  s.heap_base = reinterpret_cast<uintptr_t>(g_rt.heap.base());
  s.heap_size = g_rt.heap.size();
  if (const globals::Segment &g = g_rt.heap.globals()) {
    // The heap's region ends with the globals window; the window is reached through the
    // globals' own addresses only (heap_offset), never as heap addresses past the heap's end.
    s.heap_size = g_rt.heap.globals_offset();
    s.globals_base = g.base;
    s.globals_size = g.size;
    s.globals_offset = g_rt.heap.globals_offset();
  }
  // On a GPU heap the host reaches its LSA peers by copies and kernels (HOST_CE); the device's
  // copy keeps LSA (publish).
  const bool heap_in_gpu = heap_on_device();
  g_host_peers = host_peer_table(g_rt.peers, heap_in_gpu);
  s.peers = g_host_peers.data();
  s.host_ce = heap_in_gpu ? gpu::host_ce_ops() : nullptr;
  s.internal = static_cast<dev::internal_region_t *>(g_rt.heap.base());
  s.on_bad_path = on_bad_path;
  s.transport_names = g_rt.peer_transport.data();
  s.remote = g_rt.peer_remote.data();
  s.remote_transports = g_rt.remote_transports.data();
  s.n_remote_transports = static_cast<int32_t>(g_rt.remote_transports.size());
  s.num_channels = g_rt.job.num_channels > 0 ? g_rt.job.num_channels : 1;
  s.on_remote_error = on_remote_error;
  s.gda_peers = g_rt.gda_peers.data();
  s.n_gda_peers = static_cast<int32_t>(g_rt.gda_peers.size());
  if (g_rt.proxy) {
    s.proxy = g_rt.proxy->host_channels();
    s.proxy_device = g_rt.proxy->device_channels();
    s.host_rings = heap_on_device() ? 0 : 1;  // a CPU PE has the engine for its host threads
  }
  s.teams = team::init_predefined(s, g_rt.host_id);
  // The wait deadline (XSHMEM_WAIT_TIMEOUT): 0 leaves waits without one.
  s.wait_timeout_ns =
      static_cast<uint64_t>(config::get_duration_ms("XSHMEM_WAIT_TIMEOUT")) * 1000000u;
  s.on_wait_timeout = on_wait_timeout;
  {
    const std::string algo = config::get_enum("XSHMEM_COLL_REDUCE_ALGO");
    s.coll_reduce_algo = algo == "direct" ? dev::kReduceDirect
                         : algo == "rsag" ? dev::kReduceRsag
                                          : dev::kReduceAuto;
  }
  {
    const std::string bcast = config::get_enum("XSHMEM_COLL_BCAST_ALGO");
    s.coll_bcast_algo = bcast == "direct" ? dev::kMoveDirect
                        : bcast == "tree" ? dev::kMoveTree
                                          : dev::kMoveAuto;
    const std::string fcollect = config::get_enum("XSHMEM_COLL_FCOLLECT_ALGO");
    s.coll_fcollect_algo = fcollect == "direct" ? dev::kMoveDirect
                           : fcollect == "ring" ? dev::kMoveRing
                                                : dev::kMoveAuto;
  }
  // GPU heaps: the copy kernels use, handed to every CUDA module of the program.
  return publish(s);
}

Status republish_state() {
  return publish(g_rt.state);
}
}  // namespace xshmem::core
