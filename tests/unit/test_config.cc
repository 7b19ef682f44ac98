// The configuration table: parsers, typed getters, registration, listing, unknown variables.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../catch_compat.h"
#include "config.h"
#include "log.h"
#include "runtime.h"
#include "util.h"

using namespace xshmem;

extern char **environ;

namespace {

const config::VarInfo *find_var(const std::vector<config::VarInfo> &vars, const std::string &n) {
  for (const auto &v : vars)
    if (v.name == n) return &v;
  return nullptr;
}

// Entries of a test-only owner, registered once per process.
const xshmem_config_entry_v1_t kUtEntries[] = {
    {"XSHMEM_UT_INT", XSHMEM_CONFIG_INT, "-17", nullptr, "An int."},
    {"XSHMEM_UT_SIZE", XSHMEM_CONFIG_SIZE, "3M", nullptr, "A size."},
    {"XSHMEM_UT_BOOL", XSHMEM_CONFIG_BOOL, "off", nullptr, "A bool."},
    {"XSHMEM_UT_DUR", XSHMEM_CONFIG_DURATION, "1500ms", nullptr, "A duration."},
    {"XSHMEM_UT_ENUM", XSHMEM_CONFIG_ENUM, "beta", "alpha,beta,gamma", "An enum."},
    {"XSHMEM_UT_LIST", XSHMEM_CONFIG_LIST, "", "red,green,blue", "A list with choices."},
    {"XSHMEM_UT_FREELIST", XSHMEM_CONFIG_LIST, "", nullptr, "A list without choices."},
    {"XSHMEM_UT_STR", XSHMEM_CONFIG_STRING, "hello", nullptr, "A string."},
};

void register_ut() {
  static bool done = [] {
    REQUIRE(config::register_entries(kUtEntries, std::size(kUtEntries), "unittest").ok());
    return true;
  }();
  (void)done;
}

}  // namespace

TEST_CASE("parse_size: plain bytes and K/M/G/T suffixes", "[config]") {
  for (uint64_t n : {0ull, 1ull, 4096ull, 123456789ull}) {
    CHECK(config::parse_size(std::to_string(n)) == n);
    CHECK(config::parse_size(std::to_string(n) + "b") == n);
  }
  const char *suffix[] = {"K", "M", "G", "T"};
  for (int s = 0; s < 4; ++s) {
    for (uint64_t n : {1ull, 2ull, 64ull, 1000ull}) {
      uint64_t want = n << (10 * (s + 1));
      std::string up = std::to_string(n) + suffix[s];
      std::string low = std::to_string(n) + static_cast<char>(std::tolower(suffix[s][0]));
      CHECK(config::parse_size(up) == want);
      CHECK(config::parse_size(low) == want);
      CHECK(config::parse_size(up + "B") == want);
      CHECK(config::parse_size(low + "b") == want);
    }
  }
  CHECK(config::parse_size("  8K ") == 8192u);
}

TEST_CASE("parse_size rejects malformed and overflowing values", "[config]") {
  for (const char *bad : {"", " ", "K", "12Q", "-1", "1.5G", "2GG", "G2", "1 K B", "0x10",
                          "17179869184T", "99999999999999999999"})
    CHECK_FALSE(config::parse_size(bad).has_value());
  CHECK(config::parse_size("16777215T") == (16777215ull << 40));  // largest that fits
  CHECK_FALSE(config::parse_size("16777216T").has_value());
}

TEST_CASE("parse_bool accepts the documented spellings in any case", "[config]") {
  for (const char *t : {"1", "y", "yes", "on", "true", "Y", "YES", "On", "TRUE", " true "})
    CHECK(config::parse_bool(t) == true);
  for (const char *f : {"0", "n", "no", "off", "false", "N", "No", "OFF", "False"})
    CHECK(config::parse_bool(f) == false);
  for (const char *bad : {"", "2", "maybe", "yess", "of", "-1"})
    CHECK_FALSE(config::parse_bool(bad).has_value());
}

