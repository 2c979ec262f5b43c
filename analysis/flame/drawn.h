// A single flame graph laid out straight from its stacks, without the
// merged tree: a profile of 100k stacks that share few frames (random
// walks) merges into ~2.5M nodes, of which ~10k can be drawn, and making a
// FlameNode (and its children vector) for each was most of `fscost
// flamegraph` (issue 41: malloc and page faults). Internal to the flame
// graph renderers.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "flame/layout.h"

namespace fscost::flame {

// The drawn frames' nodes (no children) and their layout; lay.frames
// point into nodes. Moving keeps the pointers (the vector's buffer moves).
struct DrawnGraph {
  std::vector<FlameNode> nodes;
  Layout lay;
};

// Calls add(frames, value) for each stack in tree order: frames in name
// order, a stack before those it is a prefix of; a stack may repeat, its
// values then add in that order. Called twice.
using StackSink = std::function<void(std::span<const fscost::Frame>, double)>;
using OrderedStacks = std::function<void(const StackSink& add)>;

// layout(flame_tree(stacks), value, avail_px, min_px), equal bit for bit
// (every value, span, position and pruned count), with nodes made only
// for the frames drawn: each node's value, span and subtree size are
// summed along the stacks in order, as merge() and measure() sum them.
DrawnGraph drawn_graph(const OrderedStacks& stacks, double avail_px, double min_px);

// Lays out kept frames, given in pre-order (frames drawn and the pruned
// children of drawn ones), as layout() places the whole tree: a pruned
// frame counts its subtree and moves its siblings along.
class KeptPlacer {
 public:
  KeptPlacer(Layout& lay, double scale) : lay_(lay), scale_(scale) {}
  // `node` is what the frame shows; unused when pruned.
  void place(std::size_t index, std::size_t nodes, int depth, double span, bool drawn,
             const FlameNode* node);

 private:
  Layout& lay_;
  double scale_;
  std::vector<double> x_;             // by depth: where the next child starts
  std::vector<std::size_t> frame_at_;  // by depth: the drawn frame there
};

// The order in which flame_tree(FlameInput) merges `stacks` (given in
// input order, values > 0 only): indexes into `stacks`, in tree order, equal
// stacks in the order merge() adds them, so sums along it are merge()'s.
std::vector<std::size_t> tree_order(std::span<const fscost::Stack* const> stacks);

using fscost::DiffStackSink;
using fscost::OrderedDiffStacks;

// The frames of a differential graph drawable at `min_px` or wider, and
// the pruned children of those (each standing for its whole subtree):
// what DiffGraph draws, at any pruning width from min_px up.
struct DrawnDiff {
  struct Kept {
    std::size_t index = 0;  // pre-order number in the whole merged tree
    std::size_t nodes = 1;  // in its subtree, itself included
    int depth = 0;
    double span = 0;
    double self_delta = 0;  // B − A less each child's B − A, in child order
  };
  std::vector<FlameNode> frames;  // by position in `kept`; no children
  std::vector<Kept> kept;         // pre-order
  std::size_t nodes = 0;          // in the whole merged tree
  double value = 0, value_b = 0;  // the root's A and B
  double total = 0;               // the root's span
  double min_px = 0;              // the narrowest pruning width it can draw
};

// What sets a frame's width from its A and B values (DiffOptions::width).
using DiffWidthOf = double (*)(double a, double b);

// The drawable frames of the merged tree of `stacks`, `avail_px` wide:
// values, spans and self deltas equal bit for bit to the tree's (each
// summed along the stacks in the order merge() and measure() sum them),
// with a node made only for what is kept. Throws as the tree's drawing
// does: A's values, B's values, then the spans not drawable.
DrawnDiff drawn_diff(const OrderedDiffStacks& stacks, DiffWidthOf width, double avail_px,
                     double min_px);
// The same from a merged tree (flame_diff_tree).
DrawnDiff drawn_diff(const FlameNode& tree, DiffWidthOf width, double avail_px, double min_px);

// layout() of the whole tree at `min_px` (at least g.min_px), from the
// kept frames alone: the same frames, positions and pruned counts.
Layout place(const DrawnDiff& g, double avail_px, double min_px);

// The order in which flame_diff_tree(a, b) merges `stacks`: A's (the first
// `split`, each value > 0) then B's, as tree_order for both sides.
std::vector<std::size_t> tree_order(std::span<const fscost::Stack* const> stacks,
                                    std::size_t split);

// A single graph's SVG from its layout (render_tree_svg after layout).
std::string render_layout_svg(const Layout& lay, const std::vector<std::string>& skipped,
                              const SvgOptions& opt);

}  // namespace fscost::flame
