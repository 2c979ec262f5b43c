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
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>

#include "diff/delta_tree.h"
#include "diff/internal.h"
#include "flame/flamegraph.h"  // flame_diff_tree
#include "model/parallel.h"
#include "views/lock_names.h"  // spinning_lock
#include "views/stacks.h"

namespace fscost {

namespace {

constexpr std::size_t kMaxPaths = 3;
using Node = DeltaNode;

// A delta counted in the direction sought: positive when it goes that way.
double toward(double v, bool up) { return up ? v : -v; }

// What the paths found so far took out of each node, for one direction,
// and the paths' last nodes, whose subtrees went with them.
// One direction's descent state, by node id: what the paths found took out
// of each node, which subtrees went with them, and the largest delta left
// in each subtree (to steer through nodes that moved the other way).
class Descent {
 public:
  Descent(const Node& root, bool up, std::size_t nodes)
      : up_(up), taken_(nodes, 0), closed_(nodes, 0), most_(nodes, 0) {
    fill(root);
  }

  double left(const Node& n) const { return toward(n.net, up_) - taken_[n.id]; }

  // Descends from the op for one path; returns the chain (op root first)
  // and what its last node carries, and takes that out of every node on
  // the chain. A node that carries at least `floor` ends the path unless
  // one child carries `share` of it; a node that carries less (an ancestor
  // that moved the other way, or the op itself) leads to the child whose
  // subtree holds the largest delta this way.
  std::pair<std::vector<const Node*>, double> next(const Node& root, double share, double floor) {
    std::vector<const Node*> chain{&root};
    for (const Node* n = &root;;) {
      const Node* best = nullptr;
      if (n != &root && left(*n) >= floor) {
        for (const auto& k : n->kids)
          if (!closed_[k.id] && (!best || left(k) > left(*best))) best = &k;
        if (!best || left(*best) < share * left(*n)) break;  // it splits here
      } else {
        for (const auto& k : n->kids)
          if (!best || most_[k.id] > most_[best->id]) best = &k;
        if (!best || most_[best->id] < floor) return {{&root}, 0};  // nothing left this way
      }
      chain.push_back(n = best);
    }
    double moved = left(*chain.back());
    for (const Node* n : chain) taken_[n->id] += moved;
    closed_[chain.back()->id] = 1;
    // Only the chain's nodes changed: refresh their subtree maxima upward.
    for (const Node* n = chain.back(); n; n = n->up) most_[n->id] = local_most(*n);
    return {chain, moved};
  }

 private:
  double local_most(const Node& n) const {
    if (closed_[n.id]) return -HUGE_VAL;
    double m = left(n);
    for (const auto& k : n.kids) m = std::max(m, most_[k.id]);
    return m;
  }
  void fill(const Node& n) {
    for (const auto& k : n.kids) fill(k);
    most_[n.id] = local_most(n);
  }

  bool up_;
  std::vector<double> taken_;
  std::vector<char> closed_;
  std::vector<double> most_;
};

// What one figure counts: stacks under `prefix` (op root first) that are
// under none of `except` (earlier paths' frames below it, reported already).
struct Prefix {
  Stack prefix;
  std::vector<Stack> except;
};

bool starts_with(std::span<const Frame> frames, const Stack& prefix) {
  return frames.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), frames.begin());
}

// An op's figure prefixes (and their exceptions) as a trie of frames, so
// a sample is walked once, frame by frame, for all of them.
class PrefixTrie {
 public:
  explicit PrefixTrie(const std::vector<Prefix>& figures) : figures_(figures.size()) {
    nodes_.emplace_back();
    for (std::size_t i = 0; i < figures.size(); ++i) {
      nodes_[insert(figures[i].prefix)].ends.push_back({i, false});
      for (const auto& e : figures[i].except) nodes_[insert(e)].ends.push_back({i, true});
    }
  }