TEST_CASE("parse_duration_ms: seconds by default, ms/s/m suffixes", "[config]") {
  for (int64_t n : {0, 1, 7, 60, 3600}) {
    CHECK(config::parse_duration_ms(std::to_string(n)) == n * 1000);
    CHECK(config::parse_duration_ms(std::to_string(n) + "s") == n * 1000);
    CHECK(config::parse_duration_ms(std::to_string(n) + "ms") == n);
    CHECK(config::parse_duration_ms(std::to_string(n) + "m") == n * 60000);
    CHECK(config::parse_duration_ms(std::to_string(n) + "MS") == n);
  }
  CHECK(config::parse_duration_ms("1.5") == 1500);
  CHECK(config::parse_duration_ms("0.25s") == 250);
  CHECK(config::parse_duration_ms("0.5m") == 30000);
  CHECK(config::parse_duration_ms(" 30s ") == 30000);
  for (const char *bad : {"", "ms", "s", "5h", "-1", "1.2.3", "5 sec", "1e3", "."})
    CHECK_FALSE(config::parse_duration_ms(bad).has_value());
}

TEST_CASE("parse_int and parse_list", "[config]") {
  CHECK(config::parse_int("-42") == -42);
  CHECK(config::parse_int("+7") == 7);
  CHECK(config::parse_int(" 12 ") == 12);
  for (const char *bad : {"", "4k", "1.0", "--1", "99999999999999999999"})
    CHECK_FALSE(config::parse_int(bad).has_value());

  config::ListSpec all = config::parse_list("");
  CHECK(all.selects_all());
  CHECK(all.selects("anything"));

  config::ListSpec inc = config::parse_list("Nvlink, hostshm,,");
  CHECK_FALSE(inc.exclude);
  CHECK(inc.words == std::vector<std::string>{"nvlink", "hostshm"});
  CHECK(inc.selects("NVLINK"));
  CHECK_FALSE(inc.selects("ibgda"));

  config::ListSpec exc = config::parse_list("^ibgda,libfabric");
  CHECK(exc.exclude);
  CHECK(exc.words == std::vector<std::string>{"ibgda", "libfabric"});
  CHECK_FALSE(exc.selects("ibgda"));
  CHECK_FALSE(exc.selects("libfabric"));
  CHECK(exc.selects("hostshm"));
}

TEST_CASE("core entries: defaults, environment override and types", "[config]") {
  ut::EnvGuard env;
  for (const char *n : {"XSHMEM_SYMMETRIC_SIZE", "XSHMEM_HEAP", "XSHMEM_CHECKS",
                        "XSHMEM_INIT_TIMEOUT", "XSHMEM_TRANSPORTS", "XSHMEM_BOOTSTRAP"})
    env.set(n, nullptr);
  CHECK(config::get_size("XSHMEM_SYMMETRIC_SIZE") == (1ull << 30));
  CHECK(config::get_enum("XSHMEM_HEAP") == "auto");
  CHECK(config::get_bool("XSHMEM_CHECKS") == true);
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 60000);
  CHECK(config::get_list("XSHMEM_TRANSPORTS").empty());
  CHECK(config::get_list_spec("XSHMEM_TRANSPORTS").selects_all());
  CHECK(config::get_string("XSHMEM_BOOTSTRAP").empty());

  env.set("XSHMEM_SYMMETRIC_SIZE", "2g");
  env.set("XSHMEM_HEAP", "HOST");
  env.set("XSHMEM_CHECKS", "no");
  env.set("XSHMEM_INIT_TIMEOUT", "90");
  env.set("XSHMEM_TRANSPORTS", "^ibgda,nvlink");
  env.set("XSHMEM_BOOTSTRAP", "mpi");
  CHECK(config::get_size("XSHMEM_SYMMETRIC_SIZE") == (2ull << 30));
  CHECK(config::get_int("XSHMEM_SYMMETRIC_SIZE") == static_cast<int64_t>(2ull << 30));
  CHECK(config::get_enum("XSHMEM_HEAP") == "host");
  CHECK(config::get_bool("XSHMEM_CHECKS") == false);
  CHECK(config::get_int("XSHMEM_CHECKS") == 0);
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 90000);
  CHECK(config::get_int("XSHMEM_INIT_TIMEOUT") == 90000);
  CHECK(config::get_list("XSHMEM_TRANSPORTS") == std::vector<std::string>{"^ibgda", "^nvlink"});
  config::ListSpec t = config::get_list_spec("XSHMEM_TRANSPORTS");
  CHECK(t.exclude);
  CHECK_FALSE(t.selects("nvlink"));
  CHECK(t.selects("hostshm"));
  CHECK(config::get_string("XSHMEM_BOOTSTRAP") == "mpi");
}

