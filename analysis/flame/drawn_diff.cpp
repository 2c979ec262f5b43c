// A differential graph's drawable frames straight from its stacks, as
// drawn.cpp does for one graph: two passes along the ordered stacks keep
// only the open path, the first for the root's span (the scale), the
// second for the frames drawn at min_px and the pruned children of those.
// A diff of 2 × 100k random-walk stacks merges into millions of nodes, of
// which a few thousand can be drawn; making each (a FlameNode, its
// children vector, its span and memo) was most of `fscost flamegraph
// --diff`: malloc and first-touch page faults.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "flame/drawn.h"

namespace fscost::flame {

namespace {

using Kept = DrawnDiff::Kept;

bool drawn(const Kept& k, double scale, double min_px) {
  return !(k.span * scale < min_px || k.span <= 0);  // as Placer prunes
}

class DiffPass {
 public:
  // `keep`: keep the frames drawn at `scale` px per value and `min_px`.
  DiffPass(bool keep, DiffWidthOf width, double scale, double min_px)
      : keep_(keep), width_(width), scale_(scale), min_px_(min_px) {
    open(fscost::Frame("all"));
  }

  void add(std::span<const fscost::Frame> frames, double v, bool b) {
    std::size_t common = 0;
    while (common < frames.size() && common + 1 < path_.size() &&
           path_[common + 1].frame == frames[common])
      ++common;
    while (path_.size() > common + 1) close();
    for (std::size_t d = common; d < frames.size(); ++d) open(frames[d]);
    for (Open& o : path_) (b ? o.value_b : o.value) += v;
  }

  // Ends every node; fills g's totals and, when keeping, its frames.
  void finish(DrawnDiff& g) {
    while (path_.size() > 1) close();
    const Kept root = end(0);
    g.nodes = root.nodes;
    g.total = root.span;
    g.value = path_[0].value;
    g.value_b = path_[0].value_b;
    if (!keep_) return;
    if (drawn(root, scale_, min_px_)) {
      kept_.push_back(root);
      frames_.push_back(FlameNode{path_[0].frame, g.value, g.value_b, {}});
    } else {  // narrower than min_px itself: nothing drawn
      kept_.clear();
      frames_.clear();
    }
    // Kept in post-order; drawn in pre-order. The pre-order numbers are
    // distinct and below next_: where most nodes are kept, each goes to its
    // own slot (a sort of them was a tenth of a small diff's instructions).
    std::vector<std::size_t> order;
    order.reserve(kept_.size());
    if (4 * kept_.size() >= next_) {
      constexpr std::size_t kFree = SIZE_MAX;
      std::vector<std::size_t> slot(next_, kFree);
      for (std::size_t i = 0; i < kept_.size(); ++i) slot[kept_[i].index] = i;
      for (std::size_t i : slot)
        if (i != kFree) order.push_back(i);
    } else {
      order.resize(kept_.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(),
                [&](std::size_t x, std::size_t y) { return kept_[x].index < kept_[y].index; });
    }
    g.kept.reserve(order.size());
    g.frames.reserve(order.size());
    for (std::size_t i : order) {
      g.kept.push_back(kept_[i]);
      g.frames.push_back(std::move(frames_[i]));
    }
  }

 private:
  struct Open {
    fscost::Frame frame;
    double value = 0, value_b = 0;  // inclusive: every stack below added in order
    double children = 0;            // the children's spans added in order
    std::size_t index = 0, nodes = 1;
    std::size_t mark = 0;  // kept_.size() when opened
  };

  void open(const fscost::Frame& f) {
    const std::size_t depth = path_.size();
    path_.push_back(Open{f, 0, 0, 0, next_++, 1, kept_.size()});
    if (deltas_.size() <= depth) deltas_.resize(depth + 1);
    deltas_[depth].clear();
  }

  // The top of path_, at `depth`, as kept.
  Kept end(std::size_t depth) const {
    const Open& o = path_.back();
    Kept k{o.index, o.nodes, static_cast<int>(depth),
           std::max(width_(o.value, o.value_b), o.children), o.value_b - o.value};
    for (double c : deltas_[depth]) k.self_delta -= c;  // as DiffColor::Self subtracts
    return k;
  }

