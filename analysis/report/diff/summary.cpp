// summary.txt, what a mail holds: the first screen, and below its line what
// a reviewer checks it against — the setup, the method, the filesystems'
// differences, the whole workload, the tables of the ops the first screen
// names, every warning in full — in at most kSummaryLines lines. Its last
// line names the file with everything (render_diff_text: every op's
// explanation and tables, every kernel thread).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/diff/text_parts.h"
#include "report/diff_report.h"

namespace fscost {

namespace {

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

}  // namespace

std::string render_diff_first_screen(const Diff& d, std::size_t width) {
  return diff_text::first_screen(d, width);
}

std::string render_diff_summary(const Diff& d, std::size_t width, std::string_view details,
                                std::string_view everything) {
  using diff_text::Page;
  Page page;
  page.width = width;
  page.out = diff_text::first_screen(d, width);
  page.line(std::string(width, '-'));
  page.out += details;
  page.blank();
  diff_text::method(page, d);
  page.blank();
  diff_text::setup_section(page, d);
  page.blank();
  diff_text::whole_workload(page, d);

  // Then what fits of: the shown ops' tables, in the first screen's order,
  // and the warnings in full; what does not is in `everything`.
  std::vector<std::pair<std::string, std::string>> parts;  // name, text
  for (const auto& op : d.ops)
    if (on_first_screen(op)) {
      Page t;
      t.width = width;
      diff_text::op_tables(t, d, op);
      t.blank();
      parts.emplace_back(op.op + "'s table", std::move(t.out));
    }
  if (!d.warnings.empty()) {
    Page w;
    w.width = width;
    diff_text::warnings(w, d);
    parts.emplace_back("the warnings in full", w.out.substr(1));  // after a table's blank line
  }
  std::vector<std::string> left_out;
  for (const auto& [name, text] : parts) {
    if (lines(page.out) + lines(text) + 4 > diff_text::kSummaryLines) {
      left_out.push_back(name);
      continue;
    }
    page.out += text;
  }
  if (!left_out.empty())
    page.para(fmt::format("Not here for length: {}; in {}.", fmt::join(left_out, ", "), everything));
  page.blank();
  page.para(fmt::format("Every operation, kernel thread and lock: {}.", everything));
  return page.out;
}

}  // namespace fscost