TEST_CASE("a value that does not parse warns once and yields the default", "[config]") {
  register_ut();
  ut::EnvGuard env;
  ut::LogCapture cap("warn");
  env.set("XSHMEM_UT_SIZE", "12Q");
  env.set("XSHMEM_UT_BOOL", "perhaps");
  env.set("XSHMEM_UT_DUR", "5h");
  env.set("XSHMEM_UT_ENUM", "delta");
  env.set("XSHMEM_UT_INT", "4k");
  CHECK(config::get_size("XSHMEM_UT_SIZE") == 3u << 20);
  CHECK(config::get_bool("XSHMEM_UT_BOOL") == false);
  CHECK(config::get_duration_ms("XSHMEM_UT_DUR") == 1500);
  CHECK(config::get_enum("XSHMEM_UT_ENUM") == "beta");
  CHECK(config::get_int("XSHMEM_UT_INT") == -17);
  // Reading again does not repeat the warning.
  CHECK(config::get_size("XSHMEM_UT_SIZE") == 3u << 20);
  std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log, "invalid value '12Q' for XSHMEM_UT_SIZE: expected a size in bytes") == 1);
  CHECK(ut::count(log, "using the default '3M'") == 1);
  CHECK(ut::count(log, "invalid value 'perhaps' for XSHMEM_UT_BOOL: expected a boolean") == 1);
  CHECK(ut::count(log, "invalid value '5h' for XSHMEM_UT_DUR: expected a duration") == 1);
  CHECK(ut::count(log,
                  "invalid value 'delta' for XSHMEM_UT_ENUM: expected one of "
                  "alpha,beta,gamma") == 1);
  CHECK(ut::count(log, "invalid value '4k' for XSHMEM_UT_INT: expected a decimal integer") == 1);
  CHECK(ut::count(log, "] warn: ") == 5);
}

TEST_CASE("parse_size: P and E suffixes, and 16E overflows", "[config]") {
  CHECK(config::parse_size("1P") == (1ull << 50));
  CHECK(config::parse_size("15e") == (15ull << 60));
  CHECK(config::parse_size("1EB") == (1ull << 60));
  for (const char *bad : {"16E", "16384P", "17179869184G", "18446744073709551616"})
    CHECK_FALSE(config::parse_size(bad).has_value());
  CHECK(config::parse_size("18446744073709551615") == UINT64_MAX);  // parses: init refuses it
}

TEST_CASE("a value that overflows 64 bits says so, naming the variable and the value", "[config]") {
  register_ut();
  ut::EnvGuard env;
  ut::LogCapture cap("warn");
  env.set("XSHMEM_UT_SIZE", "17179869184G");
  env.set("XSHMEM_UT_INT", "99999999999999999999");
  env.set("XSHMEM_UT_DUR", "99999999999999999999s");
  CHECK(config::get_size("XSHMEM_UT_SIZE") == 3u << 20);
  CHECK(config::get_int("XSHMEM_UT_INT") == -17);
  CHECK(config::get_duration_ms("XSHMEM_UT_DUR") == 1500);
  std::string why, text;
  why = config::env_problem("XSHMEM_UT_SIZE", &text);
  CHECK(text == "17179869184G");
  CHECK(why.rfind("it overflows 64 bits", 0) == 0);
  CHECK(config::env_problem("XSHMEM_UT_BOOL").empty());  // unset: no problem
  env.set("XSHMEM_UT_SIZE", "16E");
  CHECK(config::get_size("XSHMEM_UT_SIZE") == 3u << 20);
  env.set("XSHMEM_UT_SIZE", "16Q");  // malformed, not an overflow
  CHECK(config::get_size("XSHMEM_UT_SIZE") == 3u << 20);
  std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log,
                  "invalid value '17179869184G' for XSHMEM_UT_SIZE: it overflows 64 bits "
                  "(expected a size below 16E") == 1);
  CHECK(ut::count(log, "invalid value '16E' for XSHMEM_UT_SIZE: it overflows 64 bits") == 1);
  CHECK(ut::count(log, "invalid value '16Q' for XSHMEM_UT_SIZE: expected a size in bytes") == 1);
  CHECK(ut::count(log,
                  "invalid value '99999999999999999999' for XSHMEM_UT_INT: it overflows 64 "
                  "bits") == 1);
  CHECK(ut::count(log,
                  "invalid value '99999999999999999999s' for XSHMEM_UT_DUR: it overflows 64 "
                  "bits") == 1);
  CHECK(ut::count(log, "overflows") == 4);
}

