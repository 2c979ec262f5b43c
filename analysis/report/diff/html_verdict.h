// Internal to report/diff/html.cpp: the verdict the diff page opens on.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/diff/html_tables.h"
#include "report/diff/text_parts.h"
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

// The first screen of summary.txt (diff_text::first_screen_lines) as the
// block <div id="verdict">: a paragraph per run of lines between blank
// lines, each line as it is, the words its findings mark linked: an op's
// name to its metric row, its figure to its graph, a lock to its row, a
// kernel thread to its first row.
void verdict_block(std::string& out, const std::vector<diff_text::ScreenLine>& lines,
                   const VerdictTargets& to);

}  // namespace fscost::html
