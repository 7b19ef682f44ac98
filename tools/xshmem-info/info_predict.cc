// xshmem-info: the plan's path model, from the loaded transport plugins. Each pair of the plan is
// described to every allowed loaded transport's predict as two xshmem_plan_pe_v1_t records (the
// topology module fills them: host, GPU, GPU PCI id, NIC, heap kind, peer access and NVLinks);
// the core's selection (core/src/selection.h, the function init runs on can_reach's answers)
// picks the transport of each end under XSHMEM_PAIR_TRANSPORTS and XSHMEM_REMOTE_TRANSPORT, and
// the two ends agree as at init. A loaded transport without predict is listed as not predicted.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "info.h"
#include "loader.h"
#include "runtime.h"
#include "selection.h"

namespace xshmem::info {

namespace {

struct ModelState {
  std::vector<const plugins::Transport *> ts;  // in name order
  std::vector<std::string> names;
  select::Rules rules;
  bool detail = false;
};

// What every transport's predict says of `peer` from `self`.
std::vector<select::Answer> ask(const ModelState &s, const xshmem_plan_pe_v1_t &self,
                                const xshmem_plan_pe_v1_t &peer) {
  std::vector<select::Answer> out(s.ts.size());
  for (size_t t = 0; t < s.ts.size(); ++t) {
    xshmem_peer_info_v1_t info{};
    info.struct_size = sizeof(info);
    const bool ok = s.ts[t]->ops->predict(&self, &peer, &info) == XSHMEM_SUCCESS;
    info.reason[sizeof(info.reason) - 1] = '\0';
    select::Answer &a = out[t];
    a.reached = ok;
    a.path = static_cast<int>(info.path);
    a.latency_ns = info.latency_ns;
    a.bandwidth_mbps = info.bandwidth_mbps;
    a.reason = info.reason;
  }
  return out;
}

// " [nvlink no: ...; libfabric yes: ...]": every other transport's answer (--pairs).
std::string others(const ModelState &s, const std::vector<select::Answer> &ans, int chosen) {
  std::string o;
  for (size_t t = 0; t < s.names.size(); ++t) {
    if (static_cast<int>(t) == chosen) continue;
    o += (o.empty() ? "" : "; ") + s.names[t] + (ans[t].reached ? " yes" : " no") +
         (ans[t].reason.empty() ? "" : ": " + ans[t].reason);
  }
  return o.empty() ? o : " [" + o + "]";
}

topo::PairPlan pair(const ModelState &s, const std::vector<topo::Machine> &machines,
                    const topo::Plan &p, int a, int b) {
  xshmem_plan_pe_v1_t sa, sb, ta, tb;
  topo::plan_pe_records(machines, p, a, b, &sa, &sb);
  const std::vector<select::Answer> ab = ask(s, sa, sb);
  const bool other_host = p.pes[a].node != p.pes[b].node;
  const select::Choice mine = select::choose_one(a, b, s.names, ab.data(), s.rules, other_host);
  if (mine.transport < 0)
    return {-1, "none: " + (mine.tried.empty() ? mine.error : mine.tried), mine.error};
  int lower = mine.transport;
  if (b < a) {
    topo::plan_pe_records(machines, p, b, a, &tb, &ta);
    const std::vector<select::Answer> ba = ask(s, tb, ta);
    lower = select::choose_one(b, a, s.names, ba.data(), s.rules, other_host).transport;
  }
  const select::Choice c = select::agree_one(a, b, s.names, mine.transport, lower, ab.data());
  if (c.transport < 0) return {-1, "none: " + c.error, c.error};
  const std::string &r = ab[static_cast<size_t>(c.transport)].reason;
  return {c.transport,
          s.names[c.transport] + ": " + (r.empty() ? std::string("gave no reason") : r) +
              (s.detail ? others(s, ab, c.transport) : std::string()),
          ""};
}

}  // namespace

PluginModel plugin_model(int n_pes, bool detail) {
  PluginModel out;
  auto s = std::make_shared<ModelState>();
  s->detail = detail;
  // The allowed, loaded transports, in name order (as init tries them).
  const config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  for (const auto &t : core::plugin_loader(true).transports()) {
    if (!spec.selects(t.name)) continue;
    if (XSHMEM_TRANSPORT_HAS_OP(t.ops, predict))
      s->ts.push_back(&t);
    else
      out.not_predicted.push_back(t.name);
  }
  std::sort(s->ts.begin(), s->ts.end(), [](auto *a, auto *b) { return a->name < b->name; });
  std::sort(out.not_predicted.begin(), out.not_predicted.end());
  for (auto *t : s->ts) s->names.push_back(t->name);
  // Pair rules and the remote transport apply as at init.
  s->rules.absent = "is not loaded (or has no predict)";
  s->rules.remote = config::get_string("XSHMEM_REMOTE_TRANSPORT");
  for (char &c : s->rules.remote) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  const std::string pair_text = config::get_string("XSHMEM_PAIR_TRANSPORTS");
  std::string error;
  if (!select::parse_pair_rules(pair_text, n_pes, &s->rules.pairs, &error)) {
    out.errors.push_back("XSHMEM_PAIR_TRANSPORTS=\"" + pair_text + "\": " + error);
    s->rules.pairs.clear();
  }
  out.model.names = s->names;
  out.model.by_pe = !s->rules.pairs.empty();
  out.model.pair = [s](const std::vector<topo::Machine> &machines, const topo::Plan &p, int a,
                       int b) { return pair(*s, machines, p, a, b); };
  return out;
}

}  // namespace xshmem::info
