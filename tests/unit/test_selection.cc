// Transport selection overrides: XSHMEM_PAIR_TRANSPORTS parsing and matching, and the matrix the
// info log shows.
#include <string>
#include <vector>

#include "../catch_compat.h"
#include "selection.h"

using namespace xshmem;

namespace {

std::vector<select::PairRule> parse_ok(const std::string &text, int n) {
  std::vector<select::PairRule> rules;
  std::string error;
  INFO("text '" << text << "'");
  REQUIRE(select::parse_pair_rules(text, n, &rules, &error));
  REQUIRE(error.empty());
  return rules;
}

std::string parse_error(const std::string &text, int n) {
  std::vector<select::PairRule> rules;
  std::string error;
  INFO("text '" << text << "'");
  REQUIRE_FALSE(select::parse_pair_rules(text, n, &rules, &error));
  REQUIRE_FALSE(error.empty());
  return error;
}

}  // namespace

TEST_CASE("pair rules: the documented example parses", "[selection]") {
  auto rules = parse_ok(" 0-1:hostshm , 2-*:LibFabric ", 4);
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].a == 0);
  CHECK(rules[0].b == 1);
  CHECK(rules[0].transport == "hostshm");
  CHECK(rules[0].text == "0-1:hostshm");
  CHECK(rules[1].a == 2);
  CHECK(rules[1].b == select::PairRule::kAny);
  CHECK(rules[1].transport == "libfabric");  // lower case, like plugin names
  CHECK(parse_ok("", 4).empty());
  CHECK(parse_ok("   ", 4).empty());
}

TEST_CASE("pair rules: a rule covers its pair from both ends, * is any other PE", "[selection]") {
  auto rules = parse_ok("0-1:a,2-*:b,*-*:c", 5);
  // Every ordered pair of a 5-PE job, against the rule table written out by hand.
  for (int p = 0; p < 5; ++p)
    for (int q = 0; q < 5; ++q) {
      const select::PairRule *r = select::find_pair_rule(rules, p, q);
      std::string want;
      if ((p == 0 && q == 1) || (p == 1 && q == 0))
        want = "a";
      else if (p != q && (p == 2 || q == 2))
        want = "b";
      else if (p != q)
        want = "c";
      INFO("pair " << p << "-" << q);
      if (want.empty()) {
        CHECK(r == nullptr);
      } else {
        REQUIRE(r != nullptr);
        CHECK(r->transport == want);
      }
    }
  // An explicit self pair is honoured; the first matching rule wins.
  auto self = parse_ok("3-3:x,3-*:y,*-3:z", 5);
  CHECK(select::find_pair_rule(self, 3, 3)->transport == "x");
  CHECK(select::find_pair_rule(self, 3, 4)->transport == "y");
  CHECK(select::find_pair_rule(self, 4, 3)->transport == "y");
  CHECK(select::find_pair_rule(self, 4, 4) == nullptr);
}

TEST_CASE("pair rules: malformed text is an error quoting the entry", "[selection]") {
  for (const char *bad : {"0-1", "0:hostshm", "0-1-2:hostshm", "a-1:hostshm", "0-1:", "0-1:x:y",
                          "-1:hostshm", "0-:hostshm", "0-1:host shm", "1-0:hostshm,,2-3:x",
                          "0- 1x:hostshm", "+1-0:hostshm", "0-1:hostshm;2-3:x"}) {
    std::string e = parse_error(bad, 8);
    INFO("error: " << e);
    if (std::string(bad).find(",,") == std::string::npos) {
      CHECK(e.find("is malformed") != std::string::npos);
      CHECK(e.find("expected <pe>-<pe|*>:<transport>") != std::string::npos);
    } else {
      CHECK(e.find("empty entry") != std::string::npos);
    }
  }
  std::string e = parse_error("0-1:hostshm, 7x-1:hostshm", 8);
  CHECK(e.find("'7x-1:hostshm'") != std::string::npos);
}

TEST_CASE("pair rules: a PE outside the job is an error", "[selection]") {
  std::string e = parse_error("0-1:hostshm,1-4:hostshm", 4);
  CHECK(e.find("'1-4:hostshm' names pe 4, outside the job [0, 4)") != std::string::npos);
  e = parse_error("9-*:hostshm", 2);
  CHECK(e.find("pe 9") != std::string::npos);
  CHECK(parse_ok("1-4:hostshm", 0).size() == 1);  // n unknown: not checked
}

TEST_CASE("transport matrix: names per pair, counts for large jobs", "[selection]") {
  // 3 PEs: pairs with 2 use transport 1, the rest transport 0, (1,2) unset.
  std::vector<int8_t> m = {0, 0, 1, 0, 0, -1, 1, -1, 0};
  auto lines = select::format_matrix(m, 3, {"hostshm", "libfabric"});
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "             0         1         2");
  CHECK(lines[1] == "   0   hostshm   hostshm libfabric");
  CHECK(lines[2] == "   1   hostshm   hostshm         -");
  CHECK(lines[3] == "   2 libfabric         -   hostshm");
  auto counts = select::format_matrix(m, 3, {"hostshm", "libfabric"}, 2);
  REQUIRE(counts.size() == 3);
  CHECK(counts[0] == "hostshm: 5 of 9 ordered pairs");
  CHECK(counts[1] == "libfabric: 2 of 9 ordered pairs");
  CHECK(counts[2] == "-: 2 of 9 ordered pairs");
}