  // Adds `count` to each figure the stack (root, then `frames` sanitized
  // by `ff`) is under and none of whose exceptions it is under.
  void add(const Frame& root, const Stack& frames, std::uint64_t count, FoldedFrames& ff,
           std::vector<std::uint64_t>& out) {
    hit_.assign(figures_, 0);
    std::size_t at = 0;
    for (std::size_t depth = 0; at != kNone; ++depth) {
      for (const auto& [fig, except] : nodes_[at].ends)
        hit_[fig] = except ? 2 : std::max<char>(hit_[fig], 1);
      if (depth > frames.size()) break;
      at = child(at, depth == 0 ? root : ff.frame(frames[depth - 1]));
    }
    for (std::size_t i = 0; i < figures_; ++i)
      if (hit_[i] == 1) out[i] += count;
  }

 private:
  static constexpr std::size_t kNone = SIZE_MAX;
  struct Node {
    std::vector<std::pair<Frame, std::size_t>> kids;
    std::vector<std::pair<std::size_t, bool>> ends;  // (figure, is an exception)
  };
  std::size_t child(std::size_t n, const Frame& f) const {
    for (const auto& [frame, k] : nodes_[n].kids)
      if (frame == f) return k;
    return kNone;
  }
  // The node under the root that `prefix` (root frame first) ends at.
  std::size_t insert(const Stack& prefix) {
    std::size_t at = 0;
    for (const Frame& f : prefix) {
      std::size_t next = child(at, f);
      if (next == kNone) {
        next = nodes_.size();
        nodes_[at].kids.emplace_back(f, next);
        nodes_.emplace_back();
      }
      at = next;
    }
    return at;
  }

  std::size_t figures_;
  std::vector<Node> nodes_;  // [0] is the empty prefix
  std::vector<char> hit_;    // per figure: 0 no, 1 under it, 2 under an exception
};

// The figures of every op, and the ops' calls, in one run: one pass over
// the run's samples for all of them, skipping the ops with none. out[op]
// [figure] is ns/op.
std::vector<std::vector<double>> run_figures(const Profile& p, const std::vector<std::string>& ops,
                                             const std::vector<std::vector<Prefix>>& figures) {
  std::vector<std::vector<std::uint64_t>> samples(ops.size());
  std::vector<PrefixTrie> tries;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    samples[i].assign(figures[i].size(), 0);
    tries.emplace_back(figures[i]);
  }
  FoldedFrames ff;
  const std::string* last = nullptr;
  std::size_t at = ops.size();
  Frame root;
  for (const auto& s : p.samples) {
    if (s.kind != SampleKind::Op || s.count == 0) continue;
    if (!last || s.name != *last) {  // neighbouring samples mostly share their op
      last = &s.name;
      at = std::find(ops.begin(), ops.end(), s.name) - ops.begin();
      if (at < ops.size()) root = ff.root(s.kind, s.name);
    }
    if (at == ops.size() || figures[at].empty()) continue;
    tries[at].add(root, s.frames, s.count, ff, samples[at]);
  }
  std::vector<std::vector<double>> out(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    std::uint64_t count = 0;
    for (const auto& o : p.ops)
      if (o.name == ops[k]) count = o.count;
    for (auto n : samples[k])
      out[k].push_back(count ? samples_to_ns(static_cast<double>(n), p.meta.freq_hz) /
                                   static_cast<double>(count)
                             : 0);
  }
  return out;
}

