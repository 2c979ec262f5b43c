// Explanation by descent: the call chains that carry an operation's on-CPU
// delta. On the differential tree of the op's mean stacks (A and B, ns/op)
// each node has a net delta (B − A, inclusive). Going down toward the
// largest delta in the direction sought, a node carrying at least
// path_share of the op's |delta| is followed into the child that carries
// descend_share of it; where no child does, the delta splits and that node
// ends a path. Its delta is then taken out of its ancestors, its subtree
// closed, and the descent repeats, up to three paths a direction. Net deltas, not
// sums of every stack's change: sampling noise cancels in the net, while it
// inflates a sum of absolute changes until nothing carries a share of it.
// A path's share is of the op's gross delta in its direction (the net delta
// plus the opposite paths found), so none exceeds 100% and a direction's
// shares add up to at most 100%.
#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>

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

// The tree with each node's net delta, and the part of it in stacks that
// spin on a lock.
struct Node {
  const FlameNode* n = nullptr;
  double net = 0;   // ns/op, B − A, inclusive
  double spin = 0;  // of which in spinning stacks
  std::vector<Node> kids;
};

Node annotate(const FlameNode& n, Stack& path) {
  Node out{&n, n.value_b - n.value};
  path.push_back(n.name);
  double self = out.net;
  for (const auto& c : n.children) {
    self -= c.value_b - c.value;
    out.kids.push_back(annotate(c, path));
    out.spin += out.kids.back().spin;
  }
  if (is_spin_stack(path)) out.spin += self;
  path.pop_back();
  return out;
}

// A delta counted in the direction sought: positive when it goes that way.
double toward(double v, bool up) { return up ? v : -v; }

// What the paths found so far took out of each node, for one direction,
// and the paths' last nodes, whose subtrees went with them.
struct Taken {
  std::unordered_map<const Node*, double> from;
  std::unordered_set<const Node*> closed;
};

// Descends from the op for one path in direction `up`; returns the chain
// (op root first) and what its last node carries, and takes that out of
// every node on the chain. A node that carries at least `floor` ends the
// path unless one child carries `share` of it; a node that carries less
// (an ancestor that moved the other way, or the op itself) leads to the
// child whose subtree holds the largest delta this way.
std::pair<std::vector<const Node*>, double> descend(const Node& root, bool up, double share,
                                                    double floor, Taken& taken) {
  auto left = [&](const Node& n) {
    auto it = taken.from.find(&n);
    return toward(n.net, up) - (it == taken.from.end() ? 0 : it->second);
  };
  std::unordered_map<const Node*, double> most;  // the largest left() in the subtree
  std::function<double(const Node&)> deepest = [&](const Node& n) {
    if (taken.closed.count(&n)) return -HUGE_VAL;
    double m = left(n);
    for (const auto& k : n.kids) m = std::max(m, deepest(k));
    return most[&n] = m;
  };
  deepest(root);
  std::vector<const Node*> chain{&root};
  for (const Node* n = &root;;) {
    const Node* next = nullptr;
    if (n != &root && left(*n) >= floor) {
      for (const auto& k : n->kids)
        if (!taken.closed.count(&k) && (!next || left(k) > left(*next))) next = &k;
      if (!next || left(*next) < share * left(*n)) break;  // it splits here
    } else {
      for (const auto& k : n->kids)
        if (!next || most[&k] > most[next]) next = &k;
      if (!next || most[next] < floor) return {{&root}, 0};  // nothing left this way
    }
    chain.push_back(n = next);
  }
  double moved = left(*chain.back());
  for (const Node* n : chain) taken.from[n] += moved;
  taken.closed.insert(chain.back());
  return {chain, moved};
}

// What one figure counts: stacks under `prefix` (op root first) that are
// under none of `except` (earlier paths' frames below it, reported already).
struct Prefix {
  Stack prefix;
  std::vector<Stack> except;
};

bool starts_with(std::span<const Frame> frames, const Stack& prefix) {
  return frames.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), frames.begin());
}