TEST_CASE("plugins read a size above INT64_MAX as INT64_MAX, never as a negative number",
          "[config]") {
  register_ut();
  ut::EnvGuard env;
  env.set("XSHMEM_UT_SIZE", "8388608T");  // 2^63 bytes
  CHECK(config::get_size("XSHMEM_UT_SIZE") == (1ull << 63));
  CHECK(core::services()->config_get_int("XSHMEM_UT_SIZE") == INT64_MAX);
  env.set("XSHMEM_UT_SIZE", "7E");
  CHECK(core::services()->config_get_int("XSHMEM_UT_SIZE") == static_cast<int64_t>(7ull << 60));
}

TEST_CASE("XSHMEM_INIT_TIMEOUT of 0 or beyond an int of ms warns and yields the default",
          "[config]") {
  ut::EnvGuard env;
  ut::LogCapture cap("warn");
  env.set("XSHMEM_INIT_TIMEOUT", "0");
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 60000);
  env.set("XSHMEM_INIT_TIMEOUT", "0ms");
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 60000);
  env.set("XSHMEM_INIT_TIMEOUT", "-5s");
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 60000);
  env.set("XSHMEM_INIT_TIMEOUT", "2147484s");  // more than INT32_MAX ms: poll() would wrap
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 60000);
  env.set("XSHMEM_INIT_TIMEOUT", "1ms");  // the smallest deadline
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 1);
  env.set("XSHMEM_INIT_TIMEOUT", "2147483647ms");
  CHECK(config::get_duration_ms("XSHMEM_INIT_TIMEOUT") == 2147483647);
  std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log,
                  "invalid value '0' for XSHMEM_INIT_TIMEOUT: expected a duration above 0 and "
                  "at most 2147483647ms (about 24 days); using the default '60s'") == 1);
  CHECK(ut::count(log,
                  "invalid value '0ms' for XSHMEM_INIT_TIMEOUT: expected a duration above 0") == 1);
  CHECK(ut::count(log, "invalid value '-5s' for XSHMEM_INIT_TIMEOUT: expected a duration") == 1);
  CHECK(ut::count(log,
                  "invalid value '2147484s' for XSHMEM_INIT_TIMEOUT: expected a duration "
                  "above 0") == 1);
  CHECK(ut::count(log, "] warn: ") == 4);
  // The listing shows the same reason.
  env.set("XSHMEM_INIT_TIMEOUT", "0");
  for (const auto &v : config::list())
    if (v.name == "XSHMEM_INIT_TIMEOUT") {
      CHECK(v.value == "60s");
      CHECK(v.note ==
            "invalid value '0' ignored: expected a duration above 0 and at most "
            "2147483647ms (about 24 days)");
    }
}

