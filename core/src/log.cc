// xshmem core: the one logger of core and plugins.
//
// The logger reads its XSHMEM_LOG_* variables straight from the environment (config::env_text,
// which also gives their NVSHMEM aliases and never logs) rather than through config::get_*: the
// config module reports bad values through the logger, and the logger must be usable before (and
// while) anything else is configured.
#include "log.h"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "config.h"

namespace xshmem::log {
namespace {

constexpr const char *kLevelNames[] = {"error", "warn", "info", "debug", "trace"};
constexpr int kNumLevels = sizeof(kLevelNames) / sizeof(kLevelNames[0]);
constexpr int kDefaultLevel = XSHMEM_LOG_WARN;

struct State {
  std::atomic<bool> configured{false};
  std::atomic<int> max_level{kDefaultLevel};
  std::atomic<int> pe{-1};
  std::atomic<bool> has_filter{false};

  std::shared_mutex mu;  // guards everything below; writers of lines take it shared
  bool filter_exclude = false;
  std::vector<std::string> filter;
  int fd = STDERR_FILENO;
  bool own_fd = false;
  std::string host = "?";
};

// Never destroyed: plugins and static destructors may log during process exit.
State &state() {
  static State *s = new State;
  return *s;
}

std::string trim(const char *text) {
  std::string s = text ? text : "";
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

std::string short_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "?";
  std::string h = buf;
  size_t dot = h.find('.');
  if (dot != std::string::npos && dot > 0) h.resize(dot);
  return h.empty() ? "?" : h;
}

std::string expand_path(const std::string &pattern, const std::string &host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char c = pattern[i + 1];
      if (c == 'h') {
        out += host;
        ++i;
        continue;
      }
      if (c == 'p') {
        out += std::to_string(getpid());
        ++i;
        continue;
      }
      if (c == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

void write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to report a failing log sink
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
}

// Requires the shared or exclusive lock.
bool subsys_selected(const State &s, const char *subsys) {
  bool listed = false;
  for (const std::string &w : s.filter) {
    if (strcasecmp(w.c_str(), subsys) == 0) {
      listed = true;
      break;
    }
  }
  return s.filter_exclude ? !listed : listed;
}

}  // namespace

void configure() {
  State &s = state();
  std::vector<std::string> warnings;
  {
    std::unique_lock lock(s.mu);
    s.host = short_hostname();

    int level = kDefaultLevel;
    std::string lvl_via;  // an NVSHMEM alias (NVSHMEM_DEBUG) the level came from
    std::string lvl = config::env_text("XSHMEM_LOG_LEVEL", &lvl_via);
    if (!lvl.empty()) {
      int found = -1;
      for (int i = 0; i < kNumLevels; ++i)
        if (strcasecmp(lvl.c_str(), kLevelNames[i]) == 0) found = i;
      if (found >= 0) {
        level = found;
      } else {
        warnings.push_back("invalid value '" + lvl + "' for " +
                           (lvl_via.empty() ? "" : lvl_via + " (") + "XSHMEM_LOG_LEVEL" +
                           (lvl_via.empty() ? "" : ")") +
                           ": expected one of error, warn, info, debug, "
                           "trace; using warn");
      }
    }
    s.max_level.store(level, std::memory_order_relaxed);

    s.filter.clear();
    s.filter_exclude = false;
    std::string sub = trim(getenv("XSHMEM_LOG_SUBSYS"));
    if (!sub.empty() && sub[0] == '^') {
      s.filter_exclude = true;
      sub.erase(0, 1);
    }
    size_t pos = 0;
    while (pos <= sub.size()) {
      size_t comma = sub.find(',', pos);
      if (comma == std::string::npos) comma = sub.size();
      std::string w = trim(sub.substr(pos, comma - pos).c_str());
      if (!w.empty() && w[0] == '^') w.erase(0, 1);  // tolerate "^a,^b"
      if (!w.empty()) s.filter.push_back(w);
      pos = comma + 1;
    }
    s.has_filter.store(!s.filter.empty(), std::memory_order_relaxed);

    if (s.own_fd) close(s.fd);
    s.fd = STDERR_FILENO;
    s.own_fd = false;
    std::string file = config::env_text("XSHMEM_LOG_FILE");
    if (!file.empty()) {
      std::string path = expand_path(file, s.host);
      // O_APPEND: PEs sharing one file (no %p) interleave whole lines instead of overwriting.
      int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        s.fd = fd;
        s.own_fd = true;
      } else {
        warnings.push_back("cannot open XSHMEM_LOG_FILE '" + path + "': " + strerror(errno) +
                           "; logging to stderr instead");
      }
    }
    s.configured.store(true, std::memory_order_release);
  }
  for (const std::string &w : warnings)
    write(XSHMEM_LOG_WARN, "log", __FILE__, __LINE__, "%s", w.c_str());
}

bool writes_to_stderr() {
  State &s = state();
  if (!s.configured.load(std::memory_order_acquire)) configure();
  std::shared_lock lock(s.mu);
  return s.fd == STDERR_FILENO;
}

void set_pe(int pe) {
  state().pe.store(pe, std::memory_order_relaxed);
}

bool enabled(xshmem_log_level_t level, const char *subsys) {
  State &s = state();
  if (!s.configured.load(std::memory_order_acquire)) configure();
  if (static_cast<int>(level) > s.max_level.load(std::memory_order_relaxed)) return false;
  // Errors always pass the subsystem filter: hiding a subsystem must not hide its failures.
  if (level == XSHMEM_LOG_ERROR || !s.has_filter.load(std::memory_order_relaxed)) return true;
  std::shared_lock lock(s.mu);
  return subsys_selected(s, subsys ? subsys : "core");
}

void write(xshmem_log_level_t level, const char *subsys, const char *file, int line,
           const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite(level, subsys, file, line, fmt, ap);
  va_end(ap);
}

void vwrite(xshmem_log_level_t level, const char *subsys, const char *file, int line,
            const char *fmt, va_list ap) {
  // Callers through the services table may skip log_enabled.
  if (!enabled(level, subsys)) return;
  if (subsys == nullptr) subsys = "core";
  int lvl = static_cast<int>(level);
  if (lvl < 0) lvl = 0;
  if (lvl >= kNumLevels) lvl = kNumLevels - 1;

  char small[1024];
  std::string msg;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof(small), fmt ? fmt : "", ap2);
  va_end(ap2);
  if (n < 0) {
    msg = "(bad log format)";
  } else if (static_cast<size_t>(n) < sizeof(small)) {
    msg.assign(small, static_cast<size_t>(n));
  } else {
    msg.resize(static_cast<size_t>(n) + 1);
    vsnprintf(msg.data(), msg.size(), fmt, ap);
    msg.resize(static_cast<size_t>(n));
  }
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();

  State &s = state();
  int pe = s.pe.load(std::memory_order_relaxed);
  std::shared_lock lock(s.mu);
  std::string out;
  out.reserve(msg.size() + 96);
  out += '[';
  out += s.host;
  out += ':';
  out += std::to_string(getpid());
  out += pe >= 0 ? " pe " + std::to_string(pe) : std::string(" pe -");
  out += ' ';
  out += subsys;
  out += "] ";
  out += kLevelNames[lvl];
  out += ": ";
  out += msg;
  if (lvl >= XSHMEM_LOG_DEBUG && file != nullptr) {
    const char *base = strrchr(file, '/');
    out += " (";
    out += base ? base + 1 : file;
    out += ':';
    out += std::to_string(line);
    out += ')';
  }
  out += '\n';
  write_all(s.fd, out.data(), out.size());
}

void shutdown() {
  State &s = state();
  std::unique_lock lock(s.mu);
  if (s.own_fd) close(s.fd);
  s.fd = STDERR_FILENO;
  s.own_fd = false;
  // The next line configures again (and reopens XSHMEM_LOG_FILE in append mode).
  s.configured.store(false, std::memory_order_release);
}

}  // namespace xshmem::log
