// Flame graph layout: which frames are drawn, where, and how many were too
// narrow to draw. Internal to the flame graph renderers.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "flame/flamegraph.h"

namespace fscost::flame {

inline constexpr std::size_t kNoParent = std::numeric_limits<std::size_t>::max();

struct Frame {
  const FlameNode* node = nullptr;
  std::size_t index = 0;           // the node's pre-order number in the whole tree
  std::size_t parent = kNoParent;  // index into Layout::frames
  int depth = 0;                   // 0 = "all"
  double x = 0;                    // px from the left edge of the frame area
  double w = 0;                    // px
  double span = 0;                 // the value the width stands for
};

struct Layout {
  std::vector<Frame> frames;  // pre-order: every parent before its children
  std::size_t nodes = 0;      // in the whole tree, drawn or not (Frame::index < nodes)
  int max_depth = 0;
  double total = 0;               // span of the root
  std::size_t pruned_frames = 0;  // frames not drawn (whole subtrees)
  double pruned_span = 0;         // their share of `total`, in value units
};

struct Span {
  double span = 0;
  std::size_t subtree = 1;  // nodes in the subtree, itself included
};
using Spans = std::vector<Span>;  // by the node's pre-order number

// The smallest total a graph is drawn at: scaling a total below it to a
// width (avail_px / total) could overflow to infinity, and the widths
// and positions with it (a folded count of 5e-324 did; an infinite width
// cast to a character count is undefined).
inline constexpr double kMinTotal = 1e-300;

// Throws UserError unless values that add up to `total` can be drawn:
// `total` is finite (folded counts of 1e308 add up to infinity), and 0 or
// at least kMinTotal. `what` names them in the message ("the values", "A's
// values").
void require_drawable(double total, std::string_view what);

// Each node's span: `width(n)` is the value that sets n's width; a frame
// spans max(width(n), sum of its children's spans), so children always fit
// under their parent (a diff can borrow the other side's width for a
// vanished path). It does not depend on the drawing's size, so a graph
// shrunk to a size budget measures once.
Spans measure(const FlameNode& root, const std::function<double(const FlameNode&)>& width);

// The frames `avail_px` wide at `spans` (measure(root, ...)). Frames
// narrower than `min_px` are pruned with their subtrees. Throws as
// require_drawable does for the root's span.
Layout layout(const FlameNode& root, const Spans& spans, double avail_px, double min_px);

// layout(root, measure(root, width), avail_px, min_px).
Layout layout(const FlameNode& root, const std::function<double(const FlameNode&)>& width,
              double avail_px, double min_px);

}  // namespace fscost::flame
