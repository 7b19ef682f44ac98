// SEC-03 fuzz harness pair_transports: the parser of XSHMEM_PAIR_TRANSPORTS
// (core/src/selection.cc, select::parse_pair_rules), "<pe>-<pe|*>:<transport>[,...]".
//
// Input: the first byte is the job size the rules are checked against (0: unchecked), the rest
// the variable's value (up to the first NUL). Checked: an accepted text gives rules whose PEs lie
// in the job and whose transports are lower-case names; a refused one gives an error sentence;
// blanks around the value change nothing; a rule covers a pair in both directions.
#include <cctype>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "selection.h"

namespace sel = xshmem::select;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const int n_pes = data[0];
  const std::string text = xshmem::fuzz::env_text(data + 1, size - 1);
  std::vector<sel::PairRule> rules;
  std::string error;
  const bool ok = sel::parse_pair_rules(text, n_pes, &rules, &error);
  if (!ok) {
    FUZZ_CHECK(!error.empty(), text, "a refused value must come with an error sentence");
  } else {
    for (const sel::PairRule &r : rules) {
      for (int pe : {r.a, r.b}) {
        FUZZ_CHECK(pe == sel::PairRule::kAny || pe >= 0, text, "pe " + std::to_string(pe));
        FUZZ_CHECK(n_pes == 0 || pe < n_pes, text,
                   "pe " + std::to_string(pe) + " outside a job of " + std::to_string(n_pes));
      }
      FUZZ_CHECK(!r.transport.empty() && !r.text.empty(), text, "empty transport or entry text");
      for (char c : r.transport)
        FUZZ_CHECK(std::islower(static_cast<unsigned char>(c)) ||
                       std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-',
                   text, "transport name '" + r.transport + "'");
    }
  }
  std::vector<sel::PairRule> padded;
  std::string padded_error;
  const bool padded_ok = sel::parse_pair_rules(" \t" + text + " \n", n_pes, &padded, &padded_error);
  FUZZ_CHECK(padded_ok == ok && padded.size() == rules.size(), text,
             "blanks around the value must not change the result");
  const int span = n_pes > 0 ? std::min(n_pes, 6) : 6;
  for (int p = 0; p < span; ++p)
    for (int q = 0; q < span; ++q)
      FUZZ_CHECK(sel::find_pair_rule(rules, p, q) == sel::find_pair_rule(rules, q, p), text,
                 "pair " + std::to_string(p) + "," + std::to_string(q) + " is not symmetric");
  return 0;
}
