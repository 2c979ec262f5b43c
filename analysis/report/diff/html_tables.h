// Internal to diff_html*.cpp: escaping, table rows and the diff page's
// tables (per-operation comparisons, delta parts, functions, locks).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/escape.h"  // escaped_lines: every text of the page
#include "report/diff_report.h"
#include "report/html/graphs.h"

namespace fscost::html {

// The ids of the blocks and rows other parts of the page link to (the
// verdict), unique in the page; "" where a thing has no row.
struct RowIds {
  struct Op {
    std::string block, oncpu, offcpu;  // its section; its metric table's rows
    std::vector<std::string> locks;    // per OpDiff::locks: its row of the lock table
  };
  std::vector<Op> ops;                  // per Diff::ops
  std::vector<std::string> background;  // per Diff::background: its first workload row
};
// Blocks first, so that their ids read as before rows were linked.
RowIds row_ids(const Diff& d, std::set<std::string>& used);

// Per operation: its explanation, metric table, delta parts and functions,
// with links to its graphs (`graphs` may be null).
void op_block(std::string& out, const Diff& d, const OpDiff& op, const RowIds::Op& ids,
              const GraphSet* graphs);

// Every operation's locks in one table, insignificant rows grey.
void lock_table(std::string& out, const Diff& d, const RowIds& ids);

// The whole workload's comparisons (rusage, kernel threads).
void workload_table(std::string& out, const Diff& d, const RowIds& ids);

}  // namespace fscost::html
