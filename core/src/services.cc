// xshmem core: the services table handed to every plugin (logging, config, job info,
// out-of-band collectives, node-local descriptor exchange, CUDA driver entry points).
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
#include "cuda/device_ops.h"
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
namespace {

void svc_log(xshmem_log_level_t level, const char *subsys, const char *file, int line,
             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log::vwrite(level, subsys, file, line, fmt, ap);
  va_end(ap);
}
int svc_log_enabled(xshmem_log_level_t level, const char *subsys) {
  return log::enabled(level, subsys) ? 1 : 0;
}
xshmem_status_t svc_config_register(const xshmem_config_entry_v1_t *entries, size_t n) {
  // The loader's config::OwnerScope attributes the entries to the plugin being loaded.
  return config::register_entries(entries, n, nullptr).code();
}
const char *svc_config_get_string(const char *name) {
  // Returned pointers must stay valid: keep one copy per name.
  static std::mutex m;
  static std::vector<std::pair<std::string, std::unique_ptr<std::string>>> cache;
  std::lock_guard<std::mutex> lock(m);
  std::string v = config::get_string(name);
  for (auto &[k, val] : cache)
    if (k == name) {
      if (*val != v) *val = v;
      return val->c_str();
    }
  cache.emplace_back(name, std::make_unique<std::string>(v));
  return cache.back().second->c_str();
}
int64_t svc_config_get_int(const char *name) {
  for (const auto &v : config::list()) {
    if (v.name != name) continue;
    if (v.type == "size") return config::get_int(name);  // above INT64_MAX: INT64_MAX
    if (v.type == "duration") return config::get_duration_ms(name);
    if (v.type == "bool") return config::get_bool(name) ? 1 : 0;
    return config::get_int(name);
  }
  return config::get_int(name);
}
const xshmem_job_info_v1_t *svc_job_info() {
  return &g_rt.job;
}
xshmem_status_t svc_allgather(const void *in, void *out, size_t len) {
  return oob_allgather(in, out, len).code();
}
xshmem_status_t svc_barrier() {
  return oob_barrier().code();
}
xshmem_status_t svc_node_fd_exchange(int my_fd, int *peer_fds) {
  return node_fd_exchange(g_rt.job, my_fd, peer_fds).code();
}
[[noreturn]] void svc_fatal(int exit_code, const char *subsys, const char *msg) {
  fatal(exit_code, subsys, msg);
}
void *svc_cuda_driver_proc(const char *symbol) {
  return cuda::driver_proc(symbol);
}
xshmem_status_t svc_heap_amo(void *addr, uint32_t width, xshmem_amo_op_t op, uint64_t operand,
                             uint64_t compare, uint64_t *old, int src_pe) {
  xshmem_heap_op_v1_t a{};
  a.kind = XSHMEM_HEAP_OP_AMO;
  a.width = width;
  a.op = op;
  a.src_pe = src_pe;
  a.addr = addr;
  a.operand = operand;
  a.compare = compare;
  const xshmem_status_t st = gpu::heap_apply(&a, 1);
  if (st == XSHMEM_SUCCESS && old != nullptr) *old = a.old;
  return st;
}
xshmem_status_t svc_heap_apply(xshmem_heap_op_v1_t *ops, size_t n) {
  return gpu::heap_apply(ops, n);
}

}  // namespace

const xshmem_core_services_v1_t g_services = {
    XSHMEM_SERVICES_ABI_VERSION,
    sizeof(xshmem_core_services_v1_t),
    svc_log,
    svc_log_enabled,
    svc_config_register,
    svc_config_get_string,
    svc_config_get_int,
    svc_job_info,
    svc_allgather,
    svc_barrier,
    svc_node_fd_exchange,
    svc_fatal,
    svc_cuda_driver_proc,
    svc_heap_amo,
    svc_heap_apply,
};
}  // namespace xshmem::core
