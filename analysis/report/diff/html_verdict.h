// Internal to report/diff/html.cpp: the verdict the diff page opens on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/diff/html_tables.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"
#include "report/html/graphs.h"

namespace fscost::html {

// Where the verdict's marked words lead: the page's rows (RowIds, per op
// and lock and kernel thread) and each op's differential flame graphs; ""
// is no link.
struct VerdictTargets {
  const RowIds* rows = nullptr;
  struct Graphs {
    std::string oncpu, offcpu;
  };
  std::vector<Graphs> graphs;  // per Diff::ops
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