// Each figure's per-run values over a side's runs (runs in parallel):
// [op][figure][run].
std::vector<std::vector<std::vector<double>>> side_figures(
    const RunSet& s, const std::vector<std::string>& ops,
    const std::vector<std::vector<Prefix>>& figures) {
  std::vector<std::vector<std::vector<double>>> by_run(s.runs.size());
  parallel_for(s.runs.size(),
               [&](std::size_t r) { by_run[r] = run_figures(s.runs[r], ops, figures); });
  std::vector<std::vector<std::vector<double>>> out(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    out[k].assign(figures[k].size(), {});
    for (std::size_t i = 0; i < figures[k].size(); ++i)
      for (const auto& run : by_run) out[k][i].push_back(run[k][i]);
  }
  return out;
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

// Each run's exposure for `op`'s sampled figures (compare_samples).
std::vector<double> exposure(const RunSet& s, const std::string& op) {
  std::vector<double> e;
  for (const Profile& p : s.runs) {
    double count = 0;
    for (const auto& o : p.ops)
      if (o.name == op) count = static_cast<double>(o.count);
    e.push_back(samples_exposure(count, p.meta.freq_hz));
  }
  return e;
}

struct Exposures {
  std::vector<double> a, b;
};

DeltaPath make_path(const Found& f, double gross, const std::vector<double>& a_runs,
                    const std::vector<double>& b_runs, const Exposures& e, const DiffConfig& cfg,
                    const DeltaTree& tree, const CrossFs& fs) {
  const Node& end = *f.chain.back();
  const bool up = f.up;
  DeltaPath p;
  Stack prefix = prefix_of(f.chain, f.chain.size());
  for (std::size_t i = 1; i < prefix.size(); ++i) p.frames.push_back(prefix[i].str());
  p.inclusive = compare_samples(a_runs, e.a, b_runs, e.b, cfg.level, cfg.alpha);
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
  if (fs) {
    // Across filesystems, a path through the own code of the side it grew
    // in is a different code path: not new code, and not more work.
    const FsCode* own = fs.grew(up);
    if (std::any_of(p.frames.begin(), p.frames.end(),
                    [&](const std::string& fr) { return is_fs_code(fr, own); })) {
      p.kind = "fs-path";
      p.fs = own->label;
      return p;
    }
  }
  // New code by the tree's marks (delta_tree.h): the path ends in or below
  // a frame the presence rule found new. Two filesystems share no code
  // below the VFS, so there the tree marks none.
  p.kind = up && tree.is_new(end) ? "new-code" : up ? "more-work" : "less-work";
  return p;
}

// One op's descent: the tree, what it found, and the figures to measure:
// its paths' frames, then the frames that may be new code (the tree's
// absent_from_a, in its order).
struct OpPaths {
  DeltaTree tree;
  std::vector<Found> found;     // chains point into tree
  double gross[2] = {0, 0};     // [up]
  std::vector<Prefix> figures;
  std::vector<std::vector<std::size_t>> besides;
};

OpPaths descend_op(const std::string& op, const FlameInput& sa, const FlameInput& sb,
                   const DiffConfig& cfg, const CrossFs& fs) {
  OpPaths o;
  o.tree = DeltaTree(flame_diff_tree(sa, sb), op);
  const Node* whole = o.tree.root();
  if (!whole) return o;
  const double floor = cfg.path_share * std::fabs(whole->net);
  double moved_dir[2] = {0, 0};  // [up]: what the paths found carry, each way
  for (bool up : {true, false}) {
    if (!(floor > 0)) break;
    Descent descent(*whole, up, o.tree.size());
    for (std::size_t i = 0; i < kMaxPaths; ++i) {
      auto [chain, moved] = descent.next(*whole, cfg.descend_share, floor);
      if (chain.size() < 2 || moved < floor) break;
      o.found.push_back({std::move(chain), moved, up});
      moved_dir[up] += moved;
    }
  }
  // The gross delta each way: the net plus what the other way took back,
  // and at least what this way's paths carry.
  for (bool up : {false, true})
    o.gross[up] = std::max(std::max(toward(whole->net, up), 0.0) + moved_dir[!up], moved_dir[up]);
  // Each path's frame, less the earlier paths below it (a path ending
  // above one found before carries only what that one left).
  o.besides.assign(o.found.size(), {});
  for (std::size_t i = 0; i < o.found.size(); ++i) {
    Prefix f{prefix_of(o.found[i].chain, o.found[i].chain.size()), {}};
    for (std::size_t j = 0; j < i; ++j) {
      Stack earlier = prefix_of(o.found[j].chain, o.found[j].chain.size());
      if (earlier.size() > f.prefix.size() && starts_with(earlier, f.prefix)) {
        f.except.push_back(std::move(earlier));
        o.besides[i].push_back(j);
      }
    }
    o.figures.push_back(std::move(f));
  }
  if (!fs)
    for (const Node* n : o.tree.absent_from_a()) {
      Prefix f;
      for (const Node* at = n; at; at = at->up) f.prefix.insert(f.prefix.begin(), at->n->name);
      o.figures.push_back(std::move(f));
    }
  return o;
}

// The presence rule (internal.h) on the frames that may be new: sampled in
// every B run, in no A run, where A's runs at B's rate (the frame's mean
// ns/op in B times A's exposure) would have had presence_floor samples,
// Bonferroni over the op's candidates.
void mark_new_code(DeltaTree& tree, std::span<const std::vector<double>> a_runs,
                   std::span<const std::vector<double>> b_runs, const Exposures& e) {
  const auto& absent = tree.absent_from_a();
  const double floor = presence_floor(absent.size());
  const double exposure_a = std::accumulate(e.a.begin(), e.a.end(), 0.0);
  for (std::size_t i = 0; i < absent.size(); ++i)
    if (present_only(b_runs[i], a_runs[i], absent[i]->n->value_b * exposure_a, floor))
      tree.mark_new(*absent[i]);
}

}  // namespace

