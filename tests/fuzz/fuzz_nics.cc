// SEC-03 fuzz harness nics: the parser of XSHMEM_NICS and XSHMEM_NIC_MAP (core/src/nics_parse.cc,
// nics::parse, with topo::parse_nic_filter, which turns the accepted XSHMEM_NICS into the filter
// that the NIC choice and the name check use).
//
// Input: XSHMEM_NICS, a newline, XSHMEM_NIC_MAP (each up to its first NUL). Checked: a refused
// text gives an error sentence that names the variable; an accepted one gives a filter with one
// entry per listed NIC whose name is exactly the NIC name that was validated (letters, digits,
// '_', '-', '.'; no blanks) and a port in [0, 999999], and a map of local PEs in [0, 999999].
#include <string>

#include "fuzz_check.h"
#include "nics.h"

namespace {

bool valid_name(const std::string &n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-' || c == '.'))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string all(reinterpret_cast<const char *>(data), size);
  const size_t nl = all.find('\n');
  const std::string nics_raw = nl == std::string::npos ? all : all.substr(0, nl);
  const std::string map_raw = nl == std::string::npos ? "" : all.substr(nl + 1);
  const std::string nics =
      xshmem::fuzz::env_text(reinterpret_cast<const uint8_t *>(nics_raw.data()), nics_raw.size());
  const std::string map =
      xshmem::fuzz::env_text(reinterpret_cast<const uint8_t *>(map_raw.data()), map_raw.size());
  const std::string input = nics + "\n" + map;

  xshmem::nics::Settings s;
  std::string error;
  if (!xshmem::nics::parse(nics, map, &s, &error)) {
    FUZZ_CHECK(error.find("XSHMEM_NIC") != std::string::npos, input,
               "the error must name the variable: " + error);
    return 0;
  }
  if (!s.nics_text.empty()) {
    const std::string body = s.nics_text[0] == '^' ? s.nics_text.substr(1) : s.nics_text;
    size_t entries = 1;
    for (char c : body) entries += c == ',';
    FUZZ_CHECK(s.filter.entries.size() == entries, input,
               std::to_string(s.filter.entries.size()) + " filter entries for " +
                   std::to_string(entries) + " listed");
    FUZZ_CHECK(s.filter.exclude == (s.nics_text[0] == '^'), input, "exclusion lost");
  } else {
    FUZZ_CHECK(s.filter.entries.empty(), input, "an empty XSHMEM_NICS must filter nothing");
  }
  for (const auto &[name, port] : s.filter.entries) {
    FUZZ_CHECK(valid_name(name), input, "filter names NIC '" + name + "'");
    FUZZ_CHECK(port >= 0 && port <= 999999, input, "filter port " + std::to_string(port));
    // What the filter lets through is what the settings name.
    FUZZ_CHECK(s.filter.allows(name, port) != s.filter.exclude, input,
               "the filter must select the NIC it lists: " + name);
  }
  for (const auto &[local, name] : s.by_local_pe) {
    FUZZ_CHECK(local >= 0 && local <= 999999, input, "local pe " + std::to_string(local));
    FUZZ_CHECK(valid_name(name), input, "map names NIC '" + name + "'");
  }
  return 0;
}
