// Internal to html_report.cpp: the flame graphs of the HTML report, chosen,
// rendered within the page's size budget and made ready to inline.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "html_report.h"
#include "profile.h"

namespace fscost::html {

struct Graph {
  std::string view;         // oncpu, offcpu, locks
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

}  // namespace fscost::html