std::vector<DeltaTree> find_paths(Diff& d, const RunSet& a, const RunSet& b, const MeanStacks& sa,
                                  const MeanStacks& sb, const DiffConfig& cfg) {
  const CrossFs fs = cross_fs(d);
  std::vector<OpPaths> ops(d.ops.size());
  parallel_for(d.ops.size(), [&](std::size_t i) {
    const std::string& op = d.ops[i].op;
    ops[i] = descend_op(op, sa.get(View::OnCpu, op), sb.get(View::OnCpu, op), cfg, fs);
  });
  // The figures of every op measured in one pass over each run.
  std::vector<std::string> names;
  std::vector<std::vector<Prefix>> figures;
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    names.push_back(d.ops[i].op);
    figures.push_back(ops[i].figures);
  }
  auto va = side_figures(a, names, figures), vb = side_figures(b, names, figures);
  for (std::size_t k = 0; k < d.ops.size(); ++k) {
    OpPaths& o = ops[k];
    if (o.figures.empty()) continue;
    const Exposures e{exposure(a, d.ops[k].op), exposure(b, d.ops[k].op)};
    const std::size_t paths = o.found.size();
    if (!fs) mark_new_code(o.tree, std::span(va[k]).subspan(paths), std::span(vb[k]).subspan(paths), e);
    const std::size_t base = d.ops[k].paths.size();
    for (std::size_t i = 0; i < paths; ++i) {
      d.ops[k].paths.push_back(
          make_path(o.found[i], o.gross[o.found[i].up], va[k][i], vb[k][i], e, cfg, o.tree, fs));
      DeltaPath& path = d.ops[k].paths.back();
      for (std::size_t j : o.besides[i]) path.besides.push_back(base + j);
      // A path besides earlier ones splits into what they left: their
      // frames at this depth are not its children here.
      const Prefix& fig = o.figures[i];
      std::erase_if(path.split, [&](const auto& kid) {
        return std::any_of(fig.except.begin(), fig.except.end(), [&](const Stack& e) {
          return e.size() > fig.prefix.size() && e[fig.prefix.size()] == kid.first;
        });
      });
    }
  }
  std::vector<DeltaTree> trees;
  trees.reserve(ops.size());
  for (auto& o : ops) trees.push_back(std::move(o.tree));  // the chains are done with it
  return trees;
}

namespace {

// Figures measured run by run for the leave-one-out descents of one op:
// each figure's values in every run (A's then B's), measured once, in one
// pass over the runs for each batch of figures not seen before (the
// descents without a run mostly find the paths the full one found).
class FigureCache {
 public:
  FigureCache(const RunSet& a, const RunSet& b, std::string op) : a_(a), b_(b), op_(std::move(op)) {}

  // The values of `figures`, by figure, in every run.
  std::vector<const std::vector<double>*> values(const std::vector<Prefix>& figures) {
    std::vector<Prefix> missing;
    for (const Prefix& f : figures)
      if (!find(f) && std::ranges::none_of(missing, [&](const Prefix& m) { return same(m, f); }))
        missing.push_back(f);
    if (!missing.empty()) measure(missing);
    std::vector<const std::vector<double>*> out;
    for (const Prefix& f : figures) out.push_back(find(f));
    return out;
  }

