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

// The order in which flame_tree(FlameInput) merges `stacks` (given in
// input order, values > 0 only): indexes into `stacks`, in tree order, equal
// stacks in the order merge() adds them, so sums along it are merge()'s.
std::vector<std::size_t> tree_order(std::span<const fscost::Stack* const> stacks);

// A single graph's SVG from its layout (render_tree_svg after layout).
std::string render_layout_svg(const Layout& lay, const std::vector<std::string>& skipped,
                              const SvgOptions& opt);

}  // namespace fscost::flame
