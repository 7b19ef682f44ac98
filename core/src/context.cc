// xshmem core: the runtime context -- init and finalize (the steps live in job.cc, heap_setup.cc,
// transports.cc, path_state.cc), fatal, and the lifecycle API.
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

#include <xshmem/device/coll_reduce.h>  // collectives: reductions
#include <xshmem/device/coll_move.h>    // collectives: data movement
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>
#include "loader.h"
#include "checks.h"
#include "config.h"
#include "cuda/cuda_rt.h"
#include "device_api.h"
#include "heap.h"
#include "log.h"
#include "nics.h"
#include "node_ipc.h"
#include "runtime.h"
#include "selection.h"
#include "team.h"
#include "wait_deadline.h"
#include "runtime_internal.h"

namespace xshmem::core {

Runtime g_rt;
std::mutex g_init_mutex;

plugins::Loader &loader() {
  // Plugins stay loaded for the life of the process: re-init after finalize reuses them, and
  // config entries they registered keep pointing at live strings.
  static plugins::Loader *l = new plugins::Loader();
  return *l;
}

namespace {

constexpr const char *kSubsys = "core";

// Undoes whatever init step had completed (also used on a failed init). Returns the bootstrap's
// finalize status: a failed one means the job did not end together.
[[nodiscard]] Status teardown() {
  stop_transports();
  reset_device_state_sinks();
  cuda::close();  // internal stream, device state
  g_rt.state = dev::state_t{};
  team::reset();
  g_rt.peers.clear();
  g_rt.peer_transport.clear();
  g_rt.peer_transport_index.clear();
  g_rt.peer_remote.clear();
  g_rt.remote_transports.clear();
  g_rt.heap.release();
  g_rt.alloc.reset(0);
  Status boot_st = XSHMEM_SUCCESS;
  if (g_rt.boot) {
    boot_st = g_rt.boot->ops->finalize(g_rt.boot_ctx);
    g_rt.boot = nullptr;
    g_rt.boot_ctx = nullptr;
  }
  g_rt.job = xshmem_job_info_v1_t{};
  g_rt.job.my_pe = -1;
  g_rt.host_id.clear();
  g_rt.local_rank.clear();
  log::set_pe(-1);
  return boot_st;
}

// A GPU heap that a CPU proxy serves (libfabric, the ibgda NIC model) under CUDA's lazy module
// loading: the proxy's driver copies can queue behind the loading of a kernel launched while
// another kernel waits on the proxy, and the job hangs (tools/xshmem-run/xshmem_run.cc,
// proxy_path_configured; xshmem-run sets CUDA_MODULE_LOADING=EAGER for such jobs). One line.
void warn_lazy_loading_with_proxy() {
  if (!heap_on_device() || !lazy_module_loading()) return;
  const dev::state_t &s = state();
  if (s.transport_names == nullptr) return;
  for (int pe = 0; pe < s.n_pes; ++pe) {
    const char *t = s.transport_names[pe];
    if (t == nullptr) continue;
    const std::string name = t;
    if (name == "libfabric" ||
        (name == "ibgda" && config::get_enum("XSHMEM_IBGDA_NIC") == "model")) {
      XLOG_WARN(kSubsys,
                "pe %d reaches pe %d through %s, a CPU proxy over this GPU heap, and CUDA loads "
                "modules lazily: a kernel launched for the first time while another waits on the "
                "proxy can hang the job; set CUDA_MODULE_LOADING=EAGER before CUDA starts "
                "(xshmem-run does for such jobs)",
                s.my_pe, pe, t);
      return;
    }
  }
}

int init_impl(const xshmem_bootstrap_args_v1_t &args) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_rt.init_count > 0) {  // OpenSHMEM 1.6: nested init, matched by finalize; no communication
    ++g_rt.init_count;
    return 0;
  }
  auto t0 = std::chrono::steady_clock::now();
  log::configure();
  g_rt.job.my_pe = -1;
  Status st = start_bootstrap(args);
  if (st.ok()) {
    config::warn_unknown();  // after every plugin registered its variables
    st = learn_job();
  }
  if (st.ok()) st = create_heap();
  if (st.ok()) st = start_transports();
  if (st.ok()) st = build_state();
  if (!st.ok()) {
    // A PE that failed after the bootstrap came up takes the job down, so no peer waits for it,
    // with the one-line diagnostic of the checks ("xshmem: xshmem_init: <why> (pe N)"; the log
    // lines before it say where it failed).
    if (g_rt.boot) {
      const char *why = st.str();
      if (st.code() == XSHMEM_ERR_ABI && device_layout_refusal()[0] != '\0')
        why = device_layout_refusal();
      char what[640];
      snprintf(what, sizeof(what), "failed: %s", why);
      fail_line(1, kSubsys, "xshmem_init", what, g_rt.job.my_pe);
    }
    (void)teardown();
    return st.code();
  }
  g_rt.init_count = 1;
  publish_check_view(true);
  warn_lazy_loading_with_proxy();
  st = oob_barrier();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  XLOG_DEBUG(kSubsys, "init done in %.1f ms", ms);
  return st.code();
}

}  // namespace

