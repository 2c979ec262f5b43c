// Explanation by descent: the call chains that carry an operation's on-CPU
// delta. On the differential tree of the op's mean stacks (A and B, ns/op)
// each node has a gross increase P (the sum of its stacks' self increases)
// and a gross decrease N. From the op, follow the child that carries at
// least descend_share of the node's P (or N); where no child does, the
// delta splits: that node ends a path. Its subtree is then taken out and
// the descent repeats, up to three paths a direction, each carrying at
// least path_share of the op's gross delta in that direction. Shares are of
// the gross delta, so no share exceeds 100% and a direction's add up to at
// most 100%.
#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "diff/internal.h"
#include "flame/flamegraph.h"  // flame_diff_tree
#include "views/lock_names.h"  // spinning_lock
#include "views/spin_check.h"  // is_spin_stack
#include "views/stacks.h"

namespace fscost {

namespace {

constexpr std::size_t kMaxPaths = 3;
// A frame absent from A is "new" only if A would have shown it: its caller
// had at least this many samples in A's runs at the rate B shows it.
constexpr double kMinExpectedSamples = 5;

// The tree with each node's gross increase and decrease, and how much of
// them is spinning on a lock.
struct Node {
  const FlameNode* n = nullptr;
  double up = 0, down = 0;            // gross increase / decrease, ns/op
  double spin_up = 0, spin_down = 0;  // of which in spinning stacks
  std::vector<Node> kids;
};

Node annotate(const FlameNode& n, Stack& path) {
  Node out{&n};
  path.push_back(n.name);
  double self = n.value_b - n.value;
  for (const auto& c : n.children) {
    self -= c.value_b - c.value;
    out.kids.push_back(annotate(c, path));
    out.up += out.kids.back().up;
    out.down += out.kids.back().down;
    out.spin_up += out.kids.back().spin_up;
    out.spin_down += out.kids.back().spin_down;
  }
  bool spin = is_spin_stack(path);
  if (self > 0) (out.up += self, out.spin_up += spin ? self : 0);
  if (self < 0) (out.down -= self, out.spin_down -= spin ? self : 0);
  path.pop_back();
  return out;
}

double gross(const Node& n, bool up) { return up ? n.up : n.down; }

// What the paths found so far took out of each node, for one direction.
using Taken = std::unordered_map<const Node*, double>;

// Descends from the op for one path in direction `up`; returns the chain
// (op root first) and what its last node carries, and takes that out of
// every node on the chain.
std::pair<std::vector<const Node*>, double> descend(const Node& root, bool up, double share,
                                                    Taken& taken) {
  auto left = [&](const Node& n) {
    auto it = taken.find(&n);
    return gross(n, up) - (it == taken.end() ? 0 : it->second);
  };
  std::vector<const Node*> chain{&root};
  for (const Node* n = &root;;) {
    const Node* best = nullptr;
    for (const auto& k : n->kids)
      if (!best || left(k) > left(*best)) best = &k;
    if (!best || left(*best) <= 0 || left(*best) < share * left(*n)) break;
    chain.push_back(n = best);
  }
  // The last node's whole subtree goes with the path: what is left of it is
  // 0, and a later descent never enters a node with nothing left.
  double moved = left(*chain.back());
  for (const Node* n : chain) taken[n] += moved;
  return {chain, moved};
}

// Inclusive ns/op under each prefix (op root first) in each run: one pass
// over each run's stacks for all of them.
std::vector<std::vector<double>> per_run(const RunSet& s, const std::vector<Stack>& prefixes,
                                         const std::string& op) {
  std::vector<std::vector<double>> out(prefixes.size());
  FoldedFrames ff;
  for (const auto& p : s.runs) {
    std::vector<std::uint64_t> samples(prefixes.size(), 0);
    for_each_stack(p, View::OnCpu, {op, true}, ff, [&](const StackRecord& r) {
      for (std::size_t i = 0; i < prefixes.size(); ++i)
        if (r.frames.size() >= prefixes[i].size() &&
            std::equal(prefixes[i].begin(), prefixes[i].end(), r.frames.begin()))
          samples[i] += r.value;
    });
    std::uint64_t count = 0;
    for (const auto& o : p.ops)
      if (o.name == op) count = o.count;
    for (std::size_t i = 0; i < prefixes.size(); ++i)
      out[i].push_back(count ? samples_to_ns(static_cast<double>(samples[i]), p.meta.freq_hz) /
                                   static_cast<double>(count)
                             : 0);
  }
  return out;
}

// Samples A's runs had at `prefix`.
double samples_in(const RunSet& s, const std::vector<double>& ns_per_op, const std::string& op) {
  double n = 0;
  for (std::size_t i = 0; i < s.runs.size() && i < ns_per_op.size(); ++i) {
    const Profile& p = s.runs[i];
    for (const auto& o : p.ops)
      if (o.name == op && p.meta.freq_hz > 0)
        n += ns_per_op[i] * static_cast<double>(o.count) * p.meta.freq_hz / 1e9;
  }
  return n;
}

// The lock most of the node's spinning stacks spin on.
std::string lock_under(const FlameNode& n, Stack& path) {
  std::string best;
  double most = 0;
  std::function<void(const FlameNode&)> walk = [&](const FlameNode& x) {
    path.push_back(x.name);
    double self = std::fabs(x.value_b - x.value);
    for (const auto& c : x.children) self -= std::fabs(c.value_b - c.value);
    if (self > most)
      if (auto l = spinning_lock(path)) {
        most = self;
        best = l->name;
      }
    for (const auto& c : x.children) walk(c);
    path.pop_back();
  };
  walk(n);
  return best;
}

struct Found {
  std::vector<const Node*> chain;
  double moved = 0;
  bool up = true;
};

Stack prefix_of(const std::vector<const Node*>& chain, std::size_t len) {
  Stack s;
  for (std::size_t i = 0; i < len; ++i) s.push_back(chain[i]->n->name);
  return s;
}

DeltaPath make_path(const Found& f, double op_gross, const std::vector<double>& a_runs,
                    const std::vector<double>& b_runs, double caller_a_samples,
                    const DiffConfig& cfg) {
  const Node& end = *f.chain.back();
  const bool up = f.up;
  DeltaPath p;
  Stack prefix = prefix_of(f.chain, f.chain.size());
  for (std::size_t i = 1; i < prefix.size(); ++i) p.frames.push_back(prefix[i].str());
  p.inclusive = compare(a_runs, b_runs, "ns/op", cfg.level, cfg.alpha);
  p.share = op_gross > 0 ? std::min(1.0, f.moved / op_gross) : 0;
  for (const auto& k : end.kids) {
    double d = k.n->value_b - k.n->value;
    if (d != 0 && (d > 0) == up) p.split.emplace_back(k.n->name.str(), d);
  }
  std::sort(p.split.begin(), p.split.end(),
            [](const auto& x, const auto& y) { return std::fabs(x.second) > std::fabs(y.second); });
  if (p.split.size() > cfg.top) p.split.resize(cfg.top);
  if ((up ? end.spin_up : end.spin_down) > 0.5 * gross(end, up)) {
    p.kind = "contention";
    Stack path(prefix.begin(), prefix.end() - 1);
    p.lock = lock_under(*end.n, path);
    return p;
  }
  bool absent = std::all_of(a_runs.begin(), a_runs.end(), [](double v) { return v == 0; });
  if (up && absent && f.chain.size() >= 2) {
    // Would A have shown it? Its caller's samples in A at the rate B shows it.
    const Node& caller = *f.chain[f.chain.size() - 2];
    double ratio = caller.n->value_b > 0 ? end.n->value_b / caller.n->value_b : 0;
    if (caller_a_samples * ratio >= kMinExpectedSamples) {
      p.kind = "new-code";
      return p;
    }
  }
  p.kind = up ? "more-work" : "less-work";
  return p;
}

}  // namespace

void find_paths(OpDiff& op, const RunSet& a, const RunSet& b, const MeanStacks& sa,
                const MeanStacks& sb, const DiffConfig& cfg) {
  FlameNode tree = flame_diff_tree(sa.get(View::OnCpu, op.op), sb.get(View::OnCpu, op.op));
  const FlameNode* root = nullptr;
  for (const auto& c : tree.children)
    if (c.name == op.op) root = &c;
  if (!root) return;
  Stack scratch;
  const Node whole = annotate(*root, scratch);
  std::vector<Found> found;
  for (bool up : {true, false}) {
    Taken taken;
    const double op_gross = gross(whole, up);
    // A direction whose gross is a sliver of the other's is noise around it.
    const double floor = cfg.path_share * std::max(whole.up, whole.down);
    for (std::size_t i = 0; i < kMaxPaths && op_gross > 0; ++i) {
      auto [chain, moved] = descend(whole, up, cfg.descend_share, taken);
      // At the op itself the delta is spread over its children: no one path.
      if (chain.size() < 2 || moved < cfg.path_share * op_gross || moved < floor) break;
      // A path is reported by its frame's net delta: it must go this way,
      // mostly, or the frame's other changes would be read as this one.
      const FlameNode& end = *chain.back()->n;
      double net = end.value_b - end.value;
      if ((net > 0) != up || std::fabs(net) < 0.5 * moved) continue;
      found.push_back({std::move(chain), moved, up});
    }
  }
  // Each path's frame, and its caller's (is a frame absent from A new?).
  std::vector<Stack> prefixes;
  for (const auto& f : found) {
    prefixes.push_back(prefix_of(f.chain, f.chain.size()));
    prefixes.push_back(prefix_of(f.chain, f.chain.size() - 1));
  }
  auto va = per_run(a, prefixes, op.op), vb = per_run(b, prefixes, op.op);
  for (std::size_t i = 0; i < found.size(); ++i)
    op.paths.push_back(make_path(found[i], gross(whole, found[i].up), va[2 * i], vb[2 * i],
                                 samples_in(a, va[2 * i + 1], op.op), cfg));
}

}  // namespace fscost
