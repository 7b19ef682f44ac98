// xshmem core: transport selection (overrides, per-peer choice, agreement, matrix).
#include "selection.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace xshmem::select {
namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

// A PE number or "*"; false when `s` is neither (or too large to be a PE).
bool parse_pe(const std::string &s, int *pe) {
  if (s == "*") {
    *pe = PairRule::kAny;
    return true;
  }
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *pe = v;
  return true;
}

bool valid_name(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

}  // namespace

bool PairRule::matches(int p, int q) const {
  auto covers = [](int x, int y, int pe_x, int pe_y) {
    if (x != kAny && x != pe_x) return false;
    if (y != kAny && y != pe_y) return false;
    // A wildcard never pairs a PE with itself: "*" means "any other PE".
    if ((x == kAny || y == kAny) && pe_x == pe_y) return false;
    return true;
  };
  return covers(a, b, p, q) || covers(a, b, q, p);
}

bool parse_pair_rules(const std::string &text, int n_pes, std::vector<PairRule> *rules,
                      std::string *error) {
  rules->clear();
  const std::string expect = "expected <pe>-<pe|*>:<transport>, for example 0-1:hostshm";
  size_t pos = 0;
  const std::string all = trim(text);
  if (all.empty()) return true;
  while (pos <= all.size()) {
    size_t comma = all.find(',', pos);
    if (comma == std::string::npos) comma = all.size();
    std::string entry = trim(all.substr(pos, comma - pos));
    pos = comma + 1;
    if (entry.empty()) {
      *error = "empty entry in '" + all + "' (" + expect + ")";
      return false;
    }
    size_t colon = entry.find(':');
    size_t dash = entry.find('-');
    PairRule r;
    r.text = entry;
    if (colon == std::string::npos || dash == std::string::npos || dash > colon ||
        entry.find(':', colon + 1) != std::string::npos) {
      *error = "entry '" + entry + "' is malformed (" + expect + ")";
      return false;
    }
    std::string left = trim(entry.substr(0, dash));
    std::string right = trim(entry.substr(dash + 1, colon - dash - 1));
    std::string name = trim(entry.substr(colon + 1));
    if (!parse_pe(left, &r.a) || !parse_pe(right, &r.b) || !valid_name(name)) {
      *error = "entry '" + entry + "' is malformed (" + expect + ")";
      return false;
    }
    for (char &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.transport = name;
    for (int pe : {r.a, r.b})
      if (n_pes > 0 && pe != PairRule::kAny && pe >= n_pes) {
        *error = "entry '" + entry + "' names pe " + std::to_string(pe) + ", outside the job [0, " +
                 std::to_string(n_pes) + ")";
        return false;
      }
    rules->push_back(std::move(r));
  }
  return true;
}

const PairRule *find_pair_rule(const std::vector<PairRule> &rules, int p, int q) {
  for (const PairRule &r : rules)
    if (r.matches(p, q)) return &r;
  return nullptr;
}

std::vector<std::string> format_matrix(const std::vector<int8_t> &choice, int n,
                                       const std::vector<std::string> &names, int max_full) {
  std::vector<std::string> lines;
  auto name_of = [&](int8_t c) -> std::string {
    return c >= 0 && static_cast<size_t>(c) < names.size() ? names[c] : "-";
  };
  if (n > max_full) {
    std::vector<size_t> count(names.size() + 1, 0);
    for (int8_t c : choice)
      ++count[c >= 0 && static_cast<size_t>(c) < names.size() ? c : names.size()];
    for (size_t t = 0; t <= names.size(); ++t)
      if (count[t] > 0)
        lines.push_back((t < names.size() ? names[t] : std::string("-")) + ": " +
                        std::to_string(count[t]) + " of " + std::to_string(size_t(n) * n) +
                        " ordered pairs");
    return lines;
  }
  size_t width = 1;
  for (const std::string &s : names) width = std::max(width, s.size());
  width = std::max(width, std::to_string(n - 1).size());
  size_t label = std::max<size_t>(std::to_string(n - 1).size(), 4);
  auto pad = [](std::string s, size_t w) {
    if (s.size() < w) s.insert(0, w - s.size(), ' ');
    return s;
  };
  std::string cols;
  for (int j = 0; j < n; ++j) cols += " " + pad(std::to_string(j), width);
  lines.push_back(pad("", label) + cols);
  for (int i = 0; i < n; ++i) {
    std::string row = pad(std::to_string(i), label);
    for (int j = 0; j < n; ++j) row += " " + pad(name_of(choice[size_t(i) * n + j]), width);
    lines.push_back(row);
  }
  return lines;
}

Choice choose_one(int me, int pe, const std::vector<std::string> &names, const Answer *answers,
                  const Rules &rules, bool other_host,
                  const std::function<std::string(size_t t)> &fallback_reason) {
  const size_t nt = names.size();
  auto reason_of = [&](size_t t) {
    std::string r = answers[t].reason;
    if (r.empty() && fallback_reason) r = fallback_reason(t);
    return r;
  };
  const std::string me_s = std::to_string(me), pe_s = std::to_string(pe);
  std::string want, why;
  if (const PairRule *rule = find_pair_rule(rules.pairs, me, pe)) {
    want = rule->transport;
    why = "XSHMEM_PAIR_TRANSPORTS entry '" + rule->text + "'";
  } else if (!rules.remote.empty() && other_host) {
    want = rules.remote;
    why = "XSHMEM_REMOTE_TRANSPORT=" + rules.remote;
  }
  Choice c;
  if (!want.empty()) {
    size_t t = 0;
    while (t < nt && names[t] != want) ++t;
    const std::string head =
        why + " asks for transport " + want + " between pe " + me_s + " and pe " + pe_s + ", but ";
    if (t == nt) {
      c.error = head + want + " " + rules.absent + "; fix it or change the override";
    } else if (!answers[t].reached) {
      const std::string r = reason_of(t);
      c.error = head + want + " cannot reach pe " + pe_s + " from pe " + me_s +
                (r.empty() ? std::string() : " (" + r + ")") + "; change the override";
    } else {
      c.transport = static_cast<int>(t);
    }
    return c;
  }
  for (size_t t = 0; t < nt; ++t) {
    const Answer &a = answers[t];
    if (!a.reached) continue;
    if (c.transport < 0) {
      c.transport = static_cast<int>(t);
      continue;
    }
    const Answer &b = answers[static_cast<size_t>(c.transport)];
    if (a.latency_ns < b.latency_ns ||
        (a.latency_ns == b.latency_ns && a.bandwidth_mbps > b.bandwidth_mbps))
      c.transport = static_cast<int>(t);
  }
  if (c.transport >= 0) return c;
  std::string tried;
  for (size_t t = 0; t < nt; ++t) {
    const std::string r = reason_of(t);
    tried += (tried.empty() ? "" : "; ") + names[t] +
             (r.empty() ? std::string(": gave no reason") : ": " + r);
  }
  c.tried = tried;
  c.error = "no transport reaches pe " + pe_s + " from pe " + me_s + " (" +
            (tried.empty() ? std::string("no transport to try") : tried) + ")";
  return c;
}

std::vector<Choice> choose(int me, int n, const std::vector<std::string> &names,
                           const std::vector<Answer> &answers, const Rules &rules,
                           const std::vector<uint64_t> &host_id,
                           const std::function<std::string(size_t t, int pe)> &fallback_reason) {
  const size_t nt = names.size();
  std::vector<Choice> out(n > 0 ? n : 0);
  for (int pe = 0; pe < n; ++pe) {
    const bool other_host =
        size_t(pe) < host_id.size() && size_t(me) < host_id.size() && host_id[pe] != host_id[me];
    std::function<std::string(size_t)> fb;
    if (fallback_reason) fb = [&](size_t t) { return fallback_reason(t, pe); };
    out[pe] = choose_one(me, pe, names, answers.data() + size_t(pe) * nt, rules, other_host, fb);
  }
  return out;
}

Choice agree_one(int me, int pe, const std::vector<std::string> &names, int mine, int lower,
                 const Answer *answers) {
  const size_t nt = names.size();
  Choice o;
  if (lower == mine || (lower >= 0 && size_t(lower) < nt && answers[lower].reached)) {
    o.transport = lower;
    return o;
  }
  const int lo = std::min(me, pe), hi = std::max(me, pe);
  const std::string name = lower >= 0 && size_t(lower) < nt ? names[lower] : "none";
  o.error = "pe " + std::to_string(lo) + " chose transport " + name + " for the pair (pe " +
            std::to_string(lo) + ", pe " + std::to_string(hi) + "), but " + name +
            " cannot reach pe " + std::to_string(pe) + " from pe " + std::to_string(me) +
            "; name one transport for the pair in XSHMEM_PAIR_TRANSPORTS";
  return o;
}

std::vector<Choice> agree(int me, int n, const std::vector<std::string> &names,
                          const std::vector<int> &mine, const std::vector<int> &lower,
                          const std::vector<Answer> &answers) {
  const size_t nt = names.size();
  std::vector<Choice> out(n > 0 ? n : 0);
  for (int pe = 0; pe < n; ++pe)
    out[pe] = agree_one(me, pe, names, mine[pe], lower[pe], answers.data() + size_t(pe) * nt);
  return out;
}

}  // namespace xshmem::select