// ---- runtime.h ----------------------------------------------------------------------------------

bool initialized() {
  return g_rt.init_count > 0;
}
dev::state_t &state() {
  return g_rt.state;
}
Allocator &heap_allocator() {
  return g_rt.alloc;
}
const xshmem_core_services_v1_t *services() {
  return &g_services;
}

namespace {
// fatal and xshmem_global_exit: logs `msg` once at `level`, then has the bootstrap stop every PE.
// `printed`: the caller printed `msg` on stderr as the job's one diagnostic line; then the log
// repeats it only where it does not go to stderr, and the bootstrap (which logs its abort reason
// on this PE and the others) gets a pointer to that line instead of a second copy of it.
[[noreturn]] void stop_job(int exit_code, xshmem_log_level_t level, const char *subsys,
                           const char *msg, bool printed = false) {
  static std::atomic<bool> once{false};
  if (!once.exchange(true) && (!printed || !log::writes_to_stderr())) {
    log::write(level, subsys, __FILE__, __LINE__, "%s", msg);
  }
  fflush(stdout);  // the bootstrap's abort ends the process with _exit: keep what was printed
  fflush(stderr);
  char reason[96];
  if (printed)
    snprintf(reason, sizeof(reason), "see the 'xshmem:' line of pe %d above",
             g_rt.boot_ctx ? g_rt.job.my_pe : -1);
  if (g_rt.boot && g_rt.boot_ctx)
    g_rt.boot->ops->abort(g_rt.boot_ctx, exit_code, printed ? reason : msg);
  _exit(exit_code);
}
}  // namespace

void fatal(int exit_code, const char *subsys, const char *msg) {
  stop_job(exit_code, XSHMEM_LOG_ERROR, subsys, msg);
}

void fatal_printed(int exit_code, const char *subsys, const char *msg) {
  stop_job(exit_code, XSHMEM_LOG_ERROR, subsys, msg, true);
}

Status oob_allgather(const void *in, void *out, size_t len_per_pe) {
  if (!g_rt.boot) return XSHMEM_ERR_INVALID;
  return g_rt.boot->ops->allgather(g_rt.boot_ctx, in, out, len_per_pe);
}

Status oob_barrier() {
  if (!g_rt.boot) return XSHMEM_ERR_INVALID;
  return g_rt.boot->ops->barrier(g_rt.boot_ctx);
}

const plugins::Loader &plugin_loader(bool scan) {
  if (scan) loader().scan(&g_services);
  return loader();
}

}  // namespace xshmem::core

// ---- Public API ---------------------------------------------------------------------------------

using namespace xshmem::core;
namespace config = xshmem::config;
namespace xlog = xshmem::log;
using xshmem::Status;

extern "C" {

void xshmem_init(void) {
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1, nullptr};
  int st = init_impl(args);
  if (st != 0) {
    fprintf(stderr, "xshmem: xshmem_init failed (%s); set XSHMEM_LOG_LEVEL=info for details\n",
            Status::status_str(st));
    fflush(stderr);
    _exit(1);
  }
}

int xshmem_init_attr(unsigned int flags, xshmem_init_attr_t *attr) {
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1, nullptr};
  if (flags & XSHMEM_INIT_WITH_UNIQUEID) {
    if (!attr) {
      fprintf(stderr, "xshmem: xshmem_init_attr: attr is NULL with XSHMEM_INIT_WITH_UNIQUEID\n");
      return XSHMEM_ERR_INVALID;
    }
    if (attr->nranks <= 0 || attr->rank < 0 || attr->rank >= attr->nranks) {
      fprintf(stderr, "xshmem: xshmem_init_attr: rank %d / nranks %d out of range\n", attr->rank,
              attr->nranks);
      return XSHMEM_ERR_INVALID;
    }
    args.uniqueid = attr->uid.internal;
    args.rank = attr->rank;
    args.nranks = attr->nranks;
  }
  if (flags & XSHMEM_INIT_WITH_MPI_COMM) {
    if (flags & XSHMEM_INIT_WITH_UNIQUEID) {
      fprintf(stderr,
              "xshmem: xshmem_init_attr: flags 0x%x: XSHMEM_INIT_WITH_UNIQUEID and "
              "XSHMEM_INIT_WITH_MPI_COMM exclude each other\n",
              flags);
      return XSHMEM_ERR_INVALID;
    }
    if (!attr || !attr->mpi_comm) {
      fprintf(stderr, "xshmem: xshmem_init_attr: %s is NULL with XSHMEM_INIT_WITH_MPI_COMM\n",
              attr ? "attr->mpi_comm" : "attr");
      return XSHMEM_ERR_INVALID;
    }
    args.mpi_comm = attr->mpi_comm;
  }
  if (const unsigned unknown = flags & ~(XSHMEM_INIT_WITH_UNIQUEID | XSHMEM_INIT_WITH_MPI_COMM)) {
    fprintf(stderr, "xshmem: xshmem_init_attr: flags 0x%x: unknown bits 0x%x\n", flags, unknown);
    return XSHMEM_ERR_INVALID;
  }
  return init_impl(args);
}

