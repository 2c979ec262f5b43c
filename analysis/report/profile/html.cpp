// The HTML report: the page, its sections and the table of contents; the
// graphs come from report/html/graphs.cpp. Every string from the profile is escaped
// here; the SVGs come escaped from render_svg. Written by hand (no template
// engine): the page is a few fixed sections, and a dependency would not make
// the escaping any safer.
#include "report/html_report.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "model/drops.h"
#include "model/escape.h"
#include "report/html/assets.h"
#include "report/html/graphs.h"
#include "views/lock_names.h"
#include "views/lock_view.h"  // locks_recorded
#include "report/report.h"
#include "views/report_view.h"
#include "model/units.h"

namespace fscost {

namespace {

using html::GraphSet;
using html::set_of;

// The character reference for &, <, >, " and ', "" for any other byte.
std::string_view reference(char ch) {
  switch (ch) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    default:
      return {};
  }
}

// Control characters but tab and newline become U+FFFD, C1 ones too
// (U+0080..U+009F, or a byte 0x80..0x9F outside UTF-8: `html -o -` may
// print to a terminal). Other bytes >= 0x80 pass: the page is UTF-8, and a
// browser shows an invalid sequence as U+FFFD without swallowing the ASCII
// after it.
void append_html(std::string& out, std::string_view s) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  for (std::size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      std::size_t len = valid_utf8(s, i);
      bool c1 = len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
      if (c1 || (len == 0 && c <= 0x9F)) {
        out += kReplacement;
        i += c1 ? 1 : 0;
      } else {
        out.append(s.substr(i, std::max<std::size_t>(len, 1)));
        i += len > 0 ? len - 1 : 0;
      }
    } else if (auto ref = reference(ch); !ref.empty()) {
      out += ref;
    } else if ((c < 0x20 && ch != '\t' && ch != '\n') || c == 0x7f) {
      out += kReplacement;
    } else {
      out += ch;
    }
  }
}

std::string esc(std::string_view s) {
  std::string out;
  append_html(out, s);
  return out;
}

void toc(std::string& out, const std::vector<GraphSet>& sets) {
  out +=
      "<nav class=\"toc\" aria-label=\"Contents\"><div class=\"brand\">fscost report</div>\n<ul>\n"
      "<li><a href=\"#run\">Run</a></li>\n<li><a href=\"#operations\">Operations</a></li>\n"
      "<li><a href=\"#graphs\">Flame graphs</a>\n<ul>\n";
  for (const auto& s : sets) {
    fmt::format_to(std::back_inserter(out), "<li><a href=\"#{}\">{}</a><ul>", s.id, esc(s.heading));
    for (const auto& g : s.graphs)
      fmt::format_to(std::back_inserter(out), "<li><a href=\"#{}\">{}</a></li>", g.id,
                     view_title(g.view));
    out += "</ul></li>\n";
  }
  out +=
      "</ul></li>\n<li><a href=\"#locks\">Locks</a></li>\n<li><a href=\"#drops\">Drops</a></li>\n"
      "</ul></nav>\n";
}

void meta_row(std::string& out, std::string_view term, std::string_view value) {
  fmt::format_to(std::back_inserter(out), "<dt>{}</dt><dd>{}</dd>\n", term, esc(value));
}

std::string start_time(std::int64_t unix_ns) {
  if (unix_ns <= 0) return "-";
  auto t = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(t));
}

void run_section(std::string& out, const Profile& p, const HtmlOptions& opt,
                 std::string_view title) {
  const Metadata& m = p.meta;
  fmt::format_to(std::back_inserter(out), "<section id=\"run\">\n<h1>{}</h1>\n", esc(title));
  if (!opt.source.empty())
    fmt::format_to(std::back_inserter(out), "<p class=\"source\">{}</p>\n", esc(opt.source));
  out += "<dl class=\"meta\">\n";
  meta_row(out, "Command", m.command);
  meta_row(out, "Target", m.target);
  meta_row(out, "Host", machine_summary(m));
  meta_row(out, "Started", start_time(m.start_unix_ns));
  meta_row(out, "Duration", seconds(m.duration_ns));
  meta_row(out, "Sampling",
           fmt::format("{} Hz per CPU, {} samples in all", m.freq_hz, p.samples_total));
  std::string probes;
  for (const auto& pr : m.probes) probes += (probes.empty() ? "" : ", ") + pr;
  meta_row(out, "Probes", probes.empty() ? "none recorded" : probes);
  const Rusage& r = p.rusage;
  meta_row(out, "Rusage",
           r.valid ? fmt::format("user {}, sys {}, wall {}", seconds(r.user_ns), seconds(r.sys_ns),
                                 seconds(r.wall_ns))
                   : "not available");
  meta_row(out, "Recorded by", "fscost " + m.fscost_version);
  out += "</dl>\n</section>\n";
}

