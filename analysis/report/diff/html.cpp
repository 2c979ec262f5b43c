// The diff as one self-contained HTML page (docs/DIFF.md), in the frame of
// the single-profile report (report/profile/html.cpp: same style, script and
// navigation): the verdict (summary.txt's first screen, linked), the
// summary with the full text explanation folded, warnings, per-operation
// tables, the lock diff, differential flame graphs, then the caller's
// sections. write_diff_outputs puts it next to the text and JSON.
#include <fmt/format.h>

#include <iterator>
#include <nlohmann/json.hpp>

#include "model/parallel.h"
#include "report/diff_report.h"
#include "report/diff/html_graphs.h"
#include "report/diff/html_tables.h"
#include "report/diff/html_verdict.h"
#include "report/diff/text_parts.h"
#include "report/html/assets.h"

namespace fscost {

namespace {

using html::GraphSet;
using html::set_of;

// Everything the page links to, with ids unique across the page.
struct Anchors {
  std::set<std::string> ids;
  html::RowIds rows;  // per operation of the diff, in its order; kernel threads
  std::vector<GraphSet> graphs;
};

void link(std::string& out, std::string_view id, std::string_view text) {
  fmt::format_to(std::back_inserter(out), "<li><a href=\"#{}\">{}</a>", id, escaped_lines(text));
}

void toc(std::string& out, const Diff& d, const Anchors& an, const DiffHtmlOptions& opt) {
  out +=
      "<nav class=\"toc\" aria-label=\"Contents\"><div class=\"brand\">fscost diff</div>\n<ul>\n";
  out += "<li><a href=\"#summary\">Summary</a></li>\n<li><a href=\"#warnings\">Warnings</a></li>\n";
  out += "<li><a href=\"#operations\">Operations</a>\n<ul>\n";
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    link(out, an.rows.ops[i].block, d.ops[i].op);
    out += "</li>\n";
  }
  out += "</ul></li>\n<li><a href=\"#locks\">Locks</a></li>\n";
  out += "<li><a href=\"#graphs\">Flame graphs</a>\n<ul>\n";
  for (const auto& s : an.graphs) {
    link(out, s.id, s.heading);
    out += "<ul>";
    for (const auto& g : s.graphs) {
      link(out, g.id, view_title(g.view));
      out += "</li>";
    }
    out += "</ul></li>\n";
  }
  out += "</ul></li>\n";
  for (const auto& s : opt.sections) {
    link(out, s.id, s.title);
    out += "</li>\n";
  }
  out += "</ul></nav>\n";
}

std::string sources(const RunSet& r) {
  std::string s = fmt::format("{} run{}", r.runs.size(), r.runs.size() == 1 ? "" : "s");
  for (const auto& src : r.sources) s += "<br><code>" + escaped_lines(src) + "</code>";
  return s;
}

// The page opens on the answer: the title, then the verdict; how it was
// reached follows, the full explanation folded.
void summary(std::string& out, const Diff& d, const RunSet& a, const RunSet& b,
             const std::string& title, const Anchors& an) {
  fmt::format_to(std::back_inserter(out), "<section id=\"summary\">\n<h1>{}</h1>\n", escaped_lines(title));
  html::verdict_block(out, diff_text::first_screen_lines(d, 72),
                      html::verdict_targets(d, an.rows, an.graphs));
  fmt::format_to(std::back_inserter(out),
                 "<dl class=\"meta\">\n"
                 "<dt>A</dt><dd>{}: {}</dd>\n<dt>B</dt><dd>{}: {}</dd>\n"
                 "<dt>Statistics</dt><dd>Welch's t per metric (sampled figures: a "
                 "quasi-Poisson test on their sample counts), Benjamini-Hochberg false "
                 "discovery rate {:g} per family ({} metrics, {} function and {} lock "
                 "comparisons), {:g}% intervals; Mann-Whitney U and "
                 "Hedges' g alongside. Grey: not significant.</dd>\n</dl>\n",
                 escaped_lines(d.label_a), sources(a), escaped_lines(d.label_b), sources(b), d.config.alpha,
                 d.families.metrics, d.families.functions, d.families.locks, 100 * d.config.level);
  out +=
      "<details class=\"explanation\">\n<summary>Full explanation</summary>\n"
      "<pre class=\"diff-text\">" +
      escaped_lines(diff_text::explanation(d, 72)) +
      "</pre>\n<p class=\"note\">As in <code>summary.txt</code> below its first screen, "
      "which adds the tables below in plain text, ready for a mail.</p>\n</details>\n";
  out += "<h3>Whole workload</h3>\n";
  html::workload_table(out, d, an.rows);
  out += "</section>\n";
}

void warnings(std::string& out, const Diff& d) {
  out += "<section id=\"warnings\">\n<h2>Warnings</h2>\n";
  if (d.warnings.empty()) {
    out += "<p class=\"note\">None: the runs passed every validity check.</p>\n</section>\n";
    return;
  }
  out += "<ul class=\"warnings\">\n";
  for (const auto& w : d.warnings)
    fmt::format_to(std::back_inserter(out),
                   "<li class=\"warning\" data-kind=\"{}\"><b>{}</b>: {}</li>\n", escaped_lines(warning_name(w.kind)),
                   escaped_lines(warning_name(w.kind)), escaped_lines(w.message));
  out += "</ul>\n</section>\n";
}

void operations(std::string& out, const Diff& d, const Anchors& an) {
  out += "<section id=\"operations\">\n<h2>Operations</h2>\n";
  if (d.ops.empty()) out += "<p class=\"note\">No operation was recorded in both A and B.</p>\n";
  for (std::size_t i = 0; i < d.ops.size(); ++i)
    html::op_block(out, d, d.ops[i], an.rows.ops[i], set_of(an.graphs, d.ops[i].op));
  out += "</section>\n";
}

void locks(std::string& out, const Diff& d, const Anchors& an) {
  out +=
      "<section id=\"locks\">\n<h2>Lock contention</h2>\n<p class=\"note\">Per operation and "
      "lock (locks named by role, docs/LOCKS.md); the statistics columns are the lock's wait "
      "per operation, contention begin to end.</p>\n";
  html::lock_table(out, d, an.rows);
  out += "</section>\n";
}

void graphs(std::string& out, const std::vector<GraphSet>& sets) {
  out +=
      "<section id=\"graphs\">\n<h2>Differential flame graphs</h2>\n<p class=\"note\">Mean "
      "stacks per operation over each side's runs, in ns per operation. Width: B; red: more in "
      "B, blue: less; grey: the change is not significant; hatched: on one side only. Click to "
      "zoom, Search to highlight.</p>\n";
  if (sets.empty()) out += "<p class=\"note\">No stacks in A or B.</p>\n";
  html::graph_panels(out, sets);
  out += "</section>\n";
}

void page_head(std::string& out, std::string_view title) {
  fmt::format_to(std::back_inserter(out),
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"fscost {}\">\n<title>{}</title>\n<style>\n",
                 FSCOST_VERSION, escaped_lines(title));
  out += html::kReportCss;
  out += "</style>\n</head>\n<body>\n";
}

}  // namespace