 private:
  static bool same(const Prefix& x, const Prefix& y) {
    return x.prefix == y.prefix && x.except == y.except;
  }
  const std::vector<double>* find(const Prefix& f) const {
    for (const auto& [fig, v] : known_)
      if (same(fig, f)) return &v;
    return nullptr;
  }
  void measure(const std::vector<Prefix>& figures) {
    const std::size_t runs = a_.runs.size() + b_.runs.size();
    std::vector<std::vector<double>> by_run(runs);
    const std::vector<std::string> ops{op_};
    const std::vector<std::vector<Prefix>> figs{figures};
    parallel_for(runs, [&](std::size_t r) {
      const Profile& p = r < a_.runs.size() ? a_.runs[r] : b_.runs[r - a_.runs.size()];
      by_run[r] = std::move(run_figures(p, ops, figs)[0]);
    });
    for (std::size_t i = 0; i < figures.size(); ++i) {
      std::vector<double> v;
      for (const auto& run : by_run) v.push_back(run[i]);
      known_.emplace_back(figures[i], std::move(v));
    }
  }

  const RunSet& a_;
  const RunSet& b_;
  std::string op_;
  std::deque<std::pair<Prefix, std::vector<double>>> known_;  // stable addresses
};

// `v` (every run's, A's first) without run `skip`, split by side.
std::pair<std::vector<double>, std::vector<double>> sides_without(const std::vector<double>& v,
                                                                  std::size_t na,
                                                                  std::size_t skip) {
  std::pair<std::vector<double>, std::vector<double>> out;
  for (std::size_t r = 0; r < v.size(); ++r)
    if (r != skip) (r < na ? out.first : out.second).push_back(v[r]);
  return out;
}

}  // namespace

void paths_left_out(const Diff& d, const RunSet& a, const RunSet& b, const MeanStacks& sa,
                    const MeanStacks& sb, std::vector<Diff>& left_out) {
  const CrossFs fs = cross_fs(d);
  const std::size_t na = a.runs.size();
  for (std::size_t k = 0; k < d.ops.size(); ++k) {
    const OpDiff& op = d.ops[k];
    if (std::ranges::none_of(op.paths, [](const DeltaPath& p) { return p.inclusive.significant(); }))
      continue;
    const RunStacks runs_a(a, View::OnCpu, op.op), runs_b(b, View::OnCpu, op.op);
    std::vector<double> exposures = exposure(a, op.op);
    for (double e : exposure(b, op.op)) exposures.push_back(e);
    FigureCache cache(a, b, op.op);
    std::mutex measuring;  // the cache is shared: one batch of figures measured at a time
    // Each run left out on its own thread, each writing its own Diff.
    parallel_for(left_out.size(), [&](std::size_t skip) {
      const bool in_b = skip >= na;
      const FlameInput kept = in_b ? runs_b.mean_without(skip - na) : runs_a.mean_without(skip);
      OpPaths o = descend_op(op.op, in_b ? sa.get(View::OnCpu, op.op) : kept,
                             in_b ? kept : sb.get(View::OnCpu, op.op), d.config, fs);
      if (o.figures.empty()) return;
      std::vector<const std::vector<double>*> values;
      {
        std::lock_guard lock(measuring);
        values = cache.values(o.figures);
      }
      std::vector<std::vector<double>> va, vb;
      for (const auto* v : values) {
        auto [x, y] = sides_without(*v, na, skip);
        va.push_back(std::move(x));
        vb.push_back(std::move(y));
      }
      auto [ea, eb] = sides_without(exposures, na, skip);
      const Exposures e{std::move(ea), std::move(eb)};
      const std::size_t paths = o.found.size();
      if (!fs) mark_new_code(o.tree, std::span(va).subspan(paths), std::span(vb).subspan(paths), e);
      for (std::size_t i = 0; i < paths; ++i)
        left_out[skip].ops[k].paths.push_back(
            make_path(o.found[i], o.gross[o.found[i].up], va[i], vb[i], e, d.config, o.tree, fs));
    });
  }
}

}  // namespace fscost
