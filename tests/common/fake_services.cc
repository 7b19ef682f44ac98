// The fake core-services table of the plugin tests. See fake_services.h.
#include "fake_services.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace xt {
namespace {

struct Entry {
  std::string name, def;
  xshmem_config_type_t type;
};

// Leaked on purpose: plugin threads may log while the process exits.
struct Fake {
  std::mutex mu;
  FakeServicesOptions opt;
  std::vector<Entry> entries;
  std::vector<std::string> log_lines;
  std::deque<std::string> strings;  // returned strings stay valid
  int log_level = XSHMEM_LOG_WARN;
};
Fake &fake() {
  static Fake &f = *new Fake;
  return f;
}

[[noreturn]] void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void error(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (fake().opt.on_error) fake().opt.on_error(msg);
  fprintf(stderr, "FAIL: %s\n", msg);
  fflush(stderr);
  _exit(1);
}

// Core variables a plugin may read through the services table (core/src/config.cc).
const Entry kCoreEntries[] = {{"XSHMEM_LIVENESS_TIMEOUT", "60s", XSHMEM_CONFIG_DURATION}};

// Called with fake().mu held.
const Entry &find_entry(const char *name) {
  for (auto &e : fake().entries)
    if (e.name == name) return e;
  for (auto &e : kCoreEntries)
    if (e.name == name) return e;
  error("plugin read '%s', which it did not register", name);
}

void svc_log(xshmem_log_level_t level, const char *subsys, const char *file, int line,
             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void svc_log(xshmem_log_level_t level, const char *subsys, const char *file, int line,
             const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  static const char *names[] = {"error", "warn", "info", "debug", "trace"};
  const char *lvl = level >= 0 && level <= XSHMEM_LOG_TRACE ? names[level] : "?";
  Fake &f = fake();
  fprintf(stderr, "[%s pid %d %s] %s: %s (%s:%d)\n", f.opt.prefix, getpid(), subsys, lvl, msg,
          file ? file : "?", line);
  std::lock_guard lock(f.mu);
  f.log_lines.push_back(msg);
}

int svc_log_enabled(xshmem_log_level_t level, const char *) {
  return level <= fake().log_level;
}

xshmem_status_t svc_config_register(const xshmem_config_entry_v1_t *e, size_t n) {
  Fake &f = fake();
  std::lock_guard lock(f.mu);
  const char *prefix = f.opt.register_prefix;
  for (size_t i = 0; i < n; ++i) {
    if (prefix && strncmp(e[i].name, prefix, strlen(prefix)) != 0)
      error("plugin registered '%s', outside %s*", e[i].name, prefix);
    if (!e[i].doc || !*e[i].doc) error("plugin registered '%s' without a doc", e[i].name);
    for (auto &have : f.entries)
      if (have.name == e[i].name) error("plugin registered '%s' twice", e[i].name);
    f.entries.push_back({e[i].name, e[i].default_value ? e[i].default_value : "", e[i].type});
  }
  return XSHMEM_SUCCESS;
}

const char *svc_config_get_string(const char *name) {
  Fake &f = fake();
  std::lock_guard lock(f.mu);
  const Entry &e = find_entry(name);
  const char *v = getenv(name);
  f.strings.push_back(v ? v : e.def);
  return f.strings.back().c_str();
}

int64_t parse_duration_ms(const std::string &t) {
  char *end = nullptr;
  double v = strtod(t.c_str(), &end);
  std::string unit = end;
  if (unit == "ms") return static_cast<int64_t>(v);
  if (unit == "m") return static_cast<int64_t>(v * 60000);
  return static_cast<int64_t>(v * 1000);  // "s" or none
}

int64_t svc_config_get_int(const char *name) {
  std::string value;
  xshmem_config_type_t type;
  {
    std::lock_guard lock(fake().mu);
    const Entry &e = find_entry(name);
    const char *v = getenv(name);
    value = v ? v : e.def;
    type = e.type;
  }
  if (type == XSHMEM_CONFIG_DURATION) return parse_duration_ms(value);
  if (type == XSHMEM_CONFIG_BOOL) return value == "1" || value == "yes" || value == "on";
  return strtoll(value.c_str(), nullptr, 10);
}

const xshmem_job_info_v1_t *svc_job_info() {
  static const xshmem_job_info_v1_t info{.struct_size = sizeof(info),
                                         .my_pe = -1,
                                         .n_pes = 0,
                                         .my_local_pe = -1,
                                         .n_local_pes = 0,
                                         .local_rank = nullptr,
                                         .host_id = nullptr,
                                         .job_token = "",
                                         .nic = nullptr,
                                         .gpu_pci = nullptr,
                                         .num_channels = 1,
                                         .heap_kind = XSHMEM_MEM_HOST};
  return &info;
}
xshmem_status_t svc_allgather(const void *, void *, size_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t svc_barrier() {
  return XSHMEM_ERR_UNSUPPORTED;
}
xshmem_status_t svc_node_fd_exchange(int, int *) {
  return XSHMEM_ERR_UNSUPPORTED;
}
[[noreturn]] void svc_fatal(int code, const char *subsys, const char *msg) {
  fprintf(stderr, "[%s %s] fatal: %s\n", fake().opt.prefix, subsys, msg);
  fflush(stderr);
  _exit(code);
}

}  // namespace

xshmem_core_services_v1_t fake_services_table() {
  return {XSHMEM_SERVICES_ABI_VERSION,
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
          nullptr /* cuda_driver_proc */,
          nullptr /* heap_amo */,
          nullptr /* heap_apply */};
}

const xshmem_core_services_v1_t *fake_services(const FakeServicesOptions &options) {
  static const xshmem_core_services_v1_t table = [&] {
    Fake &f = fake();
    f.opt = options;
    if (!f.opt.prefix) f.opt.prefix = "test";
    const char *lvl = getenv("XSHMEM_LOG_LEVEL");
    if (lvl && !strcmp(lvl, "debug")) f.log_level = XSHMEM_LOG_DEBUG;
    if (lvl && !strcmp(lvl, "info")) f.log_level = XSHMEM_LOG_INFO;
    return fake_services_table();
  }();
  return &table;
}

void fake_set_log_level(xshmem_log_level_t level) {
  fake().log_level = level;
}

bool fake_logged(const char *needle) {
  return fake_count_logged(needle) > 0;
}

size_t fake_count_logged(const char *needle) {
  Fake &f = fake();
  std::lock_guard lock(f.mu);
  size_t n = 0;
  for (auto &l : f.log_lines) n += l.find(needle) != std::string::npos;
  return n;
}

}  // namespace xt