TEST_CASE("typed getters on test entries: valid environment values", "[config]") {
  register_ut();
  ut::EnvGuard env;
  for (int64_t v : {-5, 0, 1, 123456}) {
    env.set("XSHMEM_UT_INT", std::to_string(v).c_str());
    CHECK(config::get_int("XSHMEM_UT_INT") == v);
  }
  env.set("XSHMEM_UT_ENUM", "Gamma");
  CHECK(config::get_enum("XSHMEM_UT_ENUM") == "gamma");
  env.set("XSHMEM_UT_STR", "  spaced  ");
  CHECK(config::get_string("XSHMEM_UT_STR") == "spaced");

  env.set("XSHMEM_UT_LIST", nullptr);
  CHECK(config::get_list("XSHMEM_UT_LIST") == std::vector<std::string>{"red", "green", "blue"});
  env.set("XSHMEM_UT_LIST", "blue,RED");
  CHECK(config::get_list("XSHMEM_UT_LIST") == std::vector<std::string>{"blue", "red"});
  env.set("XSHMEM_UT_LIST", "^green");
  CHECK(config::get_list("XSHMEM_UT_LIST") == std::vector<std::string>{"red", "blue"});

  ut::LogCapture cap("warn");
  env.set("XSHMEM_UT_LIST", "green,purple");
  CHECK(config::get_list("XSHMEM_UT_LIST") == std::vector<std::string>{"green"});
  CHECK(ut::count(cap.text(), "unknown word 'purple' in XSHMEM_UT_LIST") == 1);

  env.set("XSHMEM_UT_FREELIST", "x,y");
  CHECK(config::get_list("XSHMEM_UT_FREELIST") == std::vector<std::string>{"x", "y"});
}

TEST_CASE("list() shows value, default, source, owner and doc of every entry", "[config]") {
  register_ut();
  ut::EnvGuard env;
  env.set("XSHMEM_SYMMETRIC_SIZE", "512M");
  env.set("XSHMEM_HEAP", nullptr);
  env.set("XSHMEM_UT_DUR", "2m");
  env.set("XSHMEM_UT_BOOL", "sometimes");
  std::vector<config::VarInfo> vars = config::list();

  const char *core_names[] = {"XSHMEM_LOG_LEVEL",      "XSHMEM_LOG_SUBSYS", "XSHMEM_LOG_FILE",
                              "XSHMEM_PLUGIN_PATH",    "XSHMEM_BOOTSTRAP",  "XSHMEM_TRANSPORTS",
                              "XSHMEM_SYMMETRIC_SIZE", "XSHMEM_HEAP",       "XSHMEM_CHECKS",
                              "XSHMEM_INIT_TIMEOUT"};
  for (const char *n : core_names) {
    const config::VarInfo *v = find_var(vars, n);
    INFO(n);
    REQUIRE(v != nullptr);
    CHECK(v->owner == "core");
    CHECK(v->doc.size() > 20);
    CHECK(v->doc.back() == '.');
  }

  const config::VarInfo *sz = find_var(vars, "XSHMEM_SYMMETRIC_SIZE");
  CHECK(sz->value == "512M");
  CHECK(sz->default_value == "1G");
  CHECK(sz->source == "env");
  CHECK(sz->type == "size");
  const config::VarInfo *heap = find_var(vars, "XSHMEM_HEAP");
  CHECK(heap->value == "auto");
  CHECK(heap->source == "default");
  CHECK(heap->choices == "auto,host,device");
  CHECK(heap->type == "enum");
  CHECK(find_var(vars, "XSHMEM_LOG_LEVEL")->default_value == "warn");
  CHECK(find_var(vars, "XSHMEM_CHECKS")->default_value == "1");
  CHECK(find_var(vars, "XSHMEM_INIT_TIMEOUT")->default_value == "60s");

  const config::VarInfo *dur = find_var(vars, "XSHMEM_UT_DUR");
  REQUIRE(dur != nullptr);
  CHECK(dur->owner == "unittest");
  CHECK(dur->source == "env");
  CHECK(dur->value == "2m");
  const config::VarInfo *b = find_var(vars, "XSHMEM_UT_BOOL");
  CHECK(b->source == "default");
  CHECK(b->value == "off");
  CHECK(b->note.find("invalid value 'sometimes' ignored") != std::string::npos);
}

