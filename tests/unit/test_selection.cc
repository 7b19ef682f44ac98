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

// ---- choose / agree: the per-peer choice init and the plan share ----

namespace {

select::Answer yes(uint32_t lat, uint32_t bw, const char *why = "") {
  select::Answer a;
  a.reached = true;
  a.path = 1;
  a.latency_ns = lat;
  a.bandwidth_mbps = bw;
  a.reason = why;
  return a;
}
select::Answer no(const char *why) {
  select::Answer a;
  a.reason = why;
  return a;
}

}  // namespace

TEST_CASE("choose: the cheapest transport wins, by latency then bandwidth, ties by index",
          "[selection]") {
  const std::vector<std::string> names = {"a", "b", "c"};
  // 4 peers (rows) x 3 transports, each row a different case; PE-dependent costs.
  std::vector<select::Answer> ans = {
      yes(300, 10), yes(100, 10), yes(200, 10),         // pe 0: b has the lowest latency
      yes(100, 10), yes(100, 30), yes(100, 20),         // pe 1: latency tie, b has most bandwidth
      yes(50, 10),  yes(50, 10),  no("c: not here"),    // pe 2: a full tie: the lower index, a
      no("a: no"),  no("b: no"),  yes(900, 1, "slow"),  // pe 3: only c reaches
  };
  const std::vector<uint64_t> hosts = {7, 7, 7, 7};
  auto c = select::choose(1, 4, names, ans, select::Rules{}, hosts);
  REQUIRE(c.size() == 4);
  CHECK(c[0].transport == 1);
  CHECK(c[1].transport == 1);
  CHECK(c[2].transport == 0);
  CHECK(c[3].transport == 2);
  for (auto &x : c) CHECK(x.error.empty());
  // The same answers with the costs of pe 0's row swapped pick the other transport: the choice
  // follows the answers, not the order.
  std::swap(ans[0], ans[1]);
  CHECK(select::choose(1, 4, names, ans, select::Rules{}, hosts)[0].transport == 0);
}

TEST_CASE("choose: a pair rule wins over the cost; the remote rule only for other hosts",
          "[selection]") {
  const std::vector<std::string> names = {"fast", "net"};
  // 3 peers: pe 0 and 1 on host 1 (me = 1), pe 2 on host 2. Both transports reach everyone.
  std::vector<select::Answer> ans;
  for (int pe = 0; pe < 3; ++pe) {
    ans.push_back(yes(10 + pe, 100));
    ans.push_back(yes(500 + pe, 50));
  }
  const std::vector<uint64_t> hosts = {1, 1, 2};
  select::Rules r;
  CHECK(select::choose(1, 3, names, ans, r, hosts)[2].transport == 0);  // cheapest
  r.remote = "net";
  auto c = select::choose(1, 3, names, ans, r, hosts);
  CHECK(c[0].transport == 0);  // same host: the remote rule does not apply
  CHECK(c[1].transport == 0);
  CHECK(c[2].transport == 1);  // another host: the remote transport
  std::string err;
  REQUIRE(select::parse_pair_rules("0-1:net", 3, &r.pairs, &err));
  c = select::choose(1, 3, names, ans, r, hosts);
  CHECK(c[0].transport == 1);  // the pair rule beats the cheaper transport
  CHECK(c[1].transport == 0);  // 1-1 is not covered by 0-1
  // From pe 0's side the rule covers the same pair.
  CHECK(select::choose(0, 3, names, ans, r, hosts)[1].transport == 1);
}

TEST_CASE("choose: a forced transport that cannot reach is an error naming the pair and why",
          "[selection]") {
  const std::vector<std::string> names = {"hostshm", "nvlink"};
  std::vector<select::Answer> ans = {
      yes(200, 10), no("heap in host memory: nvlink serves GPU heaps"), yes(200, 10), no("")};
  const std::vector<uint64_t> hosts = {3, 3};
  select::Rules r;
  std::string err;
  REQUIRE(select::parse_pair_rules("0-*:nvlink", 2, &r.pairs, &err));
  auto c = select::choose(0, 2, names, ans, r, hosts);
  CHECK(c[0].transport == 0);  // "*" never pairs a PE with itself
  CHECK(c[1].transport == -1);
  CHECK(c[1].error ==
        "XSHMEM_PAIR_TRANSPORTS entry '0-*:nvlink' asks for transport nvlink between pe 0 and pe "
        "1, but nvlink cannot reach pe 1 from pe 0; change the override");
  // With a fallback reason (what the core knows from caps) the sentence says it.
  c = select::choose(0, 2, names, ans, r, hosts, [](size_t t, int pe) {
    return "fallback " + std::to_string(t) + "/" + std::to_string(pe);
  });
  CHECK(c[1].error.find("cannot reach pe 1 from pe 0 (fallback 1/1); change") != std::string::npos);
  // A transport that is not among the started ones.
  REQUIRE(select::parse_pair_rules("0-1:libfabric", 2, &r.pairs, &err));
  r.absent = "is not loaded";
  c = select::choose(1, 2, names, ans, r, hosts);
  CHECK(c[0].error ==
        "XSHMEM_PAIR_TRANSPORTS entry '0-1:libfabric' asks for transport libfabric between pe 1 "
        "and pe 0, but libfabric is not loaded; fix it or change the override");
}

TEST_CASE("choose: no transport reaches: every transport's reason, in order", "[selection]") {
  const std::vector<std::string> names = {"hostshm", "nvlink"};
  std::vector<select::Answer> ans = {yes(200, 10), yes(50, 10),
                                     no("peer on another host (host id differs)"), no("")};
  auto c = select::choose(0, 2, names, ans, select::Rules{}, {1, 2});
  CHECK(c[0].transport == 1);
  CHECK(c[1].transport == -1);
  CHECK(c[1].tried == "hostshm: peer on another host (host id differs); nvlink: gave no reason");
  CHECK(c[1].error == "no transport reaches pe 1 from pe 0 (" + c[1].tried + ")");
  c = select::choose(0, 2, {}, {}, select::Rules{}, {1, 2});
  CHECK(c[1].error == "no transport reaches pe 1 from pe 0 (no transport to try)");
}

TEST_CASE("agree: the lower PE's choice wins where this end reaches with it", "[selection]") {
  const std::vector<std::string> names = {"a", "b"};
  // me = 2; peers 0..3. Answers: a reaches all, b reaches 0 and 3 only.
  std::vector<select::Answer> ans = {yes(1, 1), yes(2, 1),   yes(1, 1), no("b: no"),
                                     yes(1, 1), no("b: no"), yes(1, 1), yes(2, 1)};
  const std::vector<int> mine = {0, 0, 0, 0};
  // Peer 0 (lower) chose b: reachable here, taken. Peer 1 chose b: not reachable -> error.
  // Peer 3 is higher: `lower` is my own choice.
  const std::vector<int> lower = {1, 1, 0, 0};
  auto c = select::agree(2, 4, names, mine, lower, ans);
  CHECK(c[0].transport == 1);
  CHECK(c[1].transport == -1);
  CHECK(c[1].error ==
        "pe 1 chose transport b for the pair (pe 1, pe 2), but b cannot reach pe 1 from pe 2; "
        "name one transport for the pair in XSHMEM_PAIR_TRANSPORTS");
  CHECK(c[2].transport == 0);
  CHECK(c[3].transport == 0);
}
