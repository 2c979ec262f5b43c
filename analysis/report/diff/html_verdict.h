// Internal to report/diff/html.cpp: the verdict the diff page opens on.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/diff/html_tables.h"
#include "report/diff_report.h"
#include "report/html/graphs.h"

namespace fscost::html {

// Where the verdict's names lead: ids in the page ("" = no link).
struct VerdictTargets {
  using Named = std::pair<std::string, std::string>;  // name, id
  struct Op {
    std::string name;
    std::string oncpu_row, offcpu_row;      // its metric table's rows
    std::string oncpu_graph, offcpu_graph;  // its differential flame graphs
    std::vector<Named> locks;               // its rows of the lock table
  };
  std::vector<Op> ops;
  std::vector<Named> buckets;  // kernel threads: their first workload row
};

VerdictTargets verdict_targets(const Diff& d, const RowIds& rows,
                               const std::vector<GraphSet>& graphs);

// `text`, the first screen of summary.txt (diff_text::first_screen), as the
// block <div id="verdict">: a paragraph per run of lines between blank
// lines, each line as it is. A line starting "OP: " links OP to its metric
// row and the "on-CPU"/"off-CPU" figure after it to its graph; the op's
// lock names and the kernel threads' names link to their rows.
void verdict_block(std::string& out, std::string_view text, const VerdictTargets& to);

}  // namespace fscost::html
