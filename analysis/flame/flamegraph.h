// Flame graphs and differential flame graphs as self-contained SVG
// (docs/FLAMEGRAPH.md).
//
// Stages: stacks (FlameInput, from a profile or parsed folded text) →
// merged tree (FlameNode) → laid-out frames → SVG with the inline script and
// style of analysis/assets/flamegraph.{js,css}, embedded at build time. Every
// stage is a pure function; the SVG needs no network and no other file, and
// can be inlined into HTML (ids and CSS are prefixed "fg-"; script state is
// per <svg>).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/folded.h"
#include "model/profile.h"
#include "views/stacks.h"  // FlameInput
#include "views/view.h"

namespace fscost {

// Merged tree. `value` is inclusive (the frame and everything above it);
// for a diff tree `value` is A and `value_b` is B. Children are sorted by
// name, as FlameGraph sorts them. The root is the synthetic frame "all".
struct FlameNode {
  Frame name;  // interned: a tree of millions of nodes copies no text
  double value = 0;
  double value_b = 0;
  std::vector<FlameNode> children;
};

// The stacks of `view` (views/stacks.h; `render_folded` prints the same):
// op name, "[user]", "[kernel]", "[kthread:NAME]" roots.
// `op` keeps only that operation's stacks. `per_op` divides each op root's
// stacks by the op's count (cost per operation, the normalisation a diff
// needs) and leaves out roots that are not operations or have no completed
// operations (listed in `skipped`).
FlameInput flame_input(const Profile& p, View view, const std::optional<std::string>& op,
                       bool per_op);

// Cost per operation in time, for comparing profiles: flame_input with
// per_op, on-CPU samples turned into ns at the profile's own sampling rate
// (as the diff page's mean stacks), so a differential graph reads in ns/op
// like the diff page and profiles sampled at different rates compare.
// nullopt for on-CPU stacks of a profile without a sampling rate.
std::optional<FlameInput> flame_input_ns_per_op(const Profile& p, View view,
                                                const std::optional<std::string>& op);

// The unit of flame_input's values: "samples" or "ns", plus "/op" with
// per_op.
std::string flame_unit(View view, bool per_op);

struct SvgOptions {
  std::string title = "Flame Graph";
  std::string subtitle;          // configuration and run metadata; may be empty
  std::string unit = "samples";  // "samples", "ns", "ns/op", "samples/op", ...
  bool icicle = false;           // root at the top, stacks grow down
  double min_width_px = 0.1;     // narrower frames are pruned (and counted in the SVG)
  int width = 1200;              // px
};

// Title (view, --op, per op), subtitle (command, host, kernel, CPUs, sample
// rate, duration, fscost version) and unit for a graph of `p`; callers may
// still change any field.
SvgOptions flame_svg_options(const Profile& p, View view,
                             const std::optional<std::string>& op, bool per_op);

// Folded stacks as parse_folded (io/folded.h) read them, frames kept as
// they are; `column` 1 takes the second count of the two-column (diff) form.
FlameInput flame_input(const FoldedStacks& folded, int column = 0);
// The same from parse_folded_interned: its frames are interned already.
FlameInput flame_input(const InternedFolded& folded, int column = 0);

// Merged trees; see FlameNode.
FlameNode flame_tree(const FlameInput& in);
FlameNode flame_diff_tree(const FlameInput& a, const FlameInput& b);

// A merged tree and the roots left out of it (FlameInput::skipped).
struct FlameTree {
  FlameNode root{"all"};
  std::vector<std::string> skipped;
};

// The same trees straight from profiles' interned stacks, with no
// FlameInput in between (no stack joined, copied or sorted), equal bit for
// bit to the trees of the FlameInputs:
//   flame_tree(p, ...)                = flame_tree(flame_input(p, ...)), its skipped
//   flame_diff_tree(a, b, ...)        = of flame_input(a, ...) and flame_input(b, ...)
//   flame_diff_tree_ns_per_op(a, b, ...) = of flame_input_ns_per_op of each; nullopt
//                                          where either is nullopt
FlameTree flame_tree(const Profile& p, View view, const std::optional<std::string>& op,
                     bool per_op);
FlameNode flame_diff_tree(const Profile& a, const Profile& b, View view,
                          const std::optional<std::string>& op, bool per_op);
std::optional<FlameNode> flame_diff_tree_ns_per_op(const Profile& a, const Profile& b, View view,
                                                   const std::optional<std::string>& op);

// The flame graph: click to zoom, regex search with the matched share,
// tooltips with the value in opt.unit, its share of the total and of its
// root (the op). Colours hash the name within a palette per kind of frame.
// Under the title: the subtitle, roots `in.skipped` lists, and how many
// frames pruning hid. No stacks (or none > 0): a valid SVG saying "no
// samples".
std::string render_svg(const FlameInput& in, const SvgOptions& opt);
// The same from a merged tree (flame_tree).
std::string render_tree_svg(const FlameTree& tree, const SvgOptions& opt);
// render_tree_svg(flame_tree(p, view, op, per_op), opt), byte for byte,
// without the merged tree: only the frames drawn are made, so a profile
// whose stacks share few frames costs its stacks, not its tree's nodes.
std::string render_profile_svg(const Profile& p, View view, const std::optional<std::string>& op,
                               bool per_op, const SvgOptions& opt);

// The one-column folded stacks' graph, byte for byte render_tree_svg of
// {flame_tree(in), in.skipped} with in = flame_input(folded) keeping, when
// `root` is set, only the stacks whose first frame is *root (flamegraph
// --op): only the drawn frames are made, as render_profile_svg.
std::string render_folded_svg(const InternedFolded& folded, const std::optional<std::string>& root,
                              const SvgOptions& opt);

// Which profile's value sets a frame's width in a diff. Frames with no value
// on the chosen side (gone in B with B, new in B with A) keep the other
// side's width and are drawn hatched, so no path is silently absent.
enum class DiffWidth { B, A, Max };
// What colours a diff frame: its inclusive delta (the frame and everything
// above it) or its self delta (the frame as a leaf).
enum class DiffColor { Inclusive, Self };

struct DiffOptions {
  SvgOptions svg;
  DiffWidth width = DiffWidth::B;
  DiffColor color = DiffColor::Inclusive;
  // Significance hook: given a frame's path (root first, "all" excluded;
  // empty for "all" itself), false draws it grey ("not significant"), true
  // or nullopt colours it by its delta. Unset = every frame coloured. Asked
  // once per drawn frame; the views are valid during the call only.
  std::function<std::optional<bool>(std::span<const std::string_view> path)> significant;
};

// Red = more in B, blue = less, intensity |Δ| / max |Δ| over the drawn
// frames; a legend under the title says so. A frame spans its width plus
// any hatched paths above it. Tooltips give A, B, Δ and Δ% in svg.unit.
// Normalise before calling (flame_input with per_op = true: cost per
// operation, so a run that did more operations is not "slower" for it).
std::string render_diff_svg(const FlameInput& a, const FlameInput& b, const DiffOptions& opt);
// The same from a merged diff tree (flame_diff_tree).
std::string render_diff_svg(const FlameNode& tree, const DiffOptions& opt);

// A differential graph's stacks in tree order, A's and B's together (as
// flame_diff_tree merges them: frames in name order, a stack before those
// it is a prefix of): each value is A's (`b` false) or B's, and each
// side's values add up in the order they come. Called twice.
using DiffStackSink = std::function<void(std::span<const Frame>, double, bool b)>;
using OrderedDiffStacks = std::function<void(const DiffStackSink& add)>;

// A differential flame graph drawn more than once, at growing pruning
// widths (a page's size budget): the frames drawable at
// opt.svg.min_width_px, each one's tooltip and its significance are made
// once; from stacks, no other node of the merged tree is made. render(px)
// is render_diff_svg with opt.svg.min_width_px = px, for any px from
// opt.svg.min_width_px up (narrower throws std::invalid_argument); size(px)
// is render(px).size(), measured from the layout without drawing. `a`, `b`
// and `tree` need not outlive the object. One thread at a time.
class DiffGraph {
 public:
  DiffGraph(const FlameInput& a, const FlameInput& b, DiffOptions opt);
  // DiffGraph(flame_input(a, column_a), flame_input(b, column_b), opt),
  // less the stacks whose first frame is not *root when `root` is set,
  // without copying a stack (flamegraph --diff of folded files).
  DiffGraph(const InternedFolded& a, int column_a, const InternedFolded& b, int column_b,
            const std::optional<std::string>& root, DiffOptions opt);
  // From a merged diff tree (flame_diff_tree).
  DiffGraph(const FlameNode& tree, DiffOptions opt);
  // From the stacks of a merged diff tree, in its order.
  DiffGraph(const OrderedDiffStacks& stacks, DiffOptions opt);
  // Moving is cheap; copying is not needed.
  ~DiffGraph();
  DiffGraph(DiffGraph&&) noexcept;
  DiffGraph& operator=(DiffGraph&&) noexcept;
  DiffGraph(const DiffGraph&) = delete;
  DiffGraph& operator=(const DiffGraph&) = delete;
  std::string render(double min_width_px);
  std::size_t size(double min_width_px);

 private:
  // The stacks merged, A's (the first `split`) then B's.
  struct Stacks {
    std::vector<const Stack*> frames;
    std::vector<double> values;
    std::size_t split = 0;
  };
  DiffGraph(const Stacks& st, DiffOptions opt);

  class Impl;
  std::unique_ptr<Impl> impl_;
};

// DiffGraph(flame_diff_tree(a, b, view, op, per_op), opt), and
// DiffGraph(*flame_diff_tree_ns_per_op(a, b, view, op), opt) where that
// tree is not nullopt, drawing the same, from each side's stacks in tree
// order: no node of the merged tree is made but those drawn.
DiffGraph diff_graph(const Profile& a, const Profile& b, View view,
                     const std::optional<std::string>& op, bool per_op, DiffOptions opt);
std::optional<DiffGraph> diff_graph_ns_per_op(const Profile& a, const Profile& b, View view,
                                              const std::optional<std::string>& op,
                                              DiffOptions opt);

// What FlameGraph's difffolded.pl prints for the two folded files: one
// "stack valueA valueB" line per stack present in either (0 where missing;
// repeated stacks summed), sorted by stack.
std::string diff_folded(const FlameInput& a, const FlameInput& b);

}  // namespace fscost
