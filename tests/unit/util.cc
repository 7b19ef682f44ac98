#include "util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config.h"
#include "fake_services.h"
#include "log.h"

namespace ut {

EnvGuard::~EnvGuard() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second)
      setenv(it->first.c_str(), it->second->c_str(), 1);
    else
      unsetenv(it->first.c_str());
  }
}

void EnvGuard::set(const char *name, const char *value) {
  const char *old = getenv(name);
  saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

LogCapture::LogCapture(const char *level, const char *subsys) {
  char tmpl[] = "/tmp/xshmem_unit_log_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  path_ = tmpl;
  env_.set("XSHMEM_LOG_FILE", path_.c_str());
  env_.set("XSHMEM_LOG_LEVEL", level);
  env_.set("XSHMEM_LOG_SUBSYS", subsys);
  xshmem::log::configure();
}

LogCapture::~LogCapture() {
  xshmem::log::shutdown();
  unlink(path_.c_str());
  // shutdown leaves the logger unconfigured: its next line reads the environment env_ restores.
}

std::string LogCapture::text() const {
  std::ifstream in(path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> LogCapture::lines() const {
  std::vector<std::string> out;
  std::istringstream in(text());
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

size_t count(const std::string &hay, const std::string &needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos;
       pos = hay.find(needle, pos + needle.size()))
    ++n;
  return n;
}

namespace {

void svc_log(xshmem_log_level_t level, const char *subsys, const char *file, int line,
             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  xshmem::log::vwrite(level, subsys, file, line, fmt, ap);
  va_end(ap);
}
int svc_log_enabled(xshmem_log_level_t level, const char *subsys) {
  return xshmem::log::enabled(level, subsys) ? 1 : 0;
}
xshmem_status_t svc_config_register(const xshmem_config_entry_v1_t *entries, size_t n) {
  return xshmem::config::register_entries(entries, n, nullptr).code();
}
const char *svc_config_get_string(const char *name) {
  thread_local std::string value;
  value = xshmem::config::get_string(name);
  return value.c_str();
}
int64_t svc_config_get_int(const char *name) {
  return xshmem::config::get_int(name);
}
}  // namespace

const xshmem_core_services_v1_t *test_services() {
  // The tests' one fake table (tests/common/fake_services.h), logging and configuring through
  // the core's own logger and table, as the loader under test expects.
  static const xshmem_core_services_v1_t svc = [] {
    xshmem_core_services_v1_t t = xt::fake_services_table();
    t.log = svc_log;
    t.log_enabled = svc_log_enabled;
    t.config_register = svc_config_register;
    t.config_get_string = svc_config_get_string;
    t.config_get_int = svc_config_get_int;
    return t;
  }();
  return &svc;
}

}  // namespace ut