// Inclusive ns/op of each figure in each run: one pass over each run's
// stacks for all of them.
std::vector<std::vector<double>> per_run(const RunSet& s, const std::vector<Prefix>& figures,
                                         const std::string& op) {
  std::vector<std::vector<double>> out(figures.size());
  FoldedFrames ff;
  for (const auto& p : s.runs) {
    std::vector<std::uint64_t> samples(figures.size(), 0);
    for_each_stack(p, View::OnCpu, {op, true}, ff, [&](const StackRecord& r) {
      for (std::size_t i = 0; i < figures.size(); ++i)
        if (starts_with(r.frames, figures[i].prefix) &&
            std::none_of(figures[i].except.begin(), figures[i].except.end(),
                         [&](const Stack& e) { return starts_with(r.frames, e); }))
          samples[i] += r.value;
    });
    std::uint64_t count = 0;
    for (const auto& o : p.ops)
      if (o.name == op) count = o.count;
    for (std::size_t i = 0; i < figures.size(); ++i)
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

DeltaPath make_path(const Found& f, double gross, const std::vector<double>& a_runs,
                    const std::vector<double>& b_runs, double caller_a_samples,
                    const DiffConfig& cfg) {
  const Node& end = *f.chain.back();
  const bool up = f.up;
  DeltaPath p;
  Stack prefix = prefix_of(f.chain, f.chain.size());
  for (std::size_t i = 1; i < prefix.size(); ++i) p.frames.push_back(prefix[i].str());
  p.inclusive = compare(a_runs, b_runs, "ns/op", cfg.level, cfg.alpha);
  p.share = gross > 0 ? std::min(1.0, f.moved / gross) : 0;
  for (const auto& k : end.kids) {
    double d = k.n->value_b - k.n->value;
    if (d != 0 && (d > 0) == up) p.split.emplace_back(k.n->name.str(), d);
  }
  std::sort(p.split.begin(), p.split.end(),
            [](const auto& x, const auto& y) { return std::fabs(x.second) > std::fabs(y.second); });
  if (p.split.size() > cfg.top) p.split.resize(cfg.top);
  if (toward(end.spin, up) > 0.5 * toward(end.net, up)) {
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
  const double floor = cfg.path_share * std::fabs(whole.net);
  double moved_dir[2] = {0, 0};  // [up]: what the paths found carry, each way
  for (bool up : {true, false}) {
    Taken taken;
    for (std::size_t i = 0; i < kMaxPaths && floor > 0; ++i) {
      auto [chain, moved] = descend(whole, up, cfg.descend_share, floor, taken);
      if (chain.size() < 2 || moved < floor) break;
      found.push_back({std::move(chain), moved, up});
      moved_dir[up] += moved;
    }
  }
  // The gross delta each way: the net plus what the other way took back,
  // and at least what this way's paths carry.
  double gross[2];
  for (bool up : {false, true})
    gross[up] = std::max(std::max(toward(whole.net, up), 0.0) + moved_dir[!up], moved_dir[up]);
  // Each path's frame, less the earlier paths below it (a path ending
  // above one found before carries only what that one left), and its
  // caller's (is a frame absent from A new?).
  std::vector<Prefix> figures;
  std::vector<std::size_t> besides(found.size(), 0);
  for (std::size_t i = 0; i < found.size(); ++i) {
    Prefix f{prefix_of(found[i].chain, found[i].chain.size()), {}};
    for (std::size_t j = 0; j < i; ++j) {
      Stack earlier = prefix_of(found[j].chain, found[j].chain.size());
      if (earlier.size() > f.prefix.size() && starts_with(earlier, f.prefix)) {
        f.except.push_back(std::move(earlier));
        ++besides[i];
      }
    }
    Prefix caller{prefix_of(found[i].chain, found[i].chain.size() - 1), f.except};
    figures.push_back(std::move(f));
    figures.push_back(std::move(caller));
  }
  auto va = per_run(a, figures, op.op), vb = per_run(b, figures, op.op);
  for (std::size_t i = 0; i < found.size(); ++i) {
    op.paths.push_back(make_path(found[i], gross[found[i].up], va[2 * i], vb[2 * i],
                                 samples_in(a, va[2 * i + 1], op.op), cfg));
    op.paths.back().besides = besides[i];
  }
}

}  // namespace fscost