TEST_CASE("registration: validation, conflicts, owner scopes, unregister", "[config]") {
  ut::LogCapture cap("warn");
  const xshmem_config_entry_v1_t bad_name[] = {
      {"NOTXSHMEM_FOO", XSHMEM_CONFIG_INT, "1", nullptr, "x"}};
  CHECK(config::register_entries(bad_name, 1, "p1").code() == XSHMEM_ERR_INVALID);
  const xshmem_config_entry_v1_t bad_default[] = {
      {"XSHMEM_P1_A", XSHMEM_CONFIG_INT, "1", nullptr, "x"},
      {"XSHMEM_P1_B", XSHMEM_CONFIG_SIZE, "lots", nullptr, "x"}};
  CHECK(config::register_entries(bad_default, 2, "p1").code() == XSHMEM_ERR_INVALID);
  // All or nothing: the valid first entry was not added either.
  std::vector<config::VarInfo> before = config::list();
  CHECK(find_var(before, "XSHMEM_P1_A") == nullptr);
  const xshmem_config_entry_v1_t enum_without_choices[] = {
      {"XSHMEM_P1_E", XSHMEM_CONFIG_ENUM, "a", nullptr, "x"}};
  CHECK(config::register_entries(enum_without_choices, 1, "p1").code() == XSHMEM_ERR_INVALID);
  std::string log = cap.text();
  CHECK(ut::count(log, "] error: cannot register NOTXSHMEM_FOO for p1") == 1);
  CHECK(ut::count(log, "cannot register XSHMEM_P1_B for p1: default 'lots' is not a size") == 1);

  // A plugin's own strings may go away after registration: the table keeps copies.
  char name[] = "XSHMEM_P1_COPY", def[] = "9";
  xshmem_config_entry_v1_t copy[] = {{name, XSHMEM_CONFIG_INT, def, nullptr, "x"}};
  REQUIRE(config::register_entries(copy, 1, "p1").ok());
  memset(name, 'Z', sizeof(name) - 1);
  def[0] = '0';
  CHECK(config::get_int("XSHMEM_P1_COPY") == 9);

  // Another owner may not take the name; the same owner replaces it.
  const xshmem_config_entry_v1_t again[] = {
      {"XSHMEM_P1_COPY", XSHMEM_CONFIG_INT, "11", nullptr, "x"}};
  CHECK(config::register_entries(again, 1, "p2").code() == XSHMEM_ERR_INVALID);
  CHECK(ut::count(cap.text(), "already registered by p1") == 1);
  CHECK(config::get_int("XSHMEM_P1_COPY") == 9);
  REQUIRE(config::register_entries(again, 1, "p1").ok());
  CHECK(config::get_int("XSHMEM_P1_COPY") == 11);

  {
    config::OwnerScope scope("scoped_plugin");
    const xshmem_config_entry_v1_t s[] = {
        {"XSHMEM_SCOPED_X", XSHMEM_CONFIG_BOOL, "y", nullptr, "x"}};
    REQUIRE(config::register_entries(s, 1, nullptr).ok());
  }
  std::vector<config::VarInfo> vars = config::list();
  const config::VarInfo *sv = find_var(vars, "XSHMEM_SCOPED_X");
  REQUIRE(sv != nullptr);
  CHECK(sv->owner == "scoped_plugin");

  config::unregister_owner("p1");
  config::unregister_owner("scoped_plugin");
  std::vector<config::VarInfo> after = config::list();
  CHECK(find_var(after, "XSHMEM_P1_COPY") == nullptr);
  CHECK(find_var(after, "XSHMEM_SCOPED_X") == nullptr);
  CHECK(find_var(after, "XSHMEM_SYMMETRIC_SIZE") != nullptr);
}

TEST_CASE("unknown names and wrong types are reported as errors", "[config]") {
  ut::LogCapture cap("warn");
  CHECK(config::get_int("XSHMEM_NO_SUCH_THING") == 0);
  CHECK(config::get_bool("XSHMEM_SYMMETRIC_SIZE") == false);
  std::string log = cap.text();
  CHECK(ut::count(log, "get_int(XSHMEM_NO_SUCH_THING): no such configuration variable") == 1);
  CHECK(ut::count(log, "get_bool(XSHMEM_SYMMETRIC_SIZE): the variable is of type size") == 1);
}