  void close() {
    const std::size_t depth = path_.size() - 1;
    const Kept k = end(depth);
    const Open o = path_.back();
    path_.pop_back();
    path_.back().children += k.span;
    path_.back().nodes += k.nodes;
    deltas_[depth - 1].push_back(o.value_b - o.value);
    if (!keep_) return;
    if (!drawn(k, scale_, min_px_)) {  // its subtree is pruned with it
      kept_.resize(o.mark);
      frames_.resize(o.mark);
    }
    kept_.push_back(k);
    frames_.push_back(FlameNode{o.frame, o.value, o.value_b, {}});
  }

  bool keep_;
  DiffWidthOf width_;
  double scale_, min_px_;
  std::vector<Open> path_;                   // [0] is "all"
  std::vector<std::vector<double>> deltas_;  // by depth: the open node's children's B − A
  std::size_t next_ = 0;                     // pre-order numbers given so far
  std::vector<Kept> kept_;                   // post-order
  std::vector<FlameNode> frames_;            // by position in kept_
};

// The root's values checked as DiffGraph checks the tree's, then its span
// as layout() checks it.
void require_totals(const DrawnDiff& g) {
  require_drawable(g.value, "A's values");
  require_drawable(g.value_b, "B's values");
  require_drawable(g.total, "the values");
}

// A merged tree's kept frames, in pre-order.
class TreeWalk {
 public:
  TreeWalk(DrawnDiff& g, const Spans& spans, double scale, double min_px)
      : g_(g), spans_(spans), scale_(scale), min_px_(min_px) {}

  void walk(const FlameNode& n, int depth) {
    const Span s = spans_[next_];
    double self = n.value_b - n.value;
    for (const auto& c : n.children) self -= c.value_b - c.value;
    const Kept k{next_, s.subtree, depth, s.span, self};
    g_.kept.push_back(k);
    g_.frames.push_back(FlameNode{n.name, n.value, n.value_b, {}});
    if (!drawn(k, scale_, min_px_)) {
      next_ += s.subtree;
      return;
    }
    ++next_;
    for (const auto& c : n.children) walk(c, depth + 1);
  }

 private:
  DrawnDiff& g_;
  const Spans& spans_;
  double scale_, min_px_;
  std::size_t next_ = 0;
};

}  // namespace

DrawnDiff drawn_diff(const OrderedDiffStacks& stacks, DiffWidthOf width, double avail_px,
                     double min_px) {
  DrawnDiff g;
  g.min_px = min_px;
  DiffPass first(false, width, 0, min_px);
  stacks([&](std::span<const fscost::Frame> f, double v, bool b) { first.add(f, v, b); });
  first.finish(g);
  require_totals(g);
  if (g.total <= 0) return g;
  DiffPass second(true, width, avail_px / g.total, min_px);
  stacks([&](std::span<const fscost::Frame> f, double v, bool b) { second.add(f, v, b); });
  second.finish(g);
  return g;
}

DrawnDiff drawn_diff(const FlameNode& tree, DiffWidthOf width, double avail_px, double min_px) {
  DrawnDiff g;
  g.min_px = min_px;
  const Spans spans =
      measure(tree, [width](const FlameNode& n) { return width(n.value, n.value_b); });
  g.nodes = spans.size();
  g.total = spans[0].span;
  g.value = tree.value;
  g.value_b = tree.value_b;
  require_totals(g);
  if (g.total <= 0) return g;
  const double scale = avail_px / g.total;
  TreeWalk(g, spans, scale, min_px).walk(tree, 0);
  if (!drawn(g.kept[0], scale, min_px)) {  // nothing drawn, as in drawn_diff's pass
    g.kept.clear();
    g.frames.clear();
  }
  return g;
}

Layout place(const DrawnDiff& g, double avail_px, double min_px) {
  Layout lay;
  lay.nodes = g.nodes;
  lay.total = g.total;
  if (g.total <= 0) return lay;
  const double scale = avail_px / g.total;
  if (g.kept.empty() || !drawn(g.kept[0], scale, min_px)) {
    lay.pruned_frames = g.nodes;
    lay.pruned_span = g.total;
    return lay;
  }
  KeptPlacer placer(lay, scale);
  std::size_t skip_to = 0;  // pre-order numbers below a frame pruned at this width
  for (std::size_t i = 0; i < g.kept.size(); ++i) {
    const Kept& k = g.kept[i];
    if (k.index < skip_to) continue;
    const bool shown = drawn(k, scale, min_px);
    if (!shown) skip_to = k.index + k.nodes;
    placer.place(k.index, k.nodes, k.depth, k.span, shown, &g.frames[i]);
  }
  return lay;
}

}  // namespace fscost::flame