struct Row {
  std::vector<std::string> cells;  // escaped here
  std::string_view text;           // 't' at i: cell i is left-aligned text, else a number
  std::string_view tag = "td";
  std::string_view cls;
  std::string markup;  // a last cell's markup, already escaped
};

void row(std::string& out, const Row& r) {
  out += r.cls.empty() ? "<tr>" : fmt::format("<tr class=\"{}\">", r.cls);
  for (std::size_t i = 0; i < r.cells.size(); ++i)
    fmt::format_to(std::back_inserter(out), "<{0}{1}>{2}</{0}>", r.tag,
                   i < r.text.size() && r.text[i] == 't' ? " class=\"text\"" : "", esc(r.cells[i]));
  out += r.markup + "</tr>\n";
}

std::string graph_links(const GraphSet* s) {
  if (!s) return "-";
  std::string links;
  for (const auto& g : s->graphs)
    links +=
        fmt::format("{}<a href=\"#{}\">{}</a>", links.empty() ? "" : " ", g.id, view_title(g.view));
  return links;
}

void ops_section(std::string& out, const Profile& p, const ReportView& v,
                 const std::vector<GraphSet>& sets) {
  out += "<section id=\"operations\">\n<h2>Operations</h2>\n";
  if (v.rows.empty()) {
    out += "<p class=\"note\">No operations in this profile.</p>\n</section>\n";
    return;
  }
  out += "<table class=\"ops\">\n";
  row(out, {{"operation", "count", "errors", "ops/s", "on-CPU µs/op", "off-CPU µs/op", "wall µs/op",
             "% sys", "samples"},
            "t",
            "th",
            "",
            "<th class=\"text\">graphs</th>"});
  for (const auto& r : v.rows) {
    const OpStats& o = r.stats;
    row(out, {{o.name, std::to_string(o.count), std::to_string(o.errors),
               fixed1(ops_per_sec(o, p.meta)), us_per_op(o.oncpu_ns, o.count),
               us_per_op(o.offcpu_ns, o.count), us_per_op(o.wall_ns, o.count),
               percent_or_dash(sys_share(o, p.rusage)), std::to_string(r.samples)},
              "t",
              "td",
              "",
              "<td class=\"text\">" + graph_links(set_of(sets, o.name)) + "</td>"});
  }
  out += "</table>\n";
  const Consistency& c = v.consistency;
  if (c.ratio && c.rusage_sys_ns)
    fmt::format_to(std::back_inserter(out),
                   "<p class=\"note\">Per-operation on-CPU sum {} = {} of rusage sys {}{}.</p>\n",
                   seconds(c.oncpu_ns_sum), percent(*c.ratio), seconds(*c.rusage_sys_ns),
                   c.ratio_with_syscall_path && c.syscall_path_samples > 0
                       ? fmt::format("; {} with the syscall entry/exit path outside the "
                                     "timestamps, where fscost's probes run ({} samples)",
                                     percent(*c.ratio_with_syscall_path),
                                     c.syscall_path_samples)
                       : std::string());
  out += "</section>\n";
}

// Which graphs were pruned harder than asked, to stay within max_bytes.
std::string pruning_note(const std::vector<GraphSet>& sets, const HtmlOptions& opt) {
  std::size_t harder = 0;
  std::size_t all = 0;
  double widest = 0;
  for (const auto& s : sets)
    for (const auto& g : s.graphs) {
      ++all;
      harder += g.min_width_px > opt.min_width_px;
      widest = std::max(widest, g.min_width_px);
    }
  if (harder == 0) return {};
  return fmt::format(
      "<p class=\"note\">{} of {} graphs prune frames narrower than up to {} px instead of {} px, "
      "to keep the page near {:.1f} MiB (<code>fscost html --max-size</code>); each graph's "
      "header says how much it left out.</p>\n",
      harder, all, widest, opt.min_width_px, static_cast<double>(opt.max_bytes) / (1 << 20));
}

void graph_sections(std::string& out, const std::vector<GraphSet>& sets, const HtmlOptions& opt) {
  out +=
      "<section id=\"graphs\">\n<h2>Flame graphs</h2>\n<p class=\"note\">Totals over the run: "
      "samples on CPU, nanoseconds off CPU and waiting for locks. Click a frame to zoom, "
      "Search to highlight frames by regular expression.</p>\n";
  out += pruning_note(sets, opt);
  if (sets.empty()) out += "<p class=\"note\">No stacks in this profile.</p>\n";
  html::graph_panels(out, sets);
  out += "</section>\n";
}