TEST_CASE("warn_unknown names the closest known variable", "[config]") {
  ut::EnvGuard env;
  // Unknown XSHMEM_* variables of the caller's environment would add lines: set them aside.
  std::vector<std::string> stray;
  std::vector<config::VarInfo> known = config::list();
  for (char **e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string n = kv.substr(0, kv.find('='));
    if (n.rfind("XSHMEM_", 0) == 0 && find_var(known, n) == nullptr) stray.push_back(n);
  }
  for (const std::string &n : stray) env.set(n.c_str(), nullptr);
  env.set("XSHMEM_SYMETRIC_SIZE", "2G");
  env.set("XSHMEM_LOG_LEVL", "info");
  env.set("XSHMEM_TRANSPORT", "hostshm");
  env.set("XSHMEM_HEAP", "host");  // known: no warning
  env.set("XT_SOMETHING", "1");    // not an XSHMEM_ variable
  ut::LogCapture cap("warn");
  config::warn_unknown();
  std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log,
                  "unknown variable XSHMEM_SYMETRIC_SIZE=2G; did you mean "
                  "XSHMEM_SYMMETRIC_SIZE?") == 1);
  CHECK(ut::count(log, "unknown variable XSHMEM_LOG_LEVL=info; did you mean XSHMEM_LOG_LEVEL?") ==
        1);
  CHECK(ut::count(log,
                  "unknown variable XSHMEM_TRANSPORT=hostshm; did you mean "
                  "XSHMEM_TRANSPORTS?") == 1);
  CHECK(ut::count(log, "XSHMEM_HEAP") == 0);
  CHECK(ut::count(log, "XT_SOMETHING") == 0);
  CHECK(ut::count(log, "] warn: unknown variable") == 3);
  // Once per variable: a second call adds nothing.
  config::warn_unknown();
  CHECK(cap.text() == log);
}