std::string render_diff_html(const Diff& d, const RunSet& a, const RunSet& b,
                             const DiffHtmlOptions& opt) {
  std::string title =
      opt.title.empty() ? fmt::format("fscost diff: {} vs {}", d.label_a, d.label_b) : opt.title;
  Anchors an;
  an.ids = {"summary", "verdict", "warnings", "operations", "locks", "graphs"};
  for (const auto& s : opt.sections) an.ids.insert(s.id);  // the caller's own, kept as given
  an.rows = html::row_ids(d, an.ids);
  an.graphs = html::diff_graph_sets(d, a, b, opt, an.ids);
  std::string out;
  out.reserve(1 << 16);
  page_head(out, title);
  toc(out, d, an, opt);
  out += "<main class=\"diff\">\n";
  summary(out, d, a, b, title, an);
  warnings(out, d);
  operations(out, d, an);
  locks(out, d, an);
  graphs(out, an.graphs);
  for (const auto& s : opt.sections)
    fmt::format_to(std::back_inserter(out), "<section id=\"{}\">\n<h2>{}</h2>\n{}\n</section>\n",
                   escaped_lines(s.id), escaped_lines(s.title), s.html);
  out += "</main>\n<script>\n";
  out += html::kReportJs;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

Status write_diff_outputs(const Diff& d, const RunSet& a, const RunSet& b, const std::string& dir,
                          const DiffHtmlOptions& opt, const DiffJsonOptions& json_opt) {
  // Made, or taken only if this user's (and private, as root), then held:
  // every file is written through the descriptor, none through a path a
  // user's symlink could re-point (file_io.h, claim_output_dir).
  auto out = claim_output_dir(dir);
  if (!out) return out.error();
  // The page (its graphs drawn in parallel already) beside the JSON and
  // the text: each reads the diff only.
  std::string text[4];
  parallel_for(2, [&](std::size_t i) {
    if (i == 0) {
      text[3] = render_diff_html(d, a, b, opt);
      return;
    }
    text[0] = render_diff_summary(d);
    text[1] = render_diff_text(d);
    text[2] = diff_json_text(d);
  });
  const char* names[4] = {"summary.txt", "tables.txt", "summary.json", "report.html"};
  for (std::size_t i = 0; i < 4; ++i) {
    Status s = write_file_atomic(text[i], out.value(), names[i]);
    if (!s) return s;
  }
  if (json_opt.all_functions)
    return write_file_atomic(diff_functions_json_text(d), out.value(), "functions.json");
  return std::monostate{};
}

}  // namespace fscost
