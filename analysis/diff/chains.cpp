// Who each op waited for, in A and in B (views/wait_graph.h): the heaviest
// chain of each side over its runs, and each hop of it compared run by run.
#include <algorithm>

#include "diff/internal.h"

namespace fscost {

namespace {

std::vector<const Profile*> profiles(const RunSet& s) {
  std::vector<const Profile*> out;
  for (const auto& p : s.runs) out.push_back(&p);
  return out;
}

double ops_of(const Profile& p, const std::string& op) {
  for (const auto& o : p.ops)
    if (o.name == op) return static_cast<double>(o.count);
  return 0;
}

}  // namespace

void compare_chains(Diff& d, const RunSet& a, const RunSet& b) {
  auto chains_a = wait_chains(profiles(a)), chains_b = wait_chains(profiles(b));
  auto find = [](const std::vector<WaitChain>& cs, const std::string& op) -> std::optional<WaitChain> {
    for (const auto& c : cs)
      if (c.op == op) return c;
    return std::nullopt;
  };
  // Each run's graph once, for every hop of every op.
  auto edges_of = [](const RunSet& s) {
    std::vector<WaitEdges> out;
    for (const auto& p : s.runs) out.push_back(wait_edges(p));
    return out;
  };
  const std::vector<WaitEdges> edges_a = edges_of(a), edges_b = edges_of(b);
  for (auto& op : d.ops) {
    op.chain_a = find(chains_a, op.op);
    op.chain_b = find(chains_b, op.op);
    const auto& lead = op.chain_b ? op.chain_b : op.chain_a;
    if (!lead) continue;
    std::string from = op.op;
    for (std::size_t i = 0; i < lead->hops.size(); ++i) {
      const std::string& to = lead->hops[i].context;
      // the first hop per op, as the op's other figures; the rest per run
      auto side = [&](const RunSet& s, const std::vector<WaitEdges>& edges) {
        std::vector<double> v;
        for (std::size_t r = 0; r < s.runs.size(); ++r) {
          double n = i == 0 ? ops_of(s.runs[r], op.op) : 1;
          auto it = edges[r].find({from, to});
          v.push_back(n > 0 && it != edges[r].end() ? it->second / n : 0);
        }
        return v;
      };
      op.hop_waits.push_back(compare(side(a, edges_a), side(b, edges_b), i == 0 ? "ns/op" : "ns",
                                     d.config.level, d.config.alpha));
      from = to;
    }
  }
}

}  // namespace fscost
