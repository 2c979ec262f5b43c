// Internal to the HTML pages (report/profile/html.cpp, report/diff/html*.cpp): the flame
// graphs of the report, chosen, rendered within the page's size budget and
// made ready to inline.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report/html_report.h"
#include "model/profile.h"
#include "views/view.h"

namespace fscost::html {

struct Graph {
  View view = View::OnCpu;
  std::string id;           // anchor of its panel
  std::string svg;          // ready to inline
  double min_width_px = 0;  // the pruning it was drawn with
};

// The graphs of all operations together, or of one operation.
struct GraphSet {
  std::string id;
  std::string heading;
  std::optional<std::string> op;
  std::vector<Graph> graphs;
};

// An id made of `base`'s [A-Za-z0-9_-] (others become '-'), unique in
// `used`, which it joins.
std::string unique_id(std::string_view base, std::set<std::string>& used);

// The combined set, then one per operation in `ops` (with per_op_graphs);
// views without stacks get no graph, sets without graphs are left out.
// With max_bytes, a graph over its share of what is left of the budget
// (smallest graphs first) is drawn again with twice the min width, up to
// kMaxMinWidthPx; its header says what went.
std::vector<GraphSet> graph_sets(const Profile& p, const HtmlOptions& opt,
                                 const std::vector<std::string>& ops, std::set<std::string>& ids);

inline constexpr double kMaxMinWidthPx = 6.4;


// The set of operation `op`, or null.
const GraphSet* set_of(const std::vector<GraphSet>& sets, const std::string& op);

// Each set as a heading, a tab per view and the inline graphs in panels
// (the page's script switches the tabs).
void graph_panels(std::string& out, const std::vector<GraphSet>& sets);

using DrawFn = std::function<std::string(std::size_t, double)>;
using SizeFn = std::function<std::size_t(std::size_t, double)>;

// Graphs drawn within max_bytes (0 = no budget): draw(i, px) renders graph
// i pruning frames narrower than px (called for different i from several
// threads at once); min_width[i] is the pruning asked for
// and, on return, the one it was drawn with. Small graphs first, each
// within an equal share of what is left (so what they do not use goes to
// the large ones); a graph over its share is drawn again with twice the min
// width, up to kMaxMinWidthPx. With `size` (draw(i, px).size() exactly,
// but cheaper) the candidate widths are only measured and each graph is
// drawn once.
std::vector<std::string> draw_within(std::vector<double>& min_width, const DrawFn& draw,
                                     std::size_t max_bytes, const SizeFn& size = {});

// Where a planned graph goes, and the pruning it asks for.
struct GraphSlot {
  GraphSet* set = nullptr;
  View view;
  std::string id;
  double min_width_px = 0;
};

// Draws slot i's graph with draw(i, px) within max_bytes (draw_within,
// `size` as there), puts each into its set ready to inline, and leaves out
// the sets that got no graph.
void place_graphs(std::vector<GraphSet>& sets, const std::vector<GraphSlot>& slots,
                  const DrawFn& draw, std::size_t max_bytes, const SizeFn& size = {});

// A standalone SVG made fit to inline as graph number `n` of a page: no XML
// prolog, and its <defs> ids (and the url(#...) references to them, in the
// head and in diff frames' fills) prefixed per graph, since a url(#id)
// resolves to the first such id in the page, which may sit in a hidden tab.
std::string inline_svg(std::string svg, std::size_t n);

}  // namespace fscost::html
