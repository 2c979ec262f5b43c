// Internal to diff_html*.cpp: escaping, table rows and the diff page's
// tables (per-operation comparisons, delta parts, functions, locks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/diff_report.h"
#include "report/html/graphs.h"

namespace fscost::html {

std::string esc(std::string_view s);

// Per operation: its explanation, metric table, delta parts and functions,
// with links to its graphs (`graphs` may be null).
void op_block(std::string& out, const Diff& d, const OpDiff& op, const std::string& id,
              const GraphSet* graphs);

// Every operation's locks in one table, insignificant rows grey.
void lock_table(std::string& out, const Diff& d);

// The whole workload's comparisons (rusage, kernel threads).
void workload_table(std::string& out, const Diff& d);

}  // namespace fscost::html
