// xshmem core: the runtime context's internals, shared by the files that build it at init
// (job.cc, heap_setup.cc, transports.cc, path_state.cc, services.cc) and context.cc (init,
// finalize, the lifecycle API). Nothing outside those files includes it: the rest of the core
// sees the runtime through runtime.h.
#ifndef XSHMEM_CORE_RUNTIME_INTERNAL_H
#define XSHMEM_CORE_RUNTIME_INTERNAL_H

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <xshmem/device/state.h>
#include <xshmem/plugin/bootstrap_v1.h>
#include <xshmem/plugin/transport_v1.h>
#include "loader.h"
#include "proxy/engine.h"
#include "heap.h"
#include "runtime.h"
#include "status.h"

namespace xshmem::core {

struct ActiveTransport {
  const plugins::Transport *plugin;
  void *ctx = nullptr;
  bool heap_registered = false;
  // The plugin's data operations with a stub (XSHMEM_ERR_UNSUPPORTED) in place of every one it
  // leaves out or that lies past its table's struct_size; `has_data_ops`: it has a table at all.
  xshmem_transport_data_ops_v1_t data{};
  bool has_data_ops = false;
};

// Fills at.data from the plugin's table (stubs for what it lacks; the loader refused tables
// smaller than XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE). transports.cc.
void adopt_data_ops(ActiveTransport &at);
// After init: a transport with an error_query gets a quiet that polls it (host PROXY path), so
// an asynchronous failure stops the job at the next quiet with the transport's line.
void watch_async_errors(ActiveTransport &at);

// Everything init creates; destroyed in reverse order by finalize.
struct Runtime {
  // Inits not yet matched by a finalize (OpenSHMEM 1.6 counting). Written under g_init_mutex;
  // atomic because every API call's check_init reads it, from any thread (THREAD_MULTIPLE).
  std::atomic<int> init_count{0};
  // Bootstrap.
  const plugins::Bootstrap *boot = nullptr;
  void *boot_ctx = nullptr;
  // Job.
  std::vector<uint64_t> host_id;
  std::vector<int> local_rank;
  std::string token;
  xshmem_job_info_v1_t job{};
  std::string gpu_pci;  // job.gpu_pci points here (GPU heaps), else job.gpu_pci is NULL
  // Heap.
  HeapMemory heap;
  Allocator alloc;
  // The executable's writable data (globals.h), found at init whether or not it is symmetric
  // (checked mode names a global that is not), and why it is not (empty when it is).
  globals::Segment exe_data;
  std::string globals_why;
  // Transports and the path state.
  std::vector<ActiveTransport> transports;
  std::vector<dev::peer_t> peers;
  std::vector<const char *> peer_transport;
  // [n_pes] index into `transports` of the transport serving each peer (-1 before connect).
  std::vector<int> peer_transport_index;
  // [n_pes] the serving transport's data operations, for peers whose path is not LSA.
  std::vector<dev::host_remote_t> peer_remote;
  // The distinct transports among peer_remote (fence and quiet visit each).
  std::vector<dev::host_remote_t> remote_transports;
  // The PEs reached by the GDA path (quiet visits their queues, gda_path.h).
  std::vector<int32_t> gda_peers;
  // [n_pes] GDA peers: the handle GPU threads read when the transport gave its own
  // (xshmem_peer_info_v1_t::gda_device_handle), else 0 (peers[pe].base serves both).
  std::vector<uintptr_t> peer_device_base;
  // The proxy engine: GPU PEs with some PROXY peer (their GPU threads' rings); NULL otherwise.
  // Stopped first at finalize (it drains into the transports).
  std::unique_ptr<proxy::Engine> proxy;
  dev::state_t state;
};

extern Runtime g_rt;
extern std::mutex g_init_mutex;
extern const xshmem_core_services_v1_t g_services;  // services.cc

// The process's plugin loader (plugins stay loaded for the life of the process).
plugins::Loader &loader();

// Agrees across PEs: true iff `ok` on every PE (job.cc).
bool all_ok(bool ok);

// The init steps, in order (init_impl in context.cc runs them).
Status start_bootstrap(const xshmem_bootstrap_args_v1_t &args);  // job.cc
Status learn_job();                                              // job.cc
Status create_heap();                                            // heap_setup.cc
Status start_transports();                                       // transports.cc
Status build_state();                                            // path_state.cc
void stop_transports();                                          // transports.cc

// Tells transport `at` about the heap's chunks from index `first` on (collective; heap_setup.cc).
xshmem_status_t grow_transport(const ActiveTransport &at, size_t first);

// Why the heap lives where it does, for the messages of transport selection ("host memory:
// XSHMEM_HEAP=auto and no usable GPU here: ..."). Set by create_heap.
extern std::string g_heap_why;

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_RUNTIME_INTERNAL_H
