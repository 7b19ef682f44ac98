// xshmem core: transport selection -- the user's overrides, the per-peer choice, the two-ends
// agreement, and the chosen-path matrix.
//
// Pure functions, no job needed: init (transports.cc's start_transports, with can_reach's
// answers) and the plan (xshmem-info --plan, with predict's answers) call the same choose(), and
// the unit tests exercise it directly (tests/unit/test_selection.cc).
#ifndef XSHMEM_CORE_SELECTION_H
#define XSHMEM_CORE_SELECTION_H

#include <cstdint>
#include <functional>
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

// What one transport said of one peer (can_reach at init, predict in the plan).
struct Answer {
  bool reached = false;
  int path = 0;  // xshmem_path_t
  uint32_t latency_ns = 0, bandwidth_mbps = 0;
  std::string reason;  // the plugin's reason (may be empty)
};

// The rules the choice applies, in order: a pair rule (XSHMEM_PAIR_TRANSPORTS), then `remote`
// (XSHMEM_REMOTE_TRANSPORT) for a peer on another host, then the cheapest transport that reaches
// the peer: lowest latency, then highest bandwidth, then the lowest index (callers order the
// transports by name, so every PE breaks a tie alike).
struct Rules {
  std::vector<PairRule> pairs;
  std::string remote;  // lower case, "" for none
  // How the message of a rule naming a transport that is not among `names` goes on ("did not
  // start (see the warning above)" at init, "is not loaded" in the plan).
  std::string absent = "did not start (see the warning above)";
};

// The choice for one peer: a transport index, or -1 and a sentence naming the pair and why.
struct Choice {
  int transport = -1;
  std::string error;
  // When no transport reaches the peer: each transport's reason, "name: reason; ...".
  std::string tried;
};

// The choice of PE `me` for every peer 0..n-1. `answers` is n * names.size(), row major by peer
// ([pe * names.size() + t]); `host_id` has n entries (equal: the same host). `fallback_reason`,
// when set, gives the text for a transport whose answer has no reason (the core knows some
// reasons from the plugin's caps); it returns "" when it knows none.
std::vector<Choice> choose(
    int me, int n, const std::vector<std::string> &names, const std::vector<Answer> &answers,
    const Rules &rules, const std::vector<uint64_t> &host_id,
    const std::function<std::string(size_t t, int pe)> &fallback_reason = {});

// choose() for one peer: `answers` holds what each of names.size() transports said of `pe`;
// `other_host` whether `pe` is on another host than `me`. `fallback_reason` as for choose().
Choice choose_one(int me, int pe, const std::vector<std::string> &names, const Answer *answers,
                  const Rules &rules, bool other_host,
                  const std::function<std::string(size_t t)> &fallback_reason = {});

// Both ends of a pair use one transport. `mine[pe]` is this PE's choice, `lower[pe]` the choice of
// min(me, pe) for the pair (from the gathered matrix), `answers` as for choose(). Where they
// differ, the lower PE's choice wins if this end reaches the peer with it too; else the peer's
// Choice carries an error sentence.
std::vector<Choice> agree(int me, int n, const std::vector<std::string> &names,
                          const std::vector<int> &mine, const std::vector<int> &lower,
                          const std::vector<Answer> &answers);
// agree() for one peer: `mine` and `lower` are the two choices of the pair, `answers` this end's
// answers for `pe` (names.size() entries).
Choice agree_one(int me, int pe, const std::vector<std::string> &names, int mine, int lower,
                 const Answer *answers);

}  // namespace xshmem::select

#endif  // XSHMEM_CORE_SELECTION_H
