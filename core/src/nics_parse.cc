// xshmem core: the parser of XSHMEM_NICS and XSHMEM_NIC_MAP (nics::parse; see nics.h).
//
// A file of its own, free of the job (no bootstrap, no topology discovery), so that the fuzz
// harness of tests/fuzz can compile it alone.
#include "nics.h"

#include <algorithm>

namespace xshmem::nics {
namespace {

std::string trim(const std::string &s) {
  const size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    const size_t end = s.find(sep, pos);
    out.push_back(trim(s.substr(pos, end == std::string::npos ? std::string::npos : end - pos)));
    if (end == std::string::npos) return out;
    pos = end + 1;
  }
}

bool valid_name(const std::string &n) {
  if (n.empty()) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// A non-negative decimal integer of at most 6 digits, or -1.
int parse_number(const std::string &s) {
  if (s.empty() || s.size() > 6) return -1;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

bool parse(const std::string &nics_text, const std::string &map_text, Settings *out,
           std::string *error) {
  *out = Settings{};
  out->nics_text = trim(nics_text);
  out->map_text = trim(map_text);
  if (!out->nics_text.empty()) {
    std::string body = out->nics_text;
    if (body[0] == '^') body.erase(0, 1);
    // The entries as validated, blanks around names and ports removed: the filter (and whoever
    // parses nics_text again, topo::plan) must see the names that were checked, not "mlx5_0 ".
    std::string canonical;
    for (const std::string &e : split(body, ',')) {
      const std::vector<std::string> parts = split(e, ':');
      const bool ok = valid_name(parts[0]) &&
                      (parts.size() == 1 || (parts.size() == 2 && parse_number(parts[1]) >= 1));
      if (!ok) {
        *error = "XSHMEM_NICS=\"" + out->nics_text + "\": entry '" + e +
                 "' is not <nic> or <nic>:<port> (a leading ^ excludes the listed NICs; "
                 "example: mlx5_0,mlx5_1:1)";
        return false;
      }
      canonical +=
          (canonical.empty() ? "" : ",") + parts[0] + (parts.size() == 2 ? ":" + parts[1] : "");
    }
    out->nics_text = (out->nics_text[0] == '^' ? "^" : "") + canonical;
    out->filter = topo::parse_nic_filter(out->nics_text);
  }
  if (!out->map_text.empty()) {
    for (const std::string &e : split(out->map_text, ',')) {
      const std::vector<std::string> parts = split(e, ':');
      const int local = parts.size() == 2 ? parse_number(parts[0]) : -1;
      if (local < 0 || !valid_name(parts[1])) {
        *error = "XSHMEM_NIC_MAP=\"" + out->map_text + "\": entry '" + e +
                 "' is not <local pe>:<nic> (example: 0:mlx5_0,1:mlx5_1)";
        return false;
      }
      if (!out->by_local_pe.emplace(local, parts[1]).second) {
        *error = "XSHMEM_NIC_MAP=\"" + out->map_text + "\": local pe " + std::to_string(local) +
                 " is given twice";
        return false;
      }
    }
  }
  return true;
}

}  // namespace xshmem::nics
