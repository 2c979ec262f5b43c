// Internal to report/diff/html.cpp: the differential flame graphs of the diff page.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/diff_report.h"
#include "report/html/graphs.h"

namespace fscost::html {

// One set per operation of `d` (in its order), one graph per view with
// stacks on either side: render_diff_svg of the views' mean stacks per
// operation (mean_flame_input), frames grey where the diff found the
// change not significant (significance below). Drawn within
// opt.max_bytes, ids unique in `ids`.
std::vector<GraphSet> diff_graph_sets(const Diff& d, const RunSet& a, const RunSet& b,
                                      const DiffHtmlOptions& opt, std::set<std::string>& ids);

// DiffOptions::significant for `view`'s graph of `op`: whether the frame
// at a path (root first) is a significant change. On-CPU: the op root by
// its on-CPU comparison, a function by its inclusive FunctionDiff.
// Off-CPU: the root by the op's off-CPU comparison, everything under a
// "[class]" frame by that wait class. Locks: the root by the op's spin and
// sleep, everything under a lock's frame by that lock's wait. nullopt
// (coloured) where the diff has no comparison for the frame, or too few
// runs to test one. The hook refers to `op`, which must outlive it.
std::function<std::optional<bool>(std::span<const std::string_view>)> significance_hook(
    const OpDiff& op, View view);

}  // namespace fscost::html
