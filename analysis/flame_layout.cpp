// Two passes over the tree in pre-order: spans bottom-up, then positions
// top-down, skipping pruned subtrees by their recorded size.
#include "flame_layout.h"

#include <algorithm>

namespace fscost::flame {

namespace {

struct Span {
  double span = 0;
  std::size_t subtree = 1;  // nodes in the subtree, itself included
};

class Planner {
 public:
  Planner(const std::function<double(const FlameNode&)>& width, double min_px)
      : width_(width), min_px_(min_px) {}

  Layout run(const FlameNode& root, double avail_px) {
    measure(root);
    out_.nodes = spans_.size();
    out_.total = spans_[0].span;
    if (out_.total <= 0) return std::move(out_);
    scale_ = avail_px / out_.total;
    place(root, kNoParent, 0, 0);
    return std::move(out_);
  }

 private:
  void measure(const FlameNode& n) {
    std::size_t me = spans_.size();
    spans_.emplace_back();
    double children = 0;
    for (const auto& c : n.children) {
      std::size_t at = spans_.size();
      measure(c);
      children += spans_[at].span;
    }
    spans_[me] = {std::max(width_(n), children), spans_.size() - me};
  }

  void place(const FlameNode& n, std::size_t parent, int depth, double x) {
    const Span s = spans_[next_];
    double w = s.span * scale_;
    if (w < min_px_ || s.span <= 0) {
      out_.pruned_frames += s.subtree;
      out_.pruned_span += s.span;
      next_ += s.subtree;
      return;
    }
    std::size_t me = out_.frames.size();
    out_.frames.push_back({&n, next_++, parent, depth, x, w, s.span});
    out_.max_depth = std::max(out_.max_depth, depth);
    for (const auto& c : n.children) {
      double before = spans_[next_].span;
      place(c, me, depth + 1, x);
      x += before * scale_;
    }
  }

  const std::function<double(const FlameNode&)>& width_;
  double min_px_;
  double scale_ = 0;
  std::vector<Span> spans_;
  std::size_t next_ = 0;
  Layout out_;
};

}  // namespace

Layout layout(const FlameNode& root, const std::function<double(const FlameNode&)>& width,
              double avail_px, double min_px) {
  return Planner(width, min_px).run(root, avail_px);
}

}  // namespace fscost::flame
