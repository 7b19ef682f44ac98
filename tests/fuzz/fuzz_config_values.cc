// SEC-03 fuzz harness config_values: the typed parsers of the configuration table
// (core/src/config.cc), which read every XSHMEM_* value from the environment: parse_size,
// parse_bool, parse_int, parse_duration_ms, parse_list, and the getters that resolve a variable
// (environment or default) for each type.
//
// The input is one value, as the environment holds it (up to the first NUL). Besides "no crash, no
// undefined behaviour", each parser's documented promises are checked: blanks around the value are
// ignored, what parses prints back to the same value, list words are lower case and non-empty, and
// a getter yields the value's parse or the variable's default, nothing else.
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include "config.h"
#include "fuzz_check.h"

namespace cfg = xshmem::config;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Invalid values are warned about once each; the fuzzer makes millions of them.
  setenv("XSHMEM_LOG_LEVEL", "error", 1);
  return 0;
}

namespace {

template <typename T>
void check_blanks(const std::string &text, std::optional<T> (*parse)(const std::string &),
                  const char *name) {
  const std::optional<T> plain = parse(text);
  const std::optional<T> padded = parse(" \t" + text + "\r\n ");
  FUZZ_CHECK(plain == padded, text, std::string(name) + " must ignore blanks around the value");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text = xshmem::fuzz::env_text(data, size);

  // Sizes: "4096", "64K", "2G", "1tb".
  check_blanks<uint64_t>(text, cfg::parse_size, "parse_size");
  if (const std::optional<uint64_t> v = cfg::parse_size(text)) {
    FUZZ_CHECK(cfg::parse_size(std::to_string(*v)) == *v, text,
               "parse_size of the printed value " + std::to_string(*v) + " must give it back");
  }

  check_blanks<bool>(text, cfg::parse_bool, "parse_bool");
  if (const std::optional<bool> b = cfg::parse_bool(text)) {
    FUZZ_CHECK(cfg::parse_bool(*b ? "1" : "0") == *b, text, "parse_bool round trip");
  }

  check_blanks<int64_t>(text, cfg::parse_int, "parse_int");
  if (const std::optional<int64_t> v = cfg::parse_int(text)) {
    FUZZ_CHECK(cfg::parse_int(std::to_string(*v)) == *v, text,
               "parse_int of the printed value " + std::to_string(*v) + " must give it back");
  }

  // Durations: "500ms", "30s", "2m", "1.5" (seconds).
  check_blanks<int64_t>(text, cfg::parse_duration_ms, "parse_duration_ms");
  if (const std::optional<int64_t> ms = cfg::parse_duration_ms(text)) {
    FUZZ_CHECK(*ms >= 0, text, "a duration is never negative, got " + std::to_string(*ms));
    FUZZ_CHECK(cfg::parse_duration_ms(std::to_string(*ms) + "ms") == *ms, text,
               "parse_duration_ms of the printed value " + std::to_string(*ms) + "ms");
  }

  // Lists: "a,b", "^a,b", "".
  const cfg::ListSpec spec = cfg::parse_list(text);
  for (const std::string &w : spec.words) {
    FUZZ_CHECK(!w.empty(), text, "parse_list gave an empty word");
    FUZZ_CHECK(w.find(',') == std::string::npos, text, "parse_list word '" + w + "' holds a comma");
    FUZZ_CHECK(w[0] != '^', text, "parse_list word '" + w + "' starts with ^");
    for (char c : w)
      FUZZ_CHECK(std::tolower(static_cast<unsigned char>(c)) == static_cast<unsigned char>(c), text,
                 "parse_list word '" + w + "' is not lower case");
    FUZZ_CHECK(spec.selects(w) != spec.exclude, text, "a listed word '" + w + "' must be selected");
  }

  // The getters, through the environment, as init reads them: the value's parse when it parses,
  // else the default (the table may treat more values as invalid than the bare parser does).
  setenv("XSHMEM_SYMMETRIC_SIZE", text.c_str(), 1);
  setenv("XSHMEM_INIT_TIMEOUT", text.c_str(), 1);
  setenv("XSHMEM_CHECKS", text.c_str(), 1);
  setenv("XSHMEM_MAX_CONTEXTS", text.c_str(), 1);
  setenv("XSHMEM_HEAP", text.c_str(), 1);
  setenv("XSHMEM_TRANSPORTS", text.c_str(), 1);
  {
    const uint64_t got = cfg::get_size("XSHMEM_SYMMETRIC_SIZE");
    FUZZ_CHECK(got == cfg::parse_size(text) || got == cfg::parse_size("1G"), text,
               "get_size gave " + std::to_string(got));
    const int64_t ms = cfg::get_duration_ms("XSHMEM_INIT_TIMEOUT");
    FUZZ_CHECK(ms == cfg::parse_duration_ms(text) || ms == 60000, text,
               "get_duration_ms gave " + std::to_string(ms));
    const bool checks = cfg::get_bool("XSHMEM_CHECKS");
    FUZZ_CHECK(checks == cfg::parse_bool(text).value_or(true), text, "get_bool");
    const int64_t ctx = cfg::get_int("XSHMEM_MAX_CONTEXTS");
    FUZZ_CHECK(ctx == cfg::parse_int(text) || ctx == 1024, text,
               "get_int gave " + std::to_string(ctx));
    const std::string heap = cfg::get_enum("XSHMEM_HEAP");
    FUZZ_CHECK(heap == "auto" || heap == "host" || heap == "device", text,
               "get_enum gave '" + heap + "'");
    const std::vector<std::string> words = cfg::get_list("XSHMEM_TRANSPORTS");
    FUZZ_CHECK(words.size() == cfg::parse_list(text).words.size(), text,
               "get_list gave " + std::to_string(words.size()) + " words");
  }
  return 0;
}