TEST_CASE("NVSHMEM aliases: translated, XSHMEM's own first, meaningless values ignored",
          "[config]") {
  ut::EnvGuard env;
  for (const config::AliasInfo &a : config::aliases()) env.set(a.alias.c_str(), nullptr);
  for (const char *n : {"XSHMEM_SYMMETRIC_SIZE", "XSHMEM_BOOTSTRAP", "XSHMEM_REMOTE_TRANSPORT",
                        "XSHMEM_NICS", "XSHMEM_TRANSPORTS", "XSHMEM_LOG_LEVEL"})
    env.set(n, nullptr);
  ut::LogCapture cap("warn");

  env.set("NVSHMEM_SYMMETRIC_SIZE", " 3G ");
  CHECK(config::get_size("XSHMEM_SYMMETRIC_SIZE") == 3ull << 30);
  std::vector<config::VarInfo> vars = config::list();
  const config::VarInfo *v = find_var(vars, "XSHMEM_SYMMETRIC_SIZE");
  REQUIRE(v != nullptr);
  CHECK(v->source == "env");
  CHECK(v->via == "NVSHMEM_SYMMETRIC_SIZE");
  CHECK(v->value == "3G");

  env.set("NVSHMEM_BOOTSTRAP", "UID");
  CHECK(config::get_string("XSHMEM_BOOTSTRAP") == "tcp");
  env.set("NVSHMEM_BOOTSTRAP", "mpi");
  CHECK(config::get_string("XSHMEM_BOOTSTRAP") == "mpi");
  env.set("NVSHMEM_BOOTSTRAP", "PMI");
  CHECK(config::get_string("XSHMEM_BOOTSTRAP") == "pmix");

  env.set("NVSHMEM_DEBUG", "INFO");
  std::string via;
  CHECK(config::env_text("XSHMEM_LOG_LEVEL", &via) == "warn");  // the capture's own comes first
  CHECK(via.empty());
  {
    const std::string capture_level = getenv("XSHMEM_LOG_LEVEL");
    unsetenv("XSHMEM_LOG_LEVEL");
    CHECK(config::env_text("XSHMEM_LOG_LEVEL", &via) == "info");
    CHECK(via == "NVSHMEM_DEBUG");
    setenv("XSHMEM_LOG_LEVEL", capture_level.c_str(), 1);
  }

  // A transport xshmem lacks: ignored with a warning, the default stays.
  env.set("NVSHMEM_REMOTE_TRANSPORT", "ibrc");
  CHECK(config::get_string("XSHMEM_REMOTE_TRANSPORT").empty());
  // Then the next alias of the same variable.
  env.set("NVSHMEM_IB_ENABLE_IBGDA", "true");
  CHECK(config::get_string("XSHMEM_REMOTE_TRANSPORT") == "ibgda");
  CHECK(config::env_text("XSHMEM_REMOTE_TRANSPORT", &via) == "ibgda");
  CHECK(via == "NVSHMEM_IB_ENABLE_IBGDA");
  env.set("NVSHMEM_REMOTE_TRANSPORT", "libfabric");  // first in the table
  CHECK(config::get_string("XSHMEM_REMOTE_TRANSPORT") == "libfabric");

  env.set("NVSHMEM_DISABLE_P2P", "1");
  config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  CHECK(spec.exclude);
  CHECK(spec.words == std::vector<std::string>{"nvlink"});
  env.set("NVSHMEM_HCA_LIST", "^mlx5_2");
  CHECK(config::get_string("XSHMEM_NICS") == "^mlx5_2");

  // XSHMEM's own variable comes first; the alias is named as ignored.
  env.set("XSHMEM_SYMMETRIC_SIZE", "1G");
  CHECK(config::get_size("XSHMEM_SYMMETRIC_SIZE") == 1ull << 30);
  // An alias value that does not parse: the default, with both names in the warning.
  env.set("XSHMEM_SYMMETRIC_SIZE", nullptr);
  env.set("NVSHMEM_SYMMETRIC_SIZE", "lots");
  CHECK(config::get_size("XSHMEM_SYMMETRIC_SIZE") == 1ull << 30);

  std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log,
                  "NVSHMEM_REMOTE_TRANSPORT=ibrc is ignored: xshmem has no 'ibrc' transport; its "
                  "remote transports are ibgda and libfabric") == 1);
  CHECK(ut::count(log, "NVSHMEM_SYMMETRIC_SIZE=3G is ignored: XSHMEM_SYMMETRIC_SIZE is set") == 1);
  CHECK(ut::count(log,
                  "invalid value 'lots' for NVSHMEM_SYMMETRIC_SIZE (XSHMEM_SYMMETRIC_SIZE): "
                  "expected a size") == 1);

  // The listing says what each set alias did.
  env.set("NVSHMEM_DISABLE_NVLS", "1");
  int seen = 0;
  for (const config::AliasInfo &a : config::aliases()) {
    INFO(a.alias << ": " << a.outcome);
    if (a.alias == "NVSHMEM_REMOTE_TRANSPORT") {
      CHECK(a.outcome == "used as XSHMEM_REMOTE_TRANSPORT=libfabric");
      ++seen;
    } else if (a.alias == "NVSHMEM_IB_ENABLE_IBGDA") {
      CHECK(a.outcome == "ignored: NVSHMEM_REMOTE_TRANSPORT is set");
      ++seen;
    } else if (a.alias == "NVSHMEM_DISABLE_NVLS") {
      CHECK(a.set);
      CHECK(a.name.empty());
      CHECK(a.outcome == "accepted");
      ++seen;
    } else if (a.alias == "NVSHMEM_DISABLE_CUDA_VMM") {
      CHECK(!a.set);
      ++seen;
    }
  }
  CHECK(seen == 4);
  CHECK(config::is_alias("NVSHMEM_HCA_LIST"));
  CHECK(!config::is_alias("NVSHMEM_MAX_TEAMS"));

  // NVSHMEM variables with no equivalent: one info line each, never a warning.
  ut::LogCapture info("info");
  env.set("NVSHMEM_MAX_TEAMS", "64");
  config::warn_unknown();
  config::warn_unknown();
  std::string ilog = info.text();
  INFO(ilog);
  CHECK(ut::count(ilog,
                  "NVSHMEM_MAX_TEAMS=64 has no xshmem equivalent and is ignored (xshmem-info "
                  "--env lists the NVSHMEM variables it honours)") == 1);
  CHECK(ut::count(ilog, "NVSHMEM_DISABLE_NVLS") == 0);
}
