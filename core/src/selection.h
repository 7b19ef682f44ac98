// xshmem core: the user's transport selection overrides and the chosen-path matrix.
//
// XSHMEM_PAIR_TRANSPORTS is parsed here (context.cc's start_transports applies it, with
// XSHMEM_REMOTE_TRANSPORT, before the cost-based choice). Pure functions, no job needed, so the
// unit tests exercise them directly.
#ifndef XSHMEM_CORE_SELECTION_H
#define XSHMEM_CORE_SELECTION_H

#include <cstdint>
#include <string>
#include <vector>

namespace xshmem::select {

// One entry "<a>-<b>:<transport>" of XSHMEM_PAIR_TRANSPORTS. kAny stands for "*".
struct PairRule {
  static constexpr int kAny = -1;
  int a = kAny, b = kAny;
  std::string transport;  // lower case
  std::string text;       // the entry as written (trimmed), for error messages
  // Whether the rule covers the pair {p, q} (unordered). "*" matches every PE but the other end
  // itself: "2-*" covers (2, 5) and (5, 2), never (2, 2); "*-*" covers every pair of two PEs.
  bool matches(int p, int q) const;
};

// Parses the whole variable ("" gives no rules). On malformed text returns false and sets
// `error` to a sentence quoting the offending entry. PE numbers are checked against `n_pes`
// (when > 0): a PE outside [0, n_pes) is an error too.
bool parse_pair_rules(const std::string &text, int n_pes, std::vector<PairRule> *rules,
                      std::string *error);

// The first rule that covers {p, q}, or nullptr.
const PairRule *find_pair_rule(const std::vector<PairRule> &rules, int p, int q);

// The transport matrix as text lines, for the info log: row = from PE, column = to PE, each cell
// the transport's name ("-" where choice < 0). `choice` is n*n, row major, indices into `names`.
// Above `max_full` PEs, one line per transport with its count of ordered pairs instead.
std::vector<std::string> format_matrix(const std::vector<int8_t> &choice, int n,
                                       const std::vector<std::string> &names, int max_full = 32);

}  // namespace xshmem::select

#endif  // XSHMEM_CORE_SELECTION_H