std::string who(const LockRow& r) {
  switch (r.kind) {
    case SampleKind::Op:
      return r.bucket;
    case SampleKind::Kthread:
      return "[kthread:" + r.bucket + "]";
    case SampleKind::Kernel:
      return "[kernel]";
    case SampleKind::User:
      break;
  }
  return "[user]";
}

std::string ms3(std::uint64_t ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string us1(std::uint64_t ns) { return fmt::format("{:.1f}", ns / 1e3); }

void locks_section(std::string& out, const Profile& p) {
  out += "<section id=\"locks\">\n<h2>Lock contention</h2>\n";
  if (!locks_recorded(p)) {
    out += "<p class=\"note\">Lock contention was not recorded in this profile.</p>\n</section>\n";
    return;
  }
  if (p.locks.empty()) {
    out += "<p class=\"note\">lock:contention_begin/end were probed: no contended lock.</p>\n"
           "</section>\n";
    return;
  }
  std::map<std::string, std::uint64_t> counts;
  for (const auto& o : p.ops) counts[o.name] = o.count;
  out +=
      "<p class=\"note\">lock:contention_begin/end, locks named by role (docs/LOCKS.md); "
      "wait µs/op is per completed operation.</p>\n<table class=\"locks\">\n";
  row(out, {{"who", "lock", "type", "mode", "contentions", "wait ms", "wait µs/op", "max µs",
             "spin ms", "sleep ms", "addrs"},
            "tttt",
            "th"});
  for (const auto& r : lock_rows(p, std::nullopt)) {
    std::uint64_t n = r.kind == SampleKind::Op ? counts[r.bucket] : 0;
    row(out, {{who(r), r.name, r.type, lock_mode(r.spin_ns, r.sleep_ns), std::to_string(r.count),
               ms3(r.total_ns), us_per_op(r.total_ns, n), us1(r.max_ns), ms3(r.spin_ns),
               ms3(r.sleep_ns), std::to_string(r.addresses)},
              "tttt"});
  }
  out += "</table>\n</section>\n";
}

void drops_section(std::string& out, const Profile& p) {
  out += "<section id=\"drops\">\n<h2>Drops</h2>\n";
  if (p.drops.empty()) {
    out += "<p class=\"note\">The profile lists no drop counters.</p>\n</section>\n";
    return;
  }
  auto lost =
      std::count_if(p.drops.begin(), p.drops.end(), [](const auto& d) { return d.second > 0; });
  fmt::format_to(std::back_inserter(out), "<p class=\"note\">{} of {} counters non-zero{}.</p>\n",
                 lost, p.drops.size(), lost ? ": data was lost, see the hints" : ": nothing lost");
  out += "<table class=\"drops\">\n";
  row(out, {{"counter", "count", "what was lost", "hint"}, "tntt", "th"});
  for (const auto& [name, count] : p.drops) {
    DropCounter d = describe_drop(name);
    row(out, {{name, std::to_string(count), std::string(d.description), std::string(d.hint)},
              "tntt",
              "td",
              count > 0 ? "nonzero" : ""});
  }
  out += "</table>\n</section>\n";
}

void page_head(std::string& out, std::string_view title, const Metadata& m) {
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  fmt::format_to(std::back_inserter(out),
                 "<meta name=\"generator\" content=\"fscost {}\">\n"
                 "<title>{}</title>\n<style>\n",
                 esc(m.fscost_version), esc(title));
  out += html::kReportCss;
  out += "</style>\n</head>\n<body>\n";
}

}  // namespace

std::string render_html_report(const Profile& p, const HtmlOptions& opt) {
  std::string title = opt.title.empty() ? "fscost report: " + p.meta.command : opt.title;
  ReportView view = build_report_view(p, ReportOptions{});
  std::set<std::string> ids = {"run", "operations", "graphs", "locks", "drops"};
  std::vector<std::string> ops;
  for (const auto& r : view.rows) ops.push_back(r.stats.name);
  std::vector<GraphSet> sets = html::graph_sets(p, opt, ops, ids);
  std::string out;
  out.reserve(65536);
  page_head(out, title, p.meta);
  toc(out, sets);
  out += "<main>\n";
  run_section(out, p, opt, title);
  ops_section(out, p, view, sets);
  graph_sections(out, sets, opt);
  locks_section(out, p);
  drops_section(out, p);
  out += "</main>\n<script>\n";
  out += html::kReportJs;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace fscost
