// Helpers shared by the unit tests: environment overrides and log capture.
#ifndef XSHMEM_TESTS_UNIT_UTIL_H
#define XSHMEM_TESTS_UNIT_UTIL_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <xshmem/plugin/services_v1.h>

namespace ut {

// Sets (or, with nullptr, unsets) environment variables and restores them when destroyed.
class EnvGuard {
 public:
  EnvGuard() = default;
  EnvGuard(const char *name, const char *value) { set(name, value); }
  ~EnvGuard();
  EnvGuard(const EnvGuard &) = delete;
  EnvGuard &operator=(const EnvGuard &) = delete;
  void set(const char *name, const char *value);

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Points XSHMEM_LOG_FILE at a fresh temporary file (and sets XSHMEM_LOG_LEVEL / SUBSYS as
// given) and reconfigures the logger; restores everything and reconfigures when destroyed.
class LogCapture {
 public:
  explicit LogCapture(const char *level = "warn", const char *subsys = nullptr);
  ~LogCapture();
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;
  // Everything logged since construction.
  std::string text() const;
  std::vector<std::string> lines() const;
  const std::string &path() const { return path_; }

 private:
  std::string path_;
  EnvGuard env_;
};

// The number of non-overlapping occurrences of `needle` in `hay`.
size_t count(const std::string &hay, const std::string &needle);

// A services table backed by the core's logger and config, with collectives that report
// XSHMEM_ERR_UNSUPPORTED (no job in unit tests).
const xshmem_core_services_v1_t *test_services();

}  // namespace ut

#endif  // XSHMEM_TESTS_UNIT_UTIL_H
