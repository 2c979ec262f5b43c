// Two passes along the ordered stacks, each keeping only the open path
// (the previous stack's nodes): the first sums the root's span, which sets
// the scale; the second decides at each node's end whether it is drawn
// (a node's span is at least each child's, so a drawn node's ancestors are
// drawn) and keeps the drawn ones and the pruned children of drawn ones.
// Those, put back in pre-order, are placed as Placer places them.
#include "flame/drawn.h"

#include <algorithm>
#include <cstddef>

namespace fscost::flame {

namespace {

// A node kept for the layout: drawn, or pruned right below a drawn one.
struct Kept {
  std::size_t index = 0;  // pre-order number
  std::size_t nodes = 1;  // in its subtree, itself included
  int depth = 0;
  fscost::Frame frame;
  double value = 0, span = 0;
  bool drawn = false;
};

class Pass {
 public:
  // `keep`: keep nodes for the layout at `scale` px per value.
  Pass(bool keep, double scale, double min_px) : keep_(keep), scale_(scale), min_px_(min_px) {
    path_.push_back(Open{fscost::Frame("all"), 0, 0, next_++, 1, 0});
  }

  void add(std::span<const fscost::Frame> frames, double v) {
    std::size_t common = 0;
    while (common < frames.size() && common + 1 < path_.size() &&
           path_[common + 1].frame == frames[common])
      ++common;
    while (path_.size() > common + 1) close();
    for (std::size_t d = common; d < frames.size(); ++d)
      path_.push_back(Open{frames[d], 0, 0, next_++, 1, kept_.size()});
    for (Open& o : path_) o.value += v;
  }

  // Ends every node; the root's result.
  Kept finish() {
    while (path_.size() > 1) close();
    return end(path_.back(), 0);
  }
  std::vector<Kept>& kept() { return kept_; }

 private:
  struct Open {
    fscost::Frame frame;
    double value = 0;     // inclusive: every stack below added in order
    double children = 0;  // the children's spans added in order
    std::size_t index = 0, nodes = 1;
    std::size_t mark = 0;  // kept_.size() when opened
  };

  Kept end(const Open& o, int depth) {
    Kept k{o.index, o.nodes, depth, o.frame, o.value, std::max(o.value, o.children), false};
    k.drawn = !(k.span * scale_ < min_px_ || k.span <= 0);
    return k;
  }

  void close() {
    const int depth = static_cast<int>(path_.size()) - 1;
    Kept k = end(path_.back(), depth);
    const std::size_t mark = path_.back().mark;
    path_.pop_back();
    path_.back().children += k.span;
    path_.back().nodes += k.nodes;
    if (!keep_) return;
    if (!k.drawn) kept_.resize(mark);  // its subtree is pruned with it
    kept_.push_back(k);
  }

  bool keep_;
  double scale_, min_px_;
  std::vector<Open> path_;  // [0] is "all"
  std::size_t next_ = 0;    // pre-order numbers given so far
  std::vector<Kept> kept_;
};

}  // namespace

DrawnGraph drawn_graph(const OrderedStacks& stacks, double avail_px, double min_px) {
  DrawnGraph g;
  Layout& lay = g.lay;
  Pass first(false, 0, min_px);
  stacks([&](std::span<const fscost::Frame> f, double v) { first.add(f, v); });
  const Kept all = first.finish();
  lay.nodes = all.nodes;
  lay.total = all.span;
  require_drawable(lay.total, "the values");  // as layout() does
  if (lay.total <= 0) return g;
  const double scale = avail_px / lay.total;
  Pass second(true, scale, min_px);
  stacks([&](std::span<const fscost::Frame> f, double v) { second.add(f, v); });
  std::vector<Kept>& kept = second.kept();
  const Kept root = second.finish();
  if (!root.drawn) {  // narrower than min_px itself: nothing drawn
    lay.pruned_frames = root.nodes;
    lay.pruned_span = root.span;
    return g;
  }
  kept.push_back(root);
  std::sort(kept.begin(), kept.end(),
            [](const Kept& a, const Kept& b) { return a.index < b.index; });

  std::size_t drawn = 0;
  for (const Kept& k : kept) drawn += k.drawn;
  g.nodes.reserve(drawn);  // lay.frames point into it
  KeptPlacer placer(lay, scale);
  for (const Kept& k : kept) {
    const FlameNode* node = k.drawn ? &g.nodes.emplace_back(FlameNode{k.frame, k.value, 0, {}})
                                    : nullptr;
    placer.place(k.index, k.nodes, k.depth, k.span, k.drawn, node);
  }
  return g;
}

void KeptPlacer::place(std::size_t index, std::size_t nodes, int depth, double span, bool drawn,
                       const FlameNode* node) {
  const auto d = static_cast<std::size_t>(depth);
  const std::size_t parent = d == 0 ? kNoParent : frame_at_[d - 1];
  const double at = d == 0 ? 0 : x_[d - 1];
  if (d > 0) x_[d - 1] += span * scale_;
  if (!drawn) {
    lay_.pruned_frames += nodes;
    lay_.pruned_span += span;
    return;
  }
  if (x_.size() <= d) {
    x_.resize(d + 1);
    frame_at_.resize(d + 1);
  }
  x_[d] = at;
  frame_at_[d] = lay_.frames.size();
  lay_.frames.push_back({node, index, parent, depth, at, span * scale_, span});
  lay_.max_depth = std::max(lay_.max_depth, depth);
}

}  // namespace fscost::flame
