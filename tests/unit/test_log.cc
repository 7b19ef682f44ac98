// The logger: line format, level and subsystem filters, file name expansion, whole lines from
// many threads.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "../catch_compat.h"
#include "log.h"
#include "util.h"

using namespace xshmem;

namespace {

// "[host:pid pe N subsys] level: msg" with pid = this process.
bool has_prefix(const std::string &line, const std::string &pe, const std::string &subsys,
                const std::string &level) {
  if (line.empty() || line[0] != '[') return false;
  std::string tail =
      ":" + std::to_string(getpid()) + " pe " + pe + " " + subsys + "] " + level + ": ";
  size_t colon = line.find(':');
  return colon != std::string::npos && colon > 1 && line.compare(colon, tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("line prefix: host, pid, pe, subsystem and level", "[log]") {
  ut::LogCapture cap("warn");
  log::set_pe(-1);
  XLOG_WARN("core", "first %d", 41);
  log::set_pe(3);
  XLOG_ERROR("hostshm", "second %s", "line");
  log::set_pe(-1);
  std::vector<std::string> lines = cap.lines();
  REQUIRE(lines.size() == 2);
  CHECK(has_prefix(lines[0], "-", "core", "warn"));
  CHECK(lines[0].substr(lines[0].size() - 8) == "first 41");
  CHECK(has_prefix(lines[1], "3", "hostshm", "error"));
  CHECK(lines[1].substr(lines[1].size() - 11) == "second line");
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string short_host = host;
  short_host = short_host.substr(0, short_host.find('.'));
  CHECK(lines[0].rfind("[" + short_host + ":", 0) == 0);
}

TEST_CASE("level filter", "[log]") {
  const char *names[] = {"error", "warn", "info", "debug", "trace"};
  for (int lvl = 0; lvl < 5; ++lvl) {
    ut::LogCapture cap(names[lvl]);
    for (int msg = 0; msg < 5; ++msg) {
      auto l = static_cast<xshmem_log_level_t>(msg);
      CHECK(log::enabled(l, "core") == (msg <= lvl));
      log::write(l, "core", __FILE__, __LINE__, "level %d under %d", msg, lvl);
    }
    std::vector<std::string> lines = cap.lines();
    REQUIRE(lines.size() == static_cast<size_t>(lvl + 1));
    for (int msg = 0; msg <= lvl; ++msg) {
      CHECK(has_prefix(lines[msg], "-", "core", names[msg]));
      CHECK(lines[msg].find("level " + std::to_string(msg) + " under " + std::to_string(lvl)) !=
            std::string::npos);
    }
  }
}

TEST_CASE("level names are case-insensitive; a bad level warns and falls back to warn", "[log]") {
  {
    ut::LogCapture cap("DEBUG");
    CHECK(log::enabled(XSHMEM_LOG_DEBUG, "core"));
    CHECK_FALSE(log::enabled(XSHMEM_LOG_TRACE, "core"));
  }
  ut::LogCapture cap("chatty");
  CHECK(log::enabled(XSHMEM_LOG_WARN, "core"));
  CHECK_FALSE(log::enabled(XSHMEM_LOG_INFO, "core"));
  std::vector<std::string> lines = cap.lines();
  REQUIRE(lines.size() == 1);
  CHECK(has_prefix(lines[0], "-", "log", "warn"));
  CHECK(lines[0].find("invalid value 'chatty' for XSHMEM_LOG_LEVEL") != std::string::npos);
}

TEST_CASE("subsystem filter: a list shows, ^list hides, errors always pass", "[log]") {
  {
    ut::LogCapture cap("info", "core,hostshm");
    CHECK(log::enabled(XSHMEM_LOG_INFO, "core"));
    CHECK(log::enabled(XSHMEM_LOG_INFO, "hostshm"));
    CHECK_FALSE(log::enabled(XSHMEM_LOG_INFO, "tcp"));
    CHECK_FALSE(log::enabled(XSHMEM_LOG_WARN, "tcp"));
    CHECK(log::enabled(XSHMEM_LOG_ERROR, "tcp"));
    XLOG_INFO("core", "a");
    XLOG_INFO("tcp", "b");
    XLOG_WARN("hostshm", "c");
    XLOG_ERROR("tcp", "d");
    std::vector<std::string> lines = cap.lines();
    REQUIRE(lines.size() == 3);
    CHECK(has_prefix(lines[0], "-", "core", "info"));
    CHECK(has_prefix(lines[1], "-", "hostshm", "warn"));
    CHECK(has_prefix(lines[2], "-", "tcp", "error"));
  }
  {
    ut::LogCapture cap("info", "^core, tcp");
    CHECK_FALSE(log::enabled(XSHMEM_LOG_INFO, "core"));
    CHECK_FALSE(log::enabled(XSHMEM_LOG_WARN, "tcp"));
    CHECK(log::enabled(XSHMEM_LOG_INFO, "hostshm"));
    CHECK(log::enabled(XSHMEM_LOG_ERROR, "core"));
    // Direct writes (plugins calling svc->log without log_enabled) are filtered too.
    log::write(XSHMEM_LOG_INFO, "core", __FILE__, __LINE__, "hidden");
    log::write(XSHMEM_LOG_INFO, "nvlink", __FILE__, __LINE__, "shown");
    std::vector<std::string> lines = cap.lines();
    REQUIRE(lines.size() == 1);
    CHECK(has_prefix(lines[0], "-", "nvlink", "info"));
  }
}

TEST_CASE("debug lines carry file:line; trailing newlines are not doubled", "[log]") {
  ut::LogCapture cap("debug");
  log::write(XSHMEM_LOG_DEBUG, "core", "/some/dir/heap.cc", 77, "with location\n");
  log::write(XSHMEM_LOG_INFO, "core", "/some/dir/heap.cc", 78, "without");
  std::vector<std::string> lines = cap.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].substr(lines[0].size() - 26) == "with location (heap.cc:77)");
  CHECK(lines[1].substr(lines[1].size() - 7) == "without");
}

TEST_CASE("XSHMEM_LOG_FILE expands %h and %p", "[log]") {
  char dir_tmpl[] = "/tmp/xshmem_unit_logdir_XXXXXX";
  REQUIRE(mkdtemp(dir_tmpl) != nullptr);
  std::string dir = dir_tmpl;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string h = host;
  h = h.substr(0, h.find('.'));
  std::string expected = dir + "/log." + h + "." + std::to_string(getpid()) + ".%x";
  {
    ut::EnvGuard env;
    env.set("XSHMEM_LOG_FILE", (dir + "/log.%h.%p.%%x").c_str());
    env.set("XSHMEM_LOG_LEVEL", "warn");
    env.set("XSHMEM_LOG_SUBSYS", nullptr);
    log::configure();
    XLOG_WARN("core", "to the expanded file");
    log::shutdown();
  }
  FILE *f = fopen(expected.c_str(), "r");
  REQUIRE(f != nullptr);
  char buf[512] = {};
  CHECK(fgets(buf, sizeof(buf), f) != nullptr);
  fclose(f);
  CHECK(std::string(buf).find("to the expanded file") != std::string::npos);
  unlink(expected.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("lines from many threads stay whole", "[log]") {
  ut::LogCapture cap("info");
  constexpr int kThreads = 8, kLines = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      std::string pad(static_cast<size_t>(50 + 37 * t), static_cast<char>('a' + t));
      for (int i = 0; i < kLines; ++i) XLOG_INFO("core", "t%d i%d %s end", t, i, pad.c_str());
    });
  for (auto &th : threads) th.join();
  std::vector<std::string> lines = cap.lines();
  REQUIRE(lines.size() == static_cast<size_t>(kThreads * kLines));
  std::vector<int> seen(kThreads * kLines, 0);
  for (const std::string &l : lines) {
    REQUIRE(has_prefix(l, "-", "core", "info"));
    int t = -1, i = -1;
    size_t at = l.find("] info: t");
    REQUIRE(at != std::string::npos);
    REQUIRE(sscanf(l.c_str() + at, "] info: t%d i%d", &t, &i) == 2);
    REQUIRE(t >= 0);
    REQUIRE(t < kThreads);
    REQUIRE(i >= 0);
    REQUIRE(i < kLines);
    std::string pad(static_cast<size_t>(50 + 37 * t), static_cast<char>('a' + t));
    CHECK(l.substr(l.size() - pad.size() - 4) == pad + " end");
    ++seen[t * kLines + i];
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == kThreads * kLines);
}
