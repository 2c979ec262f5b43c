// Who each op waited for, in A and in B (views/wait_graph.h): the heaviest
// chain of each side over its runs, and each hop of it compared run by run.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "diff/internal.h"

namespace fscost {

namespace {

// The runs of `s` but its run `skip`.
std::vector<const Profile*> profiles(const RunSet& s, std::size_t skip = SIZE_MAX) {
  std::vector<const Profile*> out;
  for (std::size_t r = 0; r < s.runs.size(); ++r)
    if (r != skip) out.push_back(&s.runs[r]);
  return out;
}

double ops_of(const Profile& p, const std::string& op) {
  for (const auto& o : p.ops)
    if (o.name == op) return static_cast<double>(o.count);
  return 0;
}

std::optional<WaitChain> chain_of(const std::vector<WaitChain>& cs, const std::string& op) {
  for (const auto& c : cs)
    if (c.op == op) return c;
  return std::nullopt;
}

// Each run's graph once, for every hop of every op: A's runs, then B's.
std::vector<WaitEdges> edges_of(const RunSet& a, const RunSet& b) {
  std::vector<WaitEdges> out;
  for (const auto* s : {&a, &b})
    for (const auto& p : s->runs) out.push_back(wait_edges(p));
  return out;
}

// Each hop of `lead` compared run by run, over every run but `skip` (an
// index in A's runs, then B's).
std::vector<Comparison> compare_hops(const std::string& op, const WaitChain& lead,
                                     const RunSet& a, const RunSet& b,
                                     const std::vector<WaitEdges>& edges, const DiffConfig& cfg,
                                     std::size_t skip = SIZE_MAX) {
  std::vector<Comparison> out;
  std::string from = op;
  for (std::size_t i = 0; i < lead.hops.size(); ++i) {
    const std::string& to = lead.hops[i].context;
    // the first hop per op, as the op's other figures; the rest per run
    auto side = [&](const RunSet& s, std::size_t first) {
      std::vector<double> v;
      for (std::size_t r = 0; r < s.runs.size(); ++r) {
        if (first + r == skip) continue;
        double n = i == 0 ? ops_of(s.runs[r], op) : 1;
        auto it = edges[first + r].find({from, to});
        v.push_back(n > 0 && it != edges[first + r].end() ? it->second / n : 0);
      }
      return v;
    };
    out.push_back(compare(side(a, 0), side(b, a.runs.size()), i == 0 ? "ns/op" : "ns", cfg.level,
                          cfg.alpha));
    from = to;
  }
  return out;
}

}  // namespace

void compare_chains(Diff& d, const RunSet& a, const RunSet& b) {
  const auto chains_a = wait_chains(profiles(a)), chains_b = wait_chains(profiles(b));
  const std::vector<WaitEdges> edges = edges_of(a, b);
  for (auto& op : d.ops) {
    op.chain_a = chain_of(chains_a, op.op);
    op.chain_b = chain_of(chains_b, op.op);
    const auto& lead = op.chain_b ? op.chain_b : op.chain_a;
    if (lead) op.hop_waits = compare_hops(op.op, *lead, a, b, edges, d.config);
  }
}

void chains_left_out(const Diff& d, const RunSet& a, const RunSet& b, std::vector<Diff>& left_out) {
  auto significant = [](const OpDiff& op) {
    return std::ranges::any_of(op.hop_waits, [](const Comparison& c) { return c.significant(); });
  };
  if (std::ranges::none_of(d.ops, significant)) return;
  const std::size_t na = a.runs.size();
  const auto chains_a = wait_chains(profiles(a)), chains_b = wait_chains(profiles(b));
  const std::vector<WaitEdges> edges = edges_of(a, b);
  for (std::size_t skip = 0; skip < left_out.size(); ++skip) {
    // The chains of the side without the run; the other side's as they were.
    const bool in_b = skip >= na;
    const auto kept = in_b ? wait_chains(profiles(b, skip - na)) : wait_chains(profiles(a, skip));
    for (std::size_t k = 0; k < d.ops.size(); ++k) {
      const OpDiff& op = d.ops[k];
      if (!significant(op)) continue;
      auto lead = chain_of(in_b ? kept : chains_b, op.op);
      if (!lead) lead = chain_of(in_b ? chains_a : kept, op.op);
      if (lead) left_out[skip].ops[k].hop_waits = compare_hops(op.op, *lead, a, b, edges, d.config, skip);
    }
  }
}

}  // namespace fscost