int xshmem_get_uniqueid(xshmem_uniqueid_t *id) {
  if (!id) return XSHMEM_ERR_INVALID;
  xlog::configure();
  auto &l = plugin_loader(true);
  std::string want = config::get_string("XSHMEM_BOOTSTRAP");
  for (auto &b : l.bootstraps()) {
    if (!(b.ops->caps & XSHMEM_BOOTSTRAP_CAP_UNIQUEID) || !b.ops->get_uniqueid) continue;
    if (!want.empty() && b.name != want) continue;
    return b.ops->get_uniqueid(id->internal, sizeof(id->internal));
  }
  XLOG_ERROR("core", "xshmem_get_uniqueid: no loaded bootstrap plugin supports unique ids");
  return XSHMEM_ERR_NOT_FOUND;
}

int xshmem_set_attr_uniqueid_args(int rank, int nranks, const xshmem_uniqueid_t *id,
                                  xshmem_init_attr_t *attr) {
  if (!id || !attr) return XSHMEM_ERR_INVALID;
  attr->rank = rank;
  attr->nranks = nranks;
  attr->uid = *id;
  return 0;
}

int xshmem_init_thread(int requested, int *provided) {
  if (requested < XSHMEM_THREAD_SINGLE || requested > XSHMEM_THREAD_MULTIPLE) {
    char pe[16] = "-";
    if (initialized()) snprintf(pe, sizeof(pe), "%d", g_rt.job.my_pe);
    fprintf(stderr,
            "xshmem: xshmem_init_thread: requested %d is not an XSHMEM_THREAD_* level (%d..%d); "
            "not initialised (pe %s)\n",
            requested, XSHMEM_THREAD_SINGLE, XSHMEM_THREAD_MULTIPLE, pe);
    return XSHMEM_ERR_INVALID;
  }
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1, nullptr};
  int st = init_impl(args);
  // Every level is provided as MULTIPLE: the host API keeps no unsynchronised shared state
  // (docs/semantics.md, Lifecycle), so there is no cheaper mode to select.
  if (st == 0 && provided) *provided = XSHMEM_THREAD_MULTIPLE;
  return st;
}

void xshmem_query_thread(int *provided) {
  if (provided) *provided = XSHMEM_THREAD_MULTIPLE;
}

void xshmem_finalize(void) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  check_init("xshmem_finalize");  // under the lock: a finalize racing on another thread counts
  xshmem_barrier_all();  // a non-last finalize acts as a barrier (1.6); the last one starts so
  if (--g_rt.init_count > 0) return;
  publish_check_view(false);
  const int pe = g_rt.job.my_pe;
  if (Status st = teardown(); !st.ok()) {
    // The job did not end together (a peer never finalized, or is gone): a failure, not exit 0.
    fprintf(stderr,
            "xshmem: xshmem_finalize: the bootstrap's finalize failed on pe %d (%s); the job did "
            "not end cleanly, exiting with status 1\n",
            pe, st.str());
    fflush(stdout);
    fflush(stderr);
    _exit(1);
  }
  xlog::shutdown();
}

int xshmem_my_pe(void) {
  check_init("xshmem_my_pe");
  return g_rt.state.my_pe;
}

int xshmem_n_pes(void) {
  check_init("xshmem_n_pes");
  return g_rt.state.n_pes;
}

int xshmem_query_initialized(void) {
  return initialized() ? 1 : 0;
}

void xshmem_global_exit(int status) {
  // One line on stderr says why the job ended; the bootstrap carries it to the other PEs, which
  // exit with `status` too (the process status keeps its low 8 bits).
  char pe[16] = "-";
  if (initialized()) snprintf(pe, sizeof(pe), "%d", g_rt.job.my_pe);
  char line[160];
  snprintf(line, sizeof(line),
           "xshmem: xshmem_global_exit: status %d: stopping every pe of the job (pe %s)", status,
           pe);
  fprintf(stderr, "%s\n", line);
  stop_job(status, XSHMEM_LOG_INFO, "core", line, true);
}

void xshmemi_h_global_exit(int status) __attribute__((noreturn, alias("xshmem_global_exit")));

void xshmem_info_get_version(int *major, int *minor) {
  if (major) *major = XSHMEM_MAJOR_VERSION;
  if (minor) *minor = XSHMEM_MINOR_VERSION;
}

void xshmem_info_get_name(char *name) {
  if (name) snprintf(name, XSHMEM_MAX_NAME_LEN, "%s", XSHMEM_VENDOR_STRING);
}

int xshmemx_oob_allgather(const void *in, void *out, size_t len_per_pe) {
  check_init("xshmemx_oob_allgather");
  return oob_allgather(in, out, len_per_pe).code();
}

int xshmemx_oob_barrier(void) {
  check_init("xshmemx_oob_barrier");
  return oob_barrier().code();
}

}  // extern "C"
