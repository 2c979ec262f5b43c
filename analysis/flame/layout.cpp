// Two passes over the tree in pre-order: spans bottom-up (measure), then
// positions top-down (layout), skipping pruned subtrees by their recorded
// size.
#include "flame/layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/result.h"

namespace fscost::flame {

namespace {

void measure_node(const FlameNode& n, const std::function<double(const FlameNode&)>& width,
                  std::vector<Span>& out) {
  std::size_t me = out.size();
  out.emplace_back();
  double children = 0;
  for (const auto& c : n.children) {
    std::size_t at = out.size();
    measure_node(c, width, out);
    children += out[at].span;
  }
  out[me] = {std::max(width(n), children), out.size() - me};
}

class Placer {
 public:
  Placer(const Spans& spans, double min_px) : spans_(spans), min_px_(min_px) {}

  Layout run(const FlameNode& root, double avail_px) {
    out_.nodes = spans_.size();
    out_.total = spans_.empty() ? 0 : spans_[0].span;
    require_drawable(out_.total, "the values");
    if (out_.total <= 0) return std::move(out_);
    scale_ = avail_px / out_.total;
    place(root, kNoParent, 0, 0);
    return std::move(out_);
  }

 private:
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

  const Spans& spans_;
  double min_px_;
  double scale_ = 0;
  std::size_t next_ = 0;
  Layout out_;
};

}  // namespace

void require_drawable(double total, std::string_view what) {
  if (!std::isfinite(total))
    throw UserError(fmt::format("cannot draw the flame graph: {} add up to {}, beyond the largest "
                                "number ({:g})",
                                what, total, std::numeric_limits<double>::max()),
                    "a folded file's counts are samples or time: scale them down");
  if (total > 0 && total < kMinTotal)
    throw UserError(fmt::format("cannot draw the flame graph: {} add up to {}, below {:g}, too "
                                "small to scale to pixels",
                                what, total, kMinTotal),
                    "a folded file's counts are samples or time: scale them up");
}

Spans measure(const FlameNode& root, const std::function<double(const FlameNode&)>& width) {
  Spans out;
  measure_node(root, width, out);
  return out;
}

Layout layout(const FlameNode& root, const Spans& spans, double avail_px, double min_px) {
  return Placer(spans, min_px).run(root, avail_px);
}

Layout layout(const FlameNode& root, const std::function<double(const FlameNode&)>& width,
              double avail_px, double min_px) {
  return layout(root, measure(root, width), avail_px, min_px);
}

}  // namespace fscost::flame
